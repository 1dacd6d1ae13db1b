// A fenced table in a Durable Object's SQL storage (`ctx.storage`, a class with SQL enabled).
//
// A write without an idempotency key is first its one statement (see sqliteWrite in sql.js): it
// writes the row only when the fence rule admits the token over a row without idempotency
// entries, and writes no row otherwise; then the store reads the row for the core, which says why
// it was refused, or decides the write itself over a row with entries. A write with a key reads
// the row, hands it to the core and writes what the core admits (see decidedWrite). A Durable
// Object runs one request's synchronous code at a time, so nothing comes between a write's
// statements, and storage commits them together: a failure leaves nothing half-written. No race
// can be lost, so nothing is retried.

import { decideStoredWrite } from "fencepost";
import { ACCEPTED, decidedWrite, entry, keyOf, leftToCore, sqliteToken, storeOptions, writeArgs } from "./fence.js";
import { sqliteDecided, sqliteWrite } from "./sql.js";
import { describe } from "../common.js";

export class DurableObjectSqlStore {
  #storage;
  /** `ctx.storage.sql`, asked for once: every statement goes to its `exec`. */
  #db;
  #config;
  /** The statements of a write, as `sql.exec` takes them. */
  #sql;

  constructor(storage, options) {
    if (typeof storage?.sql?.exec !== "function" || typeof storage?.transactionSync !== "function") {
      throw new TypeError(`storage must be a Durable Object's ctx.storage with SQL enabled, got ${describe(storage)}`);
    }
    this.#storage = storage;
    this.#db = storage.sql;
    this.#config = storeOptions(options, { sql: true });
    const { table, key, value } = this.#config;
    this.#sql = { plain: sqliteWrite(table, key, value, false), numeric: sqliteWrite(table, key, value, true), ...sqliteDecided(table, key, value) };
  }

  /**
   * Creates the table (key, value, fence, fence_ops) if it does not exist, and adds the fence and
   * idempotency columns to an existing one that lacks them.
   */
  async createTable() {
    const { table, key, value } = this.#config;
    this.#storage.transactionSync(() => {
      this.#db.exec(`CREATE TABLE IF NOT EXISTS ${table} (${key} TEXT PRIMARY KEY NOT NULL, ${value} TEXT)`);
      const columns = this.#db.exec(`PRAGMA table_info(${table})`)
        .toArray()
        .map((c) => c.name);
      // TEXT, not INTEGER: see markText in fence.js.
      if (!columns.includes("fence")) this.#db.exec(`ALTER TABLE ${table} ADD COLUMN fence TEXT`);
      if (!columns.includes("fence_ops")) this.#db.exec(`ALTER TABLE ${table} ADD COLUMN fence_ops TEXT`);
    });
  }

  /** Writes `value` under `key` if the core admits the token; the same result shape as FenceGuard#admit. */
  async write(key, tokenOrHeader, value, options) {
    const args = writeArgs(this.#config, key, tokenOrHeader, value, options);
    if (args.ok === false) return args;
    const { key: k, op, text, token } = args;
    // Token 0 is refused whatever the row holds: the core says so without reading it.
    if (token === 0n) return decideStoredWrite(null, token);
    if (op !== undefined) return decidedWrite(args, this.#row(k), this.#put);
    // An upsert the rule refused wrote no row.
    const param = sqliteToken(token);
    if (this.#db.exec(typeof param === "number" ? this.#sql.numeric : this.#sql.plain, k, text, param).rowsWritten > 0) return ACCEPTED;
    return leftToCore(args, this.#row(k), this.#put);
  }

  /** The mark and entries of `key`'s row (undefined: none). */
  #row(key) {
    return this.#db.exec(this.#sql.read, key).toArray()[0];
  }

  /** Writes a row the core admitted, whole: key, value text, mark, entries text. */
  #put = (...row) => {
    this.#db.exec(this.#sql.write, ...row);
  };

  /** No race is ever lost inside a Durable Object: always 0. */
  get retries() {
    return 0;
  }

  /** The value and mark of `key`, or null when no write to it was accepted. */
  async read(key) {
    const k = keyOf(key);
    const { table, key: keyCol, value: valueCol } = this.#config;
    const row = this.#db.exec(`SELECT ${valueCol} AS value, fence FROM ${table} WHERE ${keyCol} = ?`, k).toArray()[0];
    return row === undefined ? null : entry(row.value, row.fence, `row ${describe(k)}`);
  }
}
