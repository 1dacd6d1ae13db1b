// What every fenced store must do, whatever the engine: the story, idempotency, the largest
// tokens, malformed and signed tokens. Each engine's test file calls `cases` with a function that
// makes a fresh store (its own table) and a function that reads a row's stored columns as raw
// text.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { TokenSigner, tokenFromHeader } from "fencepost";

export const MAX = 2n ** 64n - 1n;

/** The signing key and lock naming of the signed case (a store in another runtime makes its
 * signer from the same). */
export const SIGNING_KEY = "a key of at least sixteen bytes";
export const lockOf = (key) => `lock:${key}`;

/** Tokens 1n..n in a shuffled, fixed order: low and high tokens interleaved. */
export function shuffled(n) {
  const tokens = Array.from({ length: n }, (_, i) => BigInt(i + 1));
  for (let i = n - 1; i > 0; i--) {
    const j = (i * 7919 + 13) % (i + 1);
    [tokens[i], tokens[j]] = [tokens[j], tokens[i]];
  }
  return tokens;
}

/** The RangeError (or TypeError) `f` throws, for comparing a store's error with the guard's. */
export function thrown(f) {
  try {
    f();
  } catch (error) {
    return error;
  }
  assert.fail("expected a throw");
}

/** `fencepost check` over a write log (JSON Lines): its exit status and JSON report. */
export function check(lines) {
  const cli = process.env.FENCEPOST_CLI;
  assert.ok(cli, "FENCEPOST_CLI must name the fencepost binary (cargo xtask test-store sets it)");
  const dir = mkdtempSync(join(tmpdir(), "fencepost-store-"));
  try {
    const file = join(dir, "history.jsonl");
    writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
    const r = spawnSync(cli, ["check", file, "--format", "json"], { encoding: "utf8" });
    return { status: r.status, report: r.stdout.trimEnd().split("\n").map((l) => JSON.parse(l)), stderr: r.stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The tests every store passes. `make(name, options)` makes a store over a fresh table named
 * `name`; `raw(name, key)` reads that row's `fence` and `fence_ops` columns as stored;
 * `damage(name, key, part, text)` sets one stored part of the row (`value`, `fence` or
 * `fence_ops`) to `text`, as something other than the store could.
 */
export function cases(engine, make, raw, damage) {
  test(`${engine}: the story: 34 written, then 33 refused as stale`, async () => {
    const store = await make("story");
    assert.equal(await store.read("orders/42"), null);
    assert.deepEqual(await store.write("orders/42", 34n, { by: "B" }), { ok: true });
    assert.deepEqual(await store.write("orders/42", 33n, { by: "A" }), { ok: false, reason: "stale", presented: 33n, highest: 34n });
    assert.deepEqual(await store.read("orders/42"), { value: { by: "B" }, token: 34n });
    // The same owner again, and a newer one.
    assert.deepEqual(await store.write("orders/42", "34", { by: "B", again: true }), { ok: true });
    assert.deepEqual(await store.write("orders/42", 35n, { by: "C" }), { ok: true });
    assert.deepEqual(await store.read("orders/42"), { value: { by: "C" }, token: 35n });
    // Keys are fenced apart.
    assert.deepEqual(await store.write("orders/43", 1n, "other"), { ok: true });
    assert.deepEqual(await store.read("orders/43"), { value: "other", token: 1n });
    assert.deepEqual(await raw("story", "orders/42"), { fence: "00000000000000000035", fence_ops: null });
  });

  test(`${engine}: a retried write with the same idempotency key is applied once`, async () => {
    const store = await make("retry");
    assert.deepEqual(await store.write("doc", 5n, "first", { idempotencyKey: "op-1" }), { ok: true });
    assert.deepEqual(await store.write("doc", 5n, "first, retried", { idempotencyKey: "op-1" }), { ok: false, reason: "duplicate", presented: 5n });
    assert.deepEqual(await store.read("doc"), { value: "first", token: 5n });
    // Another operation of the same owner is applied.
    assert.deepEqual(await store.write("doc", 5n, "second", { idempotencyKey: "op-2" }), { ok: true });
    // A newer owner writes; the old owner's retry of op-1 is still a duplicate, not "stale":
    // it did happen.
    assert.deepEqual(await store.write("doc", 6n, "newer", { idempotencyKey: "op-3" }), { ok: true });
    assert.deepEqual(await store.write("doc", 5n, "first, late retry", { idempotencyKey: "op-1" }), { ok: false, reason: "duplicate", presented: 5n });
    // The old owner's new operation is stale.
    assert.deepEqual(await store.write("doc", 5n, "third", { idempotencyKey: "op-4" }), { ok: false, reason: "stale", presented: 5n, highest: 6n });
    // The same key under a newer token is another operation.
    assert.deepEqual(await store.write("doc", 7n, "op-1 by 7", { idempotencyKey: "op-1" }), { ok: true });
    assert.deepEqual(await store.read("doc"), { value: "op-1 by 7", token: 7n });
    const stored = await raw("retry", "doc");
    assert.equal(stored.fence, "00000000000000000007");
    assert.deepEqual(JSON.parse(stored.fence_ops), [
      ["op-2", "00000000000000000005"],
      ["op-3", "00000000000000000006"],
      ["op-1", "00000000000000000007"],
    ]);
    // Only the last 16 keys are kept: op-0's entry goes first.
    for (let i = 0; i < 17; i++) assert.deepEqual(await store.write("doc", 7n, i, { idempotencyKey: `k${i}` }), { ok: true });
    const ops = JSON.parse((await raw("retry", "doc")).fence_ops);
    assert.equal(ops.length, 16);
    assert.deepEqual(ops[0], ["k1", "00000000000000000007"]);
    assert.deepEqual(await store.write("doc", 7n, "k0 again", { idempotencyKey: "k0" }), { ok: true });
    assert.deepEqual(await store.write("doc", 7n, "k16 again", { idempotencyKey: "k16" }), { ok: false, reason: "duplicate", presented: 7n });
  });

  test(`${engine}: u64::MAX - 1 is stored and compared exactly`, async () => {
    const store = await make("huge");
    assert.deepEqual(await store.write("k", MAX - 1n, "almost"), { ok: true });
    assert.deepEqual(await raw("huge", "k"), { fence: "18446744073709551614", fence_ops: null });
    assert.deepEqual(await store.write("k", MAX - 2n, "older"), { ok: false, reason: "stale", presented: MAX - 2n, highest: MAX - 1n });
    // Past 2^63, where a signed 64-bit column would have turned negative.
    assert.deepEqual(await store.write("k", 2n ** 63n, "older"), { ok: false, reason: "stale", presented: 2n ** 63n, highest: MAX - 1n });
    assert.deepEqual(await store.read("k"), { value: "almost", token: MAX - 1n });
    assert.deepEqual(await store.write("k", "18446744073709551615", "last"), { ok: true });
    assert.deepEqual(await store.read("k"), { value: "last", token: MAX });
  });

  test(`${engine}: malformed tokens are refused with the guard's own errors`, async () => {
    const store = await make("malformed");
    for (const header of ["", "abc", "-3", "007", " 34", "18446744073709551616", "0", "34.deadbeef"]) {
      const expected = thrown(() => tokenFromHeader(header));
      await assert.rejects(store.write("k", header, "x"), (e) => e.constructor === expected.constructor && e.message === expected.message, header);
    }
    assert.deepEqual(await store.write("k", 0n, "x"), { ok: false, reason: "invalid", presented: 0n });
    await assert.rejects(store.write("k", -1n, "x"), RangeError);
    await assert.rejects(store.write("k", 2n ** 64n, "x"), RangeError);
    await assert.rejects(store.write("k", 34, "x"), TypeError);
    await assert.rejects(store.write("k", 34n, undefined), TypeError);
    await assert.rejects(store.write("", 34n, "x"), RangeError);
    await assert.rejects(store.write("k", 34n, "x", { idempotencyKey: "" }), RangeError);
    await assert.rejects(store.write("k", 34n, "x", { idempotencyKey: "a".repeat(201) }), RangeError);
    await assert.rejects(store.write("k", 34n, "x", { idem: "a" }), TypeError);
    // Nothing of it reached the row.
    assert.equal(await store.read("k"), null);
  });

  test(`${engine}: a key or idempotency key holding U+0000 or an unpaired surrogate is a TypeError, and nothing is written`, async () => {
    const store = await make("inexact");
    const refused = (what, index, arg = "key") => ({
      name: "TypeError",
      message: `${arg} holds ${what} at index ${index}, which not every engine can store exactly; nothing was written or read`,
    });
    // Postgres cannot hold U+0000 in text at all.
    await assert.rejects(store.write("a\u0000b", 1n, "x"), refused("U+0000", 1));
    await assert.rejects(store.read("a\u0000b"), refused("U+0000", 1));
    // Two keys that differ only in an unpaired surrogate: stored as U+FFFD (as pg and Deno KV
    // encode them) they would share one row, and one owner's token would fence the other's key.
    await assert.rejects(store.write("doc\uD800", 1n, "first"), refused("an unpaired surrogate (U+D800)", 3));
    await assert.rejects(store.write("doc\uDC00", 2n, "second"), refused("an unpaired surrogate (U+DC00)", 3));
    await assert.rejects(store.read("doc\uDC00"), refused("an unpaired surrogate (U+DC00)", 3));
    await assert.rejects(store.write("\uDC00\uD83D", 1n, "x"), refused("an unpaired surrogate (U+DC00)", 0));
    await assert.rejects(store.write("k", 1n, "x", { idempotencyKey: "op\u0000" }), refused("U+0000", 2, "options.idempotencyKey"));
    await assert.rejects(store.write("k", 1n, "x", { idempotencyKey: "\uD800op" }), refused("an unpaired surrogate (U+D800)", 0, "options.idempotencyKey"));
    // Nothing of it reached the store.
    assert.equal(await store.read("doc\uFFFD"), null);
    assert.equal(await store.read("k"), null);
    // A surrogate pair is a character like any other, U+FFFD too, and each key has its own row.
    assert.deepEqual(await store.write("doc\uD83D\uDE00", 1n, "pair", { idempotencyKey: "\uD83D\uDE00" }), { ok: true });
    assert.deepEqual(await store.write("doc\uFFFD", 2n, "replacement"), { ok: true });
    assert.deepEqual(await store.read("doc\uD83D\uDE00"), { value: "pair", token: 1n });
    assert.deepEqual(await store.read("doc\uFFFD"), { value: "replacement", token: 2n });
    // A value is JSON text, where both are escapes: it is stored exactly.
    assert.deepEqual(await store.write("k", 3n, "a\u0000b\uD800"), { ok: true });
    assert.deepEqual(await store.read("k"), { value: "a\u0000b\uD800", token: 3n });
  });

  test(`${engine}: with a signer, only tokens signed for the key's lock move the mark`, async () => {
    const signer = new TokenSigner(new TextEncoder().encode(SIGNING_KEY));
    const store = await make("signed", { signer, lock: lockOf });
    const header = signer.sign("lock:k", 34n);
    assert.deepEqual(await store.write("k", header, "B"), { ok: true });
    assert.deepEqual(await store.write("k", signer.sign("lock:k", 33n), "A"), { ok: false, reason: "stale", presented: 33n, highest: 34n });
    // Forged: a huge token with a made-up MAC, a token signed for another lock, a tampered one.
    assert.deepEqual(await store.write("k", `${MAX}.${"0".repeat(64)}`, "M"), { ok: false, reason: "forged" });
    assert.deepEqual(await store.write("k", signer.sign("lock:other", 99n), "M"), { ok: false, reason: "forged" });
    assert.deepEqual(await store.write("k", header.replace(/^34/, "35"), "M"), { ok: false, reason: "forged" });
    // Not signed at all: the signer's own RangeError; a bare bigint is misuse.
    for (const bad of ["35", "35.zz", ""]) {
      const expected = thrown(() => signer.verify("lock:k", bad));
      await assert.rejects(store.write("k", bad, "M"), (e) => e.constructor === RangeError && e.message === expected.message, bad);
    }
    await assert.rejects(store.write("k", 35n, "M"), TypeError);
    assert.deepEqual(await store.read("k"), { value: "B", token: 34n });
  });

  test(`${engine}: a damaged row is a StoreDamageError, and the row is left as it is`, async () => {
    const store = await make("damaged");
    assert.deepEqual(await store.write("k", 5n, "v", { idempotencyKey: "op" }), { ok: true });
    const intact = await raw("damaged", "k");
    // The store's own words, for a row (SQL) or an entry (Deno KV).
    const damaged = (part, found, expected) => (e) =>
      e.name === "StoreDamageError" &&
      ["row", "entry"].some((noun) => e.message === `fencepost/store: ${noun} "k" ${part} holds ${found}, not ${expected}; it was left as it is`);

    // A mark that is not a token: a newer write would have moved it over whatever was meant.
    await damage("damaged", "k", "fence", "12");
    await assert.rejects(store.write("k", 9n, "over"), damaged("fence", '"12"', "a stored token (20 digits)"));
    await assert.rejects(store.read("k"), damaged("fence", '"12"', "a stored token (20 digits)"));
    assert.deepEqual(await raw("damaged", "k"), { ...intact, fence: "12" });
    await damage("damaged", "k", "fence", intact.fence);

    // Idempotency entries that are not [key, mark] pairs: a retry could not be told apart.
    await damage("damaged", "k", "fence_ops", '[["op"]]');
    await assert.rejects(store.write("k", 9n, "over", { idempotencyKey: "op" }), damaged("fence_ops", '"[[\\"op\\"]]"', "idempotency entries"));
    assert.deepEqual(await store.read("k"), { value: "v", token: 5n });
    assert.deepEqual(await raw("damaged", "k"), { ...intact, fence_ops: '[["op"]]' });
    // A pair whose mark is not a token, under another key: it would be written back as it is.
    await damage("damaged", "k", "fence_ops", '[["other","12"]]');
    await assert.rejects(store.write("k", 9n, "over", { idempotencyKey: "op" }), damaged("fence_ops", '"[[\\"other\\",\\"12\\"]]"', "idempotency entries"));
    assert.deepEqual(await raw("damaged", "k"), { ...intact, fence_ops: '[["other","12"]]' });
    await damage("damaged", "k", "fence_ops", intact.fence_ops);

    // A value that is not JSON cannot be read; a fenced write may still replace it.
    await damage("damaged", "k", "value", "{");
    await assert.rejects(store.read("k"), damaged("value", '"{"', "JSON text"));
    assert.deepEqual(await store.write("k", 9n, "over"), { ok: true });
    assert.deepEqual(await store.read("k"), { value: "over", token: 9n });
  });

  test(`${engine}: a damaged mark that sorts below the token is not written over, on a row without idempotency entries`, async () => {
    // The SQL stores check such a row on a path of its own (no entries to look at), so its
    // marks are damaged here too: each sorts below the token as text, so only the check that a
    // mark is 20 digits stands between the write and the damage.
    const store = await make("damaged_plain");
    assert.deepEqual(await store.write("k", 5n, "v"), { ok: true });
    const intact = await raw("damaged_plain", "k");
    assert.equal(intact.fence_ops, null);
    const damaged = (found) => (e) =>
      e.name === "StoreDamageError" &&
      ["row", "entry"].some((noun) => e.message === `fencepost/store: ${noun} "k" fence holds ${found}, not a stored token (20 digits); it was left as it is`);
    // 20 characters, the last one "/" (just below "0"); and a mark too short.
    for (const mark of ["0000000000000000000/", "00"]) {
      await damage("damaged_plain", "k", "fence", mark);
      await assert.rejects(store.write("k", 9n, "over"), damaged(JSON.stringify(mark)));
      assert.deepEqual(await raw("damaged_plain", "k"), { ...intact, fence: mark });
    }
    await damage("damaged_plain", "k", "fence", intact.fence);
    assert.deepEqual(await store.write("k", 9n, "over"), { ok: true });
    assert.deepEqual(await store.read("k"), { value: "over", token: 9n });
  });
}
