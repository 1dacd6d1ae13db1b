// The package on a big-endian host (Node runs on s390x, for one). WebAssembly memory is
// little-endian everywhere, but a typed array of 16, 32 or 64-bit elements reads and writes in the
// host's byte order: over the module's memory its words come out byte-swapped, and the bytes of a
// caller's BigUint64Array of tokens are big-endian. Here those classes are made to behave as they
// do on such a host before the package loads (element reads and writes; their methods stay
// native, so a read through at(), subarray() or iteration is not emulated: the package reads the
// module's memory only by index and through a DataView); what the package answers must not
// change.
import { test } from "node:test";
import assert from "node:assert/strict";

const NativeBigUint64Array = BigUint64Array;
for (const [name, size] of [
  ["Uint16Array", 2],
  ["Uint32Array", 4],
  ["BigUint64Array", 8],
  ["Float64Array", 8],
]) {
  const Native = globalThis[name];
  const index = (key) => (typeof key === "string" && /^(0|[1-9]\d*)$/.test(key) ? Number(key) : -1);
  function BigEndian(...args) {
    const native = new Native(...args);
    const bytes = new Uint8Array(native.buffer, native.byteOffset, native.byteLength);
    const one = new Native(1);
    const oneBytes = new Uint8Array(one.buffer);
    return new Proxy(native, {
      get(target, key) {
        const i = index(key);
        if (i < 0) {
          const v = Reflect.get(target, key, target);
          return typeof v === "function" ? v.bind(target) : v;
        }
        if (i >= target.length) return undefined;
        for (let k = 0; k < size; k++) oneBytes[k] = bytes[i * size + size - 1 - k];
        return one[0];
      },
      set(target, key, value) {
        const i = index(key);
        if (i < 0) return Reflect.set(target, key, value, target);
        if (i < target.length) {
          one[0] = value;
          for (let k = 0; k < size; k++) bytes[i * size + size - 1 - k] = oneBytes[k];
        }
        return true;
      },
    });
  }
  BigEndian.prototype = Native.prototype;
  Object.setPrototypeOf(BigEndian, Native);
  globalThis[name] = BigEndian;
}

/** A BigUint64Array of `tokens` laid out as on a big-endian host (of the native class: no Proxy). */
function hostTokens(tokens) {
  const dv = new DataView(new ArrayBuffer(8 * tokens.length));
  tokens.forEach((t, i) => dv.setBigUint64(8 * i, t, false));
  return new NativeBigUint64Array(dv.buffer);
}

// Loaded only now, with the classes above in place.
const { FenceGuard, FencedResource, LeaseAuthority, LockTable, TokenSigner } = await import("fencepost");

test("on a big-endian host, tokens, times, holders, counts and batches come out as on any other", () => {
  const probe = new globalThis.Uint32Array(Uint8Array.of(1, 0, 0, 0).buffer);
  assert.equal(probe[0], 0x0100_0000, "the classes behave as on a big-endian host");

  const auth = new LeaseAuthority({ ttlMs: 30_000, firstToken: 33n, lockDelayMs: 5 });
  assert.deepEqual(auth.acquire("A", 0), { ok: true, token: 33n, expiresAt: 30_000 });
  assert.deepEqual(auth.acquire("B", 10_000), { ok: false, reason: "held", holder: "A", until: 30_000 });
  assert.deepEqual(auth.lease(1), { holder: "A", token: 33n, grantedAt: 0, expiresAt: 30_000, depth: 1 });
  assert.deepEqual(auth.expire(45_000), { holder: "A", token: 33n, at: 30_000, freeAt: 30_005 });
  assert.deepEqual(auth.acquire("B", 45_000), { ok: true, token: 34n, expiresAt: 75_000 });
  assert.deepEqual(auth.release("B", 34n, 45_001), { ok: true, depth: 0 });
  assert.equal(auth.nextToken, 35n);
  assert.equal(auth.lastIssued, 34n);
  assert.equal(auth.latestNow, 45_001);

  const table = new LockTable({ ttlMs: 100, maxReentry: 2 });
  table.acquire("orders", "A", 0);
  table.acquire("orders", "A", 0);
  assert.deepEqual(table.acquire("orders", "A", 0), { ok: false, reason: "reentryLimit", max: 2 });
  assert.deepEqual(table.expireAll(500), [{ lock: "orders", holder: "A", token: 1n, at: 100, freeAt: 100 }]);
  assert.equal(table.size, 0);
  assert.throws(() => LockTable.restore(auth.snapshot(), { ttlMs: 100 }), {
    name: "RangeError",
    message: "snapshot: snapshot is of another kind (1)",
  });

  const guard = new FenceGuard();
  guard.admit(34n);
  assert.deepEqual(guard.admit(33n), { ok: false, reason: "stale", presented: 33n, highest: 34n });
  // Byte-swapped, 2n would pass 256n.
  assert.deepEqual([...guard.admitMany(hostTokens([35n, 256n, 2n, 256n, 0n]))], [1, 1, 0, 3, 2]);
  assert.equal(guard.highest, 256n);
  const resource = new FencedResource();
  assert.deepEqual(resource.write(34n, 1, () => "x"), { ok: true, applied: true, outcome: "x" });
  assert.deepEqual(resource.write(34n, 1, () => "y"), { ok: true, applied: false, outcome: "x" });
  assert.deepEqual(resource.write(33n, 2, () => "z"), { ok: false, reason: "stale", presented: 33n, highest: 34n });
  assert.equal(resource.size, 1);

  const signer = new TokenSigner(new TextEncoder().encode("0123456789abcdef"));
  const header = signer.sign("orders", 34n);
  assert.match(header, /^34\.[0-9a-f]{64}$/);
  assert.deepEqual(signer.verify("orders", header), { ok: true, token: 34n });
  assert.throws(() => signer.verify("orders", "34.ab"), {
    name: "RangeError",
    message: "header is not a signed token: signature is truncated: 1 bytes, expected 32",
  });
});
