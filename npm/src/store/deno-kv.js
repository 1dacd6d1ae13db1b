// A fenced key in Deno KV. A key's entry holds its value, its mark and its idempotency entries
// together, so one `set` writes them all; the write commits only if the entry still has the
// versionstamp it was read with (`atomic().check()`). A commit that fails that check lost the
// race to another write: the entry is read again and the core decides again, up to ATTEMPTS times.
// So is a commit that finds the database busy (the local KV, opened from one file by several
// handles or processes).

import { StoreDamageError, decide, entry, keyOf, lost, markText, storeOptions, untilSettled, writeArgs } from "./fence.js";
import { describe } from "../common.js";

/**
 * The fenced entry stored under a key (null: none), or a StoreDamageError when the key holds
 * something else: with the default prefix (none) a store shares its keys with whatever else the
 * database holds, and reading a foreign value as "no mark yet" would write over it.
 */
function fenced(stored, where) {
  if (stored === null) return null;
  const shaped =
    typeof stored === "object" &&
    Object.keys(stored).length === 3 &&
    typeof stored.value === "string" &&
    typeof stored.fence === "string" &&
    (stored.ops === null || typeof stored.ops === "string");
  if (!shaped) throw new StoreDamageError(where, stored, "a fenced entry { value, fence, ops }");
  return stored;
}

/** Deno's local KV (SQLite underneath) says so when another handle holds its write lock. */
function busy(error) {
  return /database is locked/.test(String(error?.message));
}

export class DenoKvStore {
  #kv;
  #prefix;
  #config;
  #retries = 0;

  constructor(kv, options) {
    if (typeof kv?.atomic !== "function" || typeof kv?.get !== "function") {
      throw new TypeError(`kv must be a Deno.Kv (from Deno.openKv()), got ${describe(kv)}`);
    }
    this.#kv = kv;
    this.#config = storeOptions(options, { sql: false });
    const prefix = options?.prefix ?? [];
    if (!Array.isArray(prefix)) throw new TypeError(`options.prefix must be an array of key parts (a Deno.KvKey), got ${describe(prefix)}`);
    this.#prefix = [...prefix];
  }

  /** Nothing to create: Deno KV keys need no schema. Here so every store is used the same way. */
  async createTable() {}

  /** Writes `value` under `key` if the core admits the token; the same result shape as FenceGuard#admit. */
  async write(key, tokenOrHeader, value, options) {
    // The value as JSON text, as the SQL stores keep it, so one value is accepted by every store.
    const args = writeArgs(this.#config, key, tokenOrHeader, value, options);
    if (args.ok === false) return args;
    const { key: k, op, text: json, token } = args;
    const kvKey = [...this.#prefix, k];
    return untilSettled(k, () => this.#retries++, async () => {
      const current = await this.#kv.get(kvKey);
      const stored = fenced(current.value, `entry ${describe(k)}`);
      const { verdict, ops } = decide(token, op, stored?.fence, stored?.ops, `entry ${describe(k)}`);
      if (!verdict.ok) return verdict;
      let committed;
      try {
        committed = await this.#kv
          .atomic()
          .check(current)
          .set(kvKey, { value: json, fence: markText(token), ops })
          .commit();
      } catch (error) {
        if (!busy(error)) throw error;
        // Another handle on the same local database file is writing: pause, then race again.
        return lost(error, { pause: true });
      }
      return committed.ok ? verdict : lost(undefined);
    });
  }

  /** How many times a write lost the race for its key and was read and decided again. */
  get retries() {
    return this.#retries;
  }

  /** The value and mark of `key`, or null when no write to it was accepted. */
  async read(key) {
    const k = keyOf(key);
    const stored = fenced((await this.#kv.get([...this.#prefix, k])).value, `entry ${describe(k)}`);
    return stored === null ? null : entry(stored.value, stored.fence, `entry ${describe(k)}`);
  }
}
