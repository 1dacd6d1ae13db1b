// Service instances for the tests: `fencepost serve` from the installed package (this fixture's
// node_modules/.bin), each a real Node process on a free port of 127.0.0.1, over the etcd cluster
// or the Postgres server xtask started. Every instance prints its document writes (the write
// log); an instance is stopped with SIGKILL when a test is done with it, or when this process exits.

import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const BIN = join(import.meta.dirname, "node_modules/.bin/fencepost");
/** The development key the example configs use; every instance of a test shares it. */
export const KEYS = "1:dev-only-key-never-deploy-this-0000";

import { freePort } from "./ports.mjs";

export { freePort };

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Postgres of `cargo xtask test-service`, as a connection URL over its unix socket. */
export function postgresUrl() {
  assert.ok(process.env.PGHOST, "PGHOST (the test Postgres's socket directory) is not set");
  return `postgresql://postgres@localhost/postgres?host=${encodeURIComponent(process.env.PGHOST)}`;
}

export function etcdEndpoints() {
  assert.ok(process.env.ETCD_ENDPOINTS, "ETCD_ENDPOINTS is not set: run with cargo xtask test-service");
  return process.env.ETCD_ENDPOINTS;
}


const running = new Set();
process.on("exit", () => {
  for (const child of running) child.kill("SIGKILL");
});

/** A scratch directory, removed by the returned function. */
export function scratch() {
  const dir = mkdtempSync(join(tmpdir(), "fencepost-service-"));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Starts `fencepost serve` with `args` (as on its command line, --port added) and the settings in
 * `env`; resolves once it says it listens. Answers `{ base, pid, writes(), log(), stop(signal) }`.
 */
export async function startInstance(args, env = {}) {
  const port = await freePort();
  const child = spawn(BIN, ["serve", ...args, "--port", String(port)], {
    env: { PATH: process.env.PATH, FENCEPOST_KEYS: KEYS, FENCEPOST_WRITE_LOG: "1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.add(child);
  let out = "";
  let err = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (err += d));
  const exited = new Promise((r) => child.once("exit", (code, signal) => r({ code, signal })));
  const deadline = Date.now() + 20_000;
  while (!out.includes("fencepost service listening on")) {
    if (child.exitCode !== null) throw new Error(`fencepost serve exited early:\n${out}${err}`);
    if (Date.now() > deadline) throw new Error(`fencepost serve did not listen within 20 s:\n${out}${err}`);
    await sleep(50);
  }
  return {
    base: `http://127.0.0.1:${port}`,
    pid: child.pid,
    exited,
    log: () => out + err,
    writes: () =>
      out
        .split("\n")
        .filter((l) => l.startsWith("fencepost-write "))
        .map((l) => l.slice("fencepost-write ".length)),
    async stop(signal = "SIGKILL") {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const how = await exited;
      running.delete(child);
      return how;
    },
  };
}

/**
 * Starts `count` instances of `fencepost serve` with `args` at once, as a deployment's would. If
 * any fails, those that started are stopped before the error is thrown, so that no instance is
 * left running (and holding the test process open) after a failed start.
 */
export async function startInstances(count, args) {
  const started = await Promise.allSettled(Array.from({ length: count }, () => startInstance(args)));
  const failed = started.find((s) => s.status === "rejected");
  if (failed === undefined) return started.map((s) => s.value);
  await Promise.all(started.filter((s) => s.status === "fulfilled").map((s) => s.value.stop()));
  throw failed.reason;
}

/** `fencepost check` of `lines` (a write log): its JSON summary. */
export function check(lines) {
  const bin = process.env.FENCEPOST_CLI;
  assert.ok(bin, "FENCEPOST_CLI (the fencepost CLI) is not set");
  const { dir, remove } = scratch();
  try {
    const log = join(dir, "writes.jsonl");
    writeFileSync(log, lines.map((l) => `${l}\n`).join(""));
    const out = execFileSync(bin, ["check", log, "--format", "json"], { encoding: "utf8" });
    return JSON.parse(out.trim().split("\n").at(-1)).summary;
  } finally {
    remove();
  }
}

/**
 * The write logs of `instances` merged into one timeline: by time, and within one millisecond by
 * token. Each instance prints a line once its store answered, so lines of different instances in
 * the same millisecond have no order of their own; the store admitted them in token order.
 */
export function mergedWrites(instances) {
  const parsed = instances.flatMap((i) => i.writes()).map((line) => ({ line, v: JSON.parse(line.replace(/"token":(\d+)/, '"token":"$1"')) }));
  parsed.sort((a, b) => a.v.t - b.v.t || (BigInt(a.v.token) < BigInt(b.v.token) ? -1 : BigInt(a.v.token) > BigInt(b.v.token) ? 1 : 0));
  return parsed.map((p) => p.line);
}
