// Misuse of every exported constructor, method and function, with each kind of bad value: each
// call throws a TypeError or RangeError naming the argument, and afterwards the same instances
// (and the one WebAssembly instance behind them) keep working.
import { test } from "node:test";
import assert from "node:assert/strict";
import vm from "node:vm";
import * as fp from "fencepost";

const {
  FencedResource,
  FenceGuard,
  GuardMap,
  LeaseAuthority,
  LockTable,
  TokenSigner,
  tokenFromBytes,
  tokenFromHeader,
  tokenFromString,
  tokenToBytes,
  tokenToHeader,
  tokenToString,
} = fp;

const HUGE = "x".repeat(1_000_000);
const KEY = new TextEncoder().encode("0123456789abcdef");

// Bad values by the kind of argument they are wrong for: [value, error type].
const NOT_A_BIGINT = [undefined, null, NaN, 33, "33", true, {}, [], Symbol("t"), () => 33n].map((v) => [v, TypeError]);
const OUT_OF_U64 = [-1n, 2n ** 64n, 2n ** 4000n].map((v) => [v, RangeError]);
const BAD_TOKEN = [...NOT_A_BIGINT, ...OUT_OF_U64];
const BAD_MS = [
  ...[undefined, null, "0", 0n, true, {}, []].map((v) => [v, TypeError]),
  ...[NaN, -1, 1.5, Infinity, -Infinity, 2 ** 53].map((v) => [v, RangeError]),
];
const BAD_NAME = [
  ...[undefined, null, 1, 1n, true, {}, [], Symbol("n")].map((v) => [v, TypeError]),
  ...[HUGE, "é".repeat(600), "\uD800", "a\uDC00b"].map((v) => [v, RangeError]),
];
const BAD_TEXT = [
  ...[undefined, null, 34, 34n, {}, []].map((v) => [v, TypeError]),
  ...[HUGE].map((v) => [v, RangeError]),
];
// A Proxy of a Uint8Array passes `instanceof` but could run code while it is copied: refused.
const PROXY_BYTES = new Proxy(new Uint8Array(16), {});
const BAD_BYTES = [
  ...[undefined, null, "abc", [1, 2, 3], new Uint16Array(8), new ArrayBuffer(8), 8, PROXY_BYTES].map((v) => [v, TypeError]),
];
/** A Uint8Array that says it is shorter than it is. */
class ShortSpoken extends Uint8Array {
  get length() {
    return 8;
  }
}
const BAD_LEASE_OPTIONS = [
  ...[null, 1, "x", [], { ttl: 5 }, { ttlMs: 5, extra: 1 }].map((v) => [v, TypeError]),
  ...[{ ttlMs: -1 }, { ttlMs: NaN }, { ttlMs: 0.5 }].map((v) => [v, RangeError]),
];
const BAD_AUTHORITY_OPTIONS = [
  ...[undefined, null, 30_000, "x", [], {}, { ttl: 5 }, { ttlMs: 5, bogus: 1 }, { ttlMs: "5" }, { ttlMs: 5, firstToken: 33 }].map(
    (v) => [v, TypeError],
  ),
  ...[
    { ttlMs: 0 },
    { ttlMs: -5 },
    { ttlMs: NaN },
    { ttlMs: 5, firstToken: 0n },
    { ttlMs: 5, firstToken: -1n },
    { ttlMs: 5, firstToken: 2n ** 64n },
    { ttlMs: 5, maxReentry: 0 },
    { ttlMs: 5, maxReentry: 2 ** 32 },
    { ttlMs: 5, reserveBlock: 0 },
    { ttlMs: 5, lockDelayMs: -1 },
  ].map((v) => [v, RangeError]),
];

/** A bad value in a failure message (a Proxy of a typed array cannot even be turned into text). */
function show(value) {
  try {
    return String(typeof value === "symbol" ? "symbol" : value).slice(0, 40);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

/** The message must name the argument, which is how it starts. */
function expectThrow(fn, value, type, argName) {
  let error;
  try {
    fn(value);
  } catch (e) {
    error = e;
  }
  assert.ok(error, `${argName} = ${show(value)}: no error`);
  assert.equal(error.constructor, type, `${argName}: ${error.constructor.name}: ${error.message}`);
  assert.ok(
    error.message.startsWith(argName),
    `the message for ${argName} must name it: ${JSON.stringify(error.message)}`,
  );
  assert.ok(error.message.length < 200, `message too long: ${error.message.length}`);
}

function sweep(values, argName, fn) {
  for (const [value, type] of values) expectThrow(fn, value, type, argName);
}

test("exact messages name the argument and the problem", () => {
  const g = new FenceGuard();
  assert.throws(() => g.admit(33), { name: "TypeError", message: "token must be a bigint, got 33" });
  assert.throws(() => g.admit(-1n), {
    name: "RangeError",
    message: "token must be between 0n and 18446744073709551615n, got -1n",
  });
  assert.throws(() => g.admit(2n ** 200n), {
    name: "RangeError",
    message: "token must be between 0n and 18446744073709551615n, got 160693804425…1376n (61 digits)",
  });
  const started = Date.now();
  assert.throws(() => g.admit(-(2n ** 10_000_000n)), {
    name: "RangeError",
    message: "token must be between 0n and 18446744073709551615n, got a negative bigint of more than 1000 digits",
  });
  assert.ok(Date.now() - started < 1_000, "describing a huge bigint must not print it");
  assert.throws(() => new LeaseAuthority({ ttlMs: 30_000, firstTokn: 33n }), {
    name: "TypeError",
    message: 'options has an unknown key "firstTokn"; known keys: ttlMs, firstToken, firstTokenAt, lockDelayMs, maxReentry, reserveBlock',
  });
  assert.throws(() => new LeaseAuthority({ ttlMs: 0 }), {
    name: "RangeError",
    message: "options: ttlMs must be greater than 0",
  });
  const auth = new LeaseAuthority({ ttlMs: 30_000 });
  assert.throws(() => auth.acquire("A", NaN), {
    name: "RangeError",
    message: "now must be a whole number of milliseconds from 0 to 2^53 - 1, got NaN",
  });
  assert.throws(() => auth.acquire(null, 0), { name: "TypeError", message: "holder must be a string, got null" });
  assert.throws(() => auth.acquire(HUGE, 0), {
    name: "RangeError",
    message: "holder must be at most 1024 bytes of UTF-8, got 1000000 characters",
  });
  assert.throws(() => auth.acquire("é".repeat(600), 0), {
    name: "RangeError",
    message: "holder must be at most 1024 bytes of UTF-8, got 1200 bytes",
  });
  assert.throws(() => auth.acquire(undefined, 0), {
    name: "TypeError",
    message: "holder must be a string, got undefined",
  });
  assert.throws(() => g.admitMany([1n, 2n]), { name: "TypeError", message: "tokens must be a BigUint64Array, got an array" });
  assert.throws(() => tokenFromString(HUGE), {
    name: "RangeError",
    message: "value must be at most 4096 characters, got 1000000",
  });
  assert.deepEqual(auth.acquire("A", 0), { ok: true, token: 1n, expiresAt: 30_000 });
});

test("every constructor, method and function refuses each kind of bad value and the instances keep working", () => {
  const auth = new LeaseAuthority({ ttlMs: 30_000, firstToken: 33n });
  const table = new LockTable({ ttlMs: 30_000, firstToken: 33n });
  const guard = new FenceGuard();
  const map = new GuardMap();
  const resource = new FencedResource();
  const signer = new TokenSigner(KEY);
  const snapshot = auth.snapshot();

  // Constructors and restore.
  sweep(BAD_AUTHORITY_OPTIONS, "options", (v) => new LeaseAuthority(v));
  sweep(BAD_AUTHORITY_OPTIONS, "options", (v) => new LockTable(v));
  sweep(BAD_AUTHORITY_OPTIONS, "options", (v) => LeaseAuthority.restore(snapshot, v));
  sweep(BAD_AUTHORITY_OPTIONS, "options", (v) => LockTable.restore(table.snapshot(), v));
  sweep(
    [...BAD_BYTES.filter(([v]) => typeof v !== "string"), [new Uint8Array(3), RangeError], ["!!!!", RangeError], ["", RangeError]],
    "snapshot",
    (v) => LeaseAuthority.restore(v, { ttlMs: 1 }),
  );
  sweep([[new Uint8Array(10), RangeError], [42, TypeError]], "snapshot", (v) => LockTable.restore(v, { ttlMs: 1 }));
  sweep(
    [
      ...[null, 1, "x", [], { high: 1n }].map((v) => [v, TypeError]),
      ...[{ highest: 5 }].map((v) => [v, TypeError]),
      ...[{ highest: -1n }, { highest: 0n }, { highest: 2n ** 64n }].map((v) => [v, RangeError]),
    ],
    "options",
    (v) => new FenceGuard(v),
  );
  sweep([...BAD_BYTES, [new Uint8Array(15), RangeError], [new Uint8Array(5000), RangeError]], "key", (v) => new TokenSigner(v));

  // LeaseAuthority.
  sweep(BAD_NAME, "holder", (v) => auth.acquire(v, 0));
  sweep(BAD_MS, "now", (v) => auth.acquire("A", v));
  sweep(BAD_LEASE_OPTIONS, "options", (v) => auth.acquire("A", 0, v));
  sweep(BAD_NAME, "holder", (v) => auth.renew(v, 33n, 0));
  sweep([...BAD_TOKEN, [0n, RangeError]], "token", (v) => auth.renew("A", v, 0));
  sweep(BAD_MS, "now", (v) => auth.renew("A", 33n, v));
  sweep(BAD_LEASE_OPTIONS, "options", (v) => auth.renew("A", 33n, 0, v));
  sweep(BAD_NAME, "holder", (v) => auth.release(v, 33n, 0));
  sweep([...BAD_TOKEN, [0n, RangeError]], "token", (v) => auth.release("A", v, 0));
  sweep(BAD_MS, "now", (v) => auth.release("A", 33n, v));
  sweep(BAD_MS, "now", (v) => auth.expire(v));
  sweep(BAD_MS, "now", (v) => auth.lease(v));

  // LockTable.
  sweep(BAD_NAME, "lock", (v) => table.acquire(v, "A", 0));
  sweep(BAD_NAME, "holder", (v) => table.acquire("l", v, 0));
  sweep(BAD_MS, "now", (v) => table.acquire("l", "A", v));
  sweep(BAD_LEASE_OPTIONS, "options", (v) => table.acquire("l", "A", 0, v));
  sweep(BAD_NAME, "lock", (v) => table.renew(v, "A", 33n, 0));
  sweep(BAD_NAME, "holder", (v) => table.renew("l", v, 33n, 0));
  sweep([...BAD_TOKEN, [0n, RangeError]], "token", (v) => table.renew("l", "A", v, 0));
  sweep(BAD_MS, "now", (v) => table.renew("l", "A", 33n, v));
  sweep(BAD_LEASE_OPTIONS, "options", (v) => table.renew("l", "A", 33n, 0, v));
  sweep(BAD_NAME, "lock", (v) => table.release(v, "A", 33n, 0));
  sweep(BAD_NAME, "holder", (v) => table.release("l", v, 33n, 0));
  sweep([...BAD_TOKEN, [0n, RangeError]], "token", (v) => table.release("l", "A", v, 0));
  sweep(BAD_MS, "now", (v) => table.release("l", "A", 33n, v));
  sweep(BAD_NAME, "lock", (v) => table.expire(v, 0));
  sweep(BAD_MS, "now", (v) => table.expire("l", v));
  sweep(BAD_MS, "now", (v) => table.expireAll(v));
  sweep(BAD_NAME, "lock", (v) => table.lease(v, 0));
  sweep(BAD_MS, "now", (v) => table.lease("l", v));

  // FenceGuard.
  sweep(BAD_TOKEN, "token", (v) => guard.admit(v));
  sweep(BAD_TOKEN, "token", (v) => guard.check(v));
  sweep(
    [...[undefined, null, [1n], new BigInt64Array(1), new Uint8Array(1), "1", new Proxy(new BigUint64Array(1), {})].map((v) => [v, TypeError])],
    "tokens",
    (v) => guard.admitMany(v),
  );
  sweep(
    [...[null, [0], new Uint16Array(2), new Proxy(new Uint8Array(2), {})].map((v) => [v, TypeError]), [new Uint8Array(1), RangeError]],
    "out",
    (v) => guard.admitMany(new BigUint64Array(2), v),
  );
  sweep(
    [[null, TypeError], [{}, TypeError], [KEY, TypeError], [Object.create(TokenSigner.prototype), TypeError]],
    "signer",
    (v) => guard.admitSigned(v, "l", "1.00"),
  );
  sweep(BAD_NAME, "lock", (v) => guard.admitSigned(signer, v, "1.00"));
  sweep([...BAD_TEXT, ["34", RangeError], ["34.zz", RangeError], [`1.${"0".repeat(70)}`, RangeError]], "header", (v) =>
    guard.admitSigned(signer, "l", v),
  );

  // GuardMap.
  sweep(BAD_NAME, "resource", (v) => map.admit(v, 1n));
  sweep(BAD_TOKEN, "token", (v) => map.admit("r", v));
  sweep(BAD_NAME, "resource", (v) => map.check(v, 1n));
  sweep(BAD_TOKEN, "token", (v) => map.check("r", v));
  sweep(BAD_NAME, "resource", (v) => map.highest(v));

  // FencedResource.
  sweep(BAD_TOKEN, "token", (v) => resource.write(v, 1, () => 0));
  sweep(
    [
      ...[undefined, null, "1", {}, true].map((v) => [v, TypeError]),
      ...[-1, 1.5, NaN, 2 ** 53, -1n, 2n ** 64n].map((v) => [v, RangeError]),
    ],
    "opId",
    (v) => resource.write(1n, v, () => 0),
  );
  sweep([undefined, null, 1, "f", {}].map((v) => [v, TypeError]), "apply", (v) => resource.write(1n, 1, v));

  // TokenSigner.
  sweep(BAD_NAME, "lock", (v) => signer.sign(v, 1n));
  sweep([...BAD_TOKEN, [0n, RangeError]], "token", (v) => signer.sign("l", v));
  sweep(BAD_NAME, "lock", (v) => signer.verify(v, "1.00"));
  sweep([...BAD_TEXT, ["", RangeError], ["1", RangeError], ["1.0", RangeError]], "header", (v) => signer.verify("l", v));

  // Codecs.
  for (const f of [tokenToString, tokenToHeader, tokenToBytes]) {
    sweep([...BAD_TOKEN, [0n, RangeError]], "token", f);
  }
  for (const f of [tokenFromString, tokenFromHeader]) {
    sweep([...BAD_TEXT, ["", RangeError], ["-1", RangeError], ["0", RangeError], ["1e3", RangeError]], "value", f);
  }
  sweep([...BAD_BYTES, [new Uint8Array(7), RangeError], [new Uint8Array(8), RangeError], [new Uint8Array(9000), RangeError]], "value", tokenFromBytes);

  // Loading.
  sweep([[undefined, TypeError], [null, TypeError], ["x", TypeError], [{}, TypeError]], "module", (v) => fp.initSync(v));

  // The same instances still tell the story, and everything else still works.
  assert.deepEqual(auth.acquire("A", 0), { ok: true, token: 33n, expiresAt: 30_000 });
  assert.deepEqual(auth.acquire("B", 45_000), { ok: true, token: 34n, expiresAt: 75_000 });
  assert.deepEqual(guard.admit(34n), { ok: true });
  assert.deepEqual(guard.admit(33n), { ok: false, reason: "stale", presented: 33n, highest: 34n });
  assert.deepEqual([...guard.admitMany(new BigUint64Array([35n, 34n]))], [1, 0]);
  assert.deepEqual(table.acquire("l", "A", 0), { ok: true, token: 33n, expiresAt: 30_000 });
  assert.deepEqual(map.admit("r", 2n), { ok: true });
  assert.deepEqual(map.admit("r", 1n), { ok: false, reason: "stale", presented: 1n, highest: 2n });
  assert.deepEqual(resource.write(5n, 1, () => "done"), { ok: true, applied: true, outcome: "done" });
  const h = signer.sign("l", 36n);
  assert.deepEqual(signer.verify("l", h), { ok: true, token: 36n });
  assert.deepEqual(guard.admitSigned(signer, "l", h), { ok: true });
  assert.equal(tokenFromString("34"), 34n);
  assert.equal(LeaseAuthority.restore(auth.snapshotString(), { ttlMs: 30_000 }).nextToken, 35n);
});

test("typed arrays are taken at their real length, whatever they say of themselves", () => {
  const auth = new LeaseAuthority({ ttlMs: 1_000 });
  assert.deepEqual(auth.acquire("A", 0), { ok: true, token: 1n, expiresAt: 1_000 });
  // 1024 bytes that claim to be 8: read as the 1024 they are, never copied past the input area.
  const long = new ShortSpoken(1024);
  long.fill(1);
  assert.throws(() => tokenFromBytes(long), {
    name: "RangeError",
    message: "value is not a token: token bytes must be exactly 8 long, got 1024",
  });
  const eight = new ShortSpoken(8);
  eight[7] = 34;
  assert.equal(tokenFromBytes(eight), 34n);
  assert.throws(() => new TokenSigner(PROXY_BYTES), {
    name: "TypeError",
    message: "key must be a Uint8Array (not a Proxy or an object posing as one), got an object (Object)",
  });
  const key = new ShortSpoken(32);
  key.fill(7);
  assert.deepEqual(new TokenSigner(key).sign("l", 5n), new TokenSigner(new Uint8Array(32).fill(7)).sign("l", 5n));
  const snapshot = auth.snapshot();
  const spoken = new (class extends Uint8Array {
    get length() {
      return 3;
    }
  })(snapshot);
  assert.equal(LeaseAuthority.restore(spoken, { ttlMs: 1_000 }).lease(1).holder, "A");
  // A batch that says it holds 4 tokens but holds 1 admits the 1 (never leftovers of another).
  const other = new FenceGuard();
  other.admitMany(new BigUint64Array([999_999n, 5n, 6n, 7n]));
  const one = new (class extends BigUint64Array {
    get length() {
      return 4;
    }
  })([3n]);
  const guard = new FenceGuard();
  assert.deepEqual([...guard.admitMany(one)], [1]);
  assert.equal(guard.highest, 3n);
  // From another realm: still a Uint8Array.
  const foreign = vm.runInNewContext("new Uint8Array([0, 0, 0, 0, 0, 0, 0, 9])");
  assert.equal(foreign instanceof Uint8Array, false);
  assert.equal(tokenFromBytes(foreign), 9n);
  // Over a detached buffer: empty, never a construction error.
  const gone = new Uint8Array(8);
  structuredClone(gone.buffer, { transfer: [gone.buffer] });
  assert.throws(() => tokenFromBytes(gone), {
    name: "RangeError",
    message: "value is not a token: token bytes must be exactly 8 long, got 0",
  });
  // The module is whole: the authority made before still answers.
  assert.deepEqual(auth.acquire("B", 1), { ok: false, reason: "held", holder: "A", until: 1_000 });
});

test("an options getter that frees the object gets the freed error, never another object's grant", () => {
  for (const make of [() => new LeaseAuthority({ ttlMs: 50 }), () => new LockTable({ ttlMs: 50 })]) {
    const table = make() instanceof LockTable;
    const acquire = (x, o) => (table ? x.acquire("l", "B", 0, o) : x.acquire("B", 0, o));
    const renew = (x, o) => (table ? x.renew("l", "B", 1n, 0, o) : x.renew("B", 1n, 0, o));
    const lease = (x) => (table ? x.lease("l", 0) : x.lease(0));
    /** Options whose getter frees `a` and makes another object (in the freed slot), `prepared`. */
    const freeing = (a, prepare) => {
      const made = { other: null };
      const options = {
        get ttlMs() {
          a.free();
          made.other = make();
          prepare(made.other);
          return 77;
        },
      };
      return [options, made];
    };

    // acquire: nothing is granted on the object the getter made.
    const a = make();
    const [o1, m1] = freeing(a, () => {});
    assert.throws(() => acquire(a, o1), { name: "TypeError", message: `this ${a.constructor.name} was freed` });
    assert.equal(m1.other.lastIssued, null);

    // renew: the other object's lease (B, token 1) is not renewed to 77 ms.
    const b = make();
    const [o2, m2] = freeing(b, (other) => assert.equal(acquire(other).ok, true));
    assert.throws(() => renew(b, o2), { name: "TypeError", message: `this ${b.constructor.name} was freed` });
    assert.equal(lease(m2.other).expiresAt, 50);
  }
});

test("a retry from inside apply is refused while the first attempt runs", () => {
  const r = new FencedResource();
  let inner = null;
  const outer = r.write(1n, 7, () => {
    try {
      r.write(1n, 7, () => "twice");
    } catch (e) {
      inner = e;
    }
    return "once";
  });
  assert.deepEqual(outer, { ok: true, applied: true, outcome: "once" });
  assert.equal(inner.constructor, TypeError);
  assert.equal(inner.message, "op 7 is still being applied: its apply called write for the same operation");
  assert.deepEqual(r.write(1n, 7, () => "again"), { ok: true, applied: false, outcome: "once" });
});

test("times past 2^53 - 1 come back as Infinity, never as a rounded number", () => {
  const near = Number.MAX_SAFE_INTEGER - 5;
  const auth = new LeaseAuthority({ ttlMs: 10, lockDelayMs: 10 });
  assert.deepEqual(auth.acquire("A", near), { ok: true, token: 1n, expiresAt: Infinity });
  assert.deepEqual(auth.lease(Number.MAX_SAFE_INTEGER), {
    holder: "A",
    token: 1n,
    grantedAt: near,
    expiresAt: Infinity,
    depth: 1,
  });
  assert.deepEqual(auth.acquire("B", Number.MAX_SAFE_INTEGER), { ok: false, reason: "held", holder: "A", until: Infinity });
  const exact = new LeaseAuthority({ ttlMs: 5 });
  assert.deepEqual(exact.acquire("A", near), { ok: true, token: 1n, expiresAt: Number.MAX_SAFE_INTEGER });
  const table = new LockTable({ ttlMs: 10 });
  assert.deepEqual(table.acquire("l", "A", near), { ok: true, token: 1n, expiresAt: Infinity });
});

test("a base64 snapshot of millions of characters is read, not a stack overflow", () => {
  // Well-formed base64 of about 9 MB that is not a snapshot: refused for what it says, quickly.
  assert.throws(() => LockTable.restore("A".repeat(12_000_000), { ttlMs: 5 }), {
    name: "RangeError",
    message: "snapshot: not a fencepost snapshot (bad magic bytes)",
  });
  for (const bad of ["A===", "AAA", "AA=A", "====", "AAAA====", "AAA*"]) {
    assert.throws(() => LockTable.restore(bad, { ttlMs: 5 }), {
      name: "RangeError",
      message: "snapshot must be a base64 string (as snapshotString() returns)",
    });
  }
});

test("huge and strange inputs in a loop never wear the instance down", () => {
  const guard = new FenceGuard();
  const auth = new LeaseAuthority({ ttlMs: 10 });
  for (let i = 0; i < 2_000; i++) {
    assert.throws(() => auth.acquire(HUGE, i), RangeError);
    assert.throws(() => guard.admit(-BigInt(i) - 1n), RangeError);
    assert.throws(() => tokenFromString(`${i}x`), RangeError);
    assert.throws(() => LeaseAuthority.restore(new Uint8Array(64), { ttlMs: 1 }), RangeError);
    assert.equal(guard.admit(BigInt(i + 1)).ok, true);
    assert.equal(auth.acquire(`w${i}`, i * 10).ok, true);
  }
  assert.equal(guard.highest, 2_000n);
  assert.equal(auth.lastIssued, 2_000n);
});

test("thousands of random calls with random arguments only ever return or throw TypeError / RangeError", () => {
  // xorshift32, seeded: the same calls every run.
  let seed = 0x9e3779b9;
  const rand = (n) => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) % n;
  };
  const auth = new LeaseAuthority({ ttlMs: 1_000, firstToken: 33n, lockDelayMs: 10, maxReentry: 3 });
  const table = new LockTable({ ttlMs: 1_000 });
  const guard = new FenceGuard();
  const map = new GuardMap();
  const resource = new FencedResource();
  const signer = new TokenSigner(KEY);
  auth.acquire("A", 0);
  table.acquire("l", "A", 0);
  const snapshots = [auth.snapshot(), table.snapshot()];
  const damaged = () => {
    const s = snapshots[rand(2)].slice();
    for (let k = 0, n = 1 + rand(4); k < n; k++) s[rand(s.length)] = rand(256);
    return rand(3) === 0 ? s.subarray(0, rand(s.length)) : s;
  };
  const values = () => [
    undefined, null, true, 0, -1, 1.5, NaN, Infinity, 2 ** 53, 7, 1_000,
    0n, 1n, 33n, 34n, -1n, 2n ** 64n - 1n, 2n ** 64n, 2n ** 300n,
    "", "A", "l", "r", "34", "33.ab", signer.sign("l", 34n), "x".repeat(2_000), "\uD800",
    {}, [], { ttlMs: 5 }, { ttlMs: 0 }, { ttlMs: 5, bogus: 1 }, { highest: 3n },
    new Uint8Array(0), new Uint8Array(8), new Uint8Array(16), damaged(), auth.snapshotString(),
    new BigUint64Array([1n, 0n, 2n ** 64n - 1n]), Symbol("s"), () => 1, signer, guard,
  ];
  const targets = [
    (a) => auth.acquire(a[0], a[1], a[2]),
    (a) => auth.renew(a[0], a[1], a[2], a[3]),
    (a) => auth.release(a[0], a[1], a[2]),
    (a) => auth.expire(a[0]),
    (a) => auth.lease(a[0]),
    (a) => LeaseAuthority.restore(a[0], a[1]),
    (a) => new LeaseAuthority(a[0]),
    (a) => table.acquire(a[0], a[1], a[2], a[3]),
    (a) => table.renew(a[0], a[1], a[2], a[3], a[4]),
    (a) => table.release(a[0], a[1], a[2], a[3]),
    (a) => table.expire(a[0], a[1]),
    (a) => table.expireAll(a[0]),
    (a) => table.lease(a[0], a[1]),
    (a) => LockTable.restore(a[0], a[1]),
    (a) => guard.admit(a[0]),
    (a) => guard.check(a[0]),
    (a) => guard.admitMany(a[0], a[1]),
    (a) => guard.admitSigned(a[0], a[1], a[2]),
    (a) => new FenceGuard(a[0]),
    (a) => map.admit(a[0], a[1]),
    (a) => map.check(a[0], a[1]),
    (a) => map.highest(a[0]),
    (a) => resource.write(a[0], a[1], a[2]),
    (a) => signer.sign(a[0], a[1]),
    (a) => signer.verify(a[0], a[1]),
    (a) => new TokenSigner(a[0]),
    (a) => tokenToString(a[0]),
    (a) => tokenFromString(a[0]),
    (a) => tokenToHeader(a[0]),
    (a) => tokenFromHeader(a[0]),
    (a) => tokenToBytes(a[0]),
    (a) => tokenFromBytes(a[0]),
  ];
  const seen = { returned: 0, TypeError: 0, RangeError: 0 };
  for (let n = 0; n < 20_000; n++) {
    const pool = values();
    const args = Array.from({ length: 5 }, () => pool[rand(pool.length)]);
    try {
      targets[rand(targets.length)](args);
      seen.returned++;
    } catch (e) {
      assert.ok(e instanceof TypeError || e instanceof RangeError, `call ${n}: ${e?.constructor?.name}: ${e?.message}`);
      seen[e.constructor.name]++;
    }
  }
  assert.ok(seen.returned > 500 && seen.TypeError > 1_000 && seen.RangeError > 500, JSON.stringify(seen));
  // The same objects still work, and so does the story on new ones.
  assert.equal(guard.admit(2n ** 64n - 1n).ok, true);
  assert.equal(map.admit("fresh", 5n).ok, true);
  const fresh = new LeaseAuthority({ ttlMs: 30_000, firstToken: 33n });
  const a = fresh.acquire("A", 0);
  const b = fresh.acquire("B", 45_000);
  const g = new FenceGuard();
  assert.deepEqual(g.admit(b.token), { ok: true });
  assert.deepEqual(g.admit(a.token), { ok: false, reason: "stale", presented: 33n, highest: 34n });
});
