// What the differential test of the stores' SQL compares with: the core's decision
// (decideStoredWrite) fed the same writes, over rows kept the way a store keeps them (the mark,
// the last 16 idempotency entries), and the random writes it is fed. Shared by the test and its
// SQLite writer threads.

import { decideStoredWrite } from "fencepost";

export const MAX = 2n ** 64n - 1n;
/**
 * Tokens at the ends of the u64 range, around 2^53 (where SQLite's stores stop binding a token
 * as a number) and around 2^63, where a signed column would turn.
 */
export const EDGES = [1n, 2n, 2n ** 53n - 1n, 2n ** 53n, 2n ** 53n + 1n, 2n ** 63n - 1n, 2n ** 63n, 2n ** 63n + 1n, MAX - 1n, MAX];
/** Idempotency keys: more than 16, and some whose JSON form has escapes. */
export const OP_KEYS = [...Array.from({ length: 20 }, (_, i) => `op${i}`), 'q"uote', "back\\slash", "line\nfeed", "\u0001", "é", "\u{1F600}", "\u2028"];
/** Keys of rows: the first is written most, so its row sees long runs. */
export const KEYS = ["a", "b", 'c"d', "é\u{1F600}"];

/** A seeded generator of numbers (xorshift32): the same seed, the same writes. */
export function random(seed) {
  let x = seed >>> 0 || 0x9e3779b9;
  const next = () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x;
  };
  return {
    int: (n) => next() % n,
    chance: (p) => next() / 2 ** 32 < p,
    pick: (items) => items[next() % items.length],
  };
}

const mark = (token) => token.toString().padStart(20, "0");

/** Rows as a store keeps them, each decision asked of the core. */
export class Model {
  rows = new Map();

  row(key) {
    return this.rows.get(key) ?? { mark: null, ops: [], value: undefined };
  }

  /** The core's answer to writing `token` (idempotency key `op`) over the row of `key` as it is. */
  decide(key, token, op) {
    const row = this.row(key);
    const recorded = op === undefined ? null : (row.ops.find((e) => e[0] === op)?.[1] ?? null);
    return decideStoredWrite(row.mark, token, recorded);
  }

  /** Decides the write and, when the core admits it, applies it as a store does. */
  write(key, token, op, value) {
    const verdict = this.decide(key, token, op);
    if (verdict.ok) {
      const row = this.row(key);
      const ops = op === undefined ? row.ops : [...row.ops.filter((e) => e[0] !== op), [op, token]].slice(-16);
      this.rows.set(key, { mark: token, ops, value });
    }
    return verdict;
  }

  /** The row of `key` as its columns would hold it: { value, fence, fence_ops } (entries parsed). */
  stored(key) {
    const row = this.rows.get(key);
    if (row === undefined) return null;
    return { value: row.value, fence: mark(row.mark), fence_ops: row.ops.length === 0 ? null : row.ops.map(([op, t]) => [op, mark(t)]) };
  }

  /** A copy, for the states a chain of writes goes through. */
  clone() {
    const copy = new Model();
    for (const [k, row] of this.rows) copy.rows.set(k, { ...row, ops: [...row.ops] });
    return copy;
  }
}

/**
 * The next random write over `model`: a key, a token equal to the row's mark, lower, higher, at a
 * u64 edge or 0, an idempotency key or none, and now and then a retry of an operation the row
 * records (the same key and token).
 */
export function nextWrite(rnd, model) {
  const key = rnd.chance(0.6) ? KEYS[0] : rnd.pick(KEYS);
  const row = model.row(key);
  const m = row.mark ?? 1n;
  if (row.ops.length > 0 && rnd.chance(0.15)) {
    const [op, token] = rnd.pick(row.ops);
    return { key, token, op };
  }
  let token;
  const kind = rnd.int(100);
  if (kind < 30) token = m;
  else if (kind < 52) token = m - 1n - BigInt(rnd.int(3));
  else if (kind < 93) token = m + 1n + BigInt(rnd.int(3));
  else if (kind < 98) token = rnd.pick(EDGES);
  else token = 0n;
  if (token < 0n) token = 1n;
  if (token > MAX) token = MAX;
  const op = rnd.chance(0.35) ? undefined : rnd.pick(OP_KEYS);
  return { key, token, op };
}

/**
 * A concurrent writer's next write, mostly to one row: the next token of a shared counter, else
 * its own last token again, a lower one, or a retry of an operation it made (`mine`).
 */
export function concurrentWrite(rnd, shared, mine) {
  const key = rnd.chance(0.8) ? KEYS[0] : KEYS[1];
  const last = mine.at(-1);
  const kind = rnd.int(100);
  if (last !== undefined && kind < 15) {
    const earlier = rnd.pick(mine);
    return { key: earlier.key, token: earlier.token, op: earlier.op };
  }
  let token = shared();
  if (last !== undefined && kind < 30) token = last.token;
  else if (last !== undefined && kind < 40) token = last.token > 1n ? last.token - 1n : 1n;
  const op = rnd.chance(0.3) ? undefined : `op${rnd.int(24)}`;
  return { key, token, op };
}

/** A write or an answer, printable (bigints as `5n`). */
export const show = (v) => JSON.stringify(v, (_, x) => (typeof x === "bigint" ? `${x}n` : x));
