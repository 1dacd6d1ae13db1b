// A fenced table in a Durable Object's SQL storage (`ctx.storage`, a class with SQL enabled).
//
// A Durable Object runs one request's synchronous code at a time, and `transactionSync` makes
// what runs inside it atomic: the read, the core's decision and the write happen there without
// yielding, so no other write to the object can come between them, and a failure leaves nothing
// half-written. No race can be lost, so nothing is retried.

import { decide, entry, keyOf, markText, storeOptions, writeArgs } from "./fence.js";
import { describe } from "../common.js";

export class DurableObjectSqlStore {
  #storage;
  #config;

  constructor(storage, options) {
    if (typeof storage?.sql?.exec !== "function" || typeof storage?.transactionSync !== "function") {
      throw new TypeError(`storage must be a Durable Object's ctx.storage with SQL enabled, got ${describe(storage)}`);
    }
    this.#storage = storage;
    this.#config = storeOptions(options, { sql: true });
  }

  #exec(sql, ...params) {
    return this.#storage.sql.exec(sql, ...params);
  }

  /**
   * Creates the table (key, value, fence, fence_ops) if it does not exist, and adds the fence and
   * idempotency columns to an existing one that lacks them.
   */
  async createTable() {
    const { table, key, value } = this.#config;
    this.#storage.transactionSync(() => {
      this.#exec(`CREATE TABLE IF NOT EXISTS ${table} (${key} TEXT PRIMARY KEY NOT NULL, ${value} TEXT)`);
      const columns = this.#exec(`PRAGMA table_info(${table})`)
        .toArray()
        .map((c) => c.name);
      // TEXT, not INTEGER: see markText in fence.js.
      if (!columns.includes("fence")) this.#exec(`ALTER TABLE ${table} ADD COLUMN fence TEXT`);
      if (!columns.includes("fence_ops")) this.#exec(`ALTER TABLE ${table} ADD COLUMN fence_ops TEXT`);
    });
  }

  /** Writes `value` under `key` if the core admits the token; the same result shape as FenceGuard#admit. */
  async write(key, tokenOrHeader, value, options) {
    const args = writeArgs(this.#config, key, tokenOrHeader, value, options);
    if (args.ok === false) return args;
    const { key: k, op, text, token } = args;
    const { table, key: keyCol, value: valueCol } = this.#config;
    return this.#storage.transactionSync(() => {
      const row = this.#exec(`SELECT fence, fence_ops FROM ${table} WHERE ${keyCol} = ?`, k).toArray()[0];
      const { verdict, ops } = decide(token, op, row?.fence, row?.fence_ops, `row ${describe(k)}`);
      if (verdict.ok) {
        this.#exec(
          `INSERT INTO ${table} (${keyCol}, ${valueCol}, fence, fence_ops) VALUES (?, ?, ?, ?) ` +
            `ON CONFLICT (${keyCol}) DO UPDATE SET ${valueCol} = excluded.${valueCol}, fence = excluded.fence, fence_ops = excluded.fence_ops`,
          k,
          text,
          markText(token),
          ops,
        );
      }
      return verdict;
    });
  }

  /** No race is ever lost inside a Durable Object: always 0. */
  get retries() {
    return 0;
  }

  /** The value and mark of `key`, or null when no write to it was accepted. */
  async read(key) {
    const k = keyOf(key);
    const { table, key: keyCol, value: valueCol } = this.#config;
    const row = this.#exec(`SELECT ${valueCol} AS value, fence FROM ${table} WHERE ${keyCol} = ?`, k).toArray()[0];
    return row === undefined ? null : entry(row.value, row.fence, `row ${describe(k)}`);
  }
}
