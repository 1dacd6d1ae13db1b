// The errors the module reports, in the core's wording.

import {
  ERR_BAD_HEX,
  ERR_BAD_KEY_ID,
  ERR_CURRENT_KEY,
  ERR_EMPTY,
  ERR_FORGED,
  ERR_KEEPER_DRIFT,
  ERR_KEEPER_RENEW,
  ERR_KEEPER_RETRY,
  ERR_KEY_ID_TAKEN,
  ERR_KEY_TOO_SHORT,
  ERR_LEADING_ZERO,
  ERR_LENGTH,
  ERR_LOCK_NAME_TOO_LONG,
  ERR_MAC_TOO_LONG,
  ERR_MAC_TRUNCATED,
  ERR_MISSING_MAC,
  ERR_NAME_TOO_LONG,
  ERR_NOT_A_DIGIT,
  ERR_NO_KEY_ID,
  ERR_NO_MEMORY,
  ERR_OTHER_TOKEN,
  ERR_OVERFLOW,
  ERR_RING_FULL,
  ERR_SIGN,
  ERR_SIGNED,
  ERR_SNAP_BAD_ID,
  ERR_SNAP_BAD_MAGIC,
  ERR_SNAP_BUFFER,
  ERR_SNAP_CHECKSUM,
  ERR_SNAP_INVALID,
  ERR_SNAP_TRAILING,
  ERR_SNAP_TRUNCATED,
  ERR_SNAP_VERSION,
  ERR_SNAP_WRONG_KIND,
  ERR_UNKNOWN_KEY,
  ERR_UNKNOWN_TICKET,
  ERR_WHITESPACE,
  ERR_ZERO,
  ERR_ZERO_FIRST_TOKEN,
  ERR_ZERO_REENTRY,
  ERR_ZERO_RESERVE_BLOCK,
  ERR_ZERO_TTL,
  MAX_NAME_BYTES,
  errorCode,
  errorDetail,
  errorField,
  otherTokenHeld,
} from "./abi.js";
import { U64_MAX } from "./common.js";
import { textAt } from "./instance.js";

export function coreMessage() {
  const code = errorCode();
  const d = errorDetail();
  switch (code) {
    case ERR_EMPTY: return "token is empty";
    case ERR_WHITESPACE: return `token contains whitespace at byte ${d}`;
    case ERR_SIGN: return "token must not have a sign";
    case ERR_NOT_A_DIGIT: return `token has a non-digit at byte ${d}`;
    case ERR_LEADING_ZERO: return "token must not have a leading zero";
    case ERR_ZERO: return "token 0 is invalid";
    case ERR_OVERFLOW: return `token is larger than ${U64_MAX}`;
    case ERR_LENGTH: return `token bytes must be exactly 8 long, got ${d}`;
    case ERR_SIGNED: return "token carries a signature; parse it as a signed token";
    case ERR_MISSING_MAC: return "token has no signature";
    case ERR_MAC_TRUNCATED: return `signature is truncated: ${d} bytes, expected 32`;
    case ERR_MAC_TOO_LONG: return `signature is too long: ${d} bytes, expected 32`;
    case ERR_BAD_HEX: return `signature has a non-hex character at byte ${d}`;
    case ERR_FORGED: return "token signature does not verify for this lock";
    case ERR_KEY_TOO_SHORT: return `signing key is ${d} bytes; at least 16 are required`;
    case ERR_LOCK_NAME_TOO_LONG: return "lock name is too long to sign";
    case ERR_NO_KEY_ID: return "signed token has no key id (the v1 form): the key ring signs `<token>.<key id>.<mac>`";
    case ERR_BAD_KEY_ID: return `signed token has a bad key id at byte ${d}`;
    case ERR_UNKNOWN_KEY: return `token is signed with key ${d}, which the ring does not have`;
    case ERR_SNAP_TRUNCATED: return `snapshot is truncated: needed ${d} bytes`;
    case ERR_SNAP_BAD_MAGIC: return "not a fencepost snapshot (bad magic bytes)";
    case ERR_SNAP_VERSION: return `snapshot format version ${d} is not supported (expected 1)`;
    case ERR_SNAP_WRONG_KIND: return `snapshot is of another kind (${d})`;
    case ERR_SNAP_CHECKSUM: return "snapshot checksum mismatch: the bytes are damaged";
    case ERR_SNAP_TRAILING: return `${d} unexpected bytes after the snapshot`;
    case ERR_SNAP_INVALID: return `snapshot field \`${textAt(errorField(), d)}\` is inconsistent`;
    case ERR_SNAP_BAD_ID: return "snapshot holds a holder id or lock name that cannot be decoded";
    case ERR_SNAP_BUFFER: return `output buffer too small: ${d} bytes needed`;
    case ERR_ZERO_TTL: return "ttlMs must be greater than 0";
    case ERR_ZERO_REENTRY: return "maxReentry must be at least 1";
    case ERR_ZERO_RESERVE_BLOCK: return "reserveBlock must be at least 1";
    case ERR_ZERO_FIRST_TOKEN: return "firstToken must be at least 1n";
    case ERR_NAME_TOO_LONG: return `a name must be at most ${MAX_NAME_BYTES} bytes of UTF-8, got ${d}`;
    case ERR_RING_FULL: return `the key ring already holds ${d} keys: remove one first`;
    case ERR_KEY_ID_TAKEN: return `the key ring already holds key ${d}`;
    case ERR_CURRENT_KEY: return `key ${d} is the ring's current key: rotate to another before removing it`;
    case ERR_KEEPER_DRIFT: return "driftPpm must be at most 1000000";
    case ERR_KEEPER_RENEW: return "renewPpm must be from 1 to 1000000";
    case ERR_KEEPER_RETRY: return "retryMs must be at least 1";
    case ERR_UNKNOWN_TICKET: return "the ticket was not handed out by this keeper, or was already answered";
    case ERR_OTHER_TOKEN: return `the answer carries another token than the lease's (${otherTokenHeld()})`;
    case ERR_NO_MEMORY: return "out of memory: the module's memory cannot grow to hold this call; nothing was changed";
    default: return `error ${code}`;
  }
}
