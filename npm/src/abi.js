// The numbers the module (crates/fencepost-wasm) and the package's JavaScript share. Generated
// from the Rust definitions by `cargo xtask abi`: change them there, never here.

import { outText, outTime, outToken, outU32, outWord, textAt } from "./instance.js";

// What a call leaves in the module's `Out` record, by byte offset (little-endian).
export const OUT_TOKEN = 0;
export const OUT_TOKEN2 = 8;
export const OUT_TOKEN3 = 16;
export const OUT_TIME = 24;
export const OUT_TIME2 = 32;
export const OUT_TIME3 = 40;
export const OUT_DEPTH = 48;
export const OUT_ERROR = 52;
export const OUT_DETAIL = 56;
export const OUT_HOLDER = 60;
export const OUT_NAME = 68;
export const OUT_OUTPUT = 76;
export const OUT_FIELD = 80;

// Each answer's fields by name (`out::answers` in crates/fencepost-wasm/src/out.rs).
export function grantedToken() {
  return outToken(OUT_TOKEN);
}
export function grantedExpiresAt() {
  return outTime(OUT_TIME);
}
export function grantedGrantedAt() {
  return outTime(OUT_TIME2);
}
export function grantedDepth() {
  return outWord(OUT_DEPTH);
}
export function heldHolder() {
  return outText(OUT_HOLDER);
}
export function heldUntil() {
  return outTime(OUT_TIME);
}
export function lockDelayUntil() {
  return outTime(OUT_TIME);
}
export function reentryLimitMax() {
  return outWord(OUT_DEPTH);
}
export function renewedToken() {
  return outToken(OUT_TOKEN);
}
export function renewedExpiresAt() {
  return outTime(OUT_TIME);
}
export function releasedDepth() {
  return outWord(OUT_DEPTH);
}
export function expiredHolder() {
  return outText(OUT_HOLDER);
}
export function expiredToken() {
  return outToken(OUT_TOKEN);
}
export function expiredAt() {
  return outTime(OUT_TIME);
}
export function expiredFreeAt() {
  return outTime(OUT_TIME2);
}
export function tableExpiryLock() {
  return outText(OUT_NAME);
}
export function tableExpiryHolder() {
  return outText(OUT_HOLDER);
}
export function tableExpiryToken() {
  return outToken(OUT_TOKEN);
}
export function tableExpiryAt() {
  return outTime(OUT_TIME);
}
export function tableExpiryFreeAt() {
  return outTime(OUT_TIME2);
}
export function leaseHolder() {
  return outText(OUT_HOLDER);
}
export function leaseToken() {
  return outToken(OUT_TOKEN);
}
export function leaseExpiresAt() {
  return outTime(OUT_TIME);
}
export function leaseGrantedAt() {
  return outTime(OUT_TIME2);
}
export function leaseDepth() {
  return outWord(OUT_DEPTH);
}
export function countersNextToken() {
  return outToken(OUT_TOKEN);
}
export function countersLastIssued() {
  return outToken(OUT_TOKEN2);
}
export function countersReservedThrough() {
  return outToken(OUT_TOKEN3);
}
export function countersFreeAt() {
  return outTime(OUT_TIME);
}
export function countersLatest() {
  return outTime(OUT_TIME2);
}
export function countersClamps() {
  return outTime(OUT_TIME3);
}
export function locksCount() {
  return outWord(OUT_DEPTH);
}
export function ledgerHighest() {
  return outToken(OUT_TOKEN);
}
export function ledgerRemembered() {
  return outWord(OUT_DEPTH);
}
export function writtenSlot() {
  return outWord(OUT_DEPTH);
}
export function staleHighest() {
  return outToken(OUT_TOKEN);
}
export function ringCurrentKeyId() {
  return outWord(OUT_DEPTH);
}
export function keeperToken() {
  return outToken(OUT_TOKEN);
}
export function keeperSafeUntil() {
  return outTime(OUT_TIME);
}
export function keeperNextSend() {
  return outTime(OUT_TIME2);
}
export function lostWhy() {
  return outWord(OUT_DEPTH);
}
export function otherTokenHeld() {
  return outToken(OUT_TOKEN);
}

/** The code of the last error. */
export function errorCode() {
  return outU32(OUT_ERROR);
}

/** The number that goes with the last error. */
export function errorDetail() {
  return outU32(OUT_DETAIL);
}

/** The address of the field name an inconsistent snapshot names (its length: `errorDetail`). */
export function errorField() {
  return outU32(OUT_FIELD);
}

/** The address of the output area. */
export function outputAt() {
  return outU32(OUT_OUTPUT);
}

/** Whether error `code` is of a config the core refuses (not of a snapshot). */
export function isConfigError(code) {
  return code >= 30 && code <= 33;
}

/** Longest holder id, lock or resource name, in bytes of UTF-8. */
export const MAX_NAME_BYTES = 1024;

/** Largest input area: the largest snapshot restore reads. */
export const MAX_SNAPSHOT_BYTES = 67108864;

/** Tokens one `guard_admit_many` call takes (admitMany splits larger batches). */
export const BATCH = 16384;

/** Operations a resource's idempotency ledger remembers. */
export const LEDGER_CAPACITY = 64;

// The kinds of object (`free`).
export const KIND_GUARD = 0;
export const KIND_AUTHORITY = 1;
export const KIND_TABLE = 2;
export const KIND_RESOURCE = 3;
export const KIND_SIGNER = 4;
export const KIND_RING = 5;
export const KIND_KEEPER = 6;

// What `lock_call` does.
export const CALL_ACQUIRE = 0;
export const CALL_RENEW = 1;
export const CALL_RELEASE = 2;
export const CALL_EXPIRE = 3;
export const CALL_LEASE = 4;
export const CALL_EXPIRE_ALL = 5;
export const CALL_EXPIRED = 6;
export const CALL_SNAPSHOT = 7;
export const CALL_REFUSED = 4294967295;

// What an acquire answers.
export const ACQUIRE_GRANTED = 0;
export const ACQUIRE_HELD = 1;
export const ACQUIRE_LOCK_DELAY = 2;
export const ACQUIRE_REENTRY_LIMIT = 3;
export const ACQUIRE_EXHAUSTED = 4;
export const ACQUIRE_BAD_NAME = 5;
export const ACQUIRE_OTHER = 6;

// What a renew or a release answers.
export const LEASE_DONE = 0;
export const LEASE_LOST = 1;
export const LEASE_NOT_HOLDER = 2;

// What a guard answers: bit 0 set means accepted.
export const ADMIT_STALE = 0;
export const ADMIT_ADVANCED = 1;
export const ADMIT_INVALID = 2;
export const ADMIT_CURRENT = 3;
export const ADMIT_FORGED = 4;
export const ADMIT_MALFORMED = 6;
export const ADMIT_NO_GUARD = 8;

// What a resource's write (or a store's decision) answers.
export const WRITE_APPLIED = 0;
export const WRITE_DUPLICATE = 1;
export const WRITE_STALE = 2;
export const WRITE_INVALID = 3;

// What `ring_call` does.
export const RING_ROTATE = 0;
export const RING_REMOVE = 1;

// The forms of a token `token_decode` reads.
export const FORM_DECIMAL = 0;
export const FORM_HEADER = 1;
export const FORM_BYTES = 2;

// What `keeper_call` does.
export const KEEPER_OP_SEND = 0;
export const KEEPER_OP_GRANTED = 1;
export const KEEPER_OP_TRANSIENT = 2;
export const KEEPER_OP_REFUSED = 3;
export const KEEPER_OP_RELEASED = 4;
export const KEEPER_OP_STATE = 5;

// What `keeper_call` answers.
export const KEEPER_STATE_ACQUIRING = 0;
export const KEEPER_STATE_HELD = 1;
export const KEEPER_STATE_UNCERTAIN = 2;
export const KEEPER_STATE_LOST = 3;
export const KEEPER_STATE_ERROR = 4;

// Why a keeper's lease was lost.
export const KEEPER_LOSS_EXPIRED = 0;
export const KEEPER_LOSS_REFUSED = 1;
export const KEEPER_LOSS_RELEASED = 2;

// Error codes, read from the record's `ERROR` field (messages in errors.js).
export const ERR_EMPTY = 1;
export const ERR_WHITESPACE = 2;
export const ERR_SIGN = 3;
export const ERR_NOT_A_DIGIT = 4;
export const ERR_LEADING_ZERO = 5;
export const ERR_ZERO = 6;
export const ERR_OVERFLOW = 7;
export const ERR_LENGTH = 8;
export const ERR_SIGNED = 9;
export const ERR_MISSING_MAC = 10;
export const ERR_MAC_TRUNCATED = 11;
export const ERR_MAC_TOO_LONG = 12;
export const ERR_BAD_HEX = 13;
export const ERR_FORGED = 14;
export const ERR_KEY_TOO_SHORT = 15;
export const ERR_LOCK_NAME_TOO_LONG = 16;
export const ERR_NO_KEY_ID = 17;
export const ERR_BAD_KEY_ID = 18;
export const ERR_UNKNOWN_KEY = 19;
export const ERR_SNAP_TRUNCATED = 20;
export const ERR_SNAP_BAD_MAGIC = 21;
export const ERR_SNAP_VERSION = 22;
export const ERR_SNAP_WRONG_KIND = 23;
export const ERR_SNAP_CHECKSUM = 24;
export const ERR_SNAP_TRAILING = 25;
export const ERR_SNAP_INVALID = 26;
export const ERR_SNAP_BAD_ID = 27;
export const ERR_SNAP_BUFFER = 28;
export const ERR_ZERO_TTL = 30;
export const ERR_ZERO_REENTRY = 31;
export const ERR_ZERO_RESERVE_BLOCK = 32;
export const ERR_ZERO_FIRST_TOKEN = 33;
export const ERR_NAME_TOO_LONG = 40;
export const ERR_RING_FULL = 50;
export const ERR_KEY_ID_TAKEN = 51;
export const ERR_CURRENT_KEY = 52;
export const ERR_KEEPER_DRIFT = 60;
export const ERR_KEEPER_RENEW = 61;
export const ERR_KEEPER_RETRY = 62;
export const ERR_UNKNOWN_TICKET = 63;
export const ERR_OTHER_TOKEN = 64;
export const ERR_NO_MEMORY = 70;
export const ERR_UNKNOWN = 99;

// A keeper's states and losses by code, as the package names them.
export const KEEPER_STATES = ["acquiring", "held", "uncertain", "lost"];
export const LOSSES = ["expired", "refused", "released"];

/** The message of error `code` (with its detail `d`), in the core's wording. */
export function errorMessage(code, d) {
  switch (code) {
    case ERR_EMPTY: return `token is empty`;
    case ERR_WHITESPACE: return `token contains whitespace at byte ${d}`;
    case ERR_SIGN: return `token must not have a sign`;
    case ERR_NOT_A_DIGIT: return `token has a non-digit at byte ${d}`;
    case ERR_LEADING_ZERO: return `token must not have a leading zero`;
    case ERR_ZERO: return `token 0 is invalid`;
    case ERR_OVERFLOW: return `token is larger than 18446744073709551615`;
    case ERR_LENGTH: return `token bytes must be exactly 8 long, got ${d}`;
    case ERR_SIGNED: return `token carries a signature; parse it as a signed token`;
    case ERR_MISSING_MAC: return `token has no signature`;
    case ERR_MAC_TRUNCATED: return `signature is truncated: ${d} bytes, expected 32`;
    case ERR_MAC_TOO_LONG: return `signature is too long: ${d} bytes, expected 32`;
    case ERR_BAD_HEX: return `signature has a non-hex character at byte ${d}`;
    case ERR_FORGED: return `token signature does not verify for this lock`;
    case ERR_KEY_TOO_SHORT: return `signing key is ${d} bytes; at least 16 are required`;
    case ERR_LOCK_NAME_TOO_LONG: return `lock name is too long to sign`;
    case ERR_NO_KEY_ID: return `signed token has no key id (the v1 form): the key ring signs \`<token>.<key id>.<mac>\``;
    case ERR_BAD_KEY_ID: return `signed token has a bad key id at byte ${d}`;
    case ERR_UNKNOWN_KEY: return `token is signed with key ${d}, which the ring does not have`;
    case ERR_SNAP_TRUNCATED: return `snapshot is truncated: needed ${d} bytes`;
    case ERR_SNAP_BAD_MAGIC: return `not a fencepost snapshot (bad magic bytes)`;
    case ERR_SNAP_VERSION: return `snapshot format version ${d} is not supported (expected 1)`;
    case ERR_SNAP_WRONG_KIND: return `snapshot is of another kind (${d})`;
    case ERR_SNAP_CHECKSUM: return `snapshot checksum mismatch: the bytes are damaged`;
    case ERR_SNAP_TRAILING: return `${d} unexpected bytes after the snapshot`;
    case ERR_SNAP_INVALID: return `snapshot field \`${textAt(errorField(), d)}\` is inconsistent`;
    case ERR_SNAP_BAD_ID: return `snapshot holds a holder id or lock name that cannot be decoded`;
    case ERR_SNAP_BUFFER: return `output buffer too small: ${d} bytes needed`;
    case ERR_ZERO_TTL: return `ttlMs must be greater than 0`;
    case ERR_ZERO_REENTRY: return `maxReentry must be at least 1`;
    case ERR_ZERO_RESERVE_BLOCK: return `reserveBlock must be at least 1`;
    case ERR_ZERO_FIRST_TOKEN: return `firstToken must be at least 1n`;
    case ERR_NAME_TOO_LONG: return `a name must be at most 1024 bytes of UTF-8, got ${d}`;
    case ERR_RING_FULL: return `the key ring already holds ${d} keys: remove one first`;
    case ERR_KEY_ID_TAKEN: return `the key ring already holds key ${d}`;
    case ERR_CURRENT_KEY: return `key ${d} is the ring's current key: rotate to another before removing it`;
    case ERR_KEEPER_DRIFT: return `driftPpm must be at most 1000000`;
    case ERR_KEEPER_RENEW: return `renewPpm must be from 1 to 1000000`;
    case ERR_KEEPER_RETRY: return `retryMs must be at least 1`;
    case ERR_UNKNOWN_TICKET: return `the ticket was not handed out by this keeper, or was already answered`;
    case ERR_OTHER_TOKEN: return `the answer carries another token than the lease's (${otherTokenHeld()})`;
    case ERR_NO_MEMORY: return `out of memory: the module's memory cannot grow to hold this call; nothing was changed`;
    default: return `error ${code}`;
  }
}
