// The lease service's hosts as the edge tests use them: one host per `describe` (node:test hooks),
// and reaching into the store behind a stopped host. Starting and stopping a host is in
// tests/lease-service/host.mjs, shared with the packaging fixtures.
//
// Needs WORKERD_BIN and DENO_BIN (paths to the runtimes).

import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before } from "node:test";
import { freePort, start } from "../lease-service/host.mjs";

export { DEV_KEYS, ROOT, freePort, sleep, start } from "../lease-service/host.mjs";

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

/** How many locks' state a stopped host still stores. */
export async function storedLocks(name, dir) {
  if (name === "workerd") {
    // One SQLite file per Durable Object that ever had storage, named by a hash of the lock's
    // name; deleting an object's state (deleteAll) keeps the file but leaves no key-value rows.
    const d = JSON.stringify(join(dir, "fencepost-locks"));
    const out = await denoEval(
      `import { DatabaseSync } from "node:sqlite";
       import { existsSync, readdirSync } from "node:fs";
       let n = 0;
       for (const f of existsSync(${d}) ? readdirSync(${d}).filter((f) => f.endsWith(".sqlite")) : []) {
         const db = new DatabaseSync(${d} + "/" + f, { readOnly: true });
         const kv = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_cf_KV'").get();
         if (kv && db.prepare("SELECT count(*) AS c FROM _cf_KV").get().c > 0) n++;
         db.close();
       }
       console.log(n);`,
    );
    return Number(out.trim());
  }
  const kv = JSON.stringify(join(dir, "kv.sqlite3"));
  const out = await denoEval(`const kv = await Deno.openKv(${kv}); let n = 0; for await (const _ of kv.list({ prefix: ["lock"] })) n++; console.log(n); kv.close();`);
  return Number(out.trim());
}
