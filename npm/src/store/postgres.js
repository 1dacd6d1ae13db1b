// A fenced table in Postgres, through the `pg` driver the caller passes in: a Pool (each write
// takes a connection of its own) or a Client (writes take turns on it: a connection runs one
// transaction at a time).
//
// A write is one transaction: the row is made if missing (so there is a row to lock), read with
// `SELECT ... FOR UPDATE` (every other writer of the key waits here until this one commits or
// rolls back), decided by the core, and written only when admitted. The mark read is the one the
// row keeps until COMMIT. A serialization failure or deadlock (possible under stricter isolation
// than the default) is a lost race: the write is tried again, up to ATTEMPTS times.

import { StoreDamageError, decide, entry, keyOf, lost, markText, storeOptions, untilSettled, writeArgs } from "./fence.js";
import { describe } from "../common.js";

/** SQLSTATEs of a transaction that lost a race and may simply run again. */
const RETRY = new Set(["40001", "40P01"]);

export class PostgresStore {
  #db;
  #pool;
  #config;
  #retries = 0;
  /** With a Client: the end of the queue of writes taking turns on it. */
  #turn = Promise.resolve();

  constructor(poolOrClient, options) {
    if (typeof poolOrClient?.query !== "function") {
      throw new TypeError(`poolOrClient must be a pg Pool or Client, got ${describe(poolOrClient)}`);
    }
    // A pg Pool counts its idle clients; a Client has a backend process id (null until it
    // connects). Anything else is refused: taken for a Client, a pool would run BEGIN, the row
    // lock and COMMIT on different connections, with no transaction and no error.
    const pool = typeof poolOrClient.connect === "function" && typeof poolOrClient.idleCount === "number";
    if (!pool && !("processID" in poolOrClient)) {
      throw new TypeError(`poolOrClient must be a pg Pool or Client, got ${describe(poolOrClient)}`);
    }
    this.#db = poolOrClient;
    this.#pool = pool;
    this.#config = storeOptions(options, { sql: true });
  }

  /**
   * Creates the table (key, value, fence, fence_ops) if it does not exist, and adds the fence and
   * idempotency columns to an existing one that lacks them.
   */
  async createTable() {
    const { table, key, value } = this.#config;
    // text, not bigint or numeric: see markText in fence.js. In its turn on a Client, like
    // every statement of this store.
    await this.#session((db) =>
      db.query(
        `CREATE TABLE IF NOT EXISTS ${table} (${key} text PRIMARY KEY, ${value} text);
         ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS fence text, ADD COLUMN IF NOT EXISTS fence_ops text`,
      ),
    );
  }

  /** Runs `work(client)` on a connection of its own (a Pool) or in its turn (a Client). */
  async #session(work) {
    if (this.#pool) {
      const client = await this.#db.connect();
      let broken;
      try {
        return await work(client);
      } catch (error) {
        // A transaction that lost a race, or found a damaged row, was rolled back and its
        // connection is fine; after any other failure the connection is not handed to anyone else.
        if (!RETRY.has(error?.code) && !(error instanceof StoreDamageError)) broken = error;
        throw error;
      } finally {
        client.release(broken);
      }
    }
    const run = this.#turn.then(() => work(this.#db));
    this.#turn = run.catch(() => {});
    return run;
  }

  /** Writes `value` under `key` if the core admits the token; the same result shape as FenceGuard#admit. */
  async write(key, tokenOrHeader, value, options) {
    const args = writeArgs(this.#config, key, tokenOrHeader, value, options);
    if (args.ok === false) return args;
    const { key: k, op, text, token } = args;
    const { table, key: keyCol, value: valueCol } = this.#config;
    return untilSettled(k, () => this.#retries++, async () => {
      try {
        return await this.#session(async (db) => {
          await db.query("BEGIN");
          try {
            await db.query(`INSERT INTO ${table} (${keyCol}) VALUES ($1) ON CONFLICT (${keyCol}) DO NOTHING`, [k]);
            const { rows } = await db.query(`SELECT fence, fence_ops FROM ${table} WHERE ${keyCol} = $1 FOR UPDATE`, [k]);
            const { verdict, ops } = decide(token, op, rows[0].fence, rows[0].fence_ops, `row ${describe(k)}`);
            if (!verdict.ok) {
              await db.query("ROLLBACK");
              return verdict;
            }
            await db.query(`UPDATE ${table} SET ${valueCol} = $2, fence = $3, fence_ops = $4 WHERE ${keyCol} = $1`, [k, text, markText(token), ops]);
            await db.query("COMMIT");
            return verdict;
          } catch (error) {
            await db.query("ROLLBACK").catch(() => {});
            throw error;
          }
        });
      } catch (error) {
        if (!RETRY.has(error?.code)) throw error;
        return lost(error);
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
    const { table, key: keyCol, value: valueCol } = this.#config;
    // In its turn on a Client: between another write's BEGIN and COMMIT it would read that
    // write's uncommitted row.
    const { rows } = await this.#session((db) => db.query(`SELECT ${valueCol} AS value, fence FROM ${table} WHERE ${keyCol} = $1`, [k]));
    return rows.length === 0 ? null : entry(rows[0].value, rows[0].fence, `row ${describe(k)}`);
  }
}
