// The public API of the npm package `fencepost`, shared by every entry point.
//
// Every lease and fence rule runs in the WebAssembly module built from crates/fencepost (through the
// thin bindings of crates/fencepost-wasm). This file only checks arguments, turns the module's
// result codes into plain objects, and throws TypeError / RangeError for misuse, before anything
// reaches the module, so no input can trap it.
//
// Objects live in tables inside the module and are known here by their index. The hot paths
// (FenceGuard#admit, #check, #admitMany, GuardMap#admit) call the module's exports directly with
// the guard's index and the token as a bigint (an i64 parameter), and return one shared frozen
// object for an accepted token, so an accepted write allocates nothing.

import * as raw from "./fencepost_bg.js";
import {
  OUT_TOKEN,
  OUT_TOKEN2,
  OUT_TOKEN3,
  OUT_TIME,
  OUT_TIME2,
  OUT_TIME3,
  OUT_DEPTH,
  OUT_ERROR,
  OUT_DETAIL,
  OUT_HOLDER,
  OUT_NAME,
  OUT_OUTPUT,
  OUT_FIELD,
  MAX_NAME_BYTES,
  MAX_SNAPSHOT_BYTES,
  BATCH,
  LEDGER_CAPACITY,
  KIND_GUARD,
  KIND_AUTHORITY,
  KIND_TABLE,
  KIND_RESOURCE,
  KIND_SIGNER,
  KIND_RING,
  KIND_KEEPER,
  CALL_ACQUIRE,
  CALL_RENEW,
  CALL_RELEASE,
  CALL_EXPIRE,
  CALL_LEASE,
  CALL_EXPIRE_ALL,
  CALL_EXPIRED,
  CALL_SNAPSHOT,
  CALL_REFUSED,
  ACQUIRE_GRANTED,
  ACQUIRE_HELD,
  ACQUIRE_LOCK_DELAY,
  ACQUIRE_REENTRY_LIMIT,
  ACQUIRE_EXHAUSTED,
  ACQUIRE_BAD_NAME,
  ADMIT_STALE,
  ADMIT_ADVANCED,
  ADMIT_INVALID,
  ADMIT_CURRENT,
  ADMIT_FORGED,
  ADMIT_MALFORMED,
  ADMIT_NO_GUARD,
  WRITE_APPLIED,
  WRITE_DUPLICATE,
  WRITE_STALE,
  RING_ROTATE,
  RING_REMOVE,
  FORM_DECIMAL,
  FORM_HEADER,
  FORM_BYTES,
  KEEPER_OP_SEND,
  KEEPER_OP_GRANTED,
  KEEPER_OP_TRANSIENT,
  KEEPER_OP_REFUSED,
  KEEPER_OP_RELEASED,
  KEEPER_OP_STATE,
  KEEPER_STATE_ERROR,
  ERR_EMPTY,
  ERR_WHITESPACE,
  ERR_SIGN,
  ERR_NOT_A_DIGIT,
  ERR_LEADING_ZERO,
  ERR_ZERO,
  ERR_OVERFLOW,
  ERR_LENGTH,
  ERR_SIGNED,
  ERR_MISSING_MAC,
  ERR_MAC_TRUNCATED,
  ERR_MAC_TOO_LONG,
  ERR_BAD_HEX,
  ERR_FORGED,
  ERR_KEY_TOO_SHORT,
  ERR_LOCK_NAME_TOO_LONG,
  ERR_NO_KEY_ID,
  ERR_BAD_KEY_ID,
  ERR_UNKNOWN_KEY,
  ERR_SNAP_TRUNCATED,
  ERR_SNAP_BAD_MAGIC,
  ERR_SNAP_VERSION,
  ERR_SNAP_WRONG_KIND,
  ERR_SNAP_CHECKSUM,
  ERR_SNAP_TRAILING,
  ERR_SNAP_INVALID,
  ERR_SNAP_BAD_ID,
  ERR_SNAP_BUFFER,
  ERR_ZERO_TTL,
  ERR_ZERO_REENTRY,
  ERR_ZERO_RESERVE_BLOCK,
  ERR_ZERO_FIRST_TOKEN,
  ERR_NAME_TOO_LONG,
  ERR_RING_FULL,
  ERR_KEY_ID_TAKEN,
  ERR_CURRENT_KEY,
  ERR_KEEPER_DRIFT,
  ERR_KEEPER_RENEW,
  ERR_KEEPER_RETRY,
  ERR_UNKNOWN_TICKET,
  ERR_OTHER_TOKEN,
  ERR_NO_MEMORY,
  KEEPER_STATES,
  LOSSES,
} from "./abi.js";
import { NONE, U64_MAX, checkOptions, describe, freed, ms, text, wasmLoader } from "./common.js";

/** Longest text any codec reads. */
const MAX_TEXT = 4096;

/** The module's exports, once instantiated. */
let W = null;

// -------------------------------------------------------------------------------------------
// Text and bytes cross through the module's memory: a call's names, header values, keys and
// snapshots are written into its input area (as UTF-8, back to back) and their lengths passed;
// bytes it answers with are read from its output area.

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Views of the module's memory, made again once the memory grew (the old ones are detached): its
 * bytes, and its words through a DataView, read little-endian as the module writes them (a
 * Uint32Array, BigUint64Array or Float64Array would read them in the host's byte order, swapped
 * on a big-endian host such as s390x).
 */
let mem = null;
let words = null;

function memory() {
  if (mem === null || mem.byteLength === 0) {
    const b = W.memory.buffer;
    mem = new Uint8Array(b);
    words = new DataView(b);
  }
  return mem;
}

/** Whether the host lays out typed arrays big-endian (the module's memory is little-endian). */
const BIG_ENDIAN = new Uint16Array(Uint8Array.of(0, 1).buffer)[0] === 1;

/** Writes `s` as UTF-8 at `at` (with `room` bytes there); returns its length. */
function write(s, at, room) {
  const m = memory();
  const n = s.length;
  let i = 0;
  // Names are mostly ASCII: copy those directly, and let the encoder take the rest.
  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c > 0x7f) break;
    m[at + i] = c;
  }
  if (i === n) return n;
  return i + encoder.encodeInto(s.slice(i), m.subarray(at + i, at + room)).written;
}

/** The length in bytes of the second string of the last `put`. */
let second = 0;

/** The address of an input area of `n` bytes (the module has none larger than a snapshot). */
function area(n) {
  const at = W.input(n) >>> 0;
  if (at === 0) throw new RangeError(`fencepost: ${n} bytes do not fit the module's input area (its memory cannot grow that far)`);
  return at;
}

/**
 * Writes `a`, then `b`, into the input area; returns the length of `a` (that of `b` is `second`).
 * Call it last, right before the call that reads the area: every other argument is checked first,
 * since checking an options object runs its getters, which may call this package and overwrite
 * the area.
 */
function put(a, b = "") {
  const room = 3 * (a.length + b.length);
  const at = area(room);
  const n = write(a, at, room);
  second = b === "" ? 0 : write(b, at + n, room - n);
  return n;
}

/** Writes `bytes` (a plain view, as `bytes()` returns) into the input area; returns their length. */
function putBytes(bytes) {
  const at = area(bytes.length);
  memory().set(bytes, at);
  return bytes.length;
}

function textAt(at, n) {
  at >>>= 0;
  return decoder.decode(memory().subarray(at, at + (n >>> 0)));
}

// What a call has to say beyond its return value it leaves in one record of the module's memory
// (`Out` in crates/fencepost-wasm/src/abi.rs, 8-byte aligned), read right after the call: its
// fields' byte offsets are the OUT_* numbers of abi.js.

/** The address of the record: it never moves (it is part of the module's static data). */
let recordAt = 0;

/**
 * The address of the record, with the views of the memory it is in up to date (so call it before
 * naming a view).
 */
function record() {
  memory();
  return recordAt;
}

/** The same, once the record's error and addresses are brought up to date. */
function refreshed() {
  W.out();
  return record();
}

/** A token (a bigint) of the last result. */
function outToken(at) {
  // The address first: it brings `words` up to date.
  const a = record() + at;
  return words.getBigUint64(a, true);
}

/** A time (or count) of the last result. */
function outTime(at) {
  const a = record() + at;
  return words.getFloat64(a, true);
}

/** A depth, limit or count of the last result. */
function outDepth() {
  const a = record() + OUT_DEPTH;
  return words.getUint32(a, true);
}

/** A 32-bit field of the record that `out` brings up to date: the error, its detail, an address. */
function outU32(at) {
  const a = refreshed() + at;
  return words.getUint32(a, true);
}

/** The text at `at` (an address and a length) of the last result: its holder or lock name. */
function outText(at) {
  const a = refreshed() + at;
  return textAt(words.getUint32(a, true), words.getUint32(a + 4, true));
}

/** The holder of the last result. */
function outHolder() {
  return outText(OUT_HOLDER);
}

/** The lock name of the last result. */
function outName() {
  return outText(OUT_NAME);
}

/** A copy of the first `n` bytes of the output area. */
function outBytes(n) {
  const at = outU32(OUT_OUTPUT);
  return memory().slice(at, at + (n >>> 0));
}

// -------------------------------------------------------------------------------------------
// Loading the module.

const loader = wasmLoader(raw, "fencepost_bg.js", "fencepost", "fencepost/slim", "guard_admit_many", (exports) => {
  W = exports;
  recordAt = exports.out() >>> 0;
});

/**
 * Instantiates the module synchronously from a compiled `WebAssembly.Module` or its bytes.
 * Does nothing when the module is already loaded.
 */
export function initSync(module) {
  loader.initSync(module);
}

/**
 * Loads the module from a `WebAssembly.Module`, bytes, a `Response` (or a promise of one), or a URL
 * to fetch. Does nothing when the module is already loaded.
 */
export async function init(input) {
  await loader.init(input);
}

const ready = loader.ready;

// -------------------------------------------------------------------------------------------
// Checking arguments.

function badBigint(name, v) {
  if (typeof v !== "bigint") return new TypeError(`${name} must be a bigint, got ${describe(v)}`);
  return new RangeError(`${name} must be between 0n and ${U64_MAX}n, got ${describe(v)}`);
}

/**
 * A bigint in 0..2^64-1 (0 is "no token": refused as invalid, never granted). The hot paths inline
 * the same test: `BigInt.asUintN(64, v) === v` is one cheap operation where two comparisons are not.
 */
function u64(name, v) {
  if (typeof v !== "bigint" || BigInt.asUintN(64, v) !== v) throw badBigint(name, v);
  return v;
}

/** A bigint in 1..2^64-1. */
function token(name, v) {
  if (typeof v !== "bigint" || v < 1n || v > U64_MAX) {
    if (v === 0n) throw new RangeError(`${name} must be at least 1n: token 0 is never granted`);
    throw badBigint(name, v);
  }
  return v;
}

function utf8Length(s) {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** A holder id, lock or resource name: a well-formed string of at most 1024 bytes of UTF-8. */
function name(argName, v) {
  if (typeof v !== "string") throw new TypeError(`${argName} must be a string, got ${describe(v)}`);
  if (v.length > MAX_NAME_BYTES / 3 && (v.length > MAX_NAME_BYTES || utf8Length(v) > MAX_NAME_BYTES)) {
    throw new RangeError(
      `${argName} must be at most ${MAX_NAME_BYTES} bytes of UTF-8, got ${v.length > MAX_NAME_BYTES ? `${v.length} characters` : `${utf8Length(v)} bytes`}`,
    );
  }
  if (typeof v.isWellFormed === "function" ? !v.isWellFormed() : LONE_SURROGATE.test(v)) {
    throw new RangeError(`${argName} must be well-formed Unicode, got a lone surrogate`);
  }
  return v;
}

// Typed arrays are measured with the built-in getters, never with what the object says of itself:
// a subclass or a Proxy could report a `length` shorter than what `set` copies (past the module's
// input area) or run code in the middle of the copy.
const typedArray = Object.getPrototypeOf(Uint8Array.prototype);
const builtin = (key) => Object.getOwnPropertyDescriptor(typedArray, key).get;
const kindOf = builtin(Symbol.toStringTag);
const lengthOf = builtin("length");
const bufferOf = builtin("buffer");
const offsetOf = builtin("byteOffset");

/**
 * A plain view of the same memory as `v` when it is a real typed array of `kind` (its own class,
 * any subclass, from any realm), else null. Its `length` and `set` are the built-in ones.
 */
function view(v, kind, Kind) {
  if (kindOf.call(v) !== kind) return null;
  const n = lengthOf.call(v);
  // Empty (or over a detached buffer, which cannot be viewed again): nothing to read.
  return n === 0 ? new Kind(0) : new Kind(bufferOf.call(v), offsetOf.call(v), n);
}

/** The error for `v` where a `kind` typed array (class `Kind`) belongs. */
function notA(argName, kind, Kind, v) {
  // A Proxy of one passes `instanceof`: say why it is still refused.
  let posing = false;
  try {
    posing = v instanceof Kind;
  } catch {
    // A Proxy whose getPrototypeOf throws is no typed array either.
  }
  const why = posing ? " (not a Proxy or an object posing as one)" : "";
  return new TypeError(`${argName} must be a ${kind}${why}, got ${describe(v)}`);
}

/** Bytes for the module: a plain view of a Uint8Array of at most `max` bytes. */
function bytes(argName, v, max) {
  const b = view(v, "Uint8Array", Uint8Array);
  if (b === null) throw notA(argName, "Uint8Array", Uint8Array, v);
  if (b.length > max) throw new RangeError(`${argName} must be at most ${max} bytes, got ${b.length}`);
  return b;
}

// -------------------------------------------------------------------------------------------
// Errors reported by the module, with the core's wording.

function coreMessage() {
  const code = outU32(OUT_ERROR);
  const d = outU32(OUT_DETAIL);
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
    case ERR_SNAP_INVALID: return `snapshot field \`${textAt(outU32(OUT_FIELD), d)}\` is inconsistent`;
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
    case ERR_OTHER_TOKEN: return `the answer carries another token than the lease's (${outToken(OUT_TOKEN)})`;
    case ERR_NO_MEMORY: return "out of memory: the module's memory cannot grow to hold this call; nothing was changed";
    default: return `error ${code}`;
  }
}

// -------------------------------------------------------------------------------------------
// Results. Accepted admissions share one frozen object: the hot path allocates nothing.

const ACCEPTED = Object.freeze({ ok: true });
const LOST = Object.freeze({ ok: false, reason: "lost" });
const EXHAUSTED = Object.freeze({ ok: false, reason: "exhausted" });
const FORGED = Object.freeze({ ok: false, reason: "forged" });

/** Outcome codes of `admitMany`: bit 0 set means accepted. */
export const AdmitCode = Object.freeze({ Stale: ADMIT_STALE, Advanced: ADMIT_ADVANCED, Invalid: ADMIT_INVALID, Current: ADMIT_CURRENT });

/** The module's "no object" index. */
function orNull(t) {
  return t === 0n ? null : t;
}

// -------------------------------------------------------------------------------------------
// Objects. Each lives in a table inside the module and is known here by its index; it is given
// back when its owner calls free() or is garbage-collected.

/** A function that gives object `i` of `kind` back to the module. */
function dropper(kind) {
  return (i) => W.free(kind, i);
}

function cleanup(drop) {
  return typeof FinalizationRegistry === "function" ? new FinalizationRegistry((i) => drop(i)) : null;
}

const dropGuard = dropper(KIND_GUARD);
const dropResource = dropper(KIND_RESOURCE);
const dropSigner = dropper(KIND_SIGNER);
const dropRing = dropper(KIND_RING);
const guards = cleanup(dropGuard);
const resources = cleanup(dropResource);
const signers = cleanup(dropSigner);
const rings = cleanup(dropRing);

/** Why the module made no object: `what` was refused, or its memory cannot grow (said as such). */
function refusal(what) {
  const message = coreMessage();
  return new RangeError(outU32(OUT_ERROR) === ERR_NO_MEMORY ? message : `${what}: ${message}`);
}

/** Registers a new object's index, or throws when the module made none. */
function adopt(registry, owner, i, what) {
  i >>>= 0;
  if (i === NONE) throw refusal(what);
  registry?.register(owner, i, owner);
  return i;
}

function release(registry, owner, drop, i) {
  if (i >= 0) {
    drop(i);
    registry?.unregister(owner);
  }
  return -1;
}

// -------------------------------------------------------------------------------------------
// Authorities.

const CONFIG_KEYS = ["ttlMs", "firstToken", "lockDelayMs", "maxReentry", "reserveBlock"];
const TTL_KEYS = ["ttlMs"];

function config(v) {
  if (v === undefined) throw new TypeError("options must be an object with ttlMs, got undefined");
  // Each option is read once: a getter answers once.
  const { ttlMs, firstToken, lockDelayMs, maxReentry, reserveBlock } = checkOptions("options", v, CONFIG_KEYS);
  if (ttlMs === undefined) throw new TypeError("options.ttlMs is required (the lease length in milliseconds)");
  const ttl = ms("options.ttlMs", ttlMs);
  const first = firstToken === undefined ? 1n : token("options.firstToken", firstToken);
  const delay = lockDelayMs === undefined ? 0 : ms("options.lockDelayMs", lockDelayMs);
  let reentry = 0xffff_ffff;
  if (maxReentry !== undefined) {
    reentry = maxReentry;
    if (typeof reentry !== "number") throw new TypeError(`options.maxReentry must be a number, got ${describe(reentry)}`);
    if (!Number.isInteger(reentry) || reentry < 0 || reentry > 0xffff_ffff) {
      throw new RangeError(`options.maxReentry must be a whole number from 1 to 4294967295, got ${describe(reentry)}`);
    }
  }
  let block = 1;
  if (reserveBlock !== undefined) {
    block = reserveBlock;
    if (typeof block !== "number") throw new TypeError(`options.reserveBlock must be a number, got ${describe(block)}`);
    if (!Number.isSafeInteger(block) || block < 1) {
      throw new RangeError(`options.reserveBlock must be a whole number of tokens from 1 to 2^53 - 1, got ${describe(block)}`);
    }
  }
  // In the order the module's object_new takes them.
  return [first, ttl, delay, reentry, block];
}

function ttlOf(v) {
  if (v === undefined) return -1;
  const ttl = checkOptions("options", v, TTL_KEYS).ttlMs;
  // 0 is the core's to judge (it treats a per-lease length of 0 as 1 ms).
  return ttl === undefined ? -1 : ms("options.ttlMs", ttl);
}

function snapshotBytes(v) {
  if (typeof v === "string") return fromBase64(v);
  return bytes("snapshot", v, MAX_SNAPSHOT_BYTES);
}

// Base64 digits, then at most two `=`; the length is checked apart (a regex that counts groups of
// four recurses per group and overflows the stack on a string of a few million characters).
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function fromBase64(s) {
  if (s.length > ((MAX_SNAPSHOT_BYTES + 2) / 3) * 4) {
    throw new RangeError(`snapshot must be at most ${MAX_SNAPSHOT_BYTES} bytes, got a string of ${s.length} characters`);
  }
  if (s.length % 4 !== 0 || !BASE64.test(s)) throw new RangeError("snapshot must be a base64 string (as snapshotString() returns)");
  const bin = atob(s);
  if (bin.length > MAX_SNAPSHOT_BYTES) {
    throw new RangeError(`snapshot must be at most ${MAX_SNAPSHOT_BYTES} bytes, got ${bin.length}`);
  }
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

function toBase64(b) {
  let bin = "";
  for (let i = 0; i < b.length; i += 0x8000) {
    bin += String.fromCharCode.apply(null, b.subarray(i, i + 0x8000));
  }
  return btoa(bin);
}

/** Why a restore made nothing: the options (the config's error codes) or the snapshot. */
function restored(i) {
  if (i >>> 0 !== NONE) return i;
  const code = outU32(OUT_ERROR);
  throw refusal(code >= ERR_ZERO_TTL && code <= ERR_ZERO_FIRST_TOKEN ? "options" : "snapshot");
}

/** The snapshot a call left in the output area (`n` bytes; none: why). */
function snapshotOf(n) {
  if (n === 0) throw new RangeError(`snapshot: ${coreMessage()}`);
  return outBytes(n);
}

/**
 * A time the module reports. Past 2^53 - 1 (a lease or delay that outlasts any time a caller can
 * pass) it is Infinity rather than a rounded number that would be refused when passed back.
 */
function time(t) {
  return t <= Number.MAX_SAFE_INTEGER ? t : Infinity;
}

function acquired(code) {
  switch (code) {
    case ACQUIRE_GRANTED:
      return { ok: true, token: outToken(OUT_TOKEN), expiresAt: time(outTime(OUT_TIME)) };
    case ACQUIRE_HELD:
      return { ok: false, reason: "held", holder: outHolder(), until: time(outTime(OUT_TIME)) };
    case ACQUIRE_LOCK_DELAY:
      return { ok: false, reason: "lockDelay", until: time(outTime(OUT_TIME)) };
    case ACQUIRE_REENTRY_LIMIT:
      return { ok: false, reason: "reentryLimit", max: outDepth() };
    case ACQUIRE_EXHAUSTED:
      return EXHAUSTED;
    case ACQUIRE_BAD_NAME:
      throw new RangeError(coreMessage());
    default:
      throw new Error(`fencepost: unknown acquire result ${code}`);
  }
}

function renewed(code) {
  return code === 0 ? { ok: true, token: outToken(OUT_TOKEN), expiresAt: time(outTime(OUT_TIME)) } : LOST;
}

function released(code) {
  return code === 0 ? { ok: true, depth: outDepth() } : LOST;
}

function expired(code) {
  if (code === 0) return null;
  return { holder: outHolder(), token: outToken(OUT_TOKEN), at: time(outTime(OUT_TIME)), freeAt: time(outTime(OUT_TIME2)) };
}

function leaseOf(code) {
  if (code === 0) return null;
  return {
    holder: outHolder(),
    token: outToken(OUT_TOKEN),
    grantedAt: time(outTime(OUT_TIME2)),
    expiresAt: time(outTime(OUT_TIME)),
    depth: outDepth(),
  };
}

/**
 * The module's `lock_call`, with its one refusal for every operation thrown: the module's memory
 * cannot hold what the call allocates (it changed nothing).
 */
function lockCall(op, i, lock, holder, tok, now, ttl) {
  const answer = raw.lock_call(op, i, lock, holder, tok, now, ttl);
  if (answer === CALL_REFUSED) throw new RangeError(coreMessage());
  return answer;
}

/** A kind of lock object in the module, with what gives one back (its class's name for errors). */
function lockKind(kind, className) {
  const drop = dropper(kind);
  return { kind, className, drop, registry: cleanup(drop) };
}

const AUTHORITIES = lockKind(KIND_AUTHORITY, "LeaseAuthority");
const TABLES = lockKind(KIND_TABLE, "LockTable");

/** The module index behind a live LeaseAuthority or LockTable (set by Locks). */
let lockIndex;
/** Restores a snapshot into the module: the next Locks made (of that kind) takes the object. */
let restoring;

/**
 * What LeaseAuthority and LockTable share: their object in the module, made from options or
 * restored from a snapshot, their counters, their snapshot and their end. Their lock calls differ
 * only in whether a lock name goes with the holder, so each class writes its own.
 */
class Locks {
  #i = -1;
  #of;

  /** The index `restoring` hands to the next constructor (-1: make one from the options). */
  static #restored = -1;

  static {
    lockIndex = (o) => o.#live();
    restoring = (of, snapshot, options) => {
      ready();
      const cfg = config(options);
      const b = snapshotBytes(snapshot);
      Locks.#restored = restored(raw.object_new(of.kind, true, putBytes(b), ...cfg));
    };
  }

  constructor(of, options) {
    ready();
    this.#of = of;
    const i = Locks.#restored;
    if (i >= 0) {
      Locks.#restored = -1;
      this.#i = adopt(of.registry, this, i, "snapshot");
      return;
    }
    this.#i = adopt(of.registry, this, raw.object_new(of.kind, false, 0, ...config(options)), "options");
  }

  #live() {
    if (this.#i < 0) throw freed(this.#of.className);
    return this.#i;
  }

  /** The object's counters into the module's record. */
  #state() {
    raw.state(this.#live());
  }

  get nextToken() {
    this.#state();
    return orNull(outToken(OUT_TOKEN));
  }

  get lastIssued() {
    this.#state();
    return orNull(outToken(OUT_TOKEN2));
  }

  get reservedThrough() {
    this.#state();
    return outToken(OUT_TOKEN3);
  }

  get latestNow() {
    this.#state();
    return time(outTime(OUT_TIME2));
  }

  get clamps() {
    this.#state();
    return outTime(OUT_TIME3);
  }

  snapshot() {
    return snapshotOf(lockCall(CALL_SNAPSHOT, this.#live(), 0, 0, 0n, 0, -1));
  }

  snapshotString() {
    return toBase64(this.snapshot());
  }

  free() {
    this.#i = release(this.#of.registry, this, this.#of.drop, this.#i);
  }
}

/** The lease authority for one lock: grants leases with strictly increasing fencing tokens. */
export class LeaseAuthority extends Locks {
  constructor(options) {
    super(AUTHORITIES, options);
  }

  /** An authority resuming from `snapshot()` or `snapshotString()`: it never re-issues a token. */
  static restore(snapshot, options) {
    restoring(AUTHORITIES, snapshot, options);
    return new LeaseAuthority();
  }

  acquire(holder, now, options) {
    const h = name("holder", holder);
    const t = ms("now", now);
    const ttl = ttlOf(options);
    // After the options: their getters may free this object.
    const i = lockIndex(this);
    return acquired(lockCall(CALL_ACQUIRE, i, 0, put(h), 0n, t, ttl));
  }

  renew(holder, tok, now, options) {
    const h = name("holder", holder);
    const tk = token("token", tok);
    const t = ms("now", now);
    const ttl = ttlOf(options);
    const i = lockIndex(this);
    return renewed(lockCall(CALL_RENEW, i, 0, put(h), tk, t, ttl));
  }

  release(holder, tok, now) {
    const i = lockIndex(this);
    return released(lockCall(CALL_RELEASE, i, 0, put(name("holder", holder)), token("token", tok), ms("now", now), -1));
  }

  expire(now) {
    return expired(lockCall(CALL_EXPIRE, lockIndex(this), 0, 0, 0n, ms("now", now), -1));
  }

  lease(now) {
    return leaseOf(lockCall(CALL_LEASE, lockIndex(this), 0, 0, 0n, ms("now", now), -1));
  }

  get freeAt() {
    raw.state(lockIndex(this));
    return time(outTime(OUT_TIME));
  }
}

/** A lease authority for many named locks; all of them share one token sequence. */
export class LockTable extends Locks {
  constructor(options) {
    super(TABLES, options);
  }

  static restore(snapshot, options) {
    restoring(TABLES, snapshot, options);
    return new LockTable();
  }

  acquire(lock, holder, now, options) {
    const l = name("lock", lock);
    const h = name("holder", holder);
    const t = ms("now", now);
    const ttl = ttlOf(options);
    // After the options: their getters may free this object.
    const i = lockIndex(this);
    return acquired(lockCall(CALL_ACQUIRE, i, put(l, h), second, 0n, t, ttl));
  }

  renew(lock, holder, tok, now, options) {
    const l = name("lock", lock);
    const h = name("holder", holder);
    const tk = token("token", tok);
    const t = ms("now", now);
    const ttl = ttlOf(options);
    const i = lockIndex(this);
    return renewed(lockCall(CALL_RENEW, i, put(l, h), second, tk, t, ttl));
  }

  release(lock, holder, tok, now) {
    const i = lockIndex(this);
    return released(lockCall(CALL_RELEASE, i, put(name("lock", lock), name("holder", holder)), second, token("token", tok), ms("now", now), -1));
  }

  expire(lock, now) {
    const i = lockIndex(this);
    return expired(lockCall(CALL_EXPIRE, i, put(name("lock", lock)), 0, 0n, ms("now", now), -1));
  }

  expireAll(now) {
    const i = lockIndex(this);
    const n = lockCall(CALL_EXPIRE_ALL, i, 0, 0, 0n, ms("now", now), -1);
    const out = [];
    for (let k = 0; k < n; k++) {
      lockCall(CALL_EXPIRED, i, k, 0, 0n, 0, -1);
      out.push({
        lock: outName(),
        holder: outHolder(),
        token: outToken(OUT_TOKEN),
        at: time(outTime(OUT_TIME)),
        freeAt: time(outTime(OUT_TIME2)),
      });
    }
    return out;
  }

  lease(lock, now) {
    const i = lockIndex(this);
    return leaseOf(lockCall(CALL_LEASE, i, put(name("lock", lock)), 0, 0n, ms("now", now), -1));
  }

  /** Locks the table remembers. */
  get size() {
    raw.state(lockIndex(this));
    return outDepth();
  }
}

// -------------------------------------------------------------------------------------------
// The resource side.

const GUARD_KEYS = ["highest"];

/** A refusal (code not accepted) by guard `i`, or the error a freed guard gets. */
function refused(code, presented, i, what) {
  if (code === ADMIT_STALE) return { ok: false, reason: "stale", presented, highest: BigInt.asUintN(64, W.guard_highest(i)) };
  if (code === ADMIT_NO_GUARD) throw freed(what);
  return { ok: false, reason: "invalid", presented };
}

/** The high-water mark of one resource: refuses tokens older than the newest one accepted. */
export class FenceGuard {
  #i = -1;

  constructor(options) {
    ready();
    // Read once: a getter answers once.
    const { highest } = checkOptions("options", options, GUARD_KEYS);
    const h = highest === undefined || highest === null ? 0n : token("options.highest", highest);
    this.#i = adopt(guards, this, W.object_new(KIND_GUARD, false, 0, h, 0, 0, 0, 0), "FenceGuard");
  }

  admit(token) {
    if (typeof token !== "bigint" || BigInt.asUintN(64, token) !== token) throw badBigint("token", token);
    const code = W.guard_admit(this.#i, token);
    if ((code & 1) === 1) return ACCEPTED;
    return refused(code, token, this.#i, "FenceGuard");
  }

  check(token) {
    if (typeof token !== "bigint" || BigInt.asUintN(64, token) !== token) throw badBigint("token", token);
    const code = W.guard_check(this.#i, token);
    if ((code & 1) === 1) return ACCEPTED;
    return refused(code, token, this.#i, "FenceGuard");
  }

  /**
   * Admits every token in order, in one call; returns one AdmitCode per token (in `out` if given).
   */
  admitMany(tokens, out) {
    const all = view(tokens, "BigUint64Array", BigUint64Array);
    if (all === null) throw notA("tokens", "BigUint64Array", BigUint64Array, tokens);
    const n = all.length;
    let codes;
    if (out === undefined) out = codes = new Uint8Array(n);
    else if ((codes = view(out, "Uint8Array", Uint8Array)) === null) throw notA("out", "Uint8Array", Uint8Array, out);
    else if (codes.length < n) throw new RangeError(`out must hold at least ${n} codes, got ${codes.length}`);
    if (this.#i < 0) throw freed("FenceGuard");
    for (let at = 0; at < n; at += BATCH) {
      const m = Math.min(BATCH, n - at);
      // The tokens into the input area, little-endian: their bytes as they are, unless the host
      // lays them out big-endian.
      const inAt = area(8 * m);
      if (BIG_ENDIAN) {
        memory();
        for (let k = 0; k < m; k++) words.setBigUint64(inAt + 8 * k, all[at + k], true);
      } else {
        new Uint8Array(W.memory.buffer, inAt, 8 * m).set(new Uint8Array(all.buffer, all.byteOffset + 8 * at, 8 * m));
      }
      const outAt = W.guard_admit_many(this.#i, m) >>> 0;
      // Refused only for memory, and then before any token of this batch (the first: later
      // ones fit the same room).
      if (outAt === 0) throw new RangeError(coreMessage());
      codes.set(new Uint8Array(W.memory.buffer, outAt, m), at);
    }
    return out;
  }

  /** Verifies a signed `Fencing-Token` value for `lock` (with a TokenSigner or a KeyRing), then admits its token. */
  admitSigned(signer, lock, header) {
    const si = signerOf(signer) ?? ringOf(signer);
    if (si === null) throw new TypeError(`signer must be a TokenSigner or a KeyRing, got ${describe(signer)}`);
    name("lock", lock);
    text("header", header, MAX_TEXT);
    if (this.#i < 0) throw freed("FenceGuard");
    const code = raw.guard_admit_signed(this.#i, si, put(lock, header), second);
    if ((code & 1) === 1) return ACCEPTED;
    if (code === ADMIT_FORGED) return forgery();
    if (code === ADMIT_MALFORMED) throw new RangeError(`header is not a signed token: ${coreMessage()}`);
    return refused(code, BigInt(header.slice(0, header.indexOf("."))), this.#i, "FenceGuard");
  }

  get highest() {
    if (this.#i < 0) throw freed("FenceGuard");
    return orNull(BigInt.asUintN(64, W.guard_highest(this.#i)));
  }

  free() {
    this.#i = release(guards, this, dropGuard, this.#i);
  }
}

/** Gives every guard of a collected GuardMap back. */
const guardMaps =
  typeof FinalizationRegistry === "function"
    ? new FinalizationRegistry((index) => {
        for (const i of index.values()) dropGuard(i);
      })
    : null;

/** A guard that has seen nothing, made once and never advanced: what the core says of a token for
 * a resource a GuardMap has no guard for yet (checked there, never admitted). */
let freshGuard = -1;

function fresh() {
  if (freshGuard === -1) freshGuard = adopt(null, null, W.object_new(KIND_GUARD, false, 0, 0n, 0, 0, 0, 0), "GuardMap");
  return freshGuard;
}

/** One guard per resource name. */
export class GuardMap {
  #index = new Map();
  #freed = false;

  constructor() {
    ready();
    guardMaps?.register(this, this.#index, this);
  }

  #slot(resource, create) {
    let i = this.#index.get(resource);
    if (i === undefined) {
      name("resource", resource);
      if (this.#freed) throw freed("GuardMap");
      if (!create) return -1;
      i = adopt(null, this, W.object_new(KIND_GUARD, false, 0, 0n, 0, 0, 0, 0), "GuardMap");
      this.#index.set(resource, i);
    }
    return i;
  }

  admit(resource, token) {
    if (typeof token !== "bigint" || BigInt.asUintN(64, token) !== token) throw badBigint("token", token);
    // A token a guard that has seen nothing refuses (0) makes no guard for a new resource.
    if (this.#slot(resource, false) === -1) {
      const code = W.guard_check(fresh(), token);
      if ((code & 1) !== 1) return refused(code, token, fresh(), "GuardMap");
    }
    const i = this.#slot(resource, true);
    const code = W.guard_admit(i, token);
    if ((code & 1) === 1) return ACCEPTED;
    return refused(code, token, i, "GuardMap");
  }

  check(resource, token) {
    u64("token", token);
    const slot = this.#slot(resource, false);
    const i = slot === -1 ? fresh() : slot;
    const code = W.guard_check(i, token);
    if ((code & 1) === 1) return ACCEPTED;
    return refused(code, token, i, "GuardMap");
  }

  highest(resource) {
    const i = this.#slot(resource, false);
    return i === -1 ? null : orNull(BigInt.asUintN(64, W.guard_highest(i)));
  }

  get size() {
    return this.#index.size;
  }

  /**
   * Forgets `resource`'s guard and frees its memory; whether it had one. Only for a resource that
   * no longer exists: a forgotten resource admits any token again, a stale owner's included.
   */
  delete(resource) {
    const i = this.#slot(resource, false);
    if (i === -1) return false;
    this.#index.delete(resource);
    dropGuard(i);
    return true;
  }

  /** Every resource with its highest token, in the order they were first seen. */
  entries() {
    if (this.#freed) throw freed("GuardMap");
    const out = [];
    for (const [k, i] of this.#index) out.push([k, orNull(BigInt.asUintN(64, W.guard_highest(i)))]);
    return out;
  }

  free() {
    if (!this.#freed) {
      for (const i of this.#index.values()) dropGuard(i);
      this.#index.clear();
      guardMaps?.unregister(this);
      this.#freed = true;
    }
  }
}

// -------------------------------------------------------------------------------------------
// Idempotency.

/** The outcome slot of an operation whose apply has not returned yet. */
const APPLYING = Object.freeze({ failed: false, outcome: undefined });

function opId(v) {
  if (typeof v === "number") {
    if (!Number.isSafeInteger(v) || v < 0) {
      throw new RangeError(`opId must be a whole number from 0 to 2^53 - 1 or a bigint, got ${describe(v)}`);
    }
    return BigInt(v);
  }
  if (typeof v !== "bigint") throw new TypeError(`opId must be a bigint or a number, got ${describe(v)}`);
  return u64("opId", v);
}

/**
 * A guard plus an idempotency ledger: a retried operation is applied at most once, and a stale
 * owner's operation never.
 */
export class FencedResource {
  #i = -1;
  #outcomes = new Map();

  constructor() {
    ready();
    this.#i = adopt(resources, this, W.object_new(KIND_RESOURCE, false, 0, 0n, 0, 0, 0, 0), "FencedResource");
  }

  #live() {
    if (this.#i < 0) throw freed("FencedResource");
    return this.#i;
  }

  write(token, op, apply) {
    u64("token", token);
    const id = opId(op);
    if (typeof apply !== "function") throw new TypeError(`apply must be a function, got ${describe(apply)}`);
    switch (raw.resource_write(this.#live(), token, id)) {
      case WRITE_APPLIED: {
        const slot = outDepth();
        this.#outcomes.delete((slot - LEDGER_CAPACITY) >>> 0);
        // Marked until apply returns: a write of the same operation from inside apply finds it.
        this.#outcomes.set(slot, APPLYING);
        let outcome;
        try {
          outcome = apply();
        } catch (error) {
          this.#outcomes.set(slot, { failed: true, error });
          throw error;
        }
        this.#outcomes.set(slot, { failed: false, outcome });
        return { ok: true, applied: true, outcome };
      }
      case WRITE_DUPLICATE: {
        const first = this.#outcomes.get(outDepth());
        if (first === APPLYING) {
          throw new TypeError(`op ${id} is still being applied: its apply called write for the same operation`);
        }
        if (first === undefined) throw new Error("fencepost: the first outcome of this operation is missing");
        if (first.failed) throw first.error;
        return { ok: true, applied: false, outcome: first.outcome };
      }
      case WRITE_STALE:
        return { ok: false, reason: "stale", presented: token, highest: outToken(OUT_TOKEN) };
      default:
        return { ok: false, reason: "invalid", presented: token };
    }
  }

  get highest() {
    raw.state(this.#live());
    return orNull(outToken(OUT_TOKEN));
  }

  /** Operations the ledger remembers (at most `capacity`). */
  get size() {
    raw.state(this.#live());
    return outDepth();
  }

  get capacity() {
    return LEDGER_CAPACITY;
  }

  free() {
    this.#i = release(resources, this, dropResource, this.#i);
    this.#outcomes.clear();
  }
}

// -------------------------------------------------------------------------------------------
// Fenced stores: the mark and the idempotency entries live beside the data, not in this process.

/**
 * What a store may do with a write, decided by the core from what the store read for the key:
 * `highest`, its mark (null: nothing written yet), and `recorded`, the token it holds for the
 * write's idempotency key (null: no key, or never seen). `{ ok: true }` means write the data with
 * `token` as the new mark, in the same atomic step as the read.
 */
export function decideStoredWrite(highest, tok, recorded = null) {
  ready();
  const h = highest === null ? 0n : token("highest", highest);
  const r = recorded === null ? 0n : token("recorded", recorded);
  u64("token", tok);
  switch (W.store_decide(h, r, tok)) {
    case WRITE_APPLIED:
      return ACCEPTED;
    case WRITE_DUPLICATE:
      return { ok: false, reason: "duplicate", presented: tok };
    case WRITE_STALE:
      return { ok: false, reason: "stale", presented: tok, highest: outToken(OUT_TOKEN) };
    default:
      return { ok: false, reason: "invalid", presented: tok };
  }
}

// -------------------------------------------------------------------------------------------
// Signed tokens. A TokenSigner (one key, the v1 form) and a KeyRing (keys by id, the v2 form)
// share the module's sign and verify exports: the module tells them apart by their kind.

/** The header value signer or ring `i` makes for `token` on `lock`. */
function signWith(i, lock, tok) {
  const n = raw.signer_sign(i, put(name("lock", lock)), token("token", tok));
  if (n === 0) throw new RangeError(coreMessage());
  return textAt(outU32(OUT_OUTPUT), n);
}

/** A refusal of a signature, with the key id when it names a key the ring does not have. */
function forgery() {
  if (outU32(OUT_ERROR) === ERR_UNKNOWN_KEY) return { ok: false, reason: "unknownKey", keyId: outU32(OUT_DETAIL) };
  return FORGED;
}

/** What signer or ring `i` says of `header` for `lock`. */
function verifyWith(i, lock, header) {
  const t = raw.signer_verify(i, put(name("lock", lock), text("header", header, MAX_TEXT)), second);
  if (t !== 0n) return { ok: true, token: t };
  const code = outU32(OUT_ERROR);
  if (code === ERR_FORGED || code === ERR_UNKNOWN_KEY) return forgery();
  throw new RangeError(`header is not a signed token: ${coreMessage()}`);
}

/** The module index behind a TokenSigner (set by the class; nothing outside this file sees it). */
let signerOf;

/** Signs and verifies tokens with one secret key (HMAC-SHA-256 over the lock name and token). */
export class TokenSigner {
  #i = -1;

  constructor(key) {
    ready();
    const k = bytes("key", key, MAX_TEXT);
    this.#i = adopt(signers, this, raw.object_new(KIND_SIGNER, false, putBytes(k), 0n, 0, 0, 0, 0), "key");
  }

  #live() {
    if (this.#i < 0) throw freed("TokenSigner");
    return this.#i;
  }

  static {
    // null for anything that is not a TokenSigner made by this package (a look-alike or an
    // object made from the prototype).
    signerOf = (signer) => (typeof signer === "object" && signer !== null && #i in signer ? signer.#live() : null);
  }

  /** The `Fencing-Token` header value of `token` for `lock`: `<token>.<64 hex digits>`. */
  sign(lock, tok) {
    return signWith(this.#live(), lock, tok);
  }

  /** Checks a signed header value for `lock`. */
  verify(lock, header) {
    return verifyWith(this.#live(), lock, header);
  }

  free() {
    this.#i = release(signers, this, dropSigner, this.#i);
  }
}

/** The module index behind a KeyRing (set by the class). */
let ringOf;

/** A key id: a whole number from 0 to 2^32 - 1. */
function keyId(argName, v) {
  if (typeof v !== "number") throw new TypeError(`${argName} must be a number, got ${describe(v)}`);
  if (!Number.isInteger(v) || v < 0 || v > 0xffff_ffff) {
    throw new RangeError(`${argName} must be a whole number from 0 to 4294967295, got ${describe(v)}`);
  }
  return v;
}

/**
 * The signing keys of a deployment, by id: the current key signs, previous keys only verify until
 * they are removed. Headers are `<token>.<key id>.<64 hex digits>` (HMAC-SHA-256 over the key id,
 * the lock name and the token).
 */
export class KeyRing {
  #i = -1;

  constructor(id, key) {
    ready();
    const kid = keyId("keyId", id);
    const k = bytes("key", key, MAX_TEXT);
    this.#i = adopt(rings, this, raw.object_new(KIND_RING, false, putBytes(k), BigInt(kid), 0, 0, 0, 0), "key");
  }

  #live() {
    if (this.#i < 0) throw freed("KeyRing");
    return this.#i;
  }

  static {
    ringOf = (ring) => (typeof ring === "object" && ring !== null && #i in ring ? ring.#live() : null);
  }

  /** Makes `key` (id `id`) the current key; the current one stays, for verifying only. */
  rotate(id, key) {
    const kid = keyId("keyId", id);
    const k = bytes("key", key, MAX_TEXT);
    if (raw.ring_call(RING_ROTATE, this.#live(), putBytes(k), kid) !== 0) throw new RangeError(coreMessage());
  }

  /** Removes a previous key: tokens it signed no longer verify. */
  remove(id) {
    const kid = keyId("keyId", id);
    if (raw.ring_call(RING_REMOVE, this.#live(), 0, kid) === 0) return;
    throw new RangeError(outU32(OUT_ERROR) === ERR_UNKNOWN_KEY ? `the key ring has no key ${kid}` : coreMessage());
  }

  /** The id of the key that signs. */
  get currentKeyId() {
    raw.state(this.#live());
    return outDepth();
  }

  /** The `Fencing-Token` header value of `token` for `lock`, signed with the current key. */
  sign(lock, tok) {
    return signWith(this.#live(), lock, tok);
  }

  /** Checks a header value for `lock` with the key its id names. */
  verify(lock, header) {
    return verifyWith(this.#live(), lock, header);
  }

  free() {
    this.#i = release(rings, this, dropRing, this.#i);
  }
}

// -------------------------------------------------------------------------------------------
// Keepers: the holder's side of a lease. The lease client (client.js) does the I/O and the
// timers; everything it decides, it asks a keeper.

const KEEPER_KEYS = ["ttlMs", "driftPpm", "marginMs", "renewPpm", "retryMs"];
const dropKeeper = dropper(KIND_KEEPER);
const keepers = cleanup(dropKeeper);

/** A ppm option: undefined (the core's default, -1 to the module) or a whole number to 1,000,000. */
function ppm(argName, v) {
  if (v === undefined) return -1;
  if (typeof v !== "number") throw new TypeError(`${argName} must be a number, got ${describe(v)}`);
  if (!Number.isInteger(v) || v < 0 || v > 1_000_000) {
    throw new RangeError(`${argName} must be a whole number of parts per million from 0 to 1000000, got ${describe(v)}`);
  }
  return v;
}

/** The state the module left in the record after a keeper call that answered `code`. */
function keeperState(code) {
  if (code === KEEPER_STATE_ERROR) throw new RangeError(coreMessage());
  const state = KEEPER_STATES[code];
  const t = outToken(OUT_TOKEN);
  const safeUntil = outTime(OUT_TIME);
  const nextSend = outTime(OUT_TIME2);
  return Object.freeze({
    state,
    token: orNull(t),
    safeUntil: safeUntil < 0 ? null : safeUntil,
    nextSend: nextSend < 0 ? null : nextSend,
    why: state === "lost" ? LOSSES[outDepth()] : null,
  });
}

/**
 * The holder's side of one lease (the core's keeper): fed with when each acquire or renewal was
 * sent and what came back, it says whether the lease may still be acted on, until when, and when
 * to renew. It reads no clock: every call takes `now`, in milliseconds of one monotonic clock.
 */
export class LeaseKeeper {
  #i = -1;

  constructor(options, now) {
    ready();
    const o = checkOptions("options", options, KEEPER_KEYS);
    if (o.ttlMs === undefined) throw new TypeError("options.ttlMs is required (the lease length in milliseconds)");
    const ttl = ms("options.ttlMs", o.ttlMs);
    const drift = ppm("options.driftPpm", o.driftPpm);
    const margin = o.marginMs === undefined ? -1 : ms("options.marginMs", o.marginMs);
    const renew = ppm("options.renewPpm", o.renewPpm);
    const retry = o.retryMs === undefined ? -1 : ms("options.retryMs", o.retryMs);
    const t = ms("now", now);
    this.#i = adopt(keepers, this, raw.keeper_new(ttl, t, drift, margin, renew, retry), "options");
  }

  #live() {
    if (this.#i < 0) throw freed("LeaseKeeper");
    return this.#i;
  }

  /** Records an acquire or renewal sent at `now`; answers the ticket to hand back with its answer. */
  send(now) {
    const t = ms("now", now);
    return raw.keeper_call(KEEPER_OP_SEND, this.#live(), 0, 0n, 0, t) >>> 0;
  }

  /** A grant of `token` for `ttlMs` answered ticket `ticket` at `now`; answers the state. */
  granted(ticket, tok, ttlMs, now) {
    const n = ticketOf(ticket);
    const tk = token("token", tok);
    const ttl = ms("ttlMs", ttlMs);
    const t = ms("now", now);
    return keeperState(raw.keeper_call(KEEPER_OP_GRANTED, this.#live(), n, tk, ttl, t));
  }

  /**
   * Ticket `ticket` failed at `now`: `"transient"` (no word on the lease: network, server error)
   * or `"refused"` (the lease is not this holder's); answers the state.
   */
  failed(ticket, failure, now) {
    const n = ticketOf(ticket);
    if (failure !== "transient" && failure !== "refused") {
      throw new TypeError(`failure must be "transient" or "refused", got ${describe(failure)}`);
    }
    const t = ms("now", now);
    const op = failure === "transient" ? KEEPER_OP_TRANSIENT : KEEPER_OP_REFUSED;
    return keeperState(raw.keeper_call(op, this.#live(), n, 0n, 0, t));
  }

  /** The holder lets go at `now`: lost for good; answers the state. */
  released(now) {
    const t = ms("now", now);
    return keeperState(raw.keeper_call(KEEPER_OP_RELEASED, this.#live(), 0, 0n, 0, t));
  }

  /** The state at `now`. */
  state(now) {
    const t = ms("now", now);
    return keeperState(raw.keeper_call(KEEPER_OP_STATE, this.#live(), 0, 0n, 0, t));
  }

  free() {
    this.#i = release(keepers, this, dropKeeper, this.#i);
  }
}

function ticketOf(v) {
  if (typeof v !== "number") throw new TypeError(`ticket must be a number a send() answered, got ${describe(v)}`);
  if (!Number.isInteger(v) || v < 0 || v >= NONE) throw new RangeError(`ticket must be a number a send() answered, got ${describe(v)}`);
  return v;
}

// -------------------------------------------------------------------------------------------
// Token codecs.

/** The HTTP header that carries a fencing token. */
export const HEADER_NAME = "Fencing-Token";

function parsed(argName, t) {
  if (t === 0n) throw new RangeError(`${argName} is not a token: ${coreMessage()}`);
  return t;
}

/** The canonical decimal form of a token. */
export function tokenToString(tok) {
  return token("token", tok).toString();
}

/** Parses the strict decimal form: digits only, no sign, no whitespace, no leading zero. */
export function tokenFromString(value) {
  ready();
  return parsed("value", raw.token_decode(FORM_DECIMAL, put(text("value", value, MAX_TEXT))));
}

/** The `Fencing-Token` header value of an unsigned token (its decimal form). */
export function tokenToHeader(tok) {
  return token("token", tok).toString();
}

/** Parses an unsigned `Fencing-Token` header value. */
export function tokenFromHeader(value) {
  ready();
  return parsed("value", raw.token_decode(FORM_HEADER, put(text("value", value, MAX_TEXT))));
}

/** The 8-byte big-endian form of a token. */
export function tokenToBytes(tok) {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, token("token", tok));
  return out;
}

/** Parses the 8-byte big-endian form. */
export function tokenFromBytes(value) {
  ready();
  return parsed("value", raw.token_decode(FORM_BYTES, putBytes(bytes("value", value, MAX_TEXT))));
}

// `using` support where the runtime has Symbol.dispose (Node 20 may not).
if (typeof Symbol.dispose === "symbol") {
  for (const C of [LeaseAuthority, LockTable, FenceGuard, GuardMap, FencedResource, TokenSigner, KeyRing, LeaseKeeper]) {
    Object.defineProperty(C.prototype, Symbol.dispose, {
      value: C.prototype.free,
      writable: true,
      configurable: true,
    });
  }
}
