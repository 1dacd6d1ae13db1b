// The lease service across the events of a deployment's life, in real workerd and real Deno,
// each one a restart of the real process over its persisted storage: rotating the signing key,
// losing every lock's stored state, and the eviction of idle locks.

import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { hostFixture, sleep, storedLocks, wipeLocks } from "./hosts.mjs";
import { acquire, getDoc, lockState, put, release, wantedHosts } from "./client.mjs";

const wanted = wantedHosts();

const OLD = "1:first-key-of-the-lifecycle-tests-00";
const NEW = "2:second-key-of-the-lifecycle-tests-0";
const OTHER = "1:a-key-of-another-deployment-000000";

for (const name of wanted) {
  describe(`${name}: lifecycle`, () => {
    const host = hostFixture(name, null);
    const restart = (settings) => host.restart(settings);

    test("key rotation: tokens of the previous key verify until it is removed; another deployment's never", async () => {
      let b = await restart({ keys: OLD });
      const before = await acquire(b, "rotated", 300_000);
      assert.equal(before.status, 200, before.text);
      assert.match(before.json.header, /^[0-9]+\.1\.[0-9a-f]{64}$/);
      assert.equal((await put(b, "rotated", before.json.header, "before")).status, 200);

      // The new key signs; the old one still verifies.
      b = await restart({ keys: `${NEW},${OLD}` });
      const kept = await put(b, "rotated", before.json.header, "signed before the rotation");
      assert.equal(kept.status, 200, kept.text);
      assert.deepEqual((await release(b, "rotated", before.json)).json, { released: "free", depth: 0 });
      const after = await acquire(b, "rotated", 300_000);
      assert.match(after.json.header, /^[0-9]+\.2\.[0-9a-f]{64}$/);
      assert.equal(BigInt(after.json.token), BigInt(before.json.token) + 1n);
      const stale = await acquire(b, "other-doc", 300_000);
      assert.equal(stale.status, 200, stale.text);

      // The old key removed: its tokens are refused, whatever their number.
      b = await restart({ keys: NEW });
      const refused = await put(b, "rotated", before.json.header, "too late");
      assert.equal(refused.status, 403, refused.text);
      assert.deepEqual(refused.json, { error: "Fencing-Token is signed with key 1, which this service does not have" });
      const current = await put(b, "rotated", after.json.header, "after the rotation");
      assert.equal(current.status, 200, current.text);

      // A deployment with its own key 1 shares lock names, not tokens.
      b = await restart({ keys: OTHER });
      const foreign = await put(b, "rotated", after.json.header, "foreign");
      assert.equal(foreign.status, 403, foreign.text);
      const v1 = await put(b, "rotated", before.json.header, "foreign, same key id");
      assert.equal(v1.status, 403, v1.text);
      assert.deepEqual(v1.json, { error: 'Fencing-Token does not verify for lock "rotated"' });
      assert.deepEqual((await getDoc(b, "rotated")).json, { data: "after the rotation", token: after.json.token });
    });

    test("no silent reset: with every lock's state lost, grants still go above every token issued", async () => {
      let b = await restart({ keys: NEW });
      const issued = [];
      for (let i = 0; i < 3; i++) {
        const g = await acquire(b, "reset", 60_000);
        assert.equal(g.status, 200, g.text);
        assert.equal((await put(b, "reset", g.json.header, `write ${i}`)).status, 200);
        issued.push(BigInt(g.json.token));
        assert.deepEqual((await release(b, "reset", g.json)).json, { released: "free", depth: 0 });
      }
      // A lease held while the state is lost.
      const held = await acquire(b, "reset", 60_000);
      issued.push(BigInt(held.json.token));
      await host.server.stop();
      await wipeLocks(name, host.dir);
      assert.equal(await storedLocks(name, host.dir), 0);
      b = await restart({ keys: NEW });
      // The store forgot the lease; the document did not forget its mark.
      assert.deepEqual((await lockState(b, "reset")).json, { state: "free" });
      const fresh = await acquire(b, "reset", 60_000);
      assert.equal(fresh.status, 200, fresh.text);
      const max = issued.reduce((m, t) => (t > m ? t : m));
      assert.ok(BigInt(fresh.json.token) > max, `${fresh.json.token} > ${max}`);
      const w = await put(b, "reset", fresh.json.header, "after the loss");
      assert.equal(w.status, 200, w.text);
      // The holder from before the loss is fenced off by the document.
      const late = await put(b, "reset", held.json.header, "late");
      assert.equal(late.status, 409, late.text);
      assert.deepEqual(late.json, { presented: held.json.token, highest: fresh.json.token });
      assert.deepEqual((await getDoc(b, "reset")).json, { data: "after the loss", token: fresh.json.token });
    });

    test("idle locks are evicted from storage, and a lock acquired again continues above", async () => {
      // Locks of the tests before keep their state here (their idle time is the default minute).
      await host.server.stop();
      const before = await storedLocks(name, host.dir);
      let b = await restart({ keys: NEW, idleKeepMs: 1000 });
      const tokens = [];
      for (const lock of ["idle-a", "idle-b", "idle-c"]) {
        const g = await acquire(b, lock, 300);
        assert.equal(g.status, 200, g.text);
        assert.equal((await put(b, lock, g.json.header, "kept")).status, 200);
        tokens.push(BigInt(g.json.token));
        if (lock !== "idle-c") await release(b, lock, g.json);
      }
      // A lock that is not idle keeps its state: its next token follows the last one.
      const busy = await acquire(b, "busy", 60_000);
      // idle-c's lease runs out unreleased; all three are free for more than the idle time.
      await sleep(300 + 1000 + 1500);
      const evictedBy = Date.now();
      await host.server.stop();
      // The three idle locks' state is gone from storage; the busy one's is kept.
      assert.equal(await storedLocks(name, host.dir), before + 1);
      b = await restart({ keys: NEW, idleKeepMs: 1000 });
      for (const [i, lock] of ["idle-a", "idle-b", "idle-c"].entries()) {
        const g = await acquire(b, lock, 60_000);
        assert.equal(g.status, 200, g.text);
        const t = BigInt(g.json.token);
        assert.ok(t > tokens[i], `${lock}: ${t} > ${tokens[i]}`);
        // A fresh authority: its first token carries the time it started, after the eviction.
        assert.ok(t >> 20n >= BigInt(evictedBy), `${lock}: ${t} starts a fresh authority after ${evictedBy}`);
        assert.equal((await put(b, lock, g.json.header, "again")).status, 200);
      }
      await release(b, "busy", busy.json);
      const next = await acquire(b, "busy", 60_000);
      assert.equal(BigInt(next.json.token), BigInt(busy.json.token) + 1n);
    });
  });
}
