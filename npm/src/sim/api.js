// The public API of `fencepost/sim`, shared by every entry point of the simulator.
//
// Every rule runs in the simulator's WebAssembly module, built from crates/fencepost-sim (through
// the thin bindings of crates/fencepost-sim-wasm); its lock service and storage are the real
// fencepost core. This file checks arguments, copies scenarios into plain data (own data
// properties only, objects without a prototype) and hands them to the module as objects (read
// there through serde-wasm-bindgen by the simulator's own definitions, which refuse unknown
// fields and name the field of every error), takes traces and reports back as objects, and
// throws TypeError / RangeError for misuse, so no input can trap the module.
//
// Scenarios, templates, scopes, traces and reports have the shapes of the simulator's JSON (the
// files and the `fencepost` CLI's `--format json` output), field names included; `toJson` writes
// any of them exactly as the CLI does. Seeds and tokens are bigints wherever the module hands them
// out (scenarios take numbers or bigints), and so are the times of a history the checker read
// (whatever a storage logged); the simulator's times and counts are numbers.
//
// The module builds the objects it hands out by setting their properties, so a setter a program
// put on Object.prototype or Array.prototype runs then (as for objects the program builds). Should
// one throw, its exception unwinds through the module's frames, which never put the module's stack
// pointer back: every call that can run such code (`guarded`) saves it and puts it back before
// the exception goes on, and the module never holds its state while it reads or writes a value,
// so the instance keeps working.

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
const BIG = new Set(["seed", "first_seed", "first_token", "token", "previous", "highest", "next_token", "newer_token", "earlier_token", "final_token", "holds", "t"]);

// -------------------------------------------------------------------------------------------
// Calls into the module.

/** The glue's functions. */
const R = raw;
/** The module's own exports (numbers only; `memory` and `__stack_pointer`), once instantiated. */
let W = null;
/** The module's shadow-stack pointer (a WebAssembly.Global the module exports). */
let SP = null;

/**
 * `f` (a function of the glue that reads or writes JavaScript values), made safe to throw
 * through: an exception the program's code throws inside the call (a setter on a built-in
 * prototype) leaves the module's frames without their epilogue, so the stack pointer is put back
 * to what it was before the call, and the objects the call had lent out while it wrote their
 * values are given back (see crates/fencepost-sim-wasm/src/state.rs).
 */
function guarded(f) {
  return (...args) => {
    const sp = SP.value;
    const lent = W.lent_depth();
    try {
      return f(...args);
    } catch (e) {
      SP.value = sp;
      W.lent_release(lent);
      throw e;
    }
  };
}

/** The glue's functions that read or write JavaScript values, guarded. */
const G = Object.fromEntries(
  [
    "presets",
    "templates",
    "run_scenario",
    "scenario_prepare",
    "run_trace",
    "run_verdict",
    "run_beliefs",
    "sweep_new",
    "sweep_report",
    "search_new",
    "search_report",
    "history_line",
    "history_summary",
    "history_more",
  ].map((name) => [name, guarded(raw[name])]),
);

// -------------------------------------------------------------------------------------------
// Loading the module.

const loader = wasmLoader(raw, "fencepost_sim_bg.js", "fencepost/sim", "fencepost/sim/slim", "sweep_step", (exports) => {
  W = exports;
  SP = exports.__stack_pointer;
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
// The module's memory ends at 4 GiB (or where the host caps it). Every call of the module first
// makes room for the most it can take, and refuses with a RangeError (NO_MEMORY) when the memory
// cannot grow that far, so an allocation never fails inside it. On top of that, the package
// refuses, before it starts, a run, sweep, search or history check that could take more than its
// share, with a RangeError that says which option to lower and to free() objects no longer
// needed. The bounds are the simulator's own (`run_bytes`, `sweep_bytes`, `search_bytes`
// and the history checker's `line_bytes`, through the module; crates/fencepost-sim/tests checks
// them against what runs, searches and checks allocate), and so is what a live object is counted
// at once it is made: a finished run's `held_bytes`, a checker's `held_bytes` after each line.
// Live objects may hold at most MEMORY_CAP bytes between them; and what the module's allocator has
// carved of the memory, plus what live sweeps and unfinished searches could still take, must stay
// below MEMORY_END.

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
  const used = W.memory_carved();
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
 * A copy of `value` that holds only plain data (objects without a prototype, dense arrays,
 * strings, finite numbers, bigints, booleans and null), with keys whose value is undefined left
 * out as JSON does: no getter, proxy, cycle or exotic object of the caller's reaches the module,
 * and reading it there runs no JavaScript. Each property is read once; an exception a getter or
 * proxy throws becomes a TypeError naming the field. Returns `{ value, values, chars }`: the copy,
 * how many values it holds and how many characters its keys and strings have (the module makes
 * room for reading it from those).
 */
function plainCopy(argName, value) {
  let values = 0;
  let chars = 0;
  /** `f()`, with an exception of the caller's code turned into a TypeError about `path`. */
  const reading = (path, f) => {
    try {
      return f();
    } catch (e) {
      throw new TypeError(`${path} could not be read: ${e instanceof Error ? e.message : describe(e)}`);
    }
  };
  const copy = (v, path, depth, key) => {
    if (++values > MAX_VALUES) throw new RangeError(`${argName} holds more than ${MAX_VALUES} values`);
    switch (typeof v) {
      case "string":
        if (v.length > MAX_STRING) throw new RangeError(`${path} must be at most ${MAX_STRING} characters long`);
        if (LONE_SURROGATE.test(v)) throw new RangeError(`${path} must be well-formed Unicode, but has a lone surrogate`);
        chars += v.length;
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
        if (reading(path, () => Array.isArray(v))) {
          const n = reading(path, () => v.length);
          const out = new Array(n);
          for (let i = 0; i < n; i++) {
            const x = reading(`${path}[${i}]`, () => v[i]);
            if (x === undefined) throw new TypeError(`${path}[${i}] must not be undefined`);
            out[i] = copy(x, `${path}[${i}]`, depth + 1, key);
          }
          return out;
        }
        if (!reading(path, () => isPlainObject(v))) throw new TypeError(`${path} must be a plain object, got ${describe(v)}`);
        {
          const out = Object.create(null);
          for (const key of reading(path, () => Object.keys(v))) {
            const x = reading(`${path}.${key}`, () => v[key]);
            if (x !== undefined) {
              chars += key.length;
              out[key] = copy(x, `${path}.${key}`, depth + 1, key);
            }
          }
          return out;
        }
      default:
        throw new TypeError(`${path} must be plain data, got ${describe(v)}`);
    }
  };
  if (!reading(argName, () => isPlainObject(value))) throw new TypeError(`${argName} must be an object, got ${describe(value)}`);
  const copied = copy(value, argName, 0, "");
  return { value: copied, values, chars };
}

/** The module's error kinds (`kind` in crates/fencepost-sim-wasm/src/failure.rs). */
const KIND_TYPE = 1;
const KIND_MEMORY = 3;

/** The module reported that its memory cannot grow as far as the call needed. */
const NO_MEMORY =
  "fencepost/sim: the simulator's memory cannot grow as far as this call may need: free() runs, sweeps, searches and history checkers no longer needed";

/**
 * The error the module reported for its last call, naming the argument and field. `parts` are the
 * call's object arguments: `[argName, value]` (the plain copy), value undefined for a value the
 * package made itself.
 */
function failure(...parts) {
  const kind = R.error_kind();
  if (kind === KIND_MEMORY) return new RangeError(NO_MEMORY);
  const message = R.error_message();
  let [arg, value] = parts[R.error_part()] ?? parts[0] ?? [null, undefined];
  let field = R.error_field();
  if (field === "scope" || field.startsWith("scope.") || field.startsWith("scope[")) arg = "options";
  else if (value !== undefined && /\.(min|max)$/.test(field)) {
    // A range given as a plain number: the validator names its `min`, the caller wrote one number.
    let v = value;
    for (const k of field.slice(0, field.lastIndexOf(".")).split(/\.|\[(\d+)\]/)) if (k) v = v?.[k];
    if (typeof v === "number" || typeof v === "bigint") field = field.slice(0, field.lastIndexOf("."));
  }
  const full = arg === null ? message : field === "" ? `${arg}: ${message}` : `${arg}.${field}: ${message}`;
  return kind === KIND_TYPE ? new TypeError(full) : new RangeError(full);
}

// -------------------------------------------------------------------------------------------
// Values out.

/**
 * A value the module handed out (objects it made through serde-wasm-bindgen, every 64-bit integer
 * a bigint), as the package documents it: seeds, tokens and history times (the values of `BIG`
 * keys) bigints, every other number a number. `undefined` means the call failed: its error is
 * thrown.
 */
function out(v) {
  if (v === undefined) throw failure();
  return numbers(v);
}

/** `v` with the integers of BIG keys bigints and every other integer a number, in place. Only
 * own properties of the module's fresh objects are read and written: no setter runs. */
function numbers(v) {
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const x = v[i];
      if (typeof x === "object") {
        if (x !== null) numbers(x);
      } else if (typeof x === "bigint") v[i] = Number(x);
    }
    return v;
  }
  for (const key of Object.keys(v)) {
    const x = v[key];
    if (typeof x === "object") {
      if (x !== null) numbers(x);
    } else if (typeof x === "bigint") {
      if (!BIG.has(key)) v[key] = Number(x);
    } else if (typeof x === "number" && BIG.has(key)) v[key] = BigInt(x);
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
  presetList ??= out(G.presets());
  return presetList;
}

function templateTable() {
  ready();
  templateList ??= out(G.templates());
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

function presetEntry(argName, name) {
  const p = presetTable().find((x) => x.name === name);
  if (p === undefined) {
    throw new RangeError(
      `${argName}: no preset is named ${describe(name)}; presets: ${presetTable()
        .map((x) => x.name)
        .join(", ")}`,
    );
  }
  return p;
}

/** Plain copies of preset and template files, by their entry in the module's table. */
const fileCopies = new Map();

/** A preset's or template's file as the plain copy the module reads, made once. */
function fileCopy(argName, entry) {
  let copy = fileCopies.get(entry);
  if (copy === undefined) {
    copy = plainCopy(argName, JSON.parse(entry.json, bigReviver));
    fileCopies.set(entry, copy);
  }
  return copy;
}

/**
 * A scenario argument, a preset's name or a scenario object, as the plain copy the module reads
 * (`plainCopy`'s `{ value, values, chars }`).
 */
function scenarioArg(argName, v) {
  if (typeof v === "string") return fileCopy(argName, presetEntry(argName, text(argName, v, 256)));
  return plainCopy(argName, v);
}

// -------------------------------------------------------------------------------------------
// Runs.

function fencingCode(argName, v) {
  if (v === undefined || v === null) return 0;
  return flag(argName, v) ? 1 : 2;
}

/** Findings and malformed lines per piece of a history report the module hands out. */
const REPORT_PIECE = 8192;

/** The pieces `next(from)` hands out from 0 on, as one array. */
function pieces(next) {
  const done = [];
  for (let from = 0; ; from += REPORT_PIECE) {
    const piece = out(next(from));
    done.push(piece);
    if (piece.length < REPORT_PIECE) return done.length === 1 ? piece : done.flat();
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
    if (this.#trace === null) this.#trace = out(G.run_trace(this.#live()));
    return this.#trace;
  }

  /** What the invariants say. */
  get verdict() {
    return this.#trace === null ? out(G.run_verdict(this.#live())) : this.#trace.verdict;
  }

  /** One plain sentence saying what event `seq` means. */
  explain(seq) {
    const i = this.#live();
    count("seq", seq, 0, Math.max(0, this.#events - 1));
    if (this.#events === 0) throw new RangeError("seq: the run has no events");
    const sentence = R.run_explain(i, seq);
    if (sentence === "") throw failure();
    return sentence;
  }

  /**
   * What every actor believes at `tMs` (after every event at or before it): which token each
   * worker thinks it holds and until when, who really holds the lease, what the storage accepted.
   */
  beliefsAt(tMs) {
    const i = this.#live();
    return out(G.run_beliefs(i, ms("tMs", tMs)));
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
  const copy = scenarioArg("scenario", scenario);
  return runWith(options, (fencing, hasSeed, s, limit) => {
    const i = G.run_scenario(copy.value, copy.values, copy.chars, fencing, hasSeed, s, limit) >>> 0;
    if (i === NONE) throw failure(["scenario", copy.value]);
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
  const copy = scenarioArg("scenario", scenario);
  room("scenario", "a prepared scenario", W.memory_bound(3, 0), null);
  const i = G.scenario_prepare(copy.value, copy.values, copy.chars) >>> 0;
  if (i === NONE) throw failure(["scenario", copy.value]);
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
  #maxEvents = 0;

  /**
   * `source`: a preset or built-in template name, a scenario or a template. Options: `seeds`
   * (how many, required), `firstSeed` (default 0), `modes` ("both", "fencingOn" or "fencingOff"),
   * `keepSeeds` (violating seeds kept per mode, default 5), `maxEvents` per run (default 100,000).
   */
  constructor(source, options) {
    ready();
    let copy;
    let template;
    if (typeof source === "string") {
      text("source", source, 256);
      const t = templateTable().find((x) => x.name === source);
      if (t !== undefined) [copy, template] = [fileCopy("source", t), true];
      else if (presetTable().some((x) => x.name === source)) [copy, template] = [fileCopy("source", presetEntry("source", source)), false];
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
      copy = plainCopy("source", source);
      template = isTemplate(copy.value);
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
    const i = G.sweep_new(copy.value, copy.values, copy.chars, template, first, BigInt(seeds), modes, keep, maxEvents) >>> 0;
    if (i === NONE) throw failure(["source", copy.value]);
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
    this.#maxEvents = maxEvents;
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
    const done = W.sweep_step(i, n, this.#maxEvents);
    if (done < 0) throw failure();
    this.#done = done;
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
    return out(G.sweep_report(this.#live()));
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
  #maxStates = 0;

  /**
   * `scenario`: a preset name or a scenario. Options: `maxFaults` (default 2) for the default
   * scope (pauses, held writes and clock jumps around the lease TTL), or a whole `scope`;
   * `fencing` (default: as the scenario says), `maxDepth` (default 10,000), `maxStates`
   * (default 1,000,000; at most as many as fit in SEARCH_SHARE: 1,483,149), `stopAtFirst`
   * (default true).
   */
  constructor(scenario, options) {
    ready();
    const copy = scenarioArg("scenario", scenario);
    const o = checkOptions("options", options, SEARCH_KEYS);
    const maxFaults = o.maxFaults === undefined ? 2 : count("options.maxFaults", o.maxFaults, 0, 16);
    const scope = o.scope === undefined ? undefined : plainCopy("options.scope", o.scope);
    const fencing = fencingCode("options.fencing", o.fencing);
    const maxDepth = o.maxDepth === undefined ? 10_000 : count("options.maxDepth", o.maxDepth, 0, 0xffff_ffff);
    const maxStates =
      o.maxStates === undefined
        ? 1_000_000
        : count("options.maxStates", o.maxStates, 1, statesThatFit(), MEMORY_BOUND);
    const stop = o.stopAtFirst === undefined ? true : flag("options.stopAtFirst", o.stopAtFirst);
    const bytes = searchBytes(maxStates);
    room("options.maxStates", `a search of up to ${maxStates} states`, bytes);
    const values = copy.values + (scope?.values ?? 0);
    const chars = copy.chars + (scope?.chars ?? 0);
    const i = G.search_new(copy.value, scope?.value, values, chars, maxFaults, fencing, maxDepth, maxStates, stop) >>> 0;
    if (i === NONE) throw failure(["scenario", copy.value], ["options.scope", scope?.value]);
    hold(`s${i}`, bytes, true);
    this.#i = i;
    this.#maxStates = maxStates;
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
    const r = W.search_step(i, budget, this.#maxStates) >>> 0;
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
    return out(G.search_report(this.#live()));
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

/** A new checker's index (`who` names the caller in the error when none can be made). */
function newChecker(who) {
  const i = W.history_new() >>> 0;
  if (i !== NONE) return i;
  if (R.error_kind() === KIND_MEMORY) throw new RangeError(NO_MEMORY);
  throw new RangeError(`${who}: the module holds too many checkers`);
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
    const i = newChecker("HistoryChecker");
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
    return checking("line", i, line, 1, () => {
      if (!W.room_for(3 * line.length)) throw new RangeError(NO_MEMORY);
      return out(G.history_line(i, line));
    });
  }

  /** Totals so far: lines, accepted, rejected, malformed, token regressions, stale owners. */
  get summary() {
    return out(G.history_summary(this.#live()));
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
  const i = newChecker("checkHistory");
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
      checking("lines", i, piece, lines, () => {
        if (!W.room_for(3 * piece.length)) throw new RangeError(NO_MEMORY);
        if (!R.history_feed(i, piece, keep)) throw failure();
      });
      at = end;
    }
    // What only the end of a history shows (overlaps still open, acknowledged writes with no
    // final row); a write log has none.
    if (!R.history_finish(i, keep)) throw failure();
    return {
      summary: out(G.history_summary(i)),
      findings: pieces((from) => G.history_more(i, 0, from, REPORT_PIECE)),
      malformed: pieces((from) => G.history_more(i, 1, from, REPORT_PIECE)),
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
