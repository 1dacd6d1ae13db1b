// A fenced table in SQLite, through any driver with synchronous prepared statements
// (better-sqlite3, node:sqlite, bun:sqlite): `prepare(sql)` with `get(...params)` and
// `run(...params)` (answering `changes`), and `exec(sql)`.
//
// A write without an idempotency key is first its one statement (see sqliteWrite in sql.js),
// committed on its own: a statement is atomic and durable by itself, so the write is there whole
// or not at all, and an accepted write (the common one) costs that statement alone. It writes
// only when the fence rule admits the token over a row without idempotency entries; otherwise it
// counts no change and the store reads the row for the core, which says why it was refused. A
// write the core might admit over that row (one with entries, or a row changed since the
// statement), and every write with an idempotency key, is decided by the core over the row read
// inside `BEGIN IMMEDIATE` and written there when admitted (see decidedWrite): what is read is
// the very row the write replaces, and a process that dies before COMMIT leaves nothing. Another
// connection holding the write lock makes the statement or BEGIN fail with "busy" (after the
// driver's busy timeout); that is a lost race, tried again (in a transaction) up to ATTEMPTS
// times.

import { decideStoredWrite } from "fencepost";
import { ACCEPTED, decidedWrite, entry, isLost, keyOf, leftToCore, lost, refusedOver, sqliteToken, storeOptions, untilSettled, writeArgs } from "./fence.js";
import { sqliteDecided, sqliteWrite } from "./sql.js";
import { describe } from "../common.js";

/** How many times createTable tries to take a locked database's write lock (5 to 25 ms apart). */
const LOCKED_ATTEMPTS = 400;

function busy(error) {
  // better-sqlite3 names the code; node:sqlite gives the number, extended codes included (the
  // low byte: 5 SQLITE_BUSY, 6 SQLITE_LOCKED).
  const primary = typeof error?.errcode === "number" ? error.errcode & 0xff : -1;
  return error?.code === "SQLITE_BUSY" || error?.code === "SQLITE_LOCKED" || primary === 5 || primary === 6;
}

/** Runs the statement of a write without an idempotency key (see sqliteWrite): whether it wrote. */
function written(st, { key, text, token }) {
  const param = sqliteToken(token);
  return (typeof param === "number" ? st.numeric : st.plain).run(key, text, param).changes > 0;
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
   * idempotency columns to an existing one that lacks them. Processes sharing the file may call it
   * at once (several service instances starting): it looks and changes in one transaction that
   * takes the write lock first, so each caller sees what an earlier one made.
   */
  async createTable() {
    const { table, key, value } = this.#config;
    await this.#immediate(() => {
      this.#db.exec(`CREATE TABLE IF NOT EXISTS ${table} (${key} TEXT PRIMARY KEY NOT NULL, ${value} TEXT)`);
      const columns = this.#db.prepare(`SELECT name FROM pragma_table_info(?)`).all(table.slice(1, -1)).map((c) => c.name);
      // TEXT, not INTEGER: see markText in fence.js.
      if (!columns.includes("fence")) this.#db.exec(`ALTER TABLE ${table} ADD COLUMN fence TEXT`);
      if (!columns.includes("fence_ops")) this.#db.exec(`ALTER TABLE ${table} ADD COLUMN fence_ops TEXT`);
    });
  }

  /**
   * Runs `work` in a BEGIN IMMEDIATE transaction, committed, or rolled back if it throws. A
   * database locked by another connection is tried again for a while: a driver without a busy
   * timeout (node:sqlite's default) says so at once.
   */
  async #immediate(work) {
    for (let attempt = 1; ; attempt++) {
      try {
        this.#db.exec("BEGIN IMMEDIATE");
        break;
      } catch (error) {
        if (!busy(error) || attempt === LOCKED_ATTEMPTS) throw error;
        await new Promise((r) => setTimeout(r, 5 + Math.random() * 20));
      }
    }
    try {
      work();
      this.#db.exec("COMMIT");
    } catch (error) {
      this.#rollback();
      throw error;
    }
  }

  /** Rolls back the open transaction, if SQLite has not already done so. */
  #rollback() {
    try {
      this.#db.exec("ROLLBACK");
    } catch {
      // No transaction was open any more.
    }
  }

  #prepared() {
    if (this.#statements === null) {
      const { table, key, value } = this.#config;
      const decided = sqliteDecided(table, key, value);
      this.#statements = {
        begin: this.#db.prepare("BEGIN IMMEDIATE"),
        commit: this.#db.prepare("COMMIT"),
        plain: this.#db.prepare(sqliteWrite(table, key, value, false)),
        numeric: this.#db.prepare(sqliteWrite(table, key, value, true)),
        marks: this.#db.prepare(decided.read),
        put: this.#db.prepare(decided.write),
        read: this.#db.prepare(`SELECT ${value} AS value, fence FROM ${table} WHERE ${key} = ?`),
      };
    }
    return this.#statements;
  }

  /**
   * A write without an idempotency key as its one statement, committed on its own, and when it
   * wrote nothing, the core's refusal over the row read after it. null when the core would admit
   * the write over that row: it is then decided in a transaction. A lost race when the database
   * was busy.
   */
  #alone(st, args) {
    try {
      if (written(st, args)) return ACCEPTED;
      return refusedOver(args.key, args.token, undefined, st.marks.get(args.key));
    } catch (error) {
      if (!busy(error)) throw error;
      return lost(error, { pause: true });
    }
  }

  /**
   * A write inside the write's transaction: the core's decision over the row read there, written
   * when admitted; without an idempotency key, the statement first, and the core only for a row
   * it left as it was.
   */
  #inTransaction(st, args) {
    const put = (...row) => st.put.run(...row);
    if (args.op !== undefined) return decidedWrite(args, st.marks.get(args.key), put);
    if (written(st, args)) return ACCEPTED;
    return leftToCore(args, st.marks.get(args.key), put);
  }

  /** Writes `value` under `key` if the core admits the token; the same result shape as FenceGuard#admit. */
  async write(key, tokenOrHeader, value, options) {
    const args = writeArgs(this.#config, key, tokenOrHeader, value, options);
    if (args.ok === false) return args;
    const { key: k, op, token } = args;
    // Token 0 is refused whatever the row holds: the core says so without reading it.
    if (token === 0n) return decideStoredWrite(null, token);
    const st = this.#prepared();
    // Synchronous: a write that finds the database free is settled without waiting.
    const first = (op === undefined ? this.#alone(st, args) : null) ?? this.#attempt(st, args);
    return isLost(first) ? untilSettled(k, () => this.#retries++, () => this.#attempt(st, args), first) : first;
  }

  /** One attempt of a write in a transaction of its own: its verdict, or a lost race (busy). */
  #attempt(st, args) {
    try {
      st.begin.run();
    } catch (error) {
      if (!busy(error)) throw error;
      // A driver without a busy timeout fails at once: pause before the next attempt.
      return lost(error, { pause: true });
    }
    try {
      const verdict = this.#inTransaction(st, args);
      st.commit.run();
      return verdict;
    } catch (error) {
      // Nothing half-written stays: the transaction is rolled back.
      this.#rollback();
      throw error;
    }
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
