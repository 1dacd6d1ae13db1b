// Types of `fencepost/store`: fenced writes where the data lives (ES modules only).
//
// Every store keeps, beside a key's value, its high-water mark (`fence`: the token as 20
// zero-padded digits, since a u64 does not fit a signed 64-bit column) and its last 16
// idempotency keys with their tokens (`fence_ops`). Value and mark are written in one atomic step,
// only when the core's rule admits the token: on Postgres one statement compares and writes; on
// SQLite and Durable Object SQL one statement does so for a write without an idempotency key over a
// row holding none, and any other write is read, decided by the core and written in one
// transaction (or synchronous turn);
// in Deno KV the entry is read, decided by the core and committed if unchanged. Refusals are
// results; misuse and malformed tokens throw (TypeError / RangeError, with the core's wording; a
// key holding U+0000 or an unpaired surrogate is a TypeError); a write that keeps losing the race for
// its key ends in a StoreContentionError, and a row no fenced write could have left (a damaged mark,
// or a foreign entry under the key) in a StoreDamageError, with nothing written.

import type { Accepted, InvalidRefusal, StaleRefusal, ForgedRefusal, DuplicateRefusal, Token, UnknownKeyRefusal } from "fencepost";

/**
 * What a write answers: the shape of FenceGuard#admit, plus "duplicate" and the signer's own
 * refusals ("forged", or a KeyRing's "unknownKey").
 */
export type StoreWriteResult = Accepted | StaleRefusal | InvalidRefusal | ForgedRefusal | UnknownKeyRefusal | DuplicateRefusal;

export interface StoredEntry<V = unknown> {
  value: V;
  /** The mark: the token of the last accepted write. */
  token: Token;
}

export interface WriteOptions {
  /**
   * The operation's id, 1 to 200 characters: a retry with the same id and token is answered
   * "duplicate" and not applied again (the last 16 ids of a key are remembered).
   */
  idempotencyKey?: string;
}

export interface StoreOptions {
  /** Verify signed `Fencing-Token` values; the store then refuses bare tokens. Any object with
   * TokenSigner's `verify` will do (a KeyRing too); its refusals are the write's answer. */
  signer?: { verify(lock: string, header: string): { ok: true; token: Token } | ForgedRefusal | UnknownKeyRefusal };
  /** The lock name a key's tokens are signed for (default: the key itself). */
  lock?: (key: string) => string;
}

export interface SqlStoreOptions extends StoreOptions {
  /** The table (letters, digits and _). */
  table: string;
  /** Its key column (default "key"). */
  keyColumn?: string;
  /** Its value column, JSON text (default "value"). */
  valueColumn?: string;
}

interface FencedStore {
  /** Writes `value` (JSON) under `key` if the core admits the token. */
  write(key: string, tokenOrHeader: Token | string, value: unknown, options?: WriteOptions): Promise<StoreWriteResult>;
  /** The value and mark of `key`; null when no write to it was accepted. */
  read<V = unknown>(key: string): Promise<StoredEntry<V> | null>;
}

interface FencedTable extends FencedStore {
  /** Creates the table, or adds the fence and idempotency columns to an existing one. */
  createTable(): Promise<void>;
}

/** The parts of a `pg` Pool or Client the store uses. */
export interface PgQueryable {
  query(text: string, values?: readonly unknown[]): Promise<{ rows: any[] }>;
}

/** Postgres through `pg`: each write is one statement, in one round trip, accepted or refused. */
export class PostgresStore implements FencedTable {
  constructor(poolOrClient: PgQueryable, options: SqlStoreOptions);
  createTable(): Promise<void>;
  write(key: string, tokenOrHeader: Token | string, value: unknown, options?: WriteOptions): Promise<StoreWriteResult>;
  read<V = unknown>(key: string): Promise<StoredEntry<V> | null>;
  /** Writes that lost the race for their key and were read and decided again, so far. */
  readonly retries: number;
}

/** The parts of a synchronous SQLite driver (better-sqlite3, node:sqlite) the store uses. */
export interface SqliteDatabase {
  prepare(sql: string): { get(...params: readonly unknown[]): any; run(...params: readonly unknown[]): unknown; all(...params: readonly unknown[]): any[] };
  exec(sql: string): unknown;
}

/**
 * SQLite, without yielding: a write without an idempotency key is one upsert that compares in its
 * `WHERE`, committed on its own; a write with one, or over a row holding idempotency entries, is
 * a read of the row, the core's decision and a write inside `BEGIN IMMEDIATE`.
 */
export class SqliteStore implements FencedTable {
  constructor(database: SqliteDatabase, options: SqlStoreOptions);
  createTable(): Promise<void>;
  write(key: string, tokenOrHeader: Token | string, value: unknown, options?: WriteOptions): Promise<StoreWriteResult>;
  read<V = unknown>(key: string): Promise<StoredEntry<V> | null>;
  /** Writes that found the database busy and tried again, so far. */
  readonly retries: number;
}

/** A Durable Object's `ctx.storage` with SQL enabled (the parts the store uses). */
export interface DurableObjectSqlStorage {
  sql: { exec(query: string, ...bindings: readonly unknown[]): { toArray(): any[] } };
  transactionSync<T>(closure: () => T): T;
}

/**
 * Durable Object SQL, without yielding: a write without an idempotency key is one upsert that
 * compares in its `WHERE`; a write with one, or over a row holding idempotency entries, is a read
 * of the row, the core's decision and a write.
 */
export class DurableObjectSqlStore implements FencedTable {
  constructor(storage: DurableObjectSqlStorage, options: SqlStoreOptions);
  createTable(): Promise<void>;
  write(key: string, tokenOrHeader: Token | string, value: unknown, options?: WriteOptions): Promise<StoreWriteResult>;
  read<V = unknown>(key: string): Promise<StoredEntry<V> | null>;
  /** Always 0: no race is lost inside a Durable Object. */
  readonly retries: number;
}

/** The parts of a Deno.Kv the store uses. */
export interface DenoKvLike {
  get(key: readonly unknown[]): Promise<{ key: readonly unknown[]; value: any; versionstamp: string | null }>;
  atomic(): {
    check(...checks: { key: readonly unknown[]; versionstamp: string | null }[]): any;
    set(key: readonly unknown[], value: unknown): any;
    commit(): Promise<{ ok: boolean }>;
  };
}

export interface DenoKvStoreOptions extends StoreOptions {
  /** Key parts before each key (default: none). */
  prefix?: readonly unknown[];
}

/** Deno KV: each write commits only if the key's entry is unchanged since it was read. */
export class DenoKvStore implements FencedTable {
  constructor(kv: DenoKvLike, options?: DenoKvStoreOptions);
  /** Nothing to create (keys need no schema); resolves at once. */
  createTable(): Promise<void>;
  write(key: string, tokenOrHeader: Token | string, value: unknown, options?: WriteOptions): Promise<StoreWriteResult>;
  read<V = unknown>(key: string): Promise<StoredEntry<V> | null>;
  /** Writes whose commit lost the race for their key and were read and decided again, so far. */
  readonly retries: number;
}

/** A write that lost the race for its key too many times in a row: not applied, not refused. */
export class StoreContentionError extends Error {
  readonly key: string;
  readonly attempts: number;
}

/**
 * A stored row or entry no fenced write could have left (a mark that is not 20 digits, bad
 * idempotency entries, a value that is not JSON, a foreign Deno KV entry under the key). Thrown by
 * `write`, and by `read` for all but bad idempotency entries (a read does not look at them);
 * nothing is written.
 */
export class StoreDamageError extends Error {
  /** Which row and part: e.g. `row "doc" fence`. */
  readonly where: string;
  /** What was found there. */
  readonly found: unknown;
}
