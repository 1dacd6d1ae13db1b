// The rest of the package's API, from the packed tarball: refusal shapes, lock tables, guards,
// idempotency, signed tokens, codecs, snapshots, batches, and the slim entry.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHmac } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import * as fencepost from "fencepost";
import { resealed } from "./snapshot-checksum.mjs";
import {
  AdmitCode,
  FencedResource,
  FenceGuard,
  GuardMap,
  HEADER_NAME,
  KeyRing,
  LeaseAuthority,
  LockTable,
  TokenSigner,
  tokenFromBytes,
  tokenFromHeader,
  tokenFromString,
  tokenToBytes,
  tokenToHeader,
  tokenToString,
} from "fencepost";

const MAX = 2n ** 64n - 1n;

test("a per-lease ttlMs of 0 follows the core: a 1 ms lease", () => {
  const auth = new LeaseAuthority({ ttlMs: 100 });
  assert.deepEqual(auth.acquire("A", 5, { ttlMs: 0 }), { ok: true, token: 1n, expiresAt: 6 });
  assert.deepEqual(auth.renew("A", 1n, 5, { ttlMs: 0 }), { ok: true, token: 1n, expiresAt: 6 });
  const table = new LockTable({ ttlMs: 100 });
  assert.deepEqual(table.acquire("l", "A", 5, { ttlMs: 0 }), { ok: true, token: 1n, expiresAt: 6 });
});

test("firstTokenAt: the first token from the wall clock, by the core's rule", () => {
  // 2026-12-02T00:00:00Z, in ms, shifted past the 2^20 tokens a millisecond may issue.
  const at = 1_796_169_600_000;
  const auth = new LeaseAuthority({ ttlMs: 100, firstTokenAt: at });
  assert.deepEqual(auth.acquire("A", 0), { ok: true, token: 1_883_420_334_489_600_000n, expiresAt: 100 });
  // A lock started one millisecond later starts above every token the first could issue in it.
  const table = new LockTable({ ttlMs: 100, firstTokenAt: at + 1 });
  assert.deepEqual(table.acquire("l", "A", 0), { ok: true, token: 1_883_420_334_489_600_000n + 2n ** 20n, expiresAt: 100 });
  assert.deepEqual(new LeaseAuthority({ ttlMs: 1, firstTokenAt: 0 }).acquire("A", 0).token, 1n);
  assert.throws(() => new LeaseAuthority({ ttlMs: 1, firstToken: 5n, firstTokenAt: at }), {
    name: "TypeError",
    message: "options.firstToken and options.firstTokenAt name the first token twice: give one",
  });
  assert.throws(() => new LeaseAuthority({ ttlMs: 1, firstTokenAt: -1 }), RangeError);
  assert.throws(() => new LeaseAuthority({ ttlMs: 1, firstTokenAt: 1.5 }), RangeError);
});

test("refusals are values with their reasons", () => {
  const auth = new LeaseAuthority({ ttlMs: 100, lockDelayMs: 1_000, maxReentry: 2 });
  const a = auth.acquire("A", 0);
  assert.deepEqual(a, { ok: true, token: 1n, expiresAt: 100 });
  assert.deepEqual(auth.acquire("B", 50), { ok: false, reason: "held", holder: "A", until: 100 });
  assert.deepEqual(auth.acquire("A", 60), { ok: true, token: 1n, expiresAt: 160 });
  assert.deepEqual(auth.acquire("A", 61), { ok: false, reason: "reentryLimit", max: 2 });
  assert.deepEqual(auth.lease(70), { holder: "A", token: 1n, grantedAt: 0, expiresAt: 160, depth: 2 });
  assert.deepEqual(auth.release("A", 1n, 80), { ok: true, depth: 1 });
  assert.deepEqual(auth.renew("A", 1n, 90), { ok: true, token: 1n, expiresAt: 190 });
  assert.deepEqual(auth.renew("A", 1n, 90, { ttlMs: 500 }), { ok: true, token: 1n, expiresAt: 590 });
  // B knows A's live token but is not A; a token no live lease has is lost.
  assert.deepEqual(auth.renew("B", 1n, 91), { ok: false, reason: "notHolder" });
  assert.deepEqual(auth.release("B", 1n, 91), { ok: false, reason: "notHolder" });
  assert.deepEqual(auth.renew("A", 9n, 91), { ok: false, reason: "lost" });
  assert.deepEqual(auth.acquire("B", 600), { ok: false, reason: "lockDelay", until: 1_590 });
  assert.deepEqual(auth.expire(601), null);
  assert.deepEqual(auth.release("A", 1n, 601), { ok: false, reason: "lost" });
  assert.equal(auth.freeAt, 1_590);
  assert.deepEqual(auth.acquire("B", 1_590, { ttlMs: 10 }), { ok: true, token: 2n, expiresAt: 1_600 });
  assert.deepEqual(auth.expire(5_000), { holder: "B", token: 2n, at: 1_600, freeAt: 2_600 });
  assert.equal(auth.expire(5_001), null);
  assert.equal(auth.lease(5_002), null);
  // A clock that steps back is clamped, never trusted.
  assert.deepEqual(auth.acquire("C", 3_000), { ok: true, token: 3n, expiresAt: 5_102 });
  assert.equal(auth.clamps, 1);
  assert.equal(auth.latestNow, 5_002);
  assert.equal(auth.lastIssued, 3n);
  assert.equal(auth.nextToken, 4n);
  assert.equal(auth.reservedThrough, 3n);

  const last = new LeaseAuthority({ ttlMs: 10, firstToken: MAX });
  assert.deepEqual(last.acquire("A", 0), { ok: true, token: MAX, expiresAt: 10 });
  assert.deepEqual(last.acquire("B", 10), { ok: false, reason: "exhausted" });
  assert.equal(last.nextToken, null);
});

test("snapshots restore above every token handed out, from bytes or a string", () => {
  const auth = new LeaseAuthority({ ttlMs: 30_000, firstToken: 33n, reserveBlock: 10 });
  auth.acquire("A", 0);
  auth.acquire("B", 45_000);
  const bytes = auth.snapshot();
  assert.ok(bytes instanceof Uint8Array);
  assert.deepEqual([...bytes.subarray(0, 6)], [0x46, 0x50, 0x73, 0x74, 1, 1]);
  const text = auth.snapshotString();
  assert.equal(JSON.parse(JSON.stringify({ text })).text, text);
  for (const snap of [bytes, text]) {
    const back = LeaseAuthority.restore(snap, { ttlMs: 30_000, firstToken: 33n, reserveBlock: 10 });
    assert.deepEqual(back.lease(50_000), { holder: "B", token: 34n, grantedAt: 45_000, expiresAt: 75_000, depth: 1 });
    assert.deepEqual(back.acquire("C", 80_000), { ok: true, token: 43n, expiresAt: 110_000 });
  }
  const damaged = bytes.slice();
  damaged[10] ^= 1;
  assert.throws(() => LeaseAuthority.restore(damaged, { ttlMs: 1 }), {
    name: "RangeError",
    message: "snapshot: snapshot checksum mismatch: the bytes are damaged",
  });
  assert.throws(() => LockTable.restore(bytes, { ttlMs: 1 }), {
    name: "RangeError",
    message: "snapshot: snapshot is of another kind (1)",
  });
  // A value no snapshot holds, behind a good checksum: the field is named by the module's own
  // text (read from its memory at the address the result record gives).
  // (Byte 6 holds the flags: an unknown one, or "exhausted" beside a next token.)
  for (const [flags, field] of [
    [0x80, "flags"],
    [bytes[6] | 1, "next_token"],
  ]) {
    const odd = bytes.slice();
    odd[6] = flags;
    resealed(odd);
    assert.throws(() => LeaseAuthority.restore(odd, { ttlMs: 1 }), {
      name: "RangeError",
      message: `snapshot: snapshot field \`${field}\` is inconsistent`,
    });
  }
  assert.throws(() => LeaseAuthority.restore("not base64!", { ttlMs: 1 }), {
    name: "RangeError",
    message: "snapshot must be a base64 string (as snapshotString() returns)",
  });
});

test("a lock table shares one token sequence across locks", () => {
  const table = new LockTable({ ttlMs: 100, firstToken: 33n, lockDelayMs: 10 });
  assert.deepEqual(table.acquire("orders", "A", 0), { ok: true, token: 33n, expiresAt: 100 });
  assert.deepEqual(table.acquire("invoices", "B", 0), { ok: true, token: 34n, expiresAt: 100 });
  assert.deepEqual(table.acquire("orders", "B", 50), { ok: false, reason: "held", holder: "A", until: 100 });
  assert.deepEqual(table.renew("orders", "B", 33n, 55), { ok: false, reason: "notHolder" });
  assert.deepEqual(table.renew("orders", "A", 34n, 55), { ok: false, reason: "lost" });
  assert.deepEqual(table.release("invoices", "B", 34n, 60), { ok: true, depth: 0 });
  assert.equal(table.size, 1);
  assert.deepEqual(table.expireAll(100), [{ lock: "orders", holder: "A", token: 33n, at: 100, freeAt: 110 }]);
  assert.deepEqual(table.acquire("orders", "B", 105), { ok: false, reason: "lockDelay", until: 110 });
  assert.deepEqual(table.acquire("orders", "B", 110), { ok: true, token: 35n, expiresAt: 210 });
  const back = LockTable.restore(table.snapshotString(), { ttlMs: 100 });
  assert.deepEqual(back.lease("orders", 150), { holder: "B", token: 35n, grantedAt: 110, expiresAt: 210, depth: 1 });
  assert.deepEqual(back.renew("orders", "B", 35n, 150), { ok: true, token: 35n, expiresAt: 250 });
  assert.deepEqual(back.expire("orders", 250), { holder: "B", token: 35n, at: 250, freeAt: 250 });
  assert.deepEqual(back.acquire("x", "C", 251), { ok: true, token: 36n, expiresAt: 351 });
});

test("names of any script, up to 1024 bytes, come back exactly as given", () => {
  const lock = "commandes-été-注文";
  const holder = "worker-😀-Ω";
  const long = "é".repeat(512); // 1024 bytes of UTF-8: the longest name
  const table = new LockTable({ ttlMs: 100, lockDelayMs: 10 });
  assert.deepEqual(table.acquire(lock, holder, 0), { ok: true, token: 1n, expiresAt: 100 });
  assert.deepEqual(table.acquire(lock, "A", 1), { ok: false, reason: "held", holder, until: 100 });
  assert.deepEqual(table.acquire(long, long, 2), { ok: true, token: 2n, expiresAt: 102 });
  assert.deepEqual(table.acquire(long, "B", 3), { ok: false, reason: "held", holder: long, until: 102 });
  // A name that is ASCII up to a point and not after it, and the same bytes in another order.
  assert.deepEqual(table.acquire("abcé", "x", 4), { ok: true, token: 3n, expiresAt: 104 });
  assert.deepEqual(table.acquire("éabc", "y", 4), { ok: true, token: 4n, expiresAt: 104 });
  const back = LockTable.restore(table.snapshot(), { ttlMs: 100 });
  assert.deepEqual(back.lease(lock, 5), { holder, token: 1n, grantedAt: 0, expiresAt: 100, depth: 1 });
  assert.deepEqual(
    back.expireAll(200).map((e) => [e.lock, e.holder]),
    // In the order of their UTF-8 bytes.
    [["abcé", "x"], [lock, holder], ["éabc", "y"], [long, long]],
  );
  const auth = new LeaseAuthority({ ttlMs: 100 });
  auth.acquire(holder, 0);
  assert.deepEqual(auth.acquire("A", 1), { ok: false, reason: "held", holder, until: 100 });
  assert.deepEqual(LeaseAuthority.restore(auth.snapshot(), { ttlMs: 100 }).lease(2)?.holder, holder);
  const signer = new TokenSigner(new TextEncoder().encode("a key of sixteen+ bytes"));
  const header = signer.sign(lock, 7n);
  assert.deepEqual(signer.verify(lock, header), { ok: true, token: 7n });
  assert.deepEqual(signer.verify("commandes-ete-注文", header), { ok: false, reason: "forged" });
});

test("options getters that call the package do not change what the outer call reads", () => {
  // Checking an options object runs its getters; these call the package in the middle of the
  // outer call, writing other names into the module's input area.
  const t = new LockTable({ ttlMs: 1_000 });
  const sneaky = { get ttlMs() { t.acquire("x", "B", 0); return 50; } };
  assert.deepEqual(t.acquire("orders", "A", 0, sneaky), { ok: true, token: 2n, expiresAt: 50 });
  assert.deepEqual(t.lease("orders", 10), { holder: "A", token: 2n, grantedAt: 0, expiresAt: 50, depth: 1 });
  assert.deepEqual(t.lease("x", 10), { holder: "B", token: 1n, grantedAt: 0, expiresAt: 1_000, depth: 1 });
  const again = { get ttlMs() { t.lease("somewhere else entirely", 0); return 70; } };
  assert.deepEqual(t.renew("orders", "A", 2n, 20, again), { ok: true, token: 2n, expiresAt: 90 });

  const auth = new LeaseAuthority({ ttlMs: 1_000 });
  const other = new LeaseAuthority({ ttlMs: 1_000 });
  const writes = { get ttlMs() { other.acquire("somebody else", 0); return 40; } };
  assert.deepEqual(auth.acquire("A", 0, writes), { ok: true, token: 1n, expiresAt: 40 });
  assert.deepEqual(auth.lease(0), { holder: "A", token: 1n, grantedAt: 0, expiresAt: 40, depth: 1 });
  assert.deepEqual(auth.renew("A", 1n, 10, writes), { ok: true, token: 1n, expiresAt: 50 });

  // Restoring: the options' getters run before the snapshot is written into the module.
  const snap = auth.snapshot();
  const cfg = { get ttlMs() { other.snapshot(); other.acquire("x".repeat(500), 0); return 1_000; } };
  const back = LeaseAuthority.restore(snap, cfg);
  assert.deepEqual(back.lease(10), { holder: "A", token: 1n, grantedAt: 0, expiresAt: 50, depth: 1 });
  const tableBack = LockTable.restore(t.snapshot(), cfg);
  assert.deepEqual(tableBack.lease("orders", 30), { holder: "A", token: 2n, grantedAt: 0, expiresAt: 90, depth: 1 });
});

test("guards: check does not advance, equal is the same owner, 0n is invalid", () => {
  const g = new FenceGuard({ highest: 7n });
  assert.deepEqual(g.check(8n), { ok: true });
  assert.equal(g.highest, 7n);
  assert.deepEqual(g.admit(7n), { ok: true });
  assert.deepEqual(g.admit(0n), { ok: false, reason: "invalid", presented: 0n });
  assert.deepEqual(g.admit(MAX), { ok: true });
  assert.deepEqual(g.check(7n), { ok: false, reason: "stale", presented: 7n, highest: MAX });
  g.free();
  g.free();
  assert.throws(() => g.admit(1n), { name: "TypeError", message: "this FenceGuard was freed" });
  assert.equal(new FenceGuard().highest, null);
});

test("admitMany gives one code per token, in order, across batch boundaries", () => {
  const n = 40_000;
  const tokens = new BigUint64Array(n);
  for (let i = 0; i < n; i++) tokens[i] = BigInt(i + 1);
  tokens[20_000] = 5n;
  tokens[30_000] = 0n;
  tokens[30_001] = tokens[30_002] = 30_002n;
  const g = new FenceGuard();
  const out = g.admitMany(tokens);
  assert.equal(out.length, n);
  const want = new Uint8Array(n).fill(AdmitCode.Advanced);
  want[20_000] = AdmitCode.Stale;
  want[30_000] = AdmitCode.Invalid;
  want[30_002] = AdmitCode.Current;
  assert.deepEqual(out, want);
  assert.equal(g.highest, 40_000n);
  const reuse = new Uint8Array(3);
  assert.equal(g.admitMany(new BigUint64Array([40_000n, 1n, 40_001n]), reuse), reuse);
  assert.deepEqual([...reuse], [AdmitCode.Current, AdmitCode.Stale, AdmitCode.Advanced]);
  assert.deepEqual(g.admitMany(new BigUint64Array(0)), new Uint8Array(0));
});

test("a guard map keeps resources apart", () => {
  const m = new GuardMap();
  assert.deepEqual(m.admit("a", 10n), { ok: true });
  assert.deepEqual(m.admit("b", 3n), { ok: true });
  assert.deepEqual(m.admit("a", 9n), { ok: false, reason: "stale", presented: 9n, highest: 10n });
  assert.deepEqual(m.check("c", 1n), { ok: true });
  assert.deepEqual(m.admit("c", 0n), { ok: false, reason: "invalid", presented: 0n });
  assert.deepEqual(m.check("d", 0n), { ok: false, reason: "invalid", presented: 0n });
  assert.equal(m.highest("a"), 10n);
  assert.equal(m.highest("c"), null);
  assert.equal(m.size, 2);
  assert.deepEqual(m.entries(), [["a", 10n], ["b", 3n]]);
  // Deleting forgets the mark (the resource is gone): the next token starts it afresh.
  assert.equal(m.delete("a"), true);
  assert.equal(m.delete("a"), false);
  assert.equal(m.delete("never"), false);
  assert.equal(m.size, 1);
  assert.equal(m.highest("a"), null);
  assert.deepEqual(m.entries(), [["b", 3n]]);
  assert.deepEqual(m.admit("a", 2n), { ok: true });
  assert.equal(m.highest("a"), 2n);
  m.free();
  assert.throws(() => m.delete("b"), { name: "TypeError", message: "this GuardMap was freed" });
  assert.throws(() => m.admit("a", 11n), { name: "TypeError", message: "this GuardMap was freed" });
});

test("a fenced resource applies each operation once and never for a stale owner", () => {
  const r = new FencedResource();
  const applied = [];
  assert.deepEqual(r.write(33n, 1, () => (applied.push("A:1"), 10)), { ok: true, applied: true, outcome: 10 });
  assert.deepEqual(r.write(34n, 2n, () => (applied.push("B:2"), 20)), { ok: true, applied: true, outcome: 20 });
  assert.deepEqual(r.write(33n, 1, () => (applied.push("A:1 again"), 11)), { ok: true, applied: false, outcome: 10 });
  assert.deepEqual(r.write(33n, 3, () => applied.push("A:3")), { ok: false, reason: "stale", presented: 33n, highest: 34n });
  assert.deepEqual(r.write(0n, 4, () => 0), { ok: false, reason: "invalid", presented: 0n });
  assert.deepEqual(applied, ["A:1", "B:2"]);
  assert.throws(() => r.write(34n, 5, () => { throw new Error("disk full"); }), { message: "disk full" });
  assert.throws(() => r.write(34n, 5, () => applied.push("B:5 again")), { message: "disk full" });
  assert.deepEqual(applied, ["A:1", "B:2"]);
  assert.equal(r.size, 3);
  assert.equal(r.capacity, 64);
  assert.equal(r.highest, 34n);
  for (let op = 100; op < 200; op++) r.write(34n, op, () => op);
  assert.equal(r.size, 64);
  assert.deepEqual(r.write(34n, 199, () => -1), { ok: true, applied: false, outcome: 199 });
  // Forgotten by the ledger: a retry of op 2 looks new again (the guard still lets 34 in).
  assert.deepEqual(r.write(34n, 2n, () => 21), { ok: true, applied: true, outcome: 21 });
});

test("signed tokens verify for their lock only and cannot poison a guard", () => {
  const key = new TextEncoder().encode("0123456789abcdef0123456789abcdef");
  const s = new TokenSigner(key);
  const h = s.sign("orders", 34n);
  assert.match(h, /^34\.[0-9a-f]{64}$/);
  assert.deepEqual(s.verify("orders", h), { ok: true, token: 34n });
  assert.deepEqual(s.verify("invoices", h), { ok: false, reason: "forged" });
  const poison = `${MAX}.${"a".repeat(64)}`;
  const g = new FenceGuard();
  assert.deepEqual(g.admitSigned(s, "orders", h), { ok: true });
  assert.deepEqual(g.admitSigned(s, "orders", poison), { ok: false, reason: "forged" });
  assert.deepEqual(g.admitSigned(s, "orders", s.sign("orders", 33n)), {
    ok: false,
    reason: "stale",
    presented: 33n,
    highest: 34n,
  });
  assert.equal(g.highest, 34n);
  assert.throws(() => g.admitSigned(s, "orders", "34"), {
    name: "RangeError",
    message: "header is not a signed token: token has no signature",
  });
  assert.throws(() => s.verify("orders", "34.ABCD"), {
    name: "RangeError",
    message: "header is not a signed token: signature has a non-hex character at byte 3",
  });
  assert.throws(() => new TokenSigner(new Uint8Array(15)), {
    name: "RangeError",
    message: "key: signing key is 15 bytes; at least 16 are required",
  });
});

/** The v2 MAC as documented (HMAC-SHA-256 over domain, key id, lock length, lock, token), by Node's crypto. */
function keyedMac(key, keyId, lock, token) {
  const head = Buffer.alloc(6);
  head.writeUInt32BE(keyId, 0);
  head.writeUInt16BE(Buffer.byteLength(lock), 4);
  const tok = Buffer.alloc(8);
  tok.writeBigUInt64BE(token);
  return createHmac("sha256", key).update("fencepost/token/v2\0").update(head).update(lock).update(tok).digest("hex");
}

test("a key ring signs with its current key, verifies with previous ones until removed", () => {
  const k1 = new TextEncoder().encode("first key, sixteen+ bytes");
  const k2 = new TextEncoder().encode("second key, sixteen+ bytes");
  const ring = new KeyRing(1, k1);
  assert.equal(ring.currentKeyId, 1);
  const h1 = ring.sign("orders", 34n);
  assert.equal(h1, `34.1.${keyedMac(k1, 1, "orders", 34n)}`);
  assert.deepEqual(ring.verify("orders", h1), { ok: true, token: 34n });
  assert.deepEqual(ring.verify("invoices", h1), { ok: false, reason: "forged" });
  // The key id is signed: the same MAC under another id of the ring does not verify.
  ring.rotate(2, k2);
  assert.equal(ring.currentKeyId, 2);
  const h2 = ring.sign("orders", 35n);
  assert.equal(h2, `35.2.${keyedMac(k2, 2, "orders", 35n)}`);
  assert.deepEqual(ring.verify("orders", h1), { ok: true, token: 34n });
  assert.deepEqual(ring.verify("orders", h1.replace(".1.", ".2.")), { ok: false, reason: "forged" });
  assert.deepEqual(ring.verify("orders", h1.replace(".1.", ".9.")), { ok: false, reason: "unknownKey", keyId: 9 });
  const g = new FenceGuard();
  assert.deepEqual(g.admitSigned(ring, "orders", h1), { ok: true });
  assert.deepEqual(g.admitSigned(ring, "orders", `${MAX}.2.${"a".repeat(64)}`), { ok: false, reason: "forged" });
  ring.remove(1);
  assert.deepEqual(ring.verify("orders", h1), { ok: false, reason: "unknownKey", keyId: 1 });
  assert.deepEqual(g.admitSigned(ring, "orders", h1), { ok: false, reason: "unknownKey", keyId: 1 });
  assert.deepEqual(g.admitSigned(ring, "orders", h2), { ok: true });
  assert.equal(g.highest, 35n);
  // Another deployment with its own key 2 shares lock names, not tokens.
  const other = new KeyRing(2, k1);
  assert.deepEqual(other.verify("orders", h2), { ok: false, reason: "forged" });
  // The v1 form of a TokenSigner has no key id: refused, not guessed.
  const v1 = new TokenSigner(k2).sign("orders", 35n);
  assert.throws(() => ring.verify("orders", v1), {
    name: "RangeError",
    message: "header is not a signed token: signed token has no key id (the v1 form): the key ring signs `<token>.<key id>.<mac>`",
  });
  assert.throws(() => ring.verify("orders", "35.02." + "a".repeat(64)), {
    name: "RangeError",
    message: "header is not a signed token: signed token has a bad key id at byte 3",
  });
  assert.throws(() => ring.verify("orders", `35.2.${"a".repeat(66)}`), {
    name: "RangeError",
    message: "header is not a signed token: signature is too long: 33 bytes, expected 32",
  });
  // Rotation rules: no id twice, at most four keys, never the current key removed.
  assert.throws(() => ring.rotate(2, k1), { name: "RangeError", message: "the key ring already holds key 2" });
  assert.throws(() => ring.remove(2), {
    name: "RangeError",
    message: "key 2 is the ring's current key: rotate to another before removing it",
  });
  assert.throws(() => ring.remove(1), { name: "RangeError", message: "the key ring has no key 1" });
  ring.rotate(3, k1);
  ring.rotate(4, k1);
  ring.rotate(5, k1);
  assert.throws(() => ring.rotate(6, k1), { name: "RangeError", message: "the key ring already holds 4 keys: remove one first" });
  assert.equal(ring.currentKeyId, 5);
  assert.throws(() => new KeyRing(1, new Uint8Array(15)), {
    name: "RangeError",
    message: "key: signing key is 15 bytes; at least 16 are required",
  });
  for (const [id, name] of [[-1, "RangeError"], [2 ** 32, "RangeError"], [1.5, "RangeError"], ["1", "TypeError"], [1n, "TypeError"]]) {
    assert.throws(() => new KeyRing(id, k1), { name }, String(id));
    assert.throws(() => ring.rotate(id, k1), { name }, String(id));
  }
  assert.equal(new KeyRing(4294967295, k1).sign("l", 1n).split(".")[1], "4294967295");
  ring.free();
  assert.throws(() => ring.sign("orders", 1n), { name: "TypeError" });
  other.free();
  g.free();
});

test("token codecs are strict", () => {
  assert.equal(HEADER_NAME, "Fencing-Token");
  assert.equal(tokenToString(34n), "34");
  assert.equal(tokenToHeader(MAX), "18446744073709551615");
  assert.equal(tokenFromString("18446744073709551615"), MAX);
  assert.equal(tokenFromHeader("34"), 34n);
  assert.deepEqual([...tokenToBytes(256n)], [0, 0, 0, 0, 0, 0, 1, 0]);
  assert.equal(tokenFromBytes(new Uint8Array([0, 0, 0, 0, 0, 0, 1, 0])), 256n);
  const bad = [
    ["", "token is empty"],
    [" 33", "token contains whitespace at byte 0"],
    ["+33", "token must not have a sign"],
    ["3x", "token has a non-digit at byte 1"],
    ["033", "token must not have a leading zero"],
    ["0", "token 0 is invalid"],
    ["18446744073709551616", "token is larger than 18446744073709551615"],
  ];
  for (const [input, message] of bad) {
    assert.throws(() => tokenFromString(input), { name: "RangeError", message: `value is not a token: ${message}` });
  }
  assert.throws(() => tokenFromHeader("34.ab"), {
    name: "RangeError",
    message: "value is not a token: token carries a signature; parse it as a signed token",
  });
  assert.throws(() => tokenFromBytes(new Uint8Array(3)), {
    name: "RangeError",
    message: "value is not a token: token bytes must be exactly 8 long, got 3",
  });
});

test("the package's entry points resolve as documented", () => {
  const require = createRequire(import.meta.url);
  const pkg = JSON.parse(readFileSync(require.resolve("fencepost/package.json"), "utf8"));
  // Bundlers drop the statements of a module declared free of side effects; the entries that load
  // the WebAssembly module (and the files that set prototypes up) must keep theirs.
  const loaders = ["api.js", "browser.js", "deno.js", "edge-light.js", "node.cjs", "node.mjs", "workerd.js"];
  // The client's entries load the core through the package's own, and client.js sets Lease up.
  const clientLoaders = loaders.filter((f) => f !== "api.js").map((f) => `./dist/client/${f}`);
  assert.deepEqual(pkg.sideEffects, [
    ...loaders.map((f) => `./dist/${f}`),
    ...loaders.map((f) => `./dist/sim/${f}`),
    "./dist/client.js",
    ...clientLoaders,
  ]);
  for (const file of pkg.sideEffects) assert.ok(existsSync(new URL(file, import.meta.resolve("fencepost/package.json"))), file);
  assert.match(import.meta.resolve("fencepost"), /\/dist\/node\.mjs$/);
  assert.match(import.meta.resolve("fencepost/slim"), /\/dist\/slim\.js$/);
  assert.match(import.meta.resolve("fencepost/sim"), /\/dist\/sim\/node\.mjs$/);
  assert.match(import.meta.resolve("fencepost/sim/slim"), /\/dist\/sim\/slim\.js$/);
  assert.throws(() => import.meta.resolve("fencepost/table"), { code: "ERR_PACKAGE_PATH_NOT_EXPORTED" });
  assert.match(import.meta.resolve("fencepost/fencepost_bg.wasm"), /\/dist\/fencepost_bg\.wasm$/);
  assert.match(import.meta.resolve("fencepost/sim/fencepost_sim_bg.wasm"), /\/dist\/sim\/fencepost_sim_bg\.wasm$/);
  const resolveWith = (condition, specifier = "fencepost") =>
    execFileSync(
      process.execPath,
      [`--conditions=${condition}`, "--input-type=module", "-e", `process.stdout.write(import.meta.resolve(${JSON.stringify(specifier)}))`],
      { encoding: "utf8" },
    );
  assert.match(resolveWith("edge-light"), /\/dist\/edge-light\.js$/);
  assert.match(resolveWith("workerd"), /\/dist\/workerd\.js$/);
  assert.match(resolveWith("deno"), /\/dist\/deno\.js$/);
  assert.match(resolveWith("browser"), /\/dist\/browser\.js$/);
  for (const condition of ["edge-light", "workerd", "deno", "browser"]) {
    assert.match(resolveWith(condition, "fencepost/sim"), new RegExp(`/dist/sim/${condition}\\.js$`));
    assert.match(resolveWith(condition, "fencepost/client"), new RegExp(`/dist/client/${condition}\\.js$`));
  }
  assert.match(import.meta.resolve("fencepost/client"), /\/dist\/client\/node\.mjs$/);
  assert.match(import.meta.resolve("fencepost/client/slim"), /\/dist\/client\/slim\.js$/);
  assert.match(require.resolve("fencepost/client"), /\/dist\/client\/node\.cjs$/);
  const edge = readFileSync(new URL(resolveWith("edge-light")), "utf8");
  assert.match(edge, /import wasm from "\.\/fencepost_bg\.wasm\?module";/);
});

test("the slim entry loads nothing until it is given the module", () => {
  const script = `
    import * as fp from "fencepost/slim";
    import { readFileSync } from "node:fs";
    let before = "none";
    try { new fp.FenceGuard(); } catch (e) { before = e.message; }
    fp.initSync(readFileSync(new URL(import.meta.resolve("fencepost/fencepost_bg.wasm"))));
    const g = new fp.FenceGuard();
    g.admit(34n);
    console.log(JSON.stringify({ before, stale: g.admit(33n).reason }));
  `;
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
  assert.deepEqual(JSON.parse(out), {
    before:
      "fencepost: the WebAssembly module is not loaded; with fencepost/slim, call init() or initSync() first",
    stale: "stale",
  });
});

test("the slim entry refuses a module that is not its own, and lets its own load after", () => {
  const script = `
    import * as fp from "fencepost/slim";
    import { readFileSync } from "node:fs";
    const refusals = [];
    const wasm = (specifier) => readFileSync(new URL(import.meta.resolve(specifier)));
    for (const bytes of [wasm("fencepost/sim/fencepost_sim_bg.wasm"), new Uint8Array([1, 2, 3, 4])]) {
      try { fp.initSync(bytes); } catch (e) { refusals.push([e.constructor.name, e.message.split(":")[0]]); }
    }
    // A Response that was read already is said to be so, not called another module.
    const used = new Response(wasm("fencepost/fencepost_bg.wasm"));
    await used.arrayBuffer();
    try { await fp.init(used); } catch (e) { refusals.push([e.constructor.name, e.message]); }
    fp.initSync(wasm("fencepost/fencepost_bg.wasm"));
    // Loaded: a promise handed in later is ignored, even one that fails (no unhandled rejection).
    await fp.init(Promise.reject(new Error("fetch failed")));
    await new Promise((r) => setTimeout(r, 20));
    console.log(JSON.stringify({ refusals, works: new fp.FenceGuard().admit(5n).ok }));
  `;
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
  assert.deepEqual(JSON.parse(out), {
    refusals: [
      ["TypeError", "module is not fencepost's WebAssembly (fencepost_bg.wasm)"],
      ["TypeError", "module is not fencepost's WebAssembly (fencepost_bg.wasm)"],
      ["TypeError", "input is a Response whose body was already read"],
    ],
    works: true,
  });
});

test("the declarations name exactly what the package exports", () => {
  const require = createRequire(import.meta.url);
  const dts = readFileSync(require.resolve("fencepost/package.json").replace(/package\.json$/, "index.d.ts"), "utf8");
  const declared = [...dts.matchAll(/^export (?:declare )?(?:class|function|const) (\w+)/gm)].map((m) => m[1]);
  assert.deepEqual([...new Set(declared)].sort(), Object.keys(fencepost).sort());
  assert.deepEqual(Object.keys(require("fencepost")).sort(), Object.keys(fencepost).sort());
  assert.doesNotMatch(dts.replace(/\/\/.*$|\/\*[\s\S]*?\*\//gm, ""), /\bany\b/);
});
