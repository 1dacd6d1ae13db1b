// The fenced lease service over HTTP, in real workerd (Durable Objects on local disk) and real Deno
// (KV in a local file): the story, contention, malformed input, document limits and a restart of
// the runtime. Both runtimes get the same tests.
//
// Needs: WORKERD_BIN and DENO_BIN (paths to the runtimes); EDGE_RUNTIMES may list a subset
// ("workerd,deno"). Time is real: leases are a few hundred milliseconds long and the tests wait
// them out, so no clock in the service can be bent by a client.

import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { denoEval, hostFixture, sleep } from "./hosts.mjs";
import { acquire, call, getDoc, put, release, renew, wantedHosts } from "./client.mjs";

const SHORT_TTL = 400;
const wanted = wantedHosts();

for (const name of wanted) {
  describe(name, () => {
    const host = hostFixture(name);
    /** Every grant on the lock "story", to check the restart. */
    const story = [];

    test("the story: A's lease runs out, B writes with a higher token, A's stale write gets 409", async () => {
      const b = host.server.base;
      const a = await acquire(b, "story", SHORT_TTL);
      assert.equal(a.status, 200, a.text);
      const tA = a.json.token;
      assert.match(tA, /^[1-9][0-9]*$/);
      assert.match(a.json.leaseId, /^[0-9a-f]{32}$/);
      assert.equal(a.json.header, a.json.header.trim());
      assert.match(a.json.header, new RegExp(`^${tA}\\.1\\.[0-9a-f]{64}$`));
      story.push(a.json);
      // A refusal says until when, never by whom.
      const early = await acquire(b, "story", SHORT_TTL);
      assert.equal(early.status, 409, early.text);
      assert.deepEqual(early.json, { error: "held", until: a.json.expiresAt });
      await sleep(SHORT_TTL + 150); // A is "paused"; its lease runs out
      const bb = await acquire(b, "story", 60_000);
      assert.equal(bb.status, 200, bb.text);
      const tB = bb.json.token;
      story.push(bb.json);
      assert.ok(BigInt(tB) > BigInt(tA), `${tB} > ${tA}`);
      assert.notEqual(bb.json.leaseId, a.json.leaseId);
      assert.equal((await put(b, "story", bb.json.header, "B's data")).status, 200);
      const stale = await put(b, "story", a.json.header, "A's data");
      assert.equal(stale.status, 409, stale.text);
      assert.deepEqual(stale.json, { presented: tA, highest: tB });
      const doc = await getDoc(b, "story");
      assert.equal(doc.status, 200);
      assert.deepEqual(doc.json, { data: "B's data", token: tB });
      // A cannot renew or release what it lost.
      const renewed = await renew(b, "story", a.json, SHORT_TTL);
      assert.equal(renewed.status, 409, renewed.text);
      assert.deepEqual(renewed.json, { error: "lost: no live lease with this leaseId and token" });
      const released = await release(b, "story", a.json);
      assert.equal(released.status, 409, released.text);
    });

    test("renew answers the same token with a later expiry and a fresh header for it", async () => {
      const b = host.server.base;
      const a = await acquire(b, "renewal", 5_000);
      assert.equal(a.status, 200, a.text);
      const r = await renew(b, "renewal", a.json, 20_000);
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.token, a.json.token);
      assert.equal(r.json.leaseId, a.json.leaseId);
      assert.equal(r.json.header, a.json.header);
      assert.ok(r.json.expiresAt > a.json.expiresAt);
      assert.deepEqual((await release(b, "renewal", a.json)).json, { released: "free", depth: 0 });
    });

    test("50 concurrent acquires from 10 clients: one holder at a time, tokens strictly increase", async () => {
      const b = host.server.base;
      const grants = [];
      let requests = 0;
      async function client() {
        for (let i = 0; i < 5; i++) {
          requests++;
          const r = await acquire(b, "crowd", 5_000);
          const gotAt = performance.now();
          if (r.status === 200) {
            const releaseSentAt = performance.now();
            const rel = await release(b, "crowd", r.json);
            grants.push({ token: BigInt(r.json.token), gotAt, releaseSentAt });
            assert.equal(rel.status, 200, rel.text);
            assert.deepEqual(rel.json, { released: "free", depth: 0 });
          } else {
            assert.equal(r.status, 409, r.text);
            assert.deepEqual(Object.keys(r.json), ["error", "until"]);
            assert.equal(r.json.error, "held");
          }
        }
      }
      await Promise.all(Array.from({ length: 10 }, () => client()));
      assert.equal(requests, 50);
      assert.ok(grants.length >= 3, `only ${grants.length} grants: the test needs several hand-overs`);
      const byToken = [...grants].sort((x, y) => (x.token < y.token ? -1 : 1));
      for (let i = 1; i < byToken.length; i++) {
        assert.ok(byToken[i].token > byToken[i - 1].token, "tokens are distinct");
        // The earlier holder let go before the next one was told it holds the lock.
        assert.ok(byToken[i - 1].releaseSentAt <= byToken[i].gotAt, "no overlap");
      }
      // The order of grants in time is the order of their tokens.
      const byTime = [...grants].sort((x, y) => x.gotAt - y.gotAt).map((g) => g.token);
      assert.deepEqual(byTime, byToken.map((g) => g.token));
    });

    test("100 acquires racing on a free lock without a leaseId: exactly one is granted", async () => {
      const b = host.server.base;
      const results = await Promise.all(Array.from({ length: 100 }, () => acquire(b, "race", 60_000)));
      const won = results.filter((r) => r.status === 200);
      assert.equal(won.length, 1, "re-entry is off: each fresh acquire is another lease");
      for (const r of results.filter((r) => r.status !== 200)) {
        assert.equal(r.status, 409, r.text);
        assert.deepEqual(r.json, { error: "held", until: won[0].json.expiresAt });
      }
      assert.deepEqual((await release(b, "race", won[0].json)).json, { released: "free", depth: 0 });
    });

    test("100 acquires racing with the lease's own leaseId: every one re-enters the same lease", async () => {
      const b = host.server.base;
      const first = await acquire(b, "busy", 60_000);
      assert.equal(first.status, 200, first.text);
      const again = await Promise.all(
        Array.from({ length: 100 }, () => acquire(b, "busy", 60_000, { leaseId: first.json.leaseId })),
      );
      for (const r of again) {
        assert.equal(r.status, 200, r.text);
        assert.equal(r.json.token, first.json.token);
        assert.equal(r.json.leaseId, first.json.leaseId);
        assert.equal(r.json.header, first.json.header);
      }
      assert.deepEqual((await release(b, "busy", first.json)).json, { released: "held", depth: 100 });
    });

    test("after a takeover, 100 concurrent writes with the old header all get 409", async () => {
      const b = host.server.base;
      const a = await acquire(b, "takeover", SHORT_TTL);
      assert.equal(a.status, 200);
      await sleep(SHORT_TTL + 150);
      const bb = await acquire(b, "takeover", 60_000);
      assert.equal(bb.status, 200);
      assert.equal((await put(b, "takeover", bb.json.header, "B wins")).status, 200);
      const results = await Promise.all(
        Array.from({ length: 100 }, (_, i) => put(b, "takeover", a.json.header, `stale ${i}`)),
      );
      for (const r of results) {
        assert.equal(r.status, 409, r.text);
        assert.deepEqual(r.json, { presented: a.json.token, highest: bb.json.token });
      }
      assert.deepEqual((await getDoc(b, "takeover")).json, { data: "B wins", token: bb.json.token });
    });

    test("malformed input gets 400 with a reason, and the service keeps working", async () => {
      const b = host.server.base;
      const held = await acquire(b, "m", 60_000);
      assert.equal(held.status, 200, held.text);
      const id = held.json.leaseId;
      const cases = [
        [call(b, "POST", "/locks/m/acquire", "{not json"), /not valid JSON/],
        [call(b, "POST", "/locks/m/acquire", "[1,2]"), /JSON object/],
        [call(b, "POST", "/locks/m/acquire", { ttlMs: -5 }), /ttlMs must be a whole number from 1 to 300000/],
        [call(b, "POST", "/locks/m/acquire", { leaseId: "A" }), /leaseId must be the 32 lowercase hex digits/],
        [call(b, "POST", "/locks/m/renew", { token: held.json.token }), /leaseId is required/],
        [call(b, "POST", "/locks/m/renew", { leaseId: 7, token: "1" }), /leaseId must be/],
        [call(b, "POST", "/locks/m/renew", { leaseId: id }), /token is required/],
        [call(b, "POST", "/locks/m/renew", { leaseId: id, token: "abc" }), /token "abc" is malformed/],
        [call(b, "POST", "/locks/m/renew", { leaseId: id, token: "-1" }), /token "-1" is malformed/],
        [
          call(b, "POST", "/locks/m/release", { leaseId: id, token: "18446744073709551616" }),
          /token "18446744073709551616" is malformed/,
        ],
        [call(b, "POST", "/locks/m/renew", { leaseId: id, token: 34 }), /decimal string/],
        [put(b, "m", "abc", "x"), /Fencing-Token "abc" is malformed/],
        [put(b, "m", "-1", "x"), /Fencing-Token "-1" is malformed/],
        [put(b, "m", "18446744073709551616", "x"), /Fencing-Token "18446744073709551616" is malformed/],
        [put(b, "m", "0", "x"), /Fencing-Token "0" is malformed/],
        [call(b, "POST", "/locks/m/acquire", JSON.stringify({ pad: "x".repeat(10 * 1024 * 1024) })), /larger than 65536 bytes/],
        [call(b, "POST", "/locks/bad%zz/acquire", {}), /percent-encoding/],
        [call(b, "POST", `/locks/${"x".repeat(200)}/acquire`, {}), /lock name must be/],
        [call(b, "GET", `/locks/${"x".repeat(200)}`), /lock name must be/],
        [put(b, "m", held.json.header, new Uint8Array([0xff, 0xfe, 0x00])), /not valid UTF-8/],
      ];
      for (const [pending, message] of cases) {
        const r = await pending;
        assert.equal(r.status, 400, r.text);
        assert.match(r.json.error, message);
      }
      // No token at all is refused as an unsigned one is: 401, the client must send a signed header.
      const missing = await call(b, "PUT", "/docs/m", "x");
      assert.equal(missing.status, 401, missing.text);
      assert.match(missing.json.error, /Fencing-Token header is required/);
      assert.equal((await call(b, "GET", "/nowhere")).status, 404);
      assert.equal((await call(b, "GET", "/locks/m/acquire")).status, 405);
      assert.equal((await call(b, "POST", "/locks/m")).status, 405);
      assert.equal((await call(b, "POST", "/metrics")).status, 405);
      // Nothing of that changed the lease or the document.
      assert.equal((await getDoc(b, "m")).status, 404);
      assert.equal((await put(b, "m", held.json.header, "fine")).status, 200);
      assert.deepEqual((await getDoc(b, "m")).json, { data: "fine", token: held.json.token });
      assert.deepEqual((await release(b, "m", held.json)).json, { released: "free", depth: 0 });
    });

    test("documents keep their text exactly, up to the host's limit", async () => {
      const b = host.server.base;
      const lease = await acquire(b, "text", 60_000);
      assert.equal(lease.status, 200, lease.text);
      const { header, token } = lease.json;
      // A leading byte-order mark is part of the text.
      assert.equal((await put(b, "text", header, "\uFEFFhello")).status, 200);
      assert.deepEqual((await getDoc(b, "text")).json, { data: "\uFEFFhello", token });
      // Deno KV holds 60 KiB of document (its values are capped at 64 KiB); Durable Objects the
      // request limit, 64 KiB. Multi-byte text counts in bytes on both.
      const limit = name === "deno" ? 60 * 1024 : 64 * 1024;
      const full = "€".repeat(Math.floor(limit / 3)) + "x".repeat(limit % 3);
      const stored = await put(b, "text", header, full);
      assert.equal(stored.status, 200, stored.text);
      assert.equal((await getDoc(b, "text")).json.data, full);
      const over = await put(b, "text", header, full + "x");
      assert.equal(over.status, 400, over.text);
      assert.equal(over.json.error, `body is larger than ${limit} bytes`);
      assert.equal((await getDoc(b, "text")).json.data, full);
    });

    if (name === "deno") {
      test("a stored state the service cannot read is a 500, not the client's fault", async () => {
        // Another process writes garbage where the lock's snapshot lives.
        const kvPath = join(host.dir, "kv.sqlite3");
        await denoEval(`const kv = await Deno.openKv(${JSON.stringify(kvPath)}); await kv.set(["lock", "broken"], new Uint8Array([1, 2, 3])); kv.close();`);
        const r = await acquire(host.server.base, "broken", 1_000);
        assert.equal(r.status, 500, r.text);
        assert.deepEqual(r.json, { error: "internal error" });
        assert.match(host.server.log(), /fencepost service: RangeError: snapshot: snapshot is truncated/);
        const other = await acquire(host.server.base, "fine", 1_000);
        assert.equal(other.status, 200, other.text);
      });
    }

    test("after a restart of the runtime, leases and signatures hold and grants resume above every token", async () => {
      assert.equal(story.length, 2, "the story ran first");
      const [a, bGrant] = story;
      const b = await host.restart();
      const doc = await getDoc(b, "story");
      assert.equal(doc.status, 200, doc.text);
      assert.equal(doc.json.data, "B's data");
      // B's 60 s lease survived the restart with the lock's state ...
      const c = await acquire(b, "story", 1_000);
      assert.equal(c.status, 409, c.text);
      assert.deepEqual(c.json, { error: "held", until: bGrant.expiresAt });
      // ... and the header it was given before the restart still verifies.
      const again = await put(b, "story", bGrant.header, "B after the restart");
      assert.equal(again.status, 200, again.text);
      const freed = await release(b, "story", bGrant);
      assert.equal(freed.status, 200, freed.text);
      const d = await acquire(b, "story", 1_000);
      assert.equal(d.status, 200, d.text);
      assert.equal(BigInt(d.json.token), BigInt(bGrant.token) + 1n, "the next token after the last issued");
      const stale = await put(b, "story", a.header, "late A");
      assert.equal(stale.status, 409);
      assert.deepEqual((await getDoc(b, "story")).json, { data: "B after the restart", token: bGrant.token });
    });
  });
}
