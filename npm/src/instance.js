// The module's instance: loading it, and its memory, through which text and bytes cross (the input
// area) and results come back (the result record and the output area).

import * as raw from "./fencepost_bg.js";
import { wasmLoader } from "./common.js";

/** The module's exports, once instantiated. */
export let W = null;

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
export let words = null;

export function memory() {
  if (mem === null || mem.byteLength === 0) {
    const b = W.memory.buffer;
    mem = new Uint8Array(b);
    words = new DataView(b);
  }
  return mem;
}

/** Whether the host lays out typed arrays big-endian (the module's memory is little-endian). */
export const BIG_ENDIAN = new Uint16Array(Uint8Array.of(0, 1).buffer)[0] === 1;

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
export let second = 0;

/** The address of an input area of `n` bytes (the module has none larger than a snapshot). */
export function area(n) {
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
export function put(a, b = "") {
  const room = 3 * (a.length + b.length);
  const at = area(room);
  const n = write(a, at, room);
  second = b === "" ? 0 : write(b, at + n, room - n);
  return n;
}

/** Writes `bytes` (a plain view, as `bytes()` returns) into the input area; returns their length. */
export function putBytes(bytes) {
  const at = area(bytes.length);
  memory().set(bytes, at);
  return bytes.length;
}

export function textAt(at, n) {
  at >>>= 0;
  return decoder.decode(memory().subarray(at, at + (n >>> 0)));
}

// What a call has to say beyond its return value it leaves in one record of the module's memory
// (`Out` in crates/fencepost-wasm/src/out.rs, 8-byte aligned), read right after the call: its
// fields' byte offsets are the OUT_* numbers of abi.js, whose readers (one per field of each
// answer) read through these.

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
export function outToken(at) {
  // The address first: it brings `words` up to date.
  const a = record() + at;
  return words.getBigUint64(a, true);
}

/** A time (or count) of the last result. */
export function outTime(at) {
  const a = record() + at;
  return words.getFloat64(a, true);
}

/** A 32-bit number (a depth, limit or count) of the last result. */
export function outWord(at) {
  const a = record() + at;
  return words.getUint32(a, true);
}

/** A 32-bit field of the record that `out` brings up to date: the error, its detail, an address. */
export function outU32(at) {
  const a = refreshed() + at;
  return words.getUint32(a, true);
}

/** The text at `at` (an address and a length) of the last result: its holder or lock name. */
export function outText(at) {
  const a = refreshed() + at;
  return textAt(words.getUint32(a, true), words.getUint32(a + 4, true));
}

/** A copy of the `n` bytes at `at` (in the output area). */
export function bytesAt(at, n) {
  at >>>= 0;
  return memory().slice(at, at + (n >>> 0));
}

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

export const ready = loader.ready;
