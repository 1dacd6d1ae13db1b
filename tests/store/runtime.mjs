// Starting and stopping the runtimes the store tests drive over HTTP (workerd, Deno) on a free
// port of 127.0.0.1, and a store object that forwards to one: tokens travel as "<digits>n"
// strings, thrown errors as their name and message (thrown again here as the same class).

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { freePort } from "./ports.mjs";

export { freePort };

const running = new Set();
process.on("exit", () => {
  for (const child of running) child.kill("SIGKILL");
});

/** Starts `bin args` and waits until http://127.0.0.1:port answers; `stop()` kills it (SIGKILL). */
export async function start(bin, args, port, env = {}) {
  const child = spawn(bin, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  running.add(child);
  let log = "";
  child.stdout.on("data", (d) => (log += d));
  child.stderr.on("data", (d) => (log += d));
  const exited = new Promise((r) => child.once("exit", r));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${bin} exited early:\n${log}`);
    try {
      await fetch(`${base}/ready`);
      break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`${bin} did not answer within 30 s:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    base,
    log: () => log,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGKILL");
        await exited;
      }
      running.delete(child);
    },
  };
}

export const encode = (v) => JSON.stringify(v, (_, x) => (typeof x === "bigint" ? `${x}n` : x));
export const decode = (text) => JSON.parse(text, (_, x) => (typeof x === "string" && /^[0-9]+n$/.test(x) ? BigInt(x.slice(0, -1)) : x));

const ERRORS = { TypeError, RangeError };

/** POSTs `body` to `path` of store `object`; a 400 is thrown again as the error it reports. */
export async function post(base, object, path, body) {
  const r = await fetch(`${base}${path}?object=${encodeURIComponent(object)}`, { method: "POST", body: encode(body) });
  const v = decode(await r.text());
  if (r.status === 400) {
    const error = new (ERRORS[v.error] ?? Error)(v.message);
    if (!(v.error in ERRORS)) error.name = v.error;
    throw error;
  }
  assert.equal(r.status, 200, encode(v));
  return v;
}

/** A store in a runtime, used as if it were here. */
export function remote(base, object) {
  return {
    async write(key, token, value, options) {
      return (await post(base, object, "/write", { key, token, value, options })).result;
    },
    read: (key) => post(base, object, "/read", { key }),
  };
}
