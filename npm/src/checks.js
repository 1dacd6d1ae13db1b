// Checking arguments before anything reaches the module.

import { MAX_NAME_BYTES } from "./abi.js";
import { U64_MAX, describe } from "./common.js";

/** Longest text any codec reads. */
export const MAX_TEXT = 4096;

export function badBigint(name, v) {
  if (typeof v !== "bigint") return new TypeError(`${name} must be a bigint, got ${describe(v)}`);
  return new RangeError(`${name} must be between 0n and ${U64_MAX}n, got ${describe(v)}`);
}

/**
 * A bigint in 0..2^64-1 (0 is "no token": refused as invalid, never granted). The hot paths inline
 * the same test: `BigInt.asUintN(64, v) === v` is one cheap operation where two comparisons are not.
 */
export function u64(name, v) {
  if (typeof v !== "bigint" || BigInt.asUintN(64, v) !== v) throw badBigint(name, v);
  return v;
}

/** A bigint in 1..2^64-1. */
export function token(name, v) {
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
export function name(argName, v) {
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
export function view(v, kind, Kind) {
  if (kindOf.call(v) !== kind) return null;
  const n = lengthOf.call(v);
  // Empty (or over a detached buffer, which cannot be viewed again): nothing to read.
  return n === 0 ? new Kind(0) : new Kind(bufferOf.call(v), offsetOf.call(v), n);
}

/** The error for `v` where a `kind` typed array (class `Kind`) belongs. */
export function notA(argName, kind, Kind, v) {
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
export function bytes(argName, v, max) {
  const b = view(v, "Uint8Array", Uint8Array);
  if (b === null) throw notA(argName, "Uint8Array", Uint8Array, v);
  if (b.length > max) throw new RangeError(`${argName} must be at most ${max} bytes, got ${b.length}`);
  return b;
}
