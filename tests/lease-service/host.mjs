// Starting and stopping the two hosts of the lease service (real workerd with Durable Objects on
// local disk, real Deno with KV in a local file), each with the settings a test gives it. Servers
// listen on 127.0.0.1 on a free port and are always stopped.
//
// Needs WORKERD_BIN and DENO_BIN (paths to the runtimes).

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, before } from "node:test";

export const ROOT = resolve(import.meta.dirname, "../..");
const CAPNP = join(ROOT, "examples/cloudflare/workerd.capnp");

/** The development key of the committed configs (workerd.capnp, the Deno task). */
export const DEV_KEYS = "1:dev-only-key-never-deploy-this-0000";

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export function freePort() {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.once("error", fail);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => ok(port));
    });
  });
}

/** The settings a host is started with, as environment variables (undefined: not set). */
function settingsEnv(settings) {
  const env = {
    FENCEPOST_KEYS: settings.keys === undefined ? DEV_KEYS : settings.keys,
    FENCEPOST_MAX_TTL_MS: settings.maxTtlMs === undefined ? undefined : String(settings.maxTtlMs),
    FENCEPOST_IDLE_KEEP_MS: settings.idleKeepMs === undefined ? undefined : String(settings.idleKeepMs),
    FENCEPOST_WRITE_LOG: settings.writeLog ? "1" : undefined,
    FENCEPOST_CORS_ORIGINS: settings.corsOrigins,
  };
  return Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== null));
}

let configs = 0;

/**
 * The committed workerd.capnp with its settings bindings replaced by `settings`, written beside it
 * (its modules are embedded by paths relative to it); the caller removes it.
 */
function workerdConfig(settings) {
  const text = readFileSync(CAPNP, "utf8");
  const committed = /\n    \(name = "FENCEPOST_[A-Z_]+", text = "[^"]*"\),/g;
  assert.ok(committed.test(text), "workerd.capnp binds FENCEPOST_KEYS as text");
  const lines = Object.entries(settingsEnv(settings)).map(([k, v]) => `\n    (name = ${JSON.stringify(k)}, text = ${JSON.stringify(v)}),`);
  const path = join(ROOT, `examples/cloudflare/.edge-test-${process.pid}-${configs++}.capnp`);
  writeFileSync(path, text.replace(committed, "").replace(/\n  \],\n\);\s*$/, `${lines.join("")}\n  ],\n);\n`));
  return path;
}

const RUNTIMES = {
  workerd: (port, dir, settings) => {
    const config = workerdConfig(settings);
    return {
      bin: process.env.WORKERD_BIN,
      args: ["serve", config, "--socket-addr", `http=127.0.0.1:${port}`, "--directory-path", `do-storage=${dir}`],
      env: {},
      cleanup: () => rmSync(config, { force: true }),
    };
  },
  deno: (port, dir, settings) => ({
    bin: process.env.DENO_BIN,
    args: [
      "run",
      "--quiet",
      "--unstable-kv",
      "--no-prompt",
      `--allow-net=127.0.0.1:${port}`,
      `--allow-read=${ROOT}/npm,${ROOT}/examples,${dir}`,
      `--allow-write=${dir}`,
      "--allow-env=PORT,HOST,KV_PATH,FENCEPOST_KEYS,FENCEPOST_MAX_TTL_MS,FENCEPOST_IDLE_KEEP_MS,FENCEPOST_WRITE_LOG,FENCEPOST_CORS_ORIGINS",
      "--config",
      join(ROOT, "examples/deno/deno.json"),
      join(ROOT, "examples/deno/main.ts"),
    ],
    env: { PORT: String(port), KV_PATH: join(dir, "kv.sqlite3"), DENO_NO_UPDATE_CHECK: "1", ...settingsEnv(settings) },
    cleanup: () => {},
  }),
};

const running = new Set();
process.on("exit", () => {
  for (const child of running) child.kill("SIGKILL");
});

/** The settings variables a host must not inherit from the test's own environment. */
function withoutSettings(env) {
  return Object.fromEntries(Object.entries(env).filter(([k]) => !k.startsWith("FENCEPOST_")));
}

/**
 * Starts host `name` on `port` with its storage in `dir` and waits until it answers HTTP. Returns
 * `{ base, log(), writes(), stop() }`: `writes()` is the write log it printed (JSON Lines).
 */
export async function start(name, port, dir, settings = {}) {
  const { bin, args, env, cleanup } = RUNTIMES[name](port, dir, settings);
  assert.ok(bin, `${name.toUpperCase()}_BIN is not set`);
  const child = spawn(bin, args, { env: { ...withoutSettings(process.env), ...env }, stdio: ["ignore", "pipe", "pipe"] });
  running.add(child);
  let out = "";
  let err = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (err += d));
  const exited = new Promise((r) => child.once("exit", r));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${name} exited early:\n${out}${err}`);
      try {
        // Any answer of the service (a 404 for a missing document, or the 503 of a service with
        // no key) says it listens.
        const r = await fetch(`${base}/docs/readiness-probe`);
        await r.arrayBuffer();
        if (r.status === 404 || r.status === 503) break;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) {
        child.kill("SIGKILL");
        throw new Error(`${name} did not answer within 30 s:\n${out}${err}`);
      }
      await sleep(100);
    }
  } finally {
    cleanup();
  }
  return {
    base,
    log: () => out + err,
    writes: () =>
      out
        .split("\n")
        .filter((l) => l.startsWith("fencepost-write "))
        .map((l) => l.slice("fencepost-write ".length)),
    async stop() {
      if (child.exitCode === null) {
        child.kill("SIGKILL");
        await exited;
      }
      running.delete(child);
    },
  };
}

/**
 * One host for the tests of a `describe`: started (unless `settings` is null) in a fresh storage
 * directory before them, stopped and its directory removed after them. `restart(settings)` stops
 * it and starts it again on the same port and storage.
 */
export function hostFixture(name, settings = {}) {
  const host = {
    dir: null,
    port: 0,
    server: null,
    async restart(again = settings) {
      await host.server?.stop();
      host.server = await start(name, host.port, host.dir, again ?? {});
      return host.server.base;
    },
  };
  before(async () => {
    host.dir = mkdtempSync(join(tmpdir(), `fencepost-${name}-`));
    host.port = await freePort();
    if (settings !== null) host.server = await start(name, host.port, host.dir, settings);
  });
  after(async () => {
    await host.server?.stop();
    rmSync(host.dir, { recursive: true, force: true });
  });
  return host;
}

/** Runs a Deno script (KV access to `dir`), for tests that reach into the store behind the service. */
export function denoEval(code) {
  return new Promise((ok, fail) => {
    const child = spawn(process.env.DENO_BIN, ["eval", "--unstable-kv", code], {
      env: { ...process.env, DENO_NO_UPDATE_CHECK: "1" },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.once("exit", (c) => (c === 0 ? ok(out) : fail(new Error(`deno eval exited ${c}`))));
  });
}

/**
 * Deletes the stored state of every lock of a stopped host (documents stay): what a lost key or a
 * new namespace does to the lock service.
 */
export async function wipeLocks(name, dir) {
  if (name === "workerd") {
    rmSync(join(dir, "fencepost-locks"), { recursive: true, force: true });
    return;
  }
  const kv = JSON.stringify(join(dir, "kv.sqlite3"));
  await denoEval(`const kv = await Deno.openKv(${kv}); for await (const e of kv.list({ prefix: ["lock"] })) await kv.delete(e.key); kv.close();`);
}

/** The names of the locks whose state a stopped host still stores. */
export async function storedLocks(name, dir) {
  if (name === "workerd") {
    // One SQLite file per Durable Object that has storage; names are hashed, so only the count.
    const { readdirSync, existsSync } = await import("node:fs");
    const d = join(dir, "fencepost-locks");
    return existsSync(d) ? readdirSync(d).filter((f) => f.endsWith(".sqlite")).length : 0;
  }
  const kv = JSON.stringify(join(dir, "kv.sqlite3"));
  const out = await denoEval(`const kv = await Deno.openKv(${kv}); let n = 0; for await (const _ of kv.list({ prefix: ["lock"] })) n++; console.log(n); kv.close();`);
  return Number(out.trim());
}
