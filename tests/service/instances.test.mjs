// Many stateless instances of `fencepost serve` on one engine: three Node processes over one
// three-member etcd cluster (documents in one SQLite file they share), and two over one Postgres.
// Clients spread their calls over the instances at random; whatever instance answers, tokens of a
// lock strictly increase, grants never overlap, a header one instance signed verifies on every
// other, and `fencepost check` finds no stale write accepted in the instances' write logs.

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { join } from "node:path";
import { acquire, getDoc, metrics, put, release } from "./calls.mjs";
import { byLock, checkGrants, client } from "./cycles.mjs";
import { check, etcdEndpoints, mergedWrites, postgresUrl, scratch, startInstances } from "./instances.mjs";

const ENGINES = {
  "etcd (3 members), 3 instances": (dir) => ({ args: ["--etcd", etcdEndpoints(), "--documents", `sqlite:${join(dir, "docs.sqlite3")}`], count: 3 }),
  "Postgres, 2 instances": () => ({ args: ["--postgres", postgresUrl()], count: 2 }),
};

for (const [title, engine] of Object.entries(ENGINES)) {
  describe(title, () => {
    const { dir, remove } = scratch();
    let instances = [];
    before(async () => {
      const { args, count } = engine(dir);
      instances = await startInstances(count, args);
    });
    after(async () => {
      for (const i of instances) await i.stop();
      remove();
    });

    test("a header one instance signed verifies on every other", async () => {
      const lock = `signed-${process.pid}-${instances.length}`;
      const [first, ...others] = instances;
      const a = await acquire(first.base, lock, 10_000);
      assert.equal(a.status, 200, a.text);
      for (const [n, other] of others.entries()) {
        const w = await put(other.base, lock, a.json.header, `from instance ${n + 2}`);
        assert.deepEqual([w.status, w.json], [200, { token: a.json.token, highest: a.json.token }]);
      }
      for (const i of instances) {
        assert.deepEqual((await getDoc(i.base, lock)).json, { data: `from instance ${instances.length}`, token: a.json.token });
      }
      // Renewed and released through the others: each knows the lease by its state in the engine.
      assert.equal((await release(others[0].base, lock, a.json)).status, 200);
    });

    test("clients spread over the instances: tokens increase per lock, grants never overlap, no stale write lands", async () => {
      const locks = Array.from({ length: 4 }, (_, i) => `spread-${process.pid}-${instances.length}-${i}`);
      const grantsBefore = (await Promise.all(instances.map((i) => metrics(i.base)))).map((m) => m.fencepost_grants_total);
      const writesBefore = instances.flatMap((i) => i.writes()).length;
      const until = Date.now() + 6000;
      const runs = await Promise.all(Array.from({ length: 12 }, (_, i) => client(`c${i}`, () => instances.map((x) => x.base), locks, until)));
      const grants = runs.flatMap((r) => r.grants);
      assert.equal(checkGrants(grants), locks.length);
      assert.ok(grants.length >= 40, `only ${grants.length} grants in 6 s`);
      assert.deepEqual(runs.map((r) => r.refused.unavailable), Array(12).fill(0));
      // Every write of a holder inside its lease was accepted.
      assert.deepEqual(new Set(grants.map((g) => g.put)), new Set([200]));
      // An old holder writes again, after newer ones: refused on every instance.
      let stale = 0;
      for (const list of byLock(grants).values()) {
        if (list.length < 2) continue;
        const oldest = list.reduce((a, b) => (a.token < b.token ? a : b));
        for (const i of instances) {
          const w = await put(i.base, oldest.lock, oldest.header, "stale", { "Fencepost-Writer": oldest.writer });
          assert.equal(w.status, 409, w.text);
          assert.equal(BigInt(w.json.presented), oldest.token);
          stale++;
        }
      }
      // Each instance counted the grants it made; together, every grant once.
      const counted = (await Promise.all(instances.map((i) => metrics(i.base)))).map((m, n) => m.fencepost_grants_total - grantsBefore[n]);
      assert.equal(counted.reduce((a, b) => a + b, 0), grants.length);
      const lines = mergedWrites(instances);
      assert.equal(lines.length - writesBefore, grants.length + stale);
      const summary = check(lines);
      assert.ok(stale >= 1);
      assert.deepEqual(
        [summary.rejected, summary.stale_owners, summary.token_regressions, summary.malformed],
        [stale, 0, 0, 0],
        JSON.stringify(summary),
      );
    });
  });
}
