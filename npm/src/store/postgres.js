// A fenced table in Postgres, through the `pg` driver the caller passes in: a Pool (each write
// takes a connection of its own) or a Client (writes take turns on it: a connection runs one
// statement at a time).
//
// A write is one statement, in one round trip (see postgresWrite in sql.js): it writes the row
// only when the fence rule admits the token, and answers a refused write with the row it locked,
// from which the core decides what the refusal says. A serialization failure or deadlock
// (possible under stricter isolation than the default, where a row another writer made after the
// statement's snapshot is one too) is a lost race: the write is tried again, up to ATTEMPTS
// times.

import { decideStoredWrite } from "fencepost";
import { ACCEPTED, entry, keyOf, lost, markText, refusal, storeOptions, untilSettled, writeArgs } from "./fence.js";
import { postgresWrite } from "./sql.js";
import { describe } from "../common.js";

/** SQLSTATEs of a transaction that lost a race and may simply run again. */
const RETRY = new Set(["40001", "40P01"]);

/**
 * A name for a prepared statement of `text`: the same text gets the same name on every store, so
 * a connection prepares it once, whichever store of the table sent it first.
 */
function statementName(text) {
  // Two 32-bit FNV-1a lanes of different offsets: distinct texts get distinct names (pg refuses
  // one name for two texts, and Postgres cuts names at 63 bytes, so a table's name cannot be it).
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (let i = 0; i < text.length; i++) {
    a = Math.imul(a ^ text.charCodeAt(i), 0x01000193);
    b = Math.imul(b ^ text.charCodeAt(i), 0x01000193);
  }
  const hex = (h) => (h >>> 0).toString(16).padStart(8, "0");
  return `fencepost_write_${hex(a)}${hex(b)}`;
}

/**
 * The query of a write, with its parameters as postgresWrite in sql.js numbers them: key, value
 * text, mark, and (with an idempotency key) that key as JSON text, the form its entry holds it in.
 * Built field by field: the same query spread from the statement's object (`{ ...plain, values }`)
 * measured 10-15% slower per write against a local Postgres, alternating with this one.
 */
function writeQuery(statements, { key, op, text, token }) {
  if (op === undefined) return { name: statements.plain.name, text: statements.plain.text, values: [key, text, markText(token)] };
  return { name: statements.keyed.name, text: statements.keyed.text, values: [key, text, markText(token), JSON.stringify(op)] };
}

/**
 * The row a refused write was checked against, from the JSON text its statement answers
 * (`[fence, fence_ops, sound]`, see postgresWrite in sql.js).
 */
function refusedRow(text, key) {
  const found = typeof text === "string" && text !== "" ? JSON.parse(text) : null;
  if (!Array.isArray(found) || found.length !== 3) {
    throw new Error(`fencepost/store: the statement refused the write to ${describe(key)} without answering the row it checked (${describe(text)}); nothing was written`);
  }
  const [fence, fence_ops, sound] = found;
  return { fence, fence_ops, sound };
}

export class PostgresStore {
  #db;
  #pool;
  #config;
  #retries = 0;
  /** The write statements (with an idempotency key and without), prepared once per connection by name. */
  #write;
  /** With a Client: the end of the queue of writes taking turns on it. */
  #turn = Promise.resolve();

  constructor(poolOrClient, options) {
    if (typeof poolOrClient?.query !== "function") {
      throw new TypeError(`poolOrClient must be a pg Pool or Client, got ${describe(poolOrClient)}`);
    }
    // A pg Pool counts its idle clients; a Client has a backend process id (null until it
    // connects). Anything else is refused: what it is decides how writes share it, and a wrapper
    // that hid a pool's connections would hide a prepared statement's too.
    const pool = typeof poolOrClient.connect === "function" && typeof poolOrClient.idleCount === "number";
    if (!pool && !("processID" in poolOrClient)) {
      throw new TypeError(`poolOrClient must be a pg Pool or Client, got ${describe(poolOrClient)}`);
    }
    this.#db = poolOrClient;
    this.#pool = pool;
    this.#config = storeOptions(options, { sql: true });
    const { table, key, value } = this.#config;
    const statement = (keyed) => {
      const text = postgresWrite(table, key, value, keyed);
      return { name: statementName(text), text };
    };
    this.#write = { plain: statement(false), keyed: statement(true) };
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
        // A statement that lost a race was rolled back and its connection is fine; after any
        // other failure the connection is not handed to anyone else.
        if (!RETRY.has(error?.code)) broken = error;
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
    const { key: k, op, token } = args;
    // Token 0 is refused whatever the row holds: the core says so without reading it.
    if (token === 0n) return decideStoredWrite(null, token);
    const query = writeQuery(this.#write, args);
    return untilSettled(k, () => this.#retries++, async () => {
      let rows;
      try {
        ({ rows } = await this.#session((db) => db.query(query)));
      } catch (error) {
        if (!RETRY.has(error?.code)) throw error;
        return lost(error);
      }
      // No row: written.
      if (rows.length === 0) return ACCEPTED;
      return refusal(k, token, op, refusedRow(rows[0].refused, k));
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
    // In its turn on a Client, like every statement of this store: reads and writes answer in
    // the order they were asked.
    const { rows } = await this.#session((db) => db.query(`SELECT ${valueCol} AS value, fence FROM ${table} WHERE ${keyCol} = $1`, [k]));
    return rows.length === 0 ? null : entry(rows[0].value, rows[0].fence, `row ${describe(k)}`);
  }
}
