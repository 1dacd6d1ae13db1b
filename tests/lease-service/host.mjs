// Starting and stopping the two hosts of the lease service (real workerd with Durable Objects on
// local disk, real Deno with KV in a local file), each with the settings a test gives it. Servers
// listen on 127.0.0.1 on a free port and are always stopped. Used by the edge tests (tests/edge)
// and, through with-service.mjs, by the packaging fixtures that hold leases from the tarball.
//
// Needs WORKERD_BIN and DENO_BIN (paths to the runtimes).

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

export const ROOT = resolve(import.meta.dirname, "../..");
const CAPNP = join(ROOT, "examples/cloudflare/workerd.capnp");

/** The development key of the committed configs (workerd.capnp, the Deno task). */
export const DEV_KEYS = "1:dev-only-key-never-deploy-this-0000";

export { freePort } from "./ports.mjs";

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));


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
 * The committed workerd.capnp with its settings bindings replaced by `settings` in each of its
 * workers (the front and the objects' own), written beside it (its modules are embedded by paths
 * relative to it); the caller removes it.
 */
function workerdConfig(settings) {
  const text = readFileSync(CAPNP, "utf8");
  const committed = /\n    \(name = "FENCEPOST_[A-Z_]+", text = "[^"]*"\),/g;
  assert.equal(text.match(committed)?.length, 4, "workerd.capnp binds FENCEPOST_KEYS and FENCEPOST_MAX_TTL_MS as text in both workers");
  const lines = Object.entries(settingsEnv(settings)).map(([k, v]) => `\n    (name = ${JSON.stringify(k)}, text = ${JSON.stringify(v)}),`);
  const ends = /\n  \],\n\);/g;
  assert.equal(text.match(ends)?.length, 2, "workerd.capnp has two workers whose bindings end the config");
  const path = join(ROOT, `examples/cloudflare/.edge-test-${process.pid}-${configs++}.capnp`);
  writeFileSync(path, text.replace(committed, "").replace(ends, `${lines.join("")}\n  ],\n);`));
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
