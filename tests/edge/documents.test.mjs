// Documents in fencepost/store, in real workerd and real Deno: documents an earlier version of the
// service stored (a Durable Object's keys "highest" and "doc"; Deno KV's ["doc", key]) are moved
// into the fenced store with their marks, so a token below a moved mark is still refused; and a
// document Deno KV cannot hold is the client's 400, not a 500.
//
// Needs WORKERD_BIN and DENO_BIN; EDGE_RUNTIMES may list a subset ("workerd,deno").

import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { denoEval, freePort, hostFixture, sleep } from "./hosts.mjs";
import { acquire, getDoc, put, wantedHosts } from "./client.mjs";

const wanted = wantedHosts();

/** A mark above every token a lock created in the next hour issues (see loadAuthority in service.js). */
const HIGH = ((BigInt(Date.now()) + 3_600_000n) << 20n).toString();
/** Documents as the earlier version stored them: key, mark, text. */
const OLD = [
  ["old-low", "5", "written before the upgrade"],
  ["old-high", HIGH, "written with a high token before the upgrade"],
];

/**
 * A worker whose Durable Objects share the service's document namespace (its uniqueKey): a POST
 * writes a document the way the earlier version did, with the key-value API; a GET answers the
 * keys that API still holds for the document.
 */
const SEED_WORKER = `
export default {
  async fetch(request, env) {
    const key = new URL(request.url).searchParams.get("key");
    if (key === null) return new Response("ready");
    return env.DOCS.get(env.DOCS.idFromName(key)).fetch(request);
  },
};
export class DocObject {
  constructor(ctx) { this.ctx = ctx; }
  async fetch(request) {
    if (request.method === "GET") return Response.json([...(await this.ctx.storage.list()).keys()]);
    const { highest, data } = await request.json();
    await this.ctx.storage.put({ highest, doc: { data, token: highest } });
    return new Response("seeded");
  }
}
`;

/**
 * Runs the seeding worker on a stopped workerd host's storage `dir` while `work(base)` runs.
 */
async function withSeeder(dir, work) {
  writeFileSync(join(dir, "seed.js"), SEED_WORKER);
  writeFileSync(
    join(dir, "seed.capnp"),
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = .seed), (name = "do-storage", disk = (writable = true)) ],
  sockets = [ (name = "http", address = "127.0.0.1:0", http = (), service = "main") ],
);
const seed :Workerd.Worker = (
  modules = [ (name = "seed.js", esModule = embed "seed.js") ],
  compatibilityDate = "2025-01-01",
  durableObjectNamespaces = [ (className = "DocObject", uniqueKey = "fencepost-docs", enableSql = true) ],
  durableObjectStorage = (localDisk = "do-storage"),
  bindings = [ (name = "DOCS", durableObjectNamespace = "DocObject") ],
);
`,
  );
  const port = await freePort();
  const args = ["serve", join(dir, "seed.capnp"), "--socket-addr", `http=127.0.0.1:${port}`, "--directory-path", `do-storage=${dir}`];
  const seeder = spawn(process.env.WORKERD_BIN, args, { stdio: "inherit" });
  const exited = new Promise((r) => seeder.once("exit", r));
  const base = `http://127.0.0.1:${port}`;
  try {
    const deadline = Date.now() + 30_000;
    for (;;) {
      try {
        if ((await (await fetch(`${base}/`)).text()) === "ready") break;
      } catch {
        // not listening yet
      }
      assert.ok(Date.now() < deadline && seeder.exitCode === null, "the seeding workerd did not answer");
      await sleep(100);
    }
    return await work(base);
  } finally {
    seeder.kill("SIGKILL");
    await exited;
  }
}

/** Stores OLD in a stopped workerd host's storage `dir` as the earlier version did. */
function seedWorkerd(dir) {
  return withSeeder(dir, async (base) => {
    for (const [key, highest, data] of OLD) {
      const r = await fetch(`${base}/?key=${key}`, { method: "POST", body: JSON.stringify({ highest, data }) });
      assert.equal(await r.text(), "seeded");
    }
  });
}

/** The keys the key-value API still holds for each document of OLD, in a stopped workerd host. */
function oldKeysWorkerd(dir) {
  return withSeeder(dir, async (base) => {
    const left = {};
    for (const [key] of OLD) left[key] = await (await fetch(`${base}/?key=${key}`)).json();
    return left;
  });
}

const kvOf = (dir) => JSON.stringify(join(dir, "kv.sqlite3"));

/** Stores OLD in a stopped Deno host's KV file as the earlier version did. */
async function seedDeno(dir) {
  const docs = JSON.stringify(OLD);
  await denoEval(
    `const kv = await Deno.openKv(${kvOf(dir)});
     for (const [key, highest, data] of ${docs}) {
       await kv.set(["doc", key], { highest, token: highest, data: new TextEncoder().encode(data) });
     }
     kv.close();`,
  );
}

for (const name of wanted) {
  describe(`${name}: documents of an earlier version`, () => {
    const host = hostFixture(name, null);

    test("are moved into the store with their marks: readable, and a token below a mark is refused", async () => {
      await (name === "workerd" ? seedWorkerd : seedDeno)(host.dir);
      const b = await host.restart({});
      // Read before any write: the document and its token as they were.
      assert.deepEqual((await getDoc(b, "old-low")).json, { data: OLD[0][2], token: "5" });
      const low = await acquire(b, "old-low", 60_000);
      assert.equal(low.status, 200, low.text);
      const w = await put(b, "old-low", low.json.header, "after the upgrade");
      assert.equal(w.status, 200, w.text);
      assert.deepEqual(w.json, { token: low.json.token, highest: low.json.token });
      assert.deepEqual((await getDoc(b, "old-low")).json, { data: "after the upgrade", token: low.json.token });
      // Written before any read: the moved mark refuses the fresh lock's lower token.
      const high = await acquire(b, "old-high", 60_000);
      assert.equal(high.status, 200, high.text);
      assert.ok(BigInt(high.json.token) < BigInt(HIGH));
      const stale = await put(b, "old-high", high.json.header, "a lower token");
      assert.equal(stale.status, 409, stale.text);
      assert.deepEqual(stale.json, { presented: high.json.token, highest: HIGH });
      assert.deepEqual((await getDoc(b, "old-high")).json, { data: OLD[1][2], token: HIGH });
    });

    test("are moved once: after a restart the store answers, and the old entries are gone", async () => {
      const b = await host.restart({});
      assert.deepEqual((await getDoc(b, "old-high")).json, { data: OLD[1][2], token: HIGH });
      const again = await acquire(b, "old-high", 60_000);
      assert.equal(again.status, 409, again.text);
      assert.equal(again.json.error, "held");
      assert.equal((await getDoc(b, "old-low")).json.data, "after the upgrade");
      if (name === "deno") {
        const left = await denoEval(`const kv = await Deno.openKv(${kvOf(host.dir)}); let n = 0; for await (const _ of kv.list({ prefix: ["doc"] })) n++; console.log(n); kv.close();`);
        assert.equal(left.trim(), "0");
      } else {
        await host.server.stop();
        assert.deepEqual(await oldKeysWorkerd(host.dir), { "old-low": [], "old-high": [] });
      }
    });
  });
}

if (wanted.includes("deno")) {
  describe("deno: documents Deno KV cannot hold", () => {
    const host = hostFixture("deno");

    test("a text that KV would store above 64 KiB gets 400, and the document is unchanged", async () => {
      const b = host.server.base;
      const lease = await acquire(b, "wide", 60_000);
      assert.equal(lease.status, 200, lease.text);
      const { header, token } = lease.json;
      assert.equal((await put(b, "wide", header, "small")).status, 200);
      // 40 003 bytes of UTF-8, under the body limit; as JSON text, two bytes a character.
      const r = await put(b, "wide", header, "x".repeat(40_000) + "€");
      assert.equal(r.status, 400, r.text);
      assert.match(r.json.error, /^document is larger than Deno KV holds/);
      assert.deepEqual((await getDoc(b, "wide")).json, { data: "small", token });
    });
  });
}
