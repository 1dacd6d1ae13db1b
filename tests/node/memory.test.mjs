// The core module's WebAssembly memory can stop growing (a 32-bit memory ends at 4 GiB, a host
// may cap it, another user of the memory may take the rest). A failed allocation would trap the
// instance for good, so every call that allocates asks for its worst case first and, refused,
// throws a RangeError having changed nothing; the instance keeps working, and freeing objects
// makes room again. Its own process: here the module's memory is grown to its end on purpose.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { initSync, FenceGuard, GuardMap, KeyRing, LeaseAuthority, LeaseKeeper, LockTable } from "fencepost/slim";
import { caughtInstance } from "./caught-instance.mjs";

// The memory the module exports, to grow it to the end as another user of it could.
const { memory } = caughtInstance(() => initSync(readFileSync(new URL(import.meta.resolve("fencepost/fencepost_bg.wasm"))))).exports;

const NO_MEMORY = "out of memory: the module's memory cannot grow to hold this call; nothing was changed";

function outOfMemory(fn) {
  assert.throws(fn, (e) => {
    assert.equal(e.constructor, RangeError, `${e.constructor.name}: ${e.message}`);
    assert.equal(e.message, NO_MEMORY);
    return true;
  });
}

/** Grows the memory until it cannot grow by one more page. */
function growToTheEnd() {
  for (let pages = 1 << 16; pages >= 1; ) {
    try {
      memory.grow(pages);
    } catch {
      pages >>= 1;
    }
  }
}

/** Calls `fn(k)` for k = 0, 1, ... until it throws; returns k and the error. */
function untilRefused(fn, most = 1_000_000) {
  for (let k = 0; k < most; k++) {
    try {
      fn(k);
    } catch (e) {
      return [k, e];
    }
  }
  assert.fail(`never refused in ${most} calls`);
}

test("every allocating call is refused with a RangeError once the memory cannot grow, changes nothing, and works again once objects are freed", () => {
  assert.ok(memory instanceof WebAssembly.Memory);
  const name = (k) => `lock-${String(k).padStart(6, "0")}-${"x".repeat(900)}`;
  const table = new LockTable({ ttlMs: 60_000 });
  // Enough locks that the table's snapshot needs a block no earlier call freed.
  for (let k = 0; k < 200; k++) assert.equal(table.acquire(name(k), "h", 0).ok, true);
  const auth = new LeaseAuthority({ ttlMs: 60_000 });
  const first = auth.acquire("worker-1", 0);
  assert.deepEqual(first, { ok: true, token: 1n, expiresAt: 60_000 });
  const guard = new FenceGuard();
  assert.equal(guard.admit(34n).ok, true);
  const map = new GuardMap();
  assert.equal(map.admit("orders", 7n).ok, true);
  const ring = new KeyRing(1, new Uint8Array(32).fill(7));
  // Signed once: the output area the header is written into keeps its room.
  const signed = ring.sign("orders", 34n);

  growToTheEnd();

  // New locks until the memory is spent: the refused one is not in the table, and no token was
  // used up by it.
  const [made, acquireError] = untilRefused((k) => table.acquire(name(200 + k), "h", 1));
  assert.equal(acquireError.constructor, RangeError);
  assert.equal(acquireError.message, NO_MEMORY);
  assert.equal(table.size, 200 + made);
  const next = table.nextToken;
  outOfMemory(() => table.acquire(name(200 + made), "h", 1));
  assert.equal(table.size, 200 + made);
  assert.equal(table.nextToken, next);
  assert.equal(table.lease(name(200 + made), 1), null);
  assert.equal(table.lease(name(0), 1).holder, "h");
  outOfMemory(() => table.snapshot());
  outOfMemory(() => table.expireAll(1));
  assert.equal(table.size, 200 + made);

  // New objects until their table cannot grow; a guard map cannot take a new resource either.
  const guards = [];
  const [, guardError] = untilRefused(() => guards.push(new FenceGuard()));
  assert.equal(guardError.message, NO_MEMORY);
  assert.equal(guardError.constructor, RangeError);
  outOfMemory(() => new FenceGuard());
  outOfMemory(() => map.admit("invoices", 1n));
  assert.equal(map.size, 1);
  assert.equal(map.highest("invoices"), null);
  // A batch whose tokens do not fit the input area is refused before any is admitted.
  const tokens = new BigUint64Array(16_384).map((_, i) => BigInt(100 + i));
  assert.throws(() => guard.admitMany(tokens), {
    name: "RangeError",
    message: "fencepost: 131072 bytes do not fit the module's input area (its memory cannot grow that far)",
  });
  assert.equal(guard.highest, 34n);

  // What needs no new memory still works: guards admit, leases renew and release.
  assert.deepEqual(guard.admit(35n), { ok: true });
  assert.deepEqual(guard.admit(34n), { ok: false, reason: "stale", presented: 34n, highest: 35n });
  assert.equal(map.admit("orders", 8n).ok, true);
  assert.equal(auth.renew("worker-1", first.token, 2).ok, true);
  assert.deepEqual(auth.release("worker-1", first.token, 2), { ok: true, depth: 0 });
  const header = ring.sign("orders", 35n);
  assert.equal(header.length, signed.length);
  assert.deepEqual(ring.verify("orders", header), { ok: true, token: 35n });

  // Freeing objects makes room: their places and blocks serve the next calls.
  guards.pop().free();
  guards.push(new FenceGuard());
  guards.pop().free();
  assert.equal(map.admit("invoices", 1n).ok, true);
  assert.equal(map.size, 2);
  for (let k = 0; k < 50; k++) assert.deepEqual(table.release(name(k), "h", BigInt(k + 1), 2), { ok: true, depth: 0 });
  assert.equal(table.size, 150 + made);
  for (let k = 0; k < 20; k++) assert.equal(table.acquire(name(1_000 + k), "h", 3).ok, true);
  assert.equal(table.size, 170 + made);
  assert.equal(auth.acquire("worker-2", 3).token, 2n);
  for (const g of guards) g.free();
  const keeper = new LeaseKeeper({ ttlMs: 10_000 }, 0);
  assert.equal(keeper.send(0), 0);
  keeper.free();
  assert.equal(new FenceGuard({ highest: 9n }).admit(10n).ok, true);
});
