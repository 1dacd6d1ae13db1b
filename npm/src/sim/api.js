// The public API of `fencepost/sim`, shared by every entry point of the simulator.
//
// Every rule runs in the simulator's WebAssembly module, built from crates/fencepost-sim (through
// the thin bindings of crates/fencepost-sim-wasm); its lock service and storage are the real
// fencepost core. This file checks arguments, copies scenarios into plain data and hands them to
// the module as JSON (read there by the simulator's own parsers, which refuse unknown fields),
// parses the module's traces and reports (JSON text) into plain objects, and throws TypeError / RangeError for misuse, so
// no input can trap the module.
//
// Scenarios, templates, scopes, traces and reports have the shapes of the simulator's JSON (the
// files and the `fencepost` CLI's `--format json` output), field names included; `toJson` writes
// any of them exactly as the CLI does. Seeds and tokens are bigints wherever the module hands them
// out (scenarios take numbers or bigints), and so are the times of a history the checker read
// (whatever a storage logged); the simulator's times and counts are numbers.

import * as raw from "./fencepost_sim_bg.js";
import { NONE, U64_MAX, checkOptions, describe, freed, ms, text, wasmLoader } from "./common.js";

/** Deepest nesting a scenario, template or scope may have (a scenario needs four levels). */
const MAX_DEPTH = 16;
/** Most values (objects, arrays and leaves) one of them may hold. */
const MAX_VALUES = 100_000;
/** Longest string in one of them. */
const MAX_STRING = 1 << 20;
/** Most events a recorded run may have. */
const MAX_RUN_EVENTS = 1_000_000;
/** Events of the first attempt at a run (see `run`). */
const FIRST_EVENTS = 10_000;
/** Above the most events per sweep run and states per search that fit in the module's memory:
 * where `sweepEventsThatFit` and `statesThatFit` start looking. */
const MAX_SWEEP_EVENTS = 10_000_000;
const MAX_SEARCH_STATES = 5_000_000;
/** Longest history text `checkHistory` reads at once, in characters. */
const MAX_HISTORY = 256 * 1024 * 1024;

/** Keys whose integers are seeds, tokens or a history's times (any u64 a storage logged):
 * bigints everywhere the module hands them out. */
const BIG = new Set(["seed", "first_seed", "first_token", "token", "previous", "highest", "next_token", "newer_token", "holds", "t"]);

// -------------------------------------------------------------------------------------------
// Calls into the module.

/** The glue's functions (strings in, JSON text and strings out). No JavaScript of the program
 * runs during a call into the module: values leave as JSON text, parsed once the call returned. */
const R = raw;
/** The module's own exports (numbers only; `memory` for the memory checks), once instantiated. */
let W = null;

// -------------------------------------------------------------------------------------------
// Loading the module.

const loader = wasmLoader(raw, "fencepost_sim_bg.js", "fencepost/sim", "fencepost/sim/slim", "sweep_step", (exports) => {
  W = exports;
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
// Memory.
//
// The module's memory ends at 4 GiB, and an allocation that fails there aborts the instance: every
// later call would throw. So the package refuses, before it starts, a run, sweep, search or history
// check that could take more than is left, with a RangeError that says to free() objects no
// longer needed. The bounds are the simulator's own (`run_bytes`, `sweep_bytes`, `search_bytes`
// and the history checker's `line_bytes`, through the module; crates/fencepost-sim/tests checks
// them against what runs, searches and checks allocate), and so is what a live object is counted
// at once it is made: a finished run's `held_bytes`, a checker's `held_bytes` after each line.
// Live objects may hold at most MEMORY_CAP bytes between them; and what the memory has already
// grown to (it never shrinks), plus what live sweeps and unfinished searches could still take,
// must stay below MEMORY_END.

const MIB = 2 ** 20;
/** Most bytes live runs, sweeps, searches and history checkers may hold between them. */
const MEMORY_CAP = 3072 * MIB;
/** Most bytes one search may take. */
const SEARCH_SHARE = 2048 * MIB;
/** Where the objects' memory must end: 4 GiB less room for arguments and values written out. */
const MEMORY_END = 3840 * MIB;

/** A recorded run stopped at `maxEvents` events, while it runs (`run_bytes`). */
function recordedRun(maxEvents) {
  return W.memory_bound(0, maxEvents);
}

/** A sweep whose runs stop at `maxEvents` events (`sweep_bytes`). */
function sweepBytes(maxEvents) {
  return W.memory_bound(1, maxEvents);
}

/** A search of at most `maxStates` states (`search_bytes`). */
function searchBytes(maxStates) {
  return W.memory_bound(2, maxStates);
}

/** The largest `n` from `lo` to `hi` with `fits(n)`, for a `fits` that holds up to some point. */
function largest(lo, hi, fits) {
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (fits(mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

let sweepFit = 0;
/** The most events per run a sweep may have. */
function sweepEventsThatFit() {
  if (sweepFit === 0) sweepFit = largest(1, MAX_SWEEP_EVENTS, (n) => sweepBytes(n) <= MEMORY_CAP);
  return sweepFit;
}

let searchFit = 0;
/** The most states one search may have. */
function statesThatFit() {
  if (searchFit === 0) searchFit = largest(2, MAX_SEARCH_STATES, (n) => searchBytes(n) <= SEARCH_SHARE);
  return searchFit;
}

/** Bytes held by each live object (by key: kind and index), and whether it may still grow. */
const holds = new Map();
let held = 0;
let growing = 0;

function mib(bytes) {
  return Math.ceil(bytes / MIB);
}

/** Refuses to make an object that could need `bytes` bytes when they may not be left. */
function room(argName, what, bytes, lower = argName) {
  const used = W.memory.buffer.byteLength;
  const left = Math.min(MEMORY_CAP - held, MEMORY_END - used - growing);
  if (bytes > MEMORY_CAP) {
    // Not even with every other object freed.
    throw new RangeError(
      `${argName}: ${what} could need up to ${mib(bytes)} MiB of the simulator's memory, more than its objects may ever hold (${mib(MEMORY_CAP)} MiB)${lower === null ? "" : `: lower ${lower}`}`,
    );
  }
  if (bytes > left) {
    throw new RangeError(
      `${argName}: ${what} could need up to ${mib(bytes)} MiB of the simulator's memory and ${Math.max(0, Math.floor(left / MIB))} MiB are left (live runs, sweeps, searches and history checkers hold up to ${mib(held)} MiB of the ${mib(MEMORY_CAP)} MiB they may have, and the memory has grown to ${mib(used)} MiB): free() those no longer needed${lower === null ? "" : `, or lower ${lower}`}`,
    );
  }
}

function hold(key, bytes, grows) {
  holds.set(key, [bytes, grows]);
  held += bytes;
  if (grows) growing += bytes;
}

function stopGrowing(key) {
  const h = holds.get(key);
  if (h?.[1]) {
    h[1] = false;
    growing -= h[0];
  }
}

function release(key) {
  const h = holds.get(key);
  if (h === undefined) return;
  holds.delete(key);
  held -= h[0];
  if (h[1]) growing -= h[0];
}

// -------------------------------------------------------------------------------------------
// Checking arguments.

/** A whole number in `min..=max` (both safe integers). */
function count(argName, v, min, max, why = "") {
  if (typeof v !== "number") throw new TypeError(`${argName} must be a number, got ${describe(v)}`);
  if (!Number.isSafeInteger(v) || v < min || v > max) {
    throw new RangeError(`${argName} must be a whole number from ${min} to ${max}${why}, got ${describe(v)}`);
  }
  return v;
}

/** Why the largest sweep and search limits are what they are. */
const MEMORY_BOUND = " (the most the simulator's memory can hold)";

/** A seed: a number or bigint from 0 to 2^64 - 1, as a bigint. */
function seed(argName, v) {
  if (typeof v === "number") {
    if (!Number.isSafeInteger(v) || v < 0) {
      throw new RangeError(`${argName} must be a whole number from 0 to 2^53 - 1 or a bigint, got ${describe(v)}`);
    }
    return BigInt(v);
  }
  if (typeof v !== "bigint") throw new TypeError(`${argName} must be a number or a bigint, got ${describe(v)}`);
  if (BigInt.asUintN(64, v) !== v) throw new RangeError(`${argName} must be between 0n and ${U64_MAX}n, got ${describe(v)}`);
  return v;
}

function flag(argName, v) {
  if (typeof v !== "boolean") throw new TypeError(`${argName} must be a boolean, got ${describe(v)}`);
  return v;
}

function isPlainObject(v) {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** A UTF-16 surrogate without its other half: no JSON reader takes it. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
/** Why a history line with one is refused: it would reach the module as U+FFFD, so that two
 * different names could be read as one. */
const UNPAIRED = "must be well-formed Unicode, but has a lone surrogate";

/** Whether `s` has no lone surrogate (String#isWellFormed where the runtime has it: faster). */
function wellFormed(s) {
  return typeof String.prototype.isWellFormed === "function" ? s.isWellFormed() : !LONE_SURROGATE.test(s);
}

/**
 * A copy of `value` that holds only plain data (objects, arrays, strings, finite numbers, bigints,
 * booleans and null), with keys whose value is undefined left out as JSON does: no getter, proxy,
 * cycle or exotic object of the caller's reaches the JSON the module reads.
 */
function plainCopy(argName, value) {
  let values = 0;
  const copy = (v, path, depth, key) => {
    if (++values > MAX_VALUES) throw new RangeError(`${argName} holds more than ${MAX_VALUES} values`);
    switch (typeof v) {
      case "string":
        if (v.length > MAX_STRING) throw new RangeError(`${path} must be at most ${MAX_STRING} characters long`);
        if (LONE_SURROGATE.test(v)) throw new RangeError(`${path} must be well-formed Unicode, but has a lone surrogate`);
        return v;
      case "number":
        if (!Number.isFinite(v)) throw new RangeError(`${path} must be a finite number, got ${v}`);
        return v;
      case "bigint":
        if (BIG.has(key) ? BigInt.asUintN(64, v) !== v : v < -(2n ** 63n) || v > U64_MAX) {
          const least = BIG.has(key) ? "0n" : "-2n ** 63n";
          throw new RangeError(`${path} must be between ${least} and ${U64_MAX}n, got ${describe(v)}`);
        }
        return v;
      case "boolean":
        return v;
      case "object":
        if (v === null) return null;
        if (depth >= MAX_DEPTH) throw new RangeError(`${path} is nested deeper than ${MAX_DEPTH} levels`);
        if (Array.isArray(v)) {
          const out = new Array(v.length);
          for (let i = 0; i < v.length; i++) {
            if (v[i] === undefined) throw new TypeError(`${path}[${i}] must not be undefined`);
            out[i] = copy(v[i], `${path}[${i}]`, depth + 1, key);
          }
          return out;
        }
        if (!isPlainObject(v)) throw new TypeError(`${path} must be a plain object, got ${describe(v)}`);
        {
          const out = {};
          for (const key of Object.keys(v)) {
            const x = v[key];
            if (x !== undefined) out[key] = copy(x, `${path}.${key}`, depth + 1, key);
          }
          return out;
        }
      default:
        throw new TypeError(`${path} must be plain data, got ${describe(v)}`);
    }
  };
  if (!isPlainObject(value)) throw new TypeError(`${argName} must be an object, got ${describe(value)}`);
  return copy(value, argName, 0, "");
}

/**
 * Compact JSON of plain data (from `plainCopy`) in ASCII only; `withMarks`, also where every value
 * and key is: `[start, end, path, keys]`, so a column the module's JSON reader reports names a
 * field. The text is the same either way, so the marks are made only when an error needs them
 * (see `marksOf`): writing them costs as much as the rest of a short run.
 */
function writeJson(value, withMarks = false) {
  let text = "";
  const marks = withMarks ? [] : null;
  const keys = [];
  const str = (v) =>
    JSON.stringify(v).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  const put = (v, path) => {
    const start = text.length;
    if (typeof v === "bigint") text += v.toString();
    else if (typeof v === "string") text += str(v);
    else if (v === null || typeof v !== "object") text += JSON.stringify(v);
    else if (Array.isArray(v)) {
      text += "[";
      for (let i = 0; i < v.length; i++) {
        if (i > 0) text += ",";
        if (withMarks) keys.push(i);
        put(v[i], withMarks ? `${path}[${i}]` : path);
        if (withMarks) keys.pop();
      }
      text += "]";
    } else {
      text += "{";
      let first = true;
      for (const key of Object.keys(v)) {
        if (!first) text += ",";
        first = false;
        const at = text.length;
        const child = withMarks ? (path === "" ? key : `${path}.${key}`) : path;
        text += str(key);
        if (withMarks) {
          keys.push(key);
          marks.push([at, text.length, child, [...keys]]);
        }
        text += ":";
        put(v[key], child);
        if (withMarks) keys.pop();
      }
      text += "}";
    }
    if (withMarks) marks.push([start, text.length, path, [...keys]]);
  };
  put(value, "");
  return { text, marks, value };
}

/** The marks of JSON `writeJson` wrote without them: written again, the same text, with them. */
function marksOf(json) {
  json.marks ??= writeJson(json.value, true).marks;
  return json.marks;
}

/** The mark at a column of JSON written by `writeJson` (the number of bytes read when the reader
 * stopped): what ends there, or else the smallest value around it. */
function markAt(marks, column) {
  let best = null;
  for (const m of marks) {
    if (m[1] === column) return m;
    if (m[0] <= column && column <= m[1] && (best === null || m[1] - m[0] < best[1] - best[0])) best = m;
  }
  return best;
}

/** `value` with the array at `keys` replaced by `array` (copied along the way). */
function withArray(value, keys, array) {
  if (keys.length === 0) return array;
  const copy = Array.isArray(value) ? [...value] : { ...value };
  copy[keys[0]] = withArray(value[keys[0]], keys.slice(1), array);
  return copy;
}

/**
 * Which element of the array at `keys` the reader's error is about: serde reads each of the
 * `faults` (a list of tagged objects) whole before it can tell what is wrong with one, so the
 * error points at the end of the list. The shortest prefix of the list that no longer reads
 * ends with the culprit. Returns its index, or -1.
 */
function culprit(what, value, keys) {
  let array = value;
  for (const k of keys) array = array?.[k];
  if (!Array.isArray(array) || array.length === 0) return -1;
  const readsWith = (n) => R.reads(what, writeJson(withArray(value, keys, array.slice(0, n))).text);
  if (!readsWith(0)) return -1;
  let [good, bad] = [0, array.length];
  while (bad - good > 1) {
    const mid = (good + bad) >>> 1;
    if (readsWith(mid)) good = mid;
    else bad = mid;
  }
  return bad - 1;
}

/**
 * The error the module reported for its last call, naming the argument and field. `parts` are the
 * call's JSON arguments: `[argName, json]`, `json` as `writeJson` returned it (with `what`: 0 a
 * scenario, 1 a template, 2 a scope), or undefined for JSON the package wrote itself.
 */
function failure(...parts) {
  const kind = R.error_kind();
  const message = R.error_message();
  const column = R.error_column();
  let [arg, json] = parts[R.error_part()] ?? parts[0];
  let field = R.error_field();
  if (column > 0 && json !== undefined) {
    const m = markAt(marksOf(json), column);
    field = m === null ? "" : m[2];
    const k = m === null ? -1 : culprit(json.what, json.value, m[3]);
    if (k >= 0) field = `${field}[${k}]`;
  } else if (field === "scope" || field.startsWith("scope.") || field.startsWith("scope[")) arg = "options";
  else if (json !== undefined && /\.(min|max)$/.test(field)) {
    // A range given as a plain number: the validator names its `min`, the caller wrote one number.
    let v = json.value;
    for (const k of field.slice(0, field.lastIndexOf(".")).split(/\.|\[(\d+)\]/)) if (k) v = v?.[k];
    if (typeof v === "number" || typeof v === "bigint") field = field.slice(0, field.lastIndexOf("."));
  }
  const full = field === "" ? `${arg}: ${message}` : `${arg}.${field}: ${message}`;
  return kind === 1 ? new TypeError(full) : new RangeError(full);
}

// -------------------------------------------------------------------------------------------
// Values out.

/** A JSON string (a key when a colon follows), and a long integer as its value. */
const KEYED = /"([^"\\]*(?:\\.[^"\\]*)*)"(?::(\d{16,})(?![\d.eE]))?/g;

/** Set by `bigs` when a value of a BIG key is past 2^53 (JSON.parse rounded it). */
let inexact = false;

/**
 * A value the module wrote as JSON text, as plain objects: seeds, tokens and history times (the
 * values of `BIG` keys) as exact bigints, every other number as a number; `undefined` as it is.
 * JSON.parse writes objects and arrays without running setters, so the program's code has no say.
 */
function out(text) {
  if (text === undefined) return undefined;
  inexact = false;
  const v = bigs(JSON.parse(text));
  if (!inexact) return v;
  // Read again with the long integers of BIG keys quoted, so that `bigs` reads their digits.
  // Every string is matched whole, so the digits matched are a value, never part of a string.
  return bigs(JSON.parse(text.replace(KEYED, (m, key, digits) => (digits !== undefined && BIG.has(key) ? `"${key}":"${digits}"` : m))));
}

/** `v` with the values of BIG keys made bigints, in place (the module writes only integers,
 * null or, quoted by `out`, digits under those keys). */
function bigs(v) {
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const x = v[i];
      if (typeof x === "object" && x !== null) bigs(x);
    }
    return v;
  }
  for (const key of Object.keys(v)) {
    const x = v[key];
    if (typeof x === "object") {
      if (x !== null) bigs(x);
    } else if (BIG.has(key)) {
      if (typeof x === "number" && !Number.isSafeInteger(x)) inexact = true;
      v[key] = BigInt(x);
    }
  }
  return v;
}

function bigReviver(key, v) {
  return typeof v === "number" && BIG.has(key) ? BigInt(v) : v;
}

/**
 * JSON text of a scenario, template, trace or report exactly as the simulator writes it (compact,
 * keys in order, bigints as plain integers): `toJson(run(...).trace)` is byte for byte what
 * `fencepost sim --format json` prints.
 */
export function toJson(value) {
  return value === undefined ? undefined : jsonOf(value);
}

function jsonOf(v) {
  if (typeof v === "bigint") return v.toString();
  // Strings, numbers, booleans and null as JSON.stringify writes them (undefined, a function or
  // a symbol in an array becomes null, as there).
  if (v === null || typeof v !== "object") return JSON.stringify(v) ?? "null";
  if (typeof v.toJSON === "function") return jsonOf(v.toJSON());
  if (Array.isArray(v)) return `[${v.map(jsonOf).join(",")}]`;
  const fields = [];
  for (const key of Object.keys(v)) {
    const x = v[key];
    if (x !== undefined && typeof x !== "function" && typeof x !== "symbol") {
      fields.push(`${JSON.stringify(key)}:${jsonOf(x)}`);
    }
  }
  return `{${fields.join(",")}}`;
}

// -------------------------------------------------------------------------------------------
// Presets and templates.

let presetList = null;
let templateList = null;

function presetTable() {
  ready();
  presetList ??= out(R.presets());
  return presetList;
}

function templateTable() {
  ready();
  templateList ??= out(R.templates());
  return templateList;
}

/**
 * Every preset, the paused-worker story first: its name, title, story, scenario, and the
 * invariants it breaks with fencing forced on (`with_fencing`) and off (`without_fencing`).
 * Each call returns fresh objects.
 */
export function presets() {
  return presetTable().map((p) => ({
    name: p.name,
    title: p.title,
    story: p.story,
    scenario: JSON.parse(p.json, bigReviver),
    with_fencing: [...p.with_fencing],
    without_fencing: [...p.without_fencing],
  }));
}

/** The built-in templates (families of scenarios for seed sweeps), with their names. */
export function templates() {
  return templateTable().map((t) => ({ name: t.name, template: JSON.parse(t.json, bigReviver) }));
}

function presetJson(argName, name) {
  const p = presetTable().find((x) => x.name === name);
  if (p === undefined) {
    throw new RangeError(
      `${argName}: no preset is named ${describe(name)}; presets: ${presetTable()
        .map((x) => x.name)
        .join(", ")}`,
    );
  }
  return p.json;
}

/**
 * A scenario argument, a preset's name or a scenario object, as `[text, written]`: its JSON text
 * and, for an object, what `writeJson` returned (a preset's JSON is the package's own).
 */
function scenarioArg(argName, v) {
  if (typeof v === "string") return [presetJson(argName, text(argName, v, 256)), undefined];
  const written = { ...writeJson(plainCopy(argName, v)), what: 0 };
  return [written.text, written];
}

// -------------------------------------------------------------------------------------------
// Runs.

function fencingCode(argName, v) {
  if (v === undefined || v === null) return 0;
  return flag(argName, v) ? 1 : 2;
}

/** Events (and applied writes, findings, malformed lines) per piece of a trace or history report
 * the module writes: the text of one piece stays a few MiB however long the run or the log. */
const TRACE_PIECE = 8192;

/** Run `i`'s trace, read in pieces. */
function traceOf(i) {
  const trace = out(R.run_json(i, 0, 0, TRACE_PIECE));
  trace.events = rest(trace.events, (from) => R.run_json(i, 1, from, TRACE_PIECE));
  trace.document = rest(trace.document, (from) => R.run_json(i, 2, from, TRACE_PIECE));
  return trace;
}

/** `first` and the pieces after it that `next(from)` writes, as one array. */
function rest(first, next) {
  return first.length < TRACE_PIECE ? first : pieces(next, TRACE_PIECE, [first]);
}

/** The pieces `next(from)` writes from `from` on, after those `done`, as one array. */
function pieces(next, from = 0, done = []) {
  for (; ; from += TRACE_PIECE) {
    const piece = out(next(from));
    done = [...done, piece];
    if (piece.length < TRACE_PIECE) return done.length === 1 ? piece : [].concat(...done);
  }
}

const TOKEN = Symbol("SimRun");
/** Wraps a run index in a SimRun (set by the class; nothing outside this file sees it). */
let adoptRun;

const runs =
  typeof FinalizationRegistry === "function"
    ? new FinalizationRegistry((i) => {
        W.run_drop(i);
        release(`r${i}`);
      })
    : null;
const RUN_KEYS = ["fencing", "seed", "maxEvents"];

/** One simulated run: its trace, verdict, explanations and what every actor believed when. */
export class SimRun {
  #i = -1;
  #trace = null;
  #events = 0;

  /** Use `run()`. */
  constructor(index) {
    if (typeof index !== "symbol" || index !== TOKEN) throw new TypeError("SimRun objects are made by run()");
  }

  static #adopt(i) {
    const r = new SimRun(TOKEN);
    r.#i = i;
    r.#events = W.run_events(i);
    hold(`r${i}`, W.run_held(i), false);
    runs?.register(r, i, r);
    return r;
  }

  static {
    adoptRun = (i) => SimRun.#adopt(i);
  }

  #live() {
    if (this.#i < 0) throw freed("SimRun");
    return this.#i;
  }

  /** The whole trace (events, verdict, final document), shaped like the CLI's JSON. */
  get trace() {
    if (this.#trace === null) this.#trace = traceOf(this.#live());
    return this.#trace;
  }

  /** What the invariants say. */
  get verdict() {
    return this.#trace === null ? out(R.run_verdict(this.#live())) : this.#trace.verdict;
  }

  /** One plain sentence saying what event `seq` means. */
  explain(seq) {
    const i = this.#live();
    count("seq", seq, 0, Math.max(0, this.#events - 1));
    if (this.#events === 0) throw new RangeError("seq: the run has no events");
    return R.run_explain(i, seq);
  }

  /**
   * What every actor believes at `tMs` (after every event at or before it): which token each
   * worker thinks it holds and until when, who really holds the lease, what the storage accepted.
   */
  beliefsAt(tMs) {
    const i = this.#live();
    return out(R.run_beliefs(i, ms("tMs", tMs)));
  }

  /** The trace as JSON text, byte for byte what `fencepost sim --format json` prints. */
  toJson() {
    return toJson(this.trace);
  }

  /** Frees the module memory now (otherwise it is freed when this object is collected). */
  free() {
    if (this.#i >= 0) {
      W.run_drop(this.#i);
      release(`r${this.#i}`);
      runs?.unregister(this);
      this.#i = -1;
    }
  }
}

/**
 * Runs a scenario (or the preset of that name). Options: `fencing` forces the storage's token
 * check on or off, `seed` replaces the scenario's, `maxEvents` stops the run early (default and
 * most 1,000,000).
 */
export function run(scenario, options) {
  ready();
  if (scenario instanceof PreparedScenario) return scenario.run(options);
  const [json, written] = scenarioArg("scenario", scenario);
  return runWith(options, (fencing, hasSeed, s, limit) => {
    const i = R.run_scenario(json, fencing, hasSeed, s, limit) >>> 0;
    if (i === NONE) throw failure(["scenario", written]);
    return i;
  });
}

/**
 * A run with `options`, made by `make(fencing, hasSeed, seed, limit)` (which returns the run's
 * index or throws).
 */
function runWith(options, make) {
  const o = checkOptions("options", options, RUN_KEYS);
  const fencing = fencingCode("options.fencing", o.fencing);
  const hasSeed = o.seed !== undefined;
  const s = hasSeed ? seed("options.seed", o.seed) : 0n;
  const maxEvents = o.maxEvents === undefined ? MAX_RUN_EVENTS : count("options.maxEvents", o.maxEvents, 1, MAX_RUN_EVENTS);
  // First up to FIRST_EVENTS events, which need little memory: a run that ends before them is
  // the whole run (the limit only stops it). Only a longer one is made again with the whole limit.
  let limit = Math.min(maxEvents, FIRST_EVENTS);
  for (;;) {
    room("options.maxEvents", `a run of up to ${limit} events`, recordedRun(limit));
    const i = make(fencing, hasSeed, s, limit);
    if (limit === maxEvents || W.run_events(i) < limit) return adoptRun(i);
    W.run_drop(i);
    limit = maxEvents;
  }
}

const PREPARED = Symbol("PreparedScenario");

const prepared =
  typeof FinalizationRegistry === "function"
    ? new FinalizationRegistry((i) => {
        W.scenario_drop(i);
        release(`s${i}`);
      })
    : null;

/**
 * A scenario read and checked once, for many runs: `run()` of a scenario object copies, writes
 * and reads it again every time, which costs more than a short run itself. Later changes to the
 * object it was made from do not reach it.
 */
export class PreparedScenario {
  #i = -1;

  /** Use `prepare()`. */
  constructor(token, i) {
    if (token !== PREPARED) throw new TypeError("PreparedScenario objects are made by prepare()");
    this.#i = i;
    hold(`s${i}`, W.memory_bound(3, 0), false);
    prepared?.register(this, i, this);
  }

  /** Runs it, with the options of `run()`. */
  run(options) {
    ready();
    if (this.#i < 0) throw freed("PreparedScenario");
    const s = this.#i;
    return runWith(options, (fencing, hasSeed, seed, limit) => {
      const i = R.run_prepared(s, fencing, hasSeed, seed, limit) >>> 0;
      if (i === NONE) throw failure(["scenario", undefined]);
      return i;
    });
  }

  /** Frees the module memory now (otherwise it is freed when this object is collected). */
  free() {
    if (this.#i >= 0) {
      W.scenario_drop(this.#i);
      release(`s${this.#i}`);
      prepared?.unregister(this);
      this.#i = -1;
    }
  }
}

/** Reads and checks a scenario (or the preset of that name) once, for many runs. */
export function prepare(scenario) {
  ready();
  const [json, written] = scenarioArg("scenario", scenario);
  room("scenario", "a prepared scenario", W.memory_bound(3, 0), null);
  const i = R.scenario_prepare(json) >>> 0;
  if (i === NONE) throw failure(["scenario", written]);
  return new PreparedScenario(PREPARED, i);
}

// -------------------------------------------------------------------------------------------
// Seed sweeps.

const sweeps =
  typeof FinalizationRegistry === "function"
    ? new FinalizationRegistry((i) => {
        W.sweep_drop(i);
        release(`w${i}`);
      })
    : null;
const SWEEP_KEYS = ["seeds", "firstSeed", "modes", "keepSeeds", "maxEvents"];
const MODES = { both: 0, fencingOn: 1, fencingOff: 2 };

function isTemplate(v) {
  return typeof v.workers === "object" && v.workers !== null && !Array.isArray(v.workers);
}

/**
 * A seed sweep: runs a template's scenario for each seed (or one scenario with each seed for its
 * latency draws), with fencing forced on and off, and counts what broke. It advances in slices
 * (`step`), so a page can run thousands of seeds between frames.
 */
export class Sweep {
  #i = -1;
  #total = 0;
  #done = 0;

  /**
   * `source`: a preset or built-in template name, a scenario or a template. Options: `seeds`
   * (how many, required), `firstSeed` (default 0), `modes` ("both", "fencingOn" or "fencingOff"),
   * `keepSeeds` (violating seeds kept per mode, default 5), `maxEvents` per run (default 100,000).
   */
  constructor(source, options) {
    ready();
    let json;
    let written;
    let template;
    if (typeof source === "string") {
      text("source", source, 256);
      const t = templateTable().find((x) => x.name === source);
      if (t !== undefined) [json, template] = [t.json, true];
      else if (presetTable().some((x) => x.name === source)) [json, template] = [presetJson("source", source), false];
      else {
        throw new RangeError(
          `source: no preset or template is named ${describe(source)}; templates: ${templateTable()
            .map((x) => x.name)
            .join(", ")}; presets: ${presetTable()
            .map((x) => x.name)
            .join(", ")}`,
        );
      }
    } else {
      if (typeof source !== "object" || source === null) {
        throw new TypeError(`source must be a preset or template name, a scenario or a template, got ${describe(source)}`);
      }
      const value = plainCopy("source", source);
      template = isTemplate(value);
      written = { ...writeJson(value), what: template ? 1 : 0 };
      json = written.text;
    }
    if (options === undefined) throw new TypeError("options must be an object with seeds, got undefined");
    const o = checkOptions("options", options, SWEEP_KEYS);
    if (o.seeds === undefined) throw new TypeError("options.seeds is required (how many seeds to run)");
    const seeds = count("options.seeds", o.seeds, 0, Number.MAX_SAFE_INTEGER);
    const first = o.firstSeed === undefined ? 0n : seed("options.firstSeed", o.firstSeed);
    let modes = 0;
    if (o.modes !== undefined) {
      if (typeof o.modes !== "string") throw new TypeError(`options.modes must be a string, got ${describe(o.modes)}`);
      if (!Object.hasOwn(MODES, o.modes)) {
        throw new RangeError(`options.modes must be "both", "fencingOn" or "fencingOff", got ${describe(o.modes)}`);
      }
      modes = MODES[o.modes];
    }
    const keep = o.keepSeeds === undefined ? 5 : count("options.keepSeeds", o.keepSeeds, 0, 10_000);
    const maxEvents =
      o.maxEvents === undefined
        ? 100_000
        : count("options.maxEvents", o.maxEvents, 1, sweepEventsThatFit(), MEMORY_BOUND);
    const bytes = sweepBytes(maxEvents);
    room("options.maxEvents", `a sweep of runs of up to ${maxEvents} events`, bytes);
    const i = R.sweep_new(json, template, first, BigInt(seeds), modes, keep, maxEvents) >>> 0;
    if (i === NONE) throw failure(["source", written]);
    // The sweep stops after seed 2^64 - 1: fewer seeds than asked for is a bad argument.
    const total = W.sweep_total(i);
    if (total < seeds) {
      W.sweep_drop(i);
      throw new RangeError(
        `options.seeds: only ${total} seeds from options.firstSeed ${first}n to ${U64_MAX}n, got ${seeds}`,
      );
    }
    hold(`w${i}`, bytes, true);
    this.#i = i;
    this.#total = total;
    sweeps?.register(this, i, this);
  }

  #live() {
    if (this.#i < 0) throw freed("Sweep");
    return this.#i;
  }

  /** Runs the next `n` seeds (default 100; fewer at the end): returns `{ done, total }`. */
  step(n = 100) {
    const i = this.#live();
    count("n", n, 0, 0xffff_ffff);
    this.#done = W.sweep_step(i, n);
    // Finished: it holds what it has and will not grow (as a finished search).
    if (this.#done >= this.#total) stopGrowing(`w${i}`);
    return { done: this.#done, total: this.#total };
  }

  /** Runs every remaining seed and returns the report. */
  run() {
    while (!this.finished) this.step(1024);
    return this.report;
  }

  /** Seeds run so far. */
  get done() {
    this.#live();
    return this.#done;
  }

  /** Seeds in the sweep. */
  get total() {
    this.#live();
    return this.#total;
  }

  get finished() {
    this.#live();
    return this.#done >= this.#total;
  }

  /** What it found so far: runs, and per mode the violating runs, counts per invariant, seeds. */
  get report() {
    return out(R.sweep_report(this.#live()));
  }

  free() {
    if (this.#i >= 0) {
      W.sweep_drop(this.#i);
      release(`w${this.#i}`);
      sweeps?.unregister(this);
      this.#i = -1;
    }
  }
}

// -------------------------------------------------------------------------------------------
// Exhaustive search.

const searches =
  typeof FinalizationRegistry === "function"
    ? new FinalizationRegistry((i) => {
        W.search_drop(i);
        release(`s${i}`);
      })
    : null;
const SEARCH_KEYS = ["maxFaults", "fencing", "maxDepth", "maxStates", "stopAtFirst", "scope"];

/**
 * An exhaustive, breadth-first search of the faults a scope allows on a scenario's world (the
 * scenario without its faults, but for clock skew and drift), for a shortest counterexample. It
 * advances in slices (`step`).
 */
export class Search {
  #i = -1;
  #finished = false;

  /**
   * `scenario`: a preset name or a scenario. Options: `maxFaults` (default 2) for the default
   * scope (pauses, held writes and clock jumps around the lease TTL), or a whole `scope`;
   * `fencing` (default: as the scenario says), `maxDepth` (default 10,000), `maxStates`
   * (default 1,000,000; at most as many as fit in SEARCH_SHARE: 1,483,149), `stopAtFirst`
   * (default true).
   */
  constructor(scenario, options) {
    ready();
    const [json, written] = scenarioArg("scenario", scenario);
    const o = checkOptions("options", options, SEARCH_KEYS);
    const maxFaults = o.maxFaults === undefined ? 2 : count("options.maxFaults", o.maxFaults, 0, 16);
    const scope = o.scope === undefined ? undefined : { ...writeJson(plainCopy("options.scope", o.scope)), what: 2 };
    const fencing = fencingCode("options.fencing", o.fencing);
    const maxDepth = o.maxDepth === undefined ? 10_000 : count("options.maxDepth", o.maxDepth, 0, 0xffff_ffff);
    const maxStates =
      o.maxStates === undefined
        ? 1_000_000
        : count("options.maxStates", o.maxStates, 1, statesThatFit(), MEMORY_BOUND);
    const stop = o.stopAtFirst === undefined ? true : flag("options.stopAtFirst", o.stopAtFirst);
    const bytes = searchBytes(maxStates);
    room("options.maxStates", `a search of up to ${maxStates} states`, bytes);
    const i = R.search_new(json, scope?.text ?? "", maxFaults, fencing, maxDepth, maxStates, stop) >>> 0;
    if (i === NONE) throw failure(["scenario", written], ["options.scope", scope]);
    hold(`s${i}`, bytes, true);
    this.#i = i;
    searches?.register(this, i, this);
  }

  #live() {
    if (this.#i < 0) throw freed("Search");
    return this.#i;
  }

  /** Expands up to `budget` states (default 10,000); returns whether the search has finished. */
  step(budget = 10_000) {
    const i = this.#live();
    count("budget", budget, 0, 0xffff_ffff);
    const r = W.search_step(i, budget) >>> 0;
    if (r === NONE) throw failure(["scenario", undefined]);
    this.#finished = r === 1;
    if (this.#finished) stopGrowing(`s${i}`);
    return this.#finished;
  }

  /** Runs to the end and returns the report. */
  run() {
    while (!this.step(1 << 16));
    return this.report;
  }

  get finished() {
    this.#live();
    return this.#finished;
  }

  /** What it covered and found so far, with the shortest counterexample as a scenario. */
  get report() {
    return out(R.search_report(this.#live()));
  }

  free() {
    if (this.#i >= 0) {
      W.search_drop(this.#i);
      release(`s${this.#i}`);
      searches?.unregister(this);
      this.#i = -1;
    }
  }
}

/** Searches to the end (see `Search`) and returns the report. */
export function search(scenario, options) {
  const s = new Search(scenario, options);
  try {
    return s.run();
  } finally {
    s.free();
  }
}

// -------------------------------------------------------------------------------------------
// The history checker.

const checkers =
  typeof FinalizationRegistry === "function"
    ? new FinalizationRegistry((i) => {
        W.history_drop(i);
        release(`h${i}`);
      })
    : null;

/**
 * Runs `check` (which reads `text`, `lines` lines, with checker `i`) once the memory it may take
 * is known to be left, then counts what the checker holds; returns what `check` returns.
 */
function checking(argName, i, text, lines, check) {
  // The text is copied in as UTF-8 (up to 3 bytes a character), then read line by line.
  const bytes = 3 * text.length;
  const what = `checking ${lines === 1 ? "a line" : `${lines} lines`} of ${text.length} characters`;
  room(argName, what, bytes + W.history_need(i, bytes, lines), null);
  const result = check();
  release(`h${i}`);
  hold(`h${i}`, W.history_held(i), false);
  return result;
}

/** Lines per piece of a whole history checked at once (and at most HISTORY_PIECE characters). */
const HISTORY_LINES = 4096;
const HISTORY_PIECE = 1 << 20;

/**
 * Checks a real storage's write log, one JSON object per line
 * (`{"t", "resource", "writer", "token", "result": "ok" | "rejected"}`), in the order the storage
 * applied the writes, for accepted stale tokens and stale owners.
 */
export class HistoryChecker {
  #i = -1;

  constructor() {
    ready();
    const i = W.history_new() >>> 0;
    if (i === NONE) throw new RangeError("HistoryChecker: the module holds too many checkers");
    this.#i = i;
    checkers?.register(this, i, this);
  }

  #live() {
    if (this.#i < 0) throw freed("HistoryChecker");
    return this.#i;
  }

  /** Checks the next line (without its line ending): `{ malformed, findings }`. */
  check(line) {
    const i = this.#live();
    // A line over 1 MiB of UTF-8 is malformed (the module's checker says so, as for a log), so
    // the argument is held only to the length of a whole history.
    text("line", line, MAX_HISTORY);
    if (line.includes("\n")) throw new RangeError("line must be one line, without a newline");
    if (!wellFormed(line)) throw new RangeError(`line ${UNPAIRED}`);
    return checking("line", i, line, 1, () => out(R.history_line(i, line)));
  }

  /** Totals so far: lines, accepted, rejected, malformed, token regressions, stale owners. */
  get summary() {
    return out(R.history_summary(this.#live()));
  }

  free() {
    if (this.#i >= 0) {
      W.history_drop(this.#i);
      release(`h${this.#i}`);
      checkers?.unregister(this);
      this.#i = -1;
    }
  }
}

const HISTORY_KEYS = ["keep"];

/**
 * Checks a whole write log at once: JSON Lines text, or an array of lines. Keeps the first `keep`
 * findings and malformed lines (default 100).
 */
export function checkHistory(lines, options) {
  ready();
  let history;
  if (Array.isArray(lines)) {
    // Each element is read once: what is checked is what is joined (a getter answers once).
    const copy = Array.from(lines);
    let length = 0;
    copy.forEach((l, k) => {
      text(`lines[${k}]`, l, MAX_HISTORY);
      if (l.includes("\n")) throw new RangeError(`lines[${k}] must be one line, without a newline`);
      if (!wellFormed(l)) throw new RangeError(`lines[${k}] ${UNPAIRED}`);
      length += l.length + 1;
    });
    // The same limit as for the text they make, checked before they are joined.
    if (length > MAX_HISTORY) {
      throw new RangeError(`lines must be at most ${MAX_HISTORY} characters joined by newlines, got ${length}`);
    }
    history = copy.length === 0 ? "" : `${copy.join("\n")}\n`;
  } else {
    history = text("lines", lines, MAX_HISTORY);
    const bad = wellFormed(history) ? null : LONE_SURROGATE.exec(history);
    if (bad !== null) {
      let line = 1;
      for (let nl = history.indexOf("\n"); nl >= 0 && nl < bad.index; nl = history.indexOf("\n", nl + 1)) line++;
      throw new RangeError(`lines: line ${line} ${UNPAIRED}`);
    }
  }
  const o = checkOptions("options", options, HISTORY_KEYS);
  const keep = o.keep === undefined ? 100 : count("options.keep", o.keep, 0, 1_000_000);
  const i = W.history_new() >>> 0;
  if (i === NONE) throw new RangeError("checkHistory: the module holds too many checkers");
  try {
    // In pieces of whole lines: only a piece is copied into the module at a time, and the memory
    // a piece may take is checked before it is read.
    for (let at = 0; at < history.length; ) {
      let end = at;
      let lines = 0;
      while (end < history.length && lines < HISTORY_LINES && end - at < HISTORY_PIECE) {
        const nl = history.indexOf("\n", end);
        end = nl < 0 ? history.length : nl + 1;
        lines++;
      }
      const piece = history.slice(at, end);
      checking("lines", i, piece, lines, () => R.history_feed(i, piece, keep));
      at = end;
    }
    return {
      summary: out(R.history_summary(i)),
      findings: pieces((from) => R.history_more(i, 0, from, TRACE_PIECE)),
      malformed: pieces((from) => R.history_more(i, 1, from, TRACE_PIECE)),
    };
  } finally {
    W.history_drop(i);
    release(`h${i}`);
  }
}

// `using` support where the runtime has Symbol.dispose (Node 20 may not).
if (typeof Symbol.dispose === "symbol") {
  for (const C of [SimRun, PreparedScenario, Sweep, Search, HistoryChecker]) {
    Object.defineProperty(C.prototype, Symbol.dispose, {
      value: C.prototype.free,
      writable: true,
      configurable: true,
    });
  }
}
