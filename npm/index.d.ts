/// <reference lib="esnext.disposable" />
// Types of the npm package `fencepost` (every entry point: Node, Workers, Deno, browsers, slim).
//
// Tokens are `bigint`s from 1n to 2n ** 64n - 1n (0n is never granted). Times and durations are
// numbers of milliseconds on a monotonic timeline the host chooses: whole numbers from 0 to
// Number.MAX_SAFE_INTEGER. A time earlier than one already seen is clamped, never trusted. A
// returned time past Number.MAX_SAFE_INTEGER (no time a caller can pass reaches it) is Infinity.
//
// Misuse (a wrong type, a negative or too large value, an unknown option, a name over 1024 bytes)
// throws a TypeError or RangeError that names the argument. Refusals that are part of normal work
// (a stale token, a held lock, a lost lease, a forged signature) are returned, never thrown.

/** A fencing token: grows with every grant; a resource refuses any lower than one it accepted. */
export type Token = bigint;

/** How an authority behaves. */
export interface AuthorityOptions {
  /** Default lease length in milliseconds (> 0). */
  ttlMs: number;
  /** The first token to issue (default 1n). */
  firstToken?: bigint;
  /**
   * Instead of `firstToken`: the wall-clock time this authority starts at (`Date.now()`), for a
   * host that may lose a lock's stored state. The first token is `firstTokenAt << 20` (1 for 0; a
   * time past 2^44 ms, the year 2527, is clamped to the last start that leaves 2^20 tokens), so a lock
   * started again after its state was lost starts above every token it issued before, as long as
   * the clock did not step back past its earlier start and it issued fewer than 2^20 tokens a
   * millisecond.
   */
  firstTokenAt?: number;
  /** After an expiry, no new grant until `expiresAt + lockDelayMs` (default 0: none). */
  lockDelayMs?: number;
  /** Deepest re-entry by one holder, 1 to 4294967295 (default 4294967295; 1: not re-entrant). */
  maxReentry?: number;
  /** Tokens one persisted reservation covers (default 1: persist after every new grant). */
  reserveBlock?: number;
}

/** Per-call options of `acquire` and `renew`. */
export interface LeaseOptions {
  /** This lease's length instead of the authority's `ttlMs` (0 is taken as 1 ms, as the core
   * does for a per-lease length). */
  ttlMs?: number;
}

/** A lease granted (or re-entered: the same token, a refreshed expiry). */
export interface Granted {
  ok: true;
  token: Token;
  /** First instant at which the lease is no longer held. */
  expiresAt: number;
}

/** Another holder has a live lease. */
export interface HeldRefusal {
  ok: false;
  reason: "held";
  holder: string;
  /** When that lease expires unless renewed: try again then. */
  until: number;
}

/** The lock just expired and is kept free of grants until `until`. */
export interface LockDelayRefusal {
  ok: false;
  reason: "lockDelay";
  until: number;
}

/** The holder re-entered as deep as `maxReentry` allows. */
export interface ReentryLimitRefusal {
  ok: false;
  reason: "reentryLimit";
  max: number;
}

/** Every token up to 2^64 - 1 was issued; the authority never wraps. */
export interface ExhaustedRefusal {
  ok: false;
  reason: "exhausted";
}

export type AcquireResult =
  | Granted
  | HeldRefusal
  | LockDelayRefusal
  | ReentryLimitRefusal
  | ExhaustedRefusal;

/** No live lease of this lock has this token (it expired, was taken over or released): stop
 * acting as the owner. */
export interface LostRefusal {
  ok: false;
  reason: "lost";
}

/** The live lease has this token, but another holder holds it: the caller knows the token
 * without being its holder. Nothing changed. */
export interface NotHolderRefusal {
  ok: false;
  reason: "notHolder";
}

export interface Renewed {
  ok: true;
  token: Token;
  expiresAt: number;
}

export type RenewResult = Renewed | LostRefusal | NotHolderRefusal;

export interface Released {
  ok: true;
  /** Re-entry depth still held by the caller (0: the lock is free). */
  depth: number;
}

export type ReleaseResult = Released | LostRefusal | NotHolderRefusal;

/** A lease that ran out, reported once. */
export interface Expiry {
  holder: string;
  token: Token;
  /** When it expired. */
  at: number;
  /** No new grant before this instant (equal to `at` without lock-delay). */
  freeAt: number;
}

export interface LockExpiry extends Expiry {
  lock: string;
}

export interface Lease {
  holder: string;
  token: Token;
  grantedAt: number;
  expiresAt: number;
  depth: number;
}

/** The lease authority for one lock. */
export class LeaseAuthority {
  constructor(options: AuthorityOptions);
  /**
   * An authority resuming from `snapshot()` / `snapshotString()`. It issues nothing at or below
   * the snapshot's reservation, so no token handed out before is ever issued again.
   */
  static restore(snapshot: Uint8Array | string, options: AuthorityOptions): LeaseAuthority;
  /** Acquires without waiting. Persist `snapshot()` before handing out a grant whose token passed
   * the last persisted `reservedThrough`. */
  acquire(holder: string, now: number, options?: LeaseOptions): AcquireResult;
  /** Extends the caller's lease; `token` is its grant's (0n, never granted, is a RangeError). */
  renew(holder: string, token: Token, now: number, options?: LeaseOptions): RenewResult;
  /** Gives one level of the caller's lease back; `token` as for `renew`. */
  release(holder: string, token: Token, now: number): ReleaseResult;
  /** Notices an expiry: returns it once, the first time it is asked at or after `expiresAt`. */
  expire(now: number): Expiry | null;
  /** The live lease at `now`, if any. */
  lease(now: number): Lease | null;
  /** The token the next fresh grant carries (null: exhausted). */
  readonly nextToken: Token | null;
  /** The highest token issued so far (null: none yet). */
  readonly lastIssued: Token | null;
  /** Highest token the persisted reservation must cover. */
  readonly reservedThrough: bigint;
  /** End of a pending lock-delay. */
  readonly freeAt: number;
  /** The latest time seen. */
  readonly latestNow: number;
  /** How many times were earlier than one already seen (and clamped). */
  readonly clamps: number;
  /** The whole state in the core's versioned binary form. */
  snapshot(): Uint8Array;
  /** The same, as a base64 string (safe in JSON). */
  snapshotString(): string;
  /** Frees the module memory now (otherwise it is freed when this object is collected). */
  free(): void;
  /** `free()`, for `using` (where the runtime has `Symbol.dispose`). */
  [Symbol.dispose](): void;
}

/** A lease authority for many named locks; one token sequence for all of them. */
export class LockTable {
  constructor(options: AuthorityOptions);
  static restore(snapshot: Uint8Array | string, options: AuthorityOptions): LockTable;
  acquire(lock: string, holder: string, now: number, options?: LeaseOptions): AcquireResult;
  /** Extends the caller's lease; `token` is its grant's (0n, never granted, is a RangeError). */
  renew(lock: string, holder: string, token: Token, now: number, options?: LeaseOptions): RenewResult;
  /** Gives one level of the caller's lease back; `token` as for `renew`. */
  release(lock: string, holder: string, token: Token, now: number): ReleaseResult;
  expire(lock: string, now: number): Expiry | null;
  /** Notices every expiry due by `now`, in lock order, and forgets locks that are free. */
  expireAll(now: number): LockExpiry[];
  lease(lock: string, now: number): Lease | null;
  /** Locks the table remembers (held, in lock-delay, or not yet noticed free). */
  readonly size: number;
  readonly nextToken: Token | null;
  readonly lastIssued: Token | null;
  readonly reservedThrough: bigint;
  readonly latestNow: number;
  readonly clamps: number;
  snapshot(): Uint8Array;
  snapshotString(): string;
  free(): void;
  /** `free()`, for `using` (where the runtime has `Symbol.dispose`). */
  [Symbol.dispose](): void;
}

/** A token accepted: newer than every one before, or the current owner again. */
export interface Accepted {
  ok: true;
}

/** A token older than the highest accepted: the write must be refused. */
export interface StaleRefusal {
  ok: false;
  reason: "stale";
  presented: Token;
  highest: Token;
}

/** Token 0n, which is never granted. */
export interface InvalidRefusal {
  ok: false;
  reason: "invalid";
  presented: Token;
}

/** A signed token whose MAC does not verify for this lock: forged, tampered or for another lock. */
export interface ForgedRefusal {
  ok: false;
  reason: "forged";
}

export type Admission = Accepted | StaleRefusal | InvalidRefusal;

/** Outcome codes of `admitMany`, one byte per token: bit 0 set means accepted. */
export declare const AdmitCode: {
  readonly Stale: 0;
  readonly Advanced: 1;
  readonly Invalid: 2;
  readonly Current: 3;
};
export type AdmitCode = (typeof AdmitCode)[keyof typeof AdmitCode];

export interface FenceGuardOptions {
  /** Resume from a persisted high-water mark (null or absent: nothing accepted yet). */
  highest?: Token | null;
}

/** The resource side: remembers the highest token accepted and refuses older ones. */
export class FenceGuard {
  constructor(options?: FenceGuardOptions);
  /** Compare-and-advance; run it atomically with the write it guards. 0n is refused as invalid. */
  admit(token: Token): Admission;
  /** What `admit` would answer, changing nothing. */
  check(token: Token): Admission;
  /** Admits every token in order, in one call: one AdmitCode per token, in `out` if given. */
  admitMany(tokens: BigUint64Array, out?: Uint8Array): Uint8Array;
  /** Verifies a signed `Fencing-Token` value for `lock` before its token can move the guard.
   * Throws RangeError for a value that is not a signed token at all. */
  admitSigned(signer: TokenSigner | KeyRing, lock: string, header: string): Admission | ForgedRefusal | UnknownKeyRefusal;
  /** The highest token accepted (null: none yet). */
  readonly highest: Token | null;
  free(): void;
  /** `free()`, for `using` (where the runtime has `Symbol.dispose`). */
  [Symbol.dispose](): void;
}

/** One guard per resource name. */
export class GuardMap {
  constructor();
  admit(resource: string, token: Token): Admission;
  check(resource: string, token: Token): Admission;
  highest(resource: string): Token | null;
  readonly size: number;
  /**
   * Forgets `resource`'s guard and frees its memory; whether it had one. Only for a resource that
   * no longer exists: a forgotten resource admits any token again, a stale owner's included.
   */
  delete(resource: string): boolean;
  /** Every resource with its highest token, in the order they were first seen. */
  entries(): Array<[resource: string, highest: Token | null]>;
  free(): void;
  /** `free()`, for `using` (where the runtime has `Symbol.dispose`). */
  [Symbol.dispose](): void;
}

/** An operation applied now, or a retry answered with the first outcome. */
export interface Written<T> {
  ok: true;
  /** false: a retry of an operation already applied; `apply` did not run again. */
  applied: boolean;
  outcome: T;
}

export type WriteResult<T> = Written<T> | StaleRefusal | InvalidRefusal;

/**
 * A guard plus an idempotency ledger of the last `capacity` operations, keyed by (token, opId).
 * A retry gets the first outcome back (even when its token has become stale since); anything else
 * must present a token that is not stale. If `apply` throws, that is the operation's outcome: a
 * retry throws the same error, and `apply` never runs again for it.
 */
export class FencedResource {
  constructor();
  write<T>(token: Token, opId: bigint | number, apply: () => T): WriteResult<T>;
  readonly highest: Token | null;
  /** Operations the ledger remembers now. */
  readonly size: number;
  /** Operations it can remember; the oldest is forgotten first. */
  readonly capacity: number;
  free(): void;
  /** `free()`, for `using` (where the runtime has `Symbol.dispose`). */
  [Symbol.dispose](): void;
}

/** A retry of an operation the store already applied (same idempotency key, same token). */
export interface DuplicateRefusal {
  ok: false;
  reason: "duplicate";
  presented: Token;
}

/**
 * What a store may do with a write, decided by the core from what the store read for the key: its
 * mark `highest` (null: nothing written yet) and the token it holds for the write's idempotency key
 * (null: none). `{ ok: true }`: write the data with `token` as the new mark, atomically with the read.
 * `fencepost/store` is built on it; it is here for stores it does not cover.
 */
export function decideStoredWrite(
  highest: Token | null,
  token: Token,
  recorded?: Token | null,
): Accepted | StaleRefusal | InvalidRefusal | DuplicateRefusal;

/** Signs and verifies tokens (HMAC-SHA-256 over the lock name and the token) with a shared key. */
export class TokenSigner {
  /** `key`: at least 16 bytes of secret randomness. */
  constructor(key: Uint8Array);
  /** The `Fencing-Token` value `<token>.<64 lowercase hex digits>` for `lock`. */
  sign(lock: string, token: Token): string;
  /** Checks a signed value for `lock`. Throws RangeError for a value that is not a signed token. */
  verify(lock: string, header: string): { ok: true; token: Token } | ForgedRefusal;
  free(): void;
  /** `free()`, for `using` (where the runtime has `Symbol.dispose`). */
  [Symbol.dispose](): void;
}

/** A keyed token whose key id names no key of the ring (never added, or removed since). */
export interface UnknownKeyRefusal {
  ok: false;
  reason: "unknownKey";
  keyId: number;
}

/**
 * The signing keys of a deployment, by id (0 to 4294967295): the current key signs; previous keys
 * only verify, until removed (at most 4 keys at once). Headers are `<token>.<key id>.<64 lowercase
 * hex digits>`: HMAC-SHA-256 over the key id, the lock name and the token, so a token verifies
 * only under the id and key that signed it. The v1 form of TokenSigner (no key id) is refused
 * with a RangeError.
 */
export class KeyRing {
  /** A ring whose current key is `key` (at least 16 bytes of secret randomness), id `keyId`. */
  constructor(keyId: number, key: Uint8Array);
  /** Makes `key` the current key; the current one stays for verifying. RangeError: the id is
   * taken, or the ring is full. */
  rotate(keyId: number, key: Uint8Array): void;
  /** Removes a previous key; its tokens no longer verify. RangeError: unknown id, or the current key. */
  remove(keyId: number): void;
  /** The id of the key that signs. */
  readonly currentKeyId: number;
  /** The `Fencing-Token` value for `lock`, signed with the current key. */
  sign(lock: string, token: Token): string;
  /** Checks a value for `lock` with the key its id names. Throws RangeError for a value that is
   * not a keyed token (also the v1 form). */
  verify(lock: string, header: string): { ok: true; token: Token } | ForgedRefusal | UnknownKeyRefusal;
  free(): void;
  /** `free()`, for `using` (where the runtime has `Symbol.dispose`). */
  [Symbol.dispose](): void;
}

/** How a LeaseKeeper judges a lease; every option but `ttlMs` has the core's default. */
export interface LeaseKeeperOptions {
  /** The lease length every request of the lease asks for, in milliseconds. */
  ttlMs: number;
  /** Bound on how much faster the authority's clock runs than the holder's, in ppm (default 1000). */
  driftPpm?: number;
  /** Time a side effect may take to reach the resource, taken off every safe-until (default 100 ms). */
  marginMs?: number;
  /** When to renew, in ppm of the TTL after the newest successful send (default 333333). */
  renewPpm?: number;
  /** How long to wait before sending again after a failure or an unanswered request (default 250 ms). */
  retryMs?: number;
}

/** What a LeaseKeeper says of its lease. Times are on the clock its caller passes as `now`. */
export interface KeeperState {
  readonly state: "acquiring" | "held" | "uncertain" | "lost";
  /** The fencing token, once granted. */
  readonly token: Token | null;
  /** The deadline: side effects may start only before it (null before the first grant). */
  readonly safeUntil: number | null;
  /** When to send the next renewal (null: nothing worth sending). */
  readonly nextSend: number | null;
  /** Why the lease is lost (null unless `state` is "lost"). */
  readonly why: "expired" | "refused" | "released" | null;
}

/**
 * The holder's side of one lease (the core's keeper): told when each acquire or renewal was sent
 * and what came back, it says whether the lease may still be acted on, until when (counted from
 * the send time of the newest successful answer, less drift and margin) and when to renew. It
 * reads no clock: `now` is milliseconds of one monotonic clock. `fencepost/client` is built on it.
 */
export class LeaseKeeper {
  constructor(options: LeaseKeeperOptions, now: number);
  /** Records a request sent at `now`; the ticket goes back with its answer. */
  send(now: number): number;
  /** A grant of `token` for `ttlMs` answered `ticket`. RangeError: an unknown ticket, another token. */
  granted(ticket: number, token: Token, ttlMs: number, now: number): KeeperState;
  /** `ticket` failed: "transient" (no word on the lease) or "refused" (not this holder's). */
  failed(ticket: number, failure: "transient" | "refused", now: number): KeeperState;
  /** The holder lets go: lost for good. */
  released(now: number): KeeperState;
  /** The state at `now`. */
  state(now: number): KeeperState;
  free(): void;
  /** `free()`, for `using` (where the runtime has `Symbol.dispose`). */
  [Symbol.dispose](): void;
}

/** "Fencing-Token". */
export declare const HEADER_NAME: "Fencing-Token";

/** The canonical decimal form. */
export function tokenToString(token: Token): string;
/** Parses the strict decimal form (digits only; no sign, whitespace or leading zero). */
export function tokenFromString(value: string): Token;
/** The `Fencing-Token` value of an unsigned token. */
export function tokenToHeader(token: Token): string;
/** Parses an unsigned `Fencing-Token` value (a signed one is refused: use TokenSigner#verify). */
export function tokenFromHeader(value: string): Token;
/** The 8-byte big-endian form. */
export function tokenToBytes(token: Token): Uint8Array;
/** Parses the 8-byte big-endian form. */
export function tokenFromBytes(value: Uint8Array): Token;

/** What `init` can load the module from. */
export type ModuleSource =
  | WebAssembly.Module
  | ArrayBuffer
  | ArrayBufferView
  | Response
  | PromiseLike<Response>
  | URL
  | string;

/** Loads the WebAssembly module (every entry but `fencepost/slim` has already done it). */
export function init(input: ModuleSource): Promise<void>;
/** Loads the WebAssembly module synchronously from a compiled module or its bytes. */
export function initSync(module: WebAssembly.Module | ArrayBuffer | ArrayBufferView): void;
