// Acquires that wait in the service (`waitMs`) on the edge hosts, in real workerd (the wait held in
// the lock's Durable Object, woken by the object's own commits) and real Deno (woken by its own
// commits and Deno KV's watch): granted in their one request when the holder releases or its lease
// runs out, with the next token; answered "held" exactly as today when the wait ends; and tokens
// strictly increasing with grants never overlapping under contention.

import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { hostFixture, sleep } from "./hosts.mjs";
import { acquire, put, release, wantedHosts } from "./client.mjs";

/** A promise with a `settled` flag, so a test can say it had no answer yet. */
function tracked(promise) {
  const t = { settled: false };
  t.promise = promise.finally(() => (t.settled = true));
  return t;
}

for (const name of wantedHosts()) {
  describe(`${name}: waiting acquires`, () => {
    const host = hostFixture(name);

    test("a waiting acquire is granted in its one request when the holder releases", async () => {
      const b = host.server.base;
      const a = await acquire(b, "wait-release", 30_000);
      assert.equal(a.status, 200, a.text);
      const w = tracked(acquire(b, "wait-release", 30_000, { waitMs: 20_000 }));
      // Time for the request to arrive and start waiting; unanswered, it has not been refused.
      await sleep(500);
      assert.equal(w.settled, false);
      assert.equal((await release(b, "wait-release", a.json)).status, 200);
      const r = await w.promise;
      assert.equal(r.status, 200, r.text);
      assert.equal(BigInt(r.json.token), BigInt(a.json.token) + 1n);
      assert.equal((await release(b, "wait-release", r.json)).status, 200);
    });

    test("a waiting acquire is granted when the holder's lease runs out", async () => {
      const b = host.server.base;
      const a = await acquire(b, "wait-expiry", 600);
      const r = await acquire(b, "wait-expiry", 30_000, { waitMs: 10_000 });
      assert.equal(r.status, 200, r.text);
      assert.equal(BigInt(r.json.token), BigInt(a.json.token) + 1n);
      assert.ok(r.json.expiresAt - 30_000 >= a.json.expiresAt, "granted before the first lease ran out");
    });

    test("a wait that ends is answered as an acquire that did not wait", async () => {
      const b = host.server.base;
      const a = await acquire(b, "wait-held", 30_000);
      const now = await acquire(b, "wait-held", 30_000);
      const waited = await acquire(b, "wait-held", 30_000, { waitMs: 300 });
      assert.deepEqual([now.status, now.json], [409, { error: "held", until: a.json.expiresAt }]);
      assert.deepEqual([waited.status, waited.json], [409, { error: "held", until: a.json.expiresAt }]);
      assert.equal((await release(b, "wait-held", a.json)).status, 200);
    });

    test("6 waiting clients on one lock: tokens strictly increase, grants never overlap, every write lands", async () => {
      const b = host.server.base;
      const grants = [];
      const end = Date.now() + 3000;
      const client = async (i) => {
        while (Date.now() < end) {
          const a = await acquire(b, "wait-contended", 5000, { waitMs: 1000 });
          if (a.status === 409) continue;
          assert.equal(a.status, 200, a.text);
          const g = { token: BigInt(a.json.token), start: a.json.expiresAt - 5000 };
          assert.equal((await put(b, "wait-contended", a.json.header, `client ${i}`)).status, 200);
          g.end = Date.now();
          assert.equal((await release(b, "wait-contended", a.json)).status, 200);
          grants.push(g);
        }
      };
      await Promise.all(Array.from({ length: 6 }, (_, i) => client(i)));
      grants.sort((x, y) => (x.token < y.token ? -1 : 1));
      assert.ok(grants.length >= 20, `only ${grants.length} grants in 3 s`);
      for (let i = 1; i < grants.length; i++) {
        assert.ok(grants[i - 1].token < grants[i].token, `token ${grants[i].token} granted twice`);
        assert.ok(grants[i].start >= grants[i - 1].end, `token ${grants[i].token} granted while ${grants[i - 1].token} was live`);
      }
    });
  });
}
