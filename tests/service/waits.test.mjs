// Acquires that wait in the service for a held lock (`waitMs`), against the real engines: granted
// in their one request as soon as the holder lets go, with the next token, whether the release
// went through the same instance or another one (etcd: the watch of the lock's key; Postgres: a
// re-read); answered "held" exactly as today when the wait ends; bounded in time and number;
// answered at once by a service stopping; and correct under contention. A client that sends no
// waitMs is answered at once, and the package's LeaseClient, which asks the service to wait,
// still gets its lease from a service that does not wait.

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { join } from "node:path";
import { BackendUnavailableError, EtcdLocks, keyRingOf, LeaseService } from "fencepost/service";
import { LeaseClient } from "fencepost/client";
import { acquire, call, release } from "./calls.mjs";
import { checkGrants, client } from "./cycles.mjs";
import { etcdEndpoints, KEYS, postgresUrl, scratch, sleep, startInstance, startInstances } from "./instances.mjs";

/** The gauge of waiting acquires an instance answers at /metrics. */
async function waiting(base) {
  const text = await (await fetch(`${base}/metrics`)).text();
  const m = /^fencepost_waiting ([0-9]+)$/m.exec(text);
  assert.ok(m, `no fencepost_waiting gauge in:\n${text}`);
  return Number(m[1]);
}

/** Resolves once `count()` answers `n` (it is asked again every 20 ms, for up to 10 s). */
async function until(count, n) {
  for (let i = 0; i < 500; i++) {
    if ((await count()) === n) return;
    await sleep(20);
  }
  assert.fail(`the count never reached ${n}`);
}

/** A promise with a `settled` flag, so a test can say it had no answer yet. */
function tracked(promise) {
  const t = { settled: false };
  t.promise = promise.finally(() => (t.settled = true));
  return t;
}

let locks = 0;
const lockName = (what) => `wait-${what}-${process.pid}-${locks++}`;

const ENGINES = {
  "etcd (3 members), 2 instances": (dir) => ["--etcd", etcdEndpoints(), "--documents", `sqlite:${join(dir, "docs.sqlite3")}`],
  "Postgres, 2 instances": () => ["--postgres", postgresUrl()],
};

for (const [title, args] of Object.entries(ENGINES)) {
  describe(title, () => {
    const { dir, remove } = scratch();
    let bases = [];
    let instances = [];
    before(async () => {
      instances = await startInstances(2, args(dir));
      bases = instances.map((i) => i.base);
    });
    after(async () => {
      for (const i of instances) await i.stop();
      remove();
    });

    for (const [where, releaseOn] of [["the same instance", 1], ["another instance", 0]]) {
      test(`a waiting acquire is granted in its one request when the holder releases through ${where}`, async () => {
        const lock = lockName("release");
        const a = await acquire(bases[0], lock, 30_000);
        assert.equal(a.status, 200, a.text);
        const b = tracked(acquire(bases[1], lock, 30_000, { waitMs: 20_000 }));
        await until(() => waiting(bases[1]), 1);
        assert.equal(b.settled, false);
        assert.equal((await release(bases[releaseOn], lock, a.json)).status, 200);
        const r = await b.promise;
        assert.equal(r.status, 200, r.text);
        assert.equal(BigInt(r.json.token), BigInt(a.json.token) + 1n);
        assert.equal(await waiting(bases[1]), 0);
        assert.equal((await release(bases[0], lock, r.json)).status, 200);
      });
    }

    test("a waiting acquire is granted when the holder's lease runs out", async () => {
      const lock = lockName("expiry");
      const a = await acquire(bases[0], lock, 1000);
      const r = await acquire(bases[1], lock, 30_000, { waitMs: 10_000 });
      assert.equal(r.status, 200, r.text);
      assert.equal(BigInt(r.json.token), BigInt(a.json.token) + 1n);
      assert.ok(r.json.expiresAt - 30_000 >= a.json.expiresAt, "granted before the first lease ran out");
    });

    test("a wait that ends is answered as an acquire that did not wait; no waitMs, at once", async () => {
      const lock = lockName("held");
      const a = await acquire(bases[0], lock, 30_000);
      const now = await acquire(bases[1], lock, 30_000);
      const waited = await acquire(bases[1], lock, 30_000, { waitMs: 300 });
      assert.deepEqual([now.status, now.json], [409, { error: "held", until: a.json.expiresAt }]);
      assert.deepEqual([waited.status, waited.json], [409, { error: "held", until: a.json.expiresAt }]);
      const bad = await acquire(bases[1], lock, 30_000, { waitMs: -1 });
      assert.deepEqual([bad.status, bad.json], [400, { error: "waitMs must be a whole number of milliseconds from 0 to 86400000" }]);
      assert.equal((await release(bases[0], lock, a.json)).status, 200);
    });

    test("waiting clients spread over the instances: tokens increase per lock, grants never overlap", async () => {
      const names = [lockName("spread"), lockName("spread")];
      const end = Date.now() + 5000;
      const runs = await Promise.all(Array.from({ length: 8 }, (_, i) => client(`w${i}`, () => bases, names, end, 3000, 1000)));
      const grants = runs.flatMap((r) => r.grants);
      assert.equal(checkGrants(grants), names.length);
      assert.ok(grants.length >= 30, `only ${grants.length} grants in 5 s`);
      assert.deepEqual(runs.map((r) => r.refused.unavailable), Array(8).fill(0));
      assert.deepEqual(new Set(grants.map((g) => g.put)), new Set([200]));
      for (const b of bases) assert.equal(await waiting(b), 0);
    });
  });
}

describe("etcd: bounds, a service stopping, and the package's client", () => {
  /** A service over the test cluster with `options`, called in this process. */
  const service = (options = {}) =>
    new LeaseService({ keys: keyRingOf(KEYS), locks: new EtcdLocks({ endpoints: etcdEndpoints(), prefix: `t/${process.pid}/waits/` }), ...options });
  const post = (s, lock, action, body) =>
    s.fetch(new Request(`http://service.test/locks/${lock}/${action}`, { method: "POST", body: JSON.stringify(body) })).then(async (r) => ({ status: r.status, json: await r.json() }));

  test("beyond the bounds, per lock and in all, an acquire is answered at once; the wait is capped", async () => {
    const s = service({ maxWaitersPerLock: 1, maxWaiters: 2, maxWaitMs: 1500 });
    const [l1, l2, l3] = [lockName("bound"), lockName("bound"), lockName("bound")];
    const held = {};
    for (const l of [l1, l2, l3]) held[l] = (await post(s, l, "acquire", { ttlMs: 60_000 })).json;
    const first = tracked(post(s, l1, "acquire", { waitMs: 60_000 }));
    await until(() => s.waiting, 1);
    // A second waiter on l1: over the bound of one lock, answered at once.
    assert.deepEqual(await post(s, l1, "acquire", { waitMs: 60_000 }), { status: 409, json: { error: "held", until: held[l1].expiresAt } });
    const second = tracked(post(s, l2, "acquire", { waitMs: 60_000 }));
    await until(() => s.waiting, 2);
    // A third lock: over the bound in all.
    assert.deepEqual(await post(s, l3, "acquire", { waitMs: 60_000 }), { status: 409, json: { error: "held", until: held[l3].expiresAt } });
    assert.deepEqual([first.settled, second.settled], [false, false]);
    // Each asked 60 s; the service waits 1.5 s at most, then answers as today.
    assert.deepEqual(await first.promise, { status: 409, json: { error: "held", until: held[l1].expiresAt } });
    assert.deepEqual(await second.promise, { status: 409, json: { error: "held", until: held[l2].expiresAt } });
    assert.equal(s.waiting, 0);
  });

  test("endWaits answers every wait at once with its held answer, and later ones at once", async () => {
    const s = service();
    const lock = lockName("end");
    const a = (await post(s, lock, "acquire", { ttlMs: 60_000 })).json;
    const waits = [0, 1, 2].map(() => tracked(post(s, lock, "acquire", { waitMs: 60_000 })));
    await until(() => s.waiting, 3);
    s.endWaits();
    for (const w of waits) assert.deepEqual(await w.promise, { status: 409, json: { error: "held", until: a.expiresAt } });
    assert.equal(s.waiting, 0);
    assert.deepEqual(await post(s, lock, "acquire", { waitMs: 60_000 }), { status: 409, json: { error: "held", until: a.expiresAt } });
  });

  test("SIGTERM answers a waiting acquire \"held\", then the process exits 0", async () => {
    const { dir, remove } = scratch();
    try {
      const instance = await startInstance(["--etcd", etcdEndpoints(), "--documents", `sqlite:${join(dir, "docs.sqlite3")}`]);
      const lock = lockName("sigterm");
      const a = await acquire(instance.base, lock, 60_000);
      const w = acquire(instance.base, lock, 60_000, { waitMs: 60_000 });
      await until(() => waiting(instance.base), 1);
      process.kill(instance.pid, "SIGTERM");
      const r = await w;
      assert.deepEqual([r.status, r.json], [409, { error: "held", until: a.json.expiresAt }]);
      assert.deepEqual(await instance.exited, { code: 0, signal: null });
    } finally {
      remove();
    }
  });

  /** How many times etcd changed `lock`'s key of service() since it was created (its kv version). */
  async function changes(lock) {
    const key = Buffer.from(`t/${process.pid}/waits/${lock}`).toString("base64");
    const r = await fetch(`${etcdEndpoints().split(",")[0]}/v3/kv/range`, { method: "POST", body: JSON.stringify({ key }) });
    return Number((await r.json()).kvs[0].version);
  }

  /** The test cluster's backend for service(), running `locks.before()` (once) before its next commit. */
  function interfered() {
    const etcd = new EtcdLocks({ endpoints: etcdEndpoints(), prefix: `t/${process.pid}/waits/` });
    const locks = { before: null };
    for (const m of ["read", "commit", "watch", "peek", "sweep"]) locks[m] = etcd[m].bind(etcd);
    locks.commitOrRead = async (...args) => {
      const before = locks.before;
      locks.before = null;
      await before?.();
      return etcd.commitOrRead(...args);
    };
    return { locks, etcd };
  }

  /** A lock of `s` held by `a`, and `w`, an acquire waiting for it in `s`. */
  async function heldAndAwaited(s, what) {
    const lock = lockName(what);
    const a = (await post(s, lock, "acquire", { ttlMs: 60_000 })).json;
    const w = tracked(post(s, lock, "acquire", { ttlMs: 60_000, waitMs: 20_000 }));
    await until(() => s.waiting, 1);
    return { lock, a, w };
  }

  /** Releases `a`'s lease through `s`, asserting it freed the lock; answers the waiter's grant. */
  async function releasedTo(s, lock, a, w) {
    const released = await post(s, lock, "release", { leaseId: a.leaseId, token: a.token });
    assert.deepEqual(released, { status: 200, json: { released: "free", depth: 0 } });
    const r = await w.promise;
    assert.equal(r.status, 200, JSON.stringify(r.json));
    assert.equal(BigInt(r.json.token), BigInt(a.token) + 1n);
    return r;
  }

  test("a release hands the lock to the acquire waiting in its instance: one commit, the next token", async () => {
    const s = service();
    const { lock, a, w } = await heldAndAwaited(s, "handover");
    const before = await changes(lock);
    const r = await releasedTo(s, lock, a, w);
    // The release and the grant are one change of the key.
    assert.equal(await changes(lock), before + 1);
    assert.deepEqual([s.metrics.get("grants"), s.metrics.get("releases"), s.waiting], [2, 1, 0]);
    assert.equal((await post(s, lock, "release", { leaseId: r.json.leaseId, token: r.json.token })).status, 200);
  });

  test("a handover whose commit lost its race: the waiter decides again and is granted the next token", async () => {
    const { locks, etcd } = interfered();
    const s = service({ locks });
    const { lock, a, w } = await heldAndAwaited(s, "handover-lost");
    // Another instance changes the lock between the release's decision and its commit (it writes
    // the same state again, so the release still holds when decided again).
    locks.before = async () => {
      const now = await etcd.read(lock);
      assert.equal(await etcd.commit(lock, now.version, now.snapshot, Date.now() + 120_000), true);
    };
    const before = await changes(lock);
    await releasedTo(s, lock, a, w);
    // The other change, then the release with its handover (one change), or the release and the
    // waiter's own grant (two): the lost commit changed nothing.
    assert.ok([before + 2, before + 3].includes(await changes(lock)));
    assert.deepEqual([s.metrics.get("grants"), s.metrics.get("releases"), s.waiting], [2, 1, 0]);
  });

  test("a handover whose outcome is unknown: the release answers 503, the waiter waits on and gets the lock", async () => {
    const { locks } = interfered();
    const s = service({ locks });
    const { lock, a, w } = await heldAndAwaited(s, "handover-503");
    locks.before = () => {
      throw new BackendUnavailableError("etcd /v3/kv/txn: the outcome of the write is unknown: a test");
    };
    assert.equal((await post(s, lock, "release", { leaseId: a.leaseId, token: a.token })).status, 503);
    await sleep(100);
    assert.deepEqual([w.settled, s.waiting], [false, 1]);
    await releasedTo(s, lock, a, w);
    assert.deepEqual([s.metrics.get("grants"), s.metrics.get("releases"), s.waiting], [2, 1, 0]);
  });

  /** A LeaseClient calling `s`, counting its acquire requests. */
  function countingClient(s) {
    const counted = { acquires: 0 };
    const c = new LeaseClient({
      fetch: (input, init) => {
        const request = new Request(input, init);
        if (new URL(request.url).pathname.endsWith("/acquire")) counted.acquires++;
        return s.fetch(request);
      },
    });
    return { c, counted };
  }

  test("LeaseClient: its acquire waits in the service and is granted in one request", async () => {
    const s = service();
    const lock = lockName("client");
    const a = (await post(s, lock, "acquire", { ttlMs: 60_000 })).json;
    const { c, counted } = countingClient(s);
    const lease = tracked(c.acquire(lock, { ttlMs: 20_000 }));
    await until(() => s.waiting, 1);
    assert.equal((await post(s, lock, "release", { leaseId: a.leaseId, token: a.token })).status, 200);
    const l = await lease.promise;
    assert.equal(l.token, BigInt(a.token) + 1n);
    assert.equal(counted.acquires, 1);
    assert.equal(await l.release(), true);
  });

  test("LeaseClient and a service that does not wait: asked again with backoff, granted after the release", async () => {
    const s = service({ maxWaitMs: 0 });
    const lock = lockName("nowait");
    const a = (await post(s, lock, "acquire", { ttlMs: 60_000 })).json;
    const { c, counted } = countingClient(s);
    const lease = tracked(c.acquire(lock, { ttlMs: 20_000 }));
    await until(() => counted.acquires >= 3, true);
    assert.equal(s.waiting, 0);
    assert.equal(lease.settled, false);
    assert.equal((await post(s, lock, "release", { leaseId: a.leaseId, token: a.token })).status, 200);
    const l = await lease.promise;
    assert.equal(l.token, BigInt(a.token) + 1n);
    assert.equal(await l.release(), true);
  });
});
