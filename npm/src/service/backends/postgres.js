// Locks in Postgres, through the `pg` driver the caller passes in (a Pool): one row per lock with
// its authority's snapshot, a version counted up by every commit, and when it may be deleted. A
// commit is one statement that holds only if the version is still the one read (an INSERT that
// holds only if there is still no row), so any number of service instances can share the table;
// Postgres re-checks an UPDATE's WHERE against the newest row, so two commits of one version
// cannot both hold.

import { describe } from "../../common.js";
import { BackendUnavailableError } from "../errors.js";

const TABLE = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/**
 * SQLSTATE classes and codes of a server that cannot answer now (shutting down, starting, out of
 * connections), and driver errors of a connection that failed: the service answers 503.
 */
const UNAVAILABLE_STATES = new Set(["57P01", "57P02", "57P03", "53300", "08000", "08001", "08003", "08004", "08006"]);
const UNAVAILABLE_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ENOTFOUND", "ETIMEDOUT", "EPIPE", "ENOENT"]);

/** `e` as a BackendUnavailableError when it says Postgres cannot answer now; else `e` itself. */
export function unavailable(e) {
  const code = e?.code;
  const gone = UNAVAILABLE_STATES.has(code) || UNAVAILABLE_CODES.has(code) || /Connection terminated|connection timeout|Client has encountered a connection error/i.test(e?.message ?? "");
  return gone ? new BackendUnavailableError(`Postgres cannot answer: ${e.message}`, { cause: e }) : e;
}

/** Runs `create` (a CREATE ... IF NOT EXISTS); another session creating the same thing first is success. */
export async function createdByAnyone(create) {
  try {
    await create();
  } catch (e) {
    if (e?.code !== "23505" && e?.code !== "42P07") throw e;
  }
}

export class PostgresLocks {
  #pool;
  #table;

  /** `pool`: a pg Pool; `table`: the locks' table (letters, digits and _; default fencepost_locks). */
  constructor(pool, { table = "fencepost_locks" } = {}) {
    if (typeof pool?.query !== "function") throw new TypeError(`pool must be a pg Pool, got ${describe(pool)}`);
    if (typeof table !== "string" || !TABLE.test(table)) {
      throw new TypeError(`table must be 1 to 63 letters, digits and _ (not first a digit), got ${describe(table)}`);
    }
    this.#pool = pool;
    this.#table = table;
  }

  async #query(text, values) {
    try {
      return await this.#pool.query(text, values);
    } catch (e) {
      throw unavailable(e);
    }
  }

  /**
   * Creates the table when missing. Instances starting together may race here: Postgres checks
   * IF NOT EXISTS before it takes its catalog's locks, so the loser gets a unique violation
   * (23505) or "already exists" (42P07), and the table is there: that is success.
   */
  async createTable() {
    await createdByAnyone(() => this.#query(`CREATE TABLE IF NOT EXISTS ${this.#table} (name text PRIMARY KEY, snapshot bytea NOT NULL, version bigint NOT NULL, delete_at bigint NOT NULL)`));
  }

  async read(lock) {
    const r = await this.#query(`SELECT snapshot, version FROM ${this.#table} WHERE name = $1`, [lock]);
    if (r.rows.length === 0) return { snapshot: null, version: null };
    return { snapshot: r.rows[0].snapshot, version: r.rows[0].version };
  }

  async commit(lock, version, snapshot, deleteAt) {
    const at = Math.ceil(deleteAt);
    const r = version === null
      ? await this.#query(`INSERT INTO ${this.#table} (name, snapshot, version, delete_at) VALUES ($1, $2, 1, $3) ON CONFLICT (name) DO NOTHING`, [lock, snapshot, at])
      : await this.#query(`UPDATE ${this.#table} SET snapshot = $2, version = version + 1, delete_at = $3 WHERE name = $1 AND version = $4`, [lock, snapshot, at, version]);
    return r.rowCount === 1;
  }

  async sweep(now) {
    const r = await this.#query(`DELETE FROM ${this.#table} WHERE delete_at <= $1`, [Math.floor(now)]);
    return r.rowCount;
  }
}
