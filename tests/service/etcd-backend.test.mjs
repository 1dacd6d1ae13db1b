// EtcdLocks against the real three-member cluster `cargo xtask test-etcd` started: the backend
// contract (read, commit only if unchanged, sweep of idle states) with exact answers, then the
// faults it must survive (a dead endpoint, a killed member, a paused leader) or report as
// BackendUnavailableError (every member down), never as a wrong answer or a hang.
//
// Tests run one after another (node --test runs a file's tests in order) and each leaves every
// member running; each uses its own key prefix, so no test sees another's locks.

import assert from "node:assert/strict";
import { createServer } from "node:http";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";

import { BackendUnavailableError, EtcdLocks } from "fencepost/service";
import { keepAliveFetch } from "fencepost/service/node";
import { ENDPOINTS, healthy, kill, leader, members, pause, post, restart, resume } from "./etcd-cluster.mjs";

/**
 * The fetch every backend here sends with: the runtime's own, or, when etcd-backend-node.test.mjs
 * runs this file, the one `fencepost serve` hands EtcdLocks on Node.
 */
const FETCH = process.env.FENCEPOST_TEST_ETCD_FETCH === "node" ? keepAliveFetch() : fetch;

/** An EtcdLocks with `options`, sending with FETCH. */
const etcdLocks = (options) => new EtcdLocks({ fetch: FETCH, ...options });

let prefixes = 0;
/** A backend on a prefix of its own. */
function backend(options = {}) {
  const prefix = `t/${process.pid}/${prefixes++}/`;
  return etcdLocks({ endpoints: ENDPOINTS, prefix, ...options });
}

const bytes = (...b) => new Uint8Array(b);
const text = (s) => new TextEncoder().encode(s);
const FAR = 4_102_444_800_000; // 2100-01-01: a deleteAt that never comes in these tests

/** A port nothing listens on: bound by the kernel's choice, then closed. */
async function deadUrl() {
  const server = createServer();
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address();
  await new Promise((r) => server.close(r));
  return `http://127.0.0.1:${port}`;
}

test("argument errors are TypeError or RangeError naming the field", async () => {
  const bad = [
    [undefined, TypeError, /options with endpoints are required/],
    [{}, TypeError, /options\.endpoints must be a URL string or an array/],
    [{ endpoints: 5 }, TypeError, /options\.endpoints must be/],
    [{ endpoints: [] }, RangeError, /options\.endpoints must hold 1 to 64 URLs, got 0/],
    [{ endpoints: [5] }, TypeError, /options\.endpoints\[0\] must be a URL string, got 5/],
    [{ endpoints: ["nope"] }, RangeError, /options\.endpoints\[0\] must be an http: or https: URL/],
    [{ endpoints: ["ftp://127.0.0.1:1"] }, RangeError, /options\.endpoints\[0\] must be an http: or https: URL/],
    [{ endpoints: ENDPOINTS, prefix: "" }, RangeError, /options\.prefix must be 1 to 256 characters, got 0/],
    [{ endpoints: ENDPOINTS, prefix: 7 }, TypeError, /options\.prefix must be a string, got 7/],
    [{ endpoints: ENDPOINTS, timeoutMs: 0 }, RangeError, /options\.timeoutMs must be 1 to 600000, got 0/],
    [{ endpoints: ENDPOINTS, timeoutMs: 1.5 }, RangeError, /options\.timeoutMs must be a whole number/],
    [{ endpoints: ENDPOINTS, timeoutMs: "2000" }, TypeError, /options\.timeoutMs must be a number/],
    [{ endpoints: ENDPOINTS, fetch: 1 }, TypeError, /options\.fetch must be a function, got 1/],
    [{ endpoints: ENDPOINTS, timeout: 1 }, TypeError, /options has an unknown key "timeout"/],
  ];
  for (const [options, type, message] of bad) {
    assert.throws(() => new EtcdLocks(options), (e) => e instanceof type && message.test(e.message), String(message));
  }
  // One string may list several endpoints.
  assert.ok(new EtcdLocks({ endpoints: ENDPOINTS.join(",") }));

  const b = backend();
  const calls = [
    [() => b.read(5), TypeError, /lock must be a string, got 5/],
    [() => b.read(""), RangeError, /lock must be 1 to 128 characters/],
    [() => b.read("a/b"), RangeError, /lock must be 1 to 128 characters/],
    [() => b.read("x".repeat(129)), RangeError, /lock must be 1 to 128 characters/],
    [() => b.commit("a", 0, bytes(), 1), TypeError, /version must be the version read\(\) answered \(a string\), got 0/],
    [() => b.commit("a", "-1", bytes(), 1), RangeError, /version must be the version read\(\) answered/],
    [() => b.commit("a", "01", bytes(), 1), RangeError, /version must be the version read\(\) answered/],
    [() => b.commit("a", "0", [1], 1), TypeError, /snapshot must be a Uint8Array, got an array/],
    [() => b.commit("a", "0", bytes(), -1), RangeError, /deleteAt must be a whole number of milliseconds/],
    [() => b.commit("a", "0", bytes(), 2 ** 53), RangeError, /deleteAt must be a whole number/],
    [() => b.commit("a", "0", bytes(), "1"), TypeError, /deleteAt must be a number of milliseconds/],
    [() => b.sweep(), TypeError, /now must be a number of milliseconds, got undefined/],
    [() => b.sweep(-5), RangeError, /now must be a whole number of milliseconds/],
  ];
  for (const [call, type, message] of calls) {
    await assert.rejects(call, (e) => e instanceof type && message.test(e.message), String(message));
  }
  // None of those reached etcd: the lock is still missing.
  assert.deepEqual(await b.read("a"), { snapshot: null, version: "0" });
});

test("read, create and update: a commit succeeds only on the version it read", async () => {
  const b = backend();
  assert.deepEqual(await b.read("lock-1"), { snapshot: null, version: "0" });
  assert.equal(await b.commit("lock-1", "0", text("first"), FAR), true);
  const first = await b.read("lock-1");
  assert.deepEqual(first.snapshot, text("first"));
  assert.match(first.version, /^[1-9][0-9]*$/);
  // A second create with the now stale "no state" version loses.
  assert.equal(await b.commit("lock-1", "0", text("second create"), FAR), false);
  assert.equal(await b.commit("lock-1", first.version, text("second"), FAR), true);
  const second = await b.read("lock-1");
  assert.deepEqual(second.snapshot, text("second"));
  assert.ok(BigInt(second.version) > BigInt(first.version));
  assert.equal(await b.commit("lock-1", first.version, text("stale"), FAR), false);
  assert.equal(await b.commit("lock-1", "999999999999", text("future"), FAR), false);
  assert.deepEqual(await b.read("lock-1"), second);
  // Another lock, another key: untouched by all that.
  assert.deepEqual(await b.read("lock-2"), { snapshot: null, version: "0" });
  // The same name under another prefix is another lock.
  assert.deepEqual(await backend().read("lock-1"), { snapshot: null, version: "0" });
});

test("commitOrRead: null when stored; a lost race answers the state that beat it, as read() does", async () => {
  const b = backend();
  assert.equal(await b.commitOrRead("l", "0", text("first"), FAR), null);
  const first = await b.read("l");
  assert.deepEqual(first.snapshot, text("first"));
  // A create that lost: the state there is now.
  assert.deepEqual(await b.commitOrRead("l", "0", text("late create"), FAR), first);
  assert.equal(await b.commitOrRead("l", first.version, text("second"), FAR), null);
  const second = await b.read("l");
  assert.deepEqual(await b.commitOrRead("l", first.version, text("stale"), FAR), second);
  // A state deleted meanwhile reads as none.
  assert.equal(await b.sweep(FAR), 1);
  assert.deepEqual(await b.commitOrRead("l", second.version, text("gone"), FAR), { snapshot: null, version: "0" });
  assert.deepEqual(await b.read("l"), { snapshot: null, version: "0" });
  await assert.rejects(b.commitOrRead("l", "01", text("x"), FAR), RangeError);
});

test("32 concurrent commits on one version: exactly one succeeds", async () => {
  const b = backend();
  for (const round of ["create", "update"]) {
    const { version } = await b.read("contended");
    const results = await Promise.all(
      Array.from({ length: 32 }, (_, i) => b.commit("contended", version, text(`${round} ${i}`), FAR)),
    );
    const winners = results.flatMap((ok, i) => (ok ? [i] : []));
    assert.equal(winners.length, 1, `${round}: ${results}`);
    const after = await b.read("contended");
    assert.deepEqual(after.snapshot, text(`${round} ${winners[0]}`));
    assert.notEqual(after.version, version);
  }
});

/** The next report of a watch: `[state, before]`. */
function reports() {
  const queue = [];
  let wake = null;
  return {
    onChange: (state, before) => {
      queue.push([state, before]);
      wake?.();
    },
    async next() {
      while (queue.length === 0) await new Promise((r) => (wake = r));
      return queue.shift();
    },
    get count() {
      return queue.length;
    },
  };
}

test("watch: a commit through another backend object is reported with its state; stop ends it", async () => {
  const prefix = `t/${process.pid}/${prefixes++}/`;
  const [watcher, writer] = [0, 1].map(() => etcdLocks({ endpoints: ENDPOINTS, prefix }));
  assert.equal(await writer.commit("w", "0", text("one"), FAR), true);
  const one = await writer.read("w");
  const r = reports();
  const stop = watcher.watch("w", one.version, r.onChange);
  assert.equal(typeof stop, "function");
  assert.equal(await writer.commit("w", one.version, text("two"), FAR), true);
  const two = await writer.read("w");
  assert.deepEqual(await r.next(), [{ snapshot: text("two"), version: two.version }, false]);
  // A second waiter that read the first version hears at once that it changed since.
  const late = reports();
  const stopLate = watcher.watch("w", one.version, late.onChange);
  assert.deepEqual(await late.next(), [{ snapshot: text("two"), version: two.version }, true]);
  stopLate();
  stop();
  assert.equal(await writer.commit("w", two.version, text("three"), FAR), true);
  await sleep(300);
  assert.deepEqual([r.count, late.count], [0, 0]);
  // Refused before it reaches etcd: a version that is not one.
  assert.throws(() => watcher.watch("w", "x", () => {}), (e) => e instanceof RangeError && /version must be/.test(e.message));
});

test("watch: a change between the read and the watch is reported; a deleted key reads as no state", async () => {
  const b = backend();
  assert.equal(await b.commit("gap", "0", text("one"), FAR), true);
  const one = await b.read("gap");
  assert.equal(await b.commit("gap", one.version, text("two"), 1), true);
  const two = await b.read("gap");
  const r = reports();
  const stop = b.watch("gap", one.version, r.onChange);
  // Watched from just after the version read: the change made before the watch began comes first.
  assert.deepEqual(await r.next(), [{ snapshot: text("two"), version: two.version }, false]);
  assert.equal(await b.sweep(Date.now()), 1);
  assert.deepEqual(await r.next(), [{ snapshot: null, version: "0" }, false]);
  stop();
});

test("values round-trip byte for byte, with deleteAt stored before them", async () => {
  const b = backend({ prefix: `rt/${process.pid}/` });
  const every = Uint8Array.from({ length: 256 }, (_, i) => i);
  const big = new Uint8Array(64 * 1024);
  for (let i = 0; i < big.length; i += 65536) crypto.getRandomValues(big.subarray(i, i + 65536));
  const cases = [
    ["empty", bytes()],
    ["zero", bytes(0)],
    ["every-byte", every],
    ["ff", bytes(0xff, 0xff, 0xff)],
    ["big", big],
  ];
  for (const [name, value] of cases) {
    assert.equal(await b.commit(name, "0", value, 0x0102_0304_0506), true, name);
    const { snapshot } = await b.read(name);
    assert.ok(snapshot instanceof Uint8Array, name);
    assert.equal(snapshot.length, value.length, name);
    assert.deepEqual(snapshot, value, name);
  }
  // The stored value: 8 bytes of deleteAt, big-endian, then the snapshot.
  const key = btoa(`rt/${process.pid}/zero`);
  const raw = await post(ENDPOINTS[0], "/v3/kv/range", { key });
  assert.deepEqual(
    Uint8Array.from(atob(raw.kvs[0].value), (c) => c.charCodeAt(0)),
    bytes(0, 0, 1, 2, 3, 4, 5, 6, 0),
  );
  // The largest deleteAt there is.
  assert.equal(await b.commit("max", "0", bytes(7), Number.MAX_SAFE_INTEGER), true);
  assert.deepEqual((await b.read("max")).snapshot, bytes(7));
  assert.equal(await b.sweep(0x0102_0304_0505), 0);
  assert.equal(await b.sweep(Number.MAX_SAFE_INTEGER - 1), cases.length);
  assert.deepEqual((await b.read("max")).snapshot, bytes(7));
  assert.equal(await b.sweep(Number.MAX_SAFE_INTEGER), 1);
});

test("sweep deletes exactly the idle states", async () => {
  const b = backend();
  for (const [name, deleteAt] of [["a", 1000], ["b", 2000], ["c", 2001], ["d", FAR]]) {
    assert.equal(await b.commit(name, "0", text(name), deleteAt), true);
  }
  // A lock of another prefix, long idle: not this backend's to sweep.
  const other = backend();
  assert.equal(await other.commit("a", "0", text("other"), 1), true);
  assert.equal(await b.sweep(999), 0);
  assert.equal(await b.sweep(2000), 2);
  assert.deepEqual(await b.read("a"), { snapshot: null, version: "0" });
  assert.deepEqual(await b.read("b"), { snapshot: null, version: "0" });
  assert.deepEqual((await b.read("c")).snapshot, text("c"));
  assert.deepEqual((await b.read("d")).snapshot, text("d"));
  assert.deepEqual((await other.read("a")).snapshot, text("other"));
  assert.equal(await b.sweep(2000), 0);
  // A state made idle later by a commit that moved its deleteAt back.
  const d = await b.read("d");
  assert.equal(await b.commit("d", d.version, text("d2"), 3000), true);
  assert.equal(await b.sweep(3000), 2);
  assert.deepEqual(await b.read("c"), { snapshot: null, version: "0" });
  assert.deepEqual(await b.read("d"), { snapshot: null, version: "0" });
  // A deleted lock can be created again from "no state".
  assert.equal(await b.commit("a", "0", text("again"), FAR), true);
  assert.deepEqual((await b.read("a")).snapshot, text("again"));
});

test("sweep goes through many pages and leaves values it cannot read", async () => {
  const prefix = `pages/${process.pid}/`;
  const b = etcdLocks({ endpoints: ENDPOINTS, prefix });
  const names = Array.from({ length: 100 }, (_, i) => `l${String(i).padStart(3, "0")}`);
  await Promise.all(names.map((n, i) => b.commit(n, "0", text(n), i % 2 === 0 ? 10 : FAR)));
  // Something else stored under the prefix, shorter than a deleteAt.
  assert.ok(await post(ENDPOINTS[0], "/v3/kv/txn", { success: [{ request_put: { key: btoa(`${prefix}foreign`), value: btoa("xy") } }] }));
  assert.equal(await b.sweep(10), 50);
  for (const [i, n] of names.entries()) {
    const { snapshot } = await b.read(n);
    assert.deepEqual(snapshot, i % 2 === 0 ? null : text(n), n);
  }
  await assert.rejects(b.read("foreign"), (e) => !(e instanceof BackendUnavailableError) && /holds 2 bytes for lock "foreign"/.test(e.message));
  assert.equal(await b.sweep(Number.MAX_SAFE_INTEGER), 50);
  const rest = await post(ENDPOINTS[0], "/v3/kv/range", { key: btoa(prefix), range_end: btoa(prefix.slice(0, -1) + "0"), count_only: true });
  assert.equal(rest.count, "1");
});

test("sweep never deletes a state that changed after it read it", async () => {
  const prefix = `race/${process.pid}/`;
  const writer = etcdLocks({ endpoints: ENDPOINTS, prefix });
  for (const n of ["x", "y", "z"]) assert.equal(await writer.commit(n, "0", text(n), 5), true);
  const xKey = btoa(`${prefix}x`);
  let changed = 0;
  // Between sweep's range and its delete of x, x is committed again (as a service instance
  // renewing the lock would), through another backend, on the real cluster.
  const interleaving = async (url, init) => {
    const body = JSON.parse(init.body);
    if (url.endsWith("/v3/kv/txn") && body.success?.[0]?.request_delete_range?.key === xKey && changed++ === 0) {
      const x = await writer.read("x");
      assert.equal(await writer.commit("x", x.version, text("x renewed"), FAR), true);
    }
    return FETCH(url, init);
  };
  const sweeper = new EtcdLocks({ endpoints: ENDPOINTS, prefix, fetch: interleaving });
  assert.equal(await sweeper.sweep(5), 2);
  assert.equal(changed, 1);
  assert.deepEqual((await writer.read("x")).snapshot, text("x renewed"));
  assert.deepEqual(await writer.read("y"), { snapshot: null, version: "0" });
  assert.deepEqual(await writer.read("z"), { snapshot: null, version: "0" });
  assert.equal(await sweeper.sweep(5), 0);
});

test("a dead endpoint first in the list: the next member answers", async () => {
  const b = backend({ endpoints: [await deadUrl(), ...ENDPOINTS] });
  const started = Date.now();
  assert.deepEqual(await b.read("l"), { snapshot: null, version: "0" });
  assert.equal(await b.commit("l", "0", text("v"), FAR), true);
  const { snapshot, version } = await b.read("l");
  assert.deepEqual(snapshot, text("v"));
  assert.equal(await b.commit("l", version, text("w"), FAR), true);
  assert.equal(await b.sweep(FAR), 1);
  assert.ok(Date.now() - started < 2000, `took ${Date.now() - started} ms`);
  // Every endpoint dead: unavailable, naming each, at once.
  const none = etcdLocks({ endpoints: [await deadUrl(), await deadUrl()] });
  for (const call of [() => none.read("l"), () => none.commit("l", "0", text("v"), FAR), () => none.sweep(1)]) {
    await assert.rejects(call, (e) => e instanceof BackendUnavailableError && /no member answered.*connection refused.*connection refused/.test(e.message));
  }
});

test("an endpoint that answers but is not etcd's gateway: an error of its own, not unavailability", async () => {
  const b = backend({ endpoints: [`${ENDPOINTS[0]}/elsewhere`, ...ENDPOINTS] });
  await assert.rejects(
    b.read("l"),
    (e) => !(e instanceof BackendUnavailableError) && /^etcd refused \/v3\/kv\/range at http:\/\/127\.0\.0\.1:\d+\/elsewhere: HTTP 404/.test(e.message),
  );
});

/** Runs `call`, asserting it settles within `limitMs`; its value, or the BackendUnavailableError it threw. */
async function within(limitMs, call) {
  const started = Date.now();
  try {
    return await call();
  } catch (e) {
    if (!(e instanceof BackendUnavailableError)) throw e;
    return e;
  } finally {
    const took = Date.now() - started;
    assert.ok(took <= limitMs, `a call took ${took} ms, more than ${limitMs}`);
  }
}

test("a paused member: a write sent to it is unknown, never retried elsewhere; the next goes on", async () => {
  const l = await leader();
  const follower = members().find((m) => m.name !== l.name);
  const b = backend({ endpoints: [follower.clientUrl, ...ENDPOINTS.filter((u) => u !== follower.clientUrl)], timeoutMs: 800 });
  await pause(follower);
  try {
    const unknown = await within(800 + 400, () => b.commit("p", "0", text("held"), FAR));
    assert.ok(unknown instanceof BackendUnavailableError);
    assert.match(unknown.message, /^etcd \/v3\/kv\/txn: the outcome of the write is unknown: http:\/\/127\.0\.0\.1:\d+: no answer in time$/);
    // The next call starts at the next member, where the held write has not been applied.
    assert.equal(await b.commit("p", "0", text("after"), FAR), true);
    assert.deepEqual((await b.read("p")).snapshot, text("after"));
  } finally {
    resume(follower);
  }
  await healthy();
  // The held write reaches etcd once the member wakes; its compare ("no state yet") then fails.
  await sleep(500);
  assert.deepEqual((await b.read("p")).snapshot, text("after"));
});

test("reads are linearizable: a member cut off from the quorum answers none", async () => {
  const timeoutMs = 1500;
  const [lone, ...rest] = members();
  const b = etcdLocks({ endpoints: [lone.clientUrl], prefix: `lin/${process.pid}/`, timeoutMs });
  assert.equal(await b.commit("l", "0", text("stored"), FAR), true);
  for (const m of rest) await pause(m);
  try {
    // The member itself still has the key: a serializable read, from its own copy, answers...
    const local = await post(lone.clientUrl, "/v3/kv/range", { key: btoa(`lin/${process.pid}/l`), serializable: true });
    assert.equal(local?.count, "1");
    // ...but the backend's reads need a leader's word that nothing newer was committed.
    for (const call of [() => b.read("l"), () => b.commit("l", "0", text("x"), FAR), () => b.sweep(FAR)]) {
      const e = await within(timeoutMs + 500, call);
      assert.ok(e instanceof BackendUnavailableError, String(e));
    }
  } finally {
    for (const m of rest) resume(m);
  }
  await healthy();
  assert.deepEqual((await b.read("l")).snapshot, text("stored"));
});

test("a member killed: reads and commits go on through the others; restarted, it has caught up", async () => {
  const l = await leader();
  const victim = members().find((m) => m.name !== l.name);
  const prefix = `kill/${process.pid}/`;
  const first = (url) => [url, ...ENDPOINTS.filter((u) => u !== url)];
  const b = etcdLocks({ endpoints: first(victim.clientUrl), prefix });
  assert.equal(await b.commit("k", "0", text("before"), FAR), true);
  await kill(victim);
  let version;
  let back;
  try {
    let snapshot;
    ({ snapshot, version } = await b.read("k"));
    assert.deepEqual(snapshot, text("before"));
    for (let i = 0; i < 10; i++) {
      assert.equal(await b.commit("k", version, text(`during ${i}`), FAR), true);
      ({ version } = await b.read("k"));
    }
    // A backend that never reached the dead member before tries it first, too.
    const fresh = etcdLocks({ endpoints: first(victim.clientUrl), prefix });
    assert.equal(await fresh.commit("k2", "0", text("fresh"), FAR), true);
    assert.equal(await fresh.sweep(1), 0);
  } finally {
    back = await restart(victim);
  }
  assert.notEqual(back.pid, victim.pid);
  const only = etcdLocks({ endpoints: [back.clientUrl], prefix });
  assert.deepEqual(await only.read("k"), { snapshot: text("during 9"), version });
  assert.deepEqual((await only.read("k2")).snapshot, text("fresh"));
  assert.equal(await only.commit("k", version, text("after"), FAR), true);
  await healthy();
});

test("the leader paused 5 s under a stream of commits: right answers or BackendUnavailableError in time", async () => {
  const timeoutMs = 1000;
  const limit = timeoutMs + 500;
  const l = await leader();
  const b = backend({ endpoints: [l.clientUrl, ...ENDPOINTS.filter((u) => u !== l.clientUrl)], timeoutMs });
  const decode = (s) => new TextDecoder().decode(s);
  assert.equal(await b.commit("hot", "0", text("v0"), FAR), true);
  // `known`: the value of the last commit answered true, or one a read has seen since. `pending`:
  // commits whose outcome is unknown that may still apply (their compare can still hold).
  let known = "v0";
  let pending = [];
  const refused = new Set();
  const counts = { reads: 0, stored: 0, refused: 0, unavailable: 0, storedWhilePaused: 0 };
  const resumeAt = Date.now() + 5000;
  const endAt = resumeAt + 3000;
  let resumed = false;
  await pause(l);
  try {
    for (let n = 1; Date.now() < endAt; n++) {
      if (!resumed && Date.now() >= resumeAt) {
        resume(l);
        resumed = true;
      }
      const r = await within(limit, () => b.read("hot"));
      if (r instanceof Error) {
        counts.unavailable++;
        continue;
      }
      counts.reads++;
      const seen = decode(r.snapshot);
      assert.ok(!refused.has(seen), `a read saw ${seen}, whose commit answered false`);
      assert.ok(seen === known || pending.some((p) => p.value === seen), `a read saw ${seen}; known ${known}, pending ${pending.map((p) => p.value)}`);
      known = seen;
      // Only a commit that compared against the version just read can still apply.
      pending = pending.filter((p) => p.version === r.version && p.value !== seen);
      const value = `v${n}`;
      const ok = await within(limit, () => b.commit("hot", r.version, text(value), FAR));
      if (ok instanceof Error) {
        counts.unavailable++;
        pending.push({ value, version: r.version });
      } else if (ok) {
        counts.stored++;
        if (!resumed) counts.storedWhilePaused++;
        known = value;
        pending = [];
      } else {
        counts.refused++;
        refused.add(value);
      }
    }
  } finally {
    if (!resumed) resume(l);
  }
  await healthy();
  await sleep(500);
  const final = decode((await b.read("hot")).snapshot);
  assert.ok(final === known || pending.some((p) => p.value === final), `final ${final}; known ${known}, pending ${pending.map((p) => p.value)}`);
  // The paused leader cost at least one call, and the others went on without it.
  assert.ok(counts.unavailable >= 1, JSON.stringify(counts));
  assert.ok(counts.storedWhilePaused >= 1, JSON.stringify(counts));
  console.log(`leader paused: ${JSON.stringify(counts)}`);
});

test("every member paused, then every member dead: BackendUnavailableError, never a hang", async () => {
  const timeoutMs = 1000;
  const b = backend({ timeoutMs });
  assert.equal(await b.commit("s", "0", text("kept"), FAR), true);
  const { version } = await b.read("s");
  const all = members();
  for (const m of all) await pause(m);
  try {
    for (const call of [() => b.read("s"), () => b.commit("s", version, text("cut off"), FAR), () => b.sweep(FAR)]) {
      const e = await within(timeoutMs + 500, call);
      assert.ok(e instanceof BackendUnavailableError, String(e));
      assert.match(e.message, /no answer in time/);
    }
  } finally {
    for (const m of all) resume(m);
  }
  await healthy();
  // The cut-off commit reached a member that woke up: it may have been applied since.
  await sleep(500);
  const woke = (await b.read("s")).snapshot;
  assert.ok(["kept", "cut off"].includes(new TextDecoder().decode(woke)));
  for (const m of all) await kill(m);
  try {
    for (const call of [() => b.read("s"), () => b.commit("s", "0", text("none"), FAR), () => b.sweep(FAR)]) {
      const e = await within(500, call);
      assert.ok(e instanceof BackendUnavailableError, String(e));
      // Refused, or a connection pooled before the kill that breaks when it is used.
      const failure = String.raw`http:\/\/127\.0\.0\.1:\d+: (connection refused|the request failed \(fetch failed, [^)]+\))`;
      // A reset write may have been sent: unknown, so no other member is tried.
      const everyone = String.raw`^etcd \/v3\/kv\/(range|txn): no member answered: ${failure}; ${failure}; ${failure}$`;
      const reset = String.raw`^etcd \/v3\/kv\/txn: the outcome of the write is unknown: ${failure}$`;
      assert.match(e.message, new RegExp(`${everyone}|${reset}`));
    }
  } finally {
    for (const m of all) await restart(m, { wait: false });
    await healthy();
  }
  assert.deepEqual((await b.read("s")).snapshot, woke);
});
