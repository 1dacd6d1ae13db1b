// A fenced table in SQLite, through any driver with synchronous prepared statements
// (better-sqlite3, node:sqlite, bun:sqlite): `prepare(sql)` with `get(...params)` and
// `run(...params)`, and `exec(sql)`.
//
// A write runs start to end without yielding, inside `BEGIN IMMEDIATE`: SQLite takes the write
// lock before the read, so no other connection can change the mark between the read the core
// decides on and the write. Another connection holding that lock makes BEGIN fail with "busy"
// (after the driver's busy timeout); that is the lost race, tried again up to ATTEMPTS times.

import { decide, entry, keyOf, lost, markText, storeOptions, untilSettled, writeArgs } from "./fence.js";
import { describe } from "../common.js";

function busy(error) {
  // better-sqlite3 names the code; node:sqlite gives the number, extended codes included (the
  // low byte: 5 SQLITE_BUSY, 6 SQLITE_LOCKED).
  const primary = typeof error?.errcode === "number" ? error.errcode & 0xff : -1;
  return error?.code === "SQLITE_BUSY" || error?.code === "SQLITE_LOCKED" || primary === 5 || primary === 6;
}

export class SqliteStore {
  #db;
  #config;
  #retries = 0;
  #statements = null;

  constructor(database, options) {
    if (typeof database?.prepare !== "function" || typeof database?.exec !== "function") {
      throw new TypeError(`database must be a SQLite database with prepare() and exec() (better-sqlite3, node:sqlite), got ${describe(database)}`);
    }
    this.#db = database;
    this.#config = storeOptions(options, { sql: true });
  }

  /**
   * Creates the table (key, value, fence, fence_ops) if it does not exist, and adds the fence and
   * idempotency columns to an existing one that lacks them.
   */
  async createTable() {
    const { table, key, value } = this.#config;
    this.#db.exec(`CREATE TABLE IF NOT EXISTS ${table} (${key} TEXT PRIMARY KEY NOT NULL, ${value} TEXT)`);
    const columns = this.#db.prepare(`SELECT name FROM pragma_table_info(?)`).all(table.slice(1, -1)).map((c) => c.name);
    // TEXT, not INTEGER: see markText in fence.js.
    if (!columns.includes("fence")) this.#db.exec(`ALTER TABLE ${table} ADD COLUMN fence TEXT`);
    if (!columns.includes("fence_ops")) this.#db.exec(`ALTER TABLE ${table} ADD COLUMN fence_ops TEXT`);
  }

  #prepared() {
    if (this.#statements === null) {
      const { table, key, value } = this.#config;
      this.#statements = {
        read: this.#db.prepare(`SELECT ${value} AS value, fence, fence_ops FROM ${table} WHERE ${key} = ?`),
        write: this.#db.prepare(
          `INSERT INTO ${table} (${key}, ${value}, fence, fence_ops) VALUES (?, ?, ?, ?) ` +
            `ON CONFLICT (${key}) DO UPDATE SET ${value} = excluded.${value}, fence = excluded.fence, fence_ops = excluded.fence_ops`,
        ),
      };
    }
    return this.#statements;
  }

  /** Writes `value` under `key` if the core admits the token; the same result shape as FenceGuard#admit. */
  async write(key, tokenOrHeader, value, options) {
    const args = writeArgs(this.#config, key, tokenOrHeader, value, options);
    if (args.ok === false) return args;
    const { key: k, op, text, token } = args;
    const st = this.#prepared();
    return untilSettled(k, () => this.#retries++, async () => {
      try {
        this.#db.exec("BEGIN IMMEDIATE");
      } catch (error) {
        if (!busy(error)) throw error;
        // A driver without a busy timeout fails at once: pause before the next attempt.
        return lost(error, { pause: true });
      }
      try {
        const row = st.read.get(k);
        const { verdict, ops } = decide(token, op, row?.fence, row?.fence_ops, `row ${describe(k)}`);
        if (verdict.ok) st.write.run(k, text, markText(token), ops);
        this.#db.exec(verdict.ok ? "COMMIT" : "ROLLBACK");
        return verdict;
      } catch (error) {
        // Nothing half-written stays: the transaction is rolled back (SQLite may have done so).
        try {
          this.#db.exec("ROLLBACK");
        } catch {
          // No transaction was open any more.
        }
        throw error;
      }
    });
  }

  /** How many times a write lost the race for its key and was read and decided again. */
  get retries() {
    return this.#retries;
  }

  /** The value and mark of `key`, or null when no write to it was accepted. */
  async read(key) {
    const k = keyOf(key);
    const row = this.#prepared().read.get(k);
    return row === undefined ? null : entry(row.value, row.fence, `row ${describe(k)}`);
  }
}
