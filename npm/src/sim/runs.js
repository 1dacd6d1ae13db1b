// Runs of one scenario: SimRun, run, PreparedScenario, prepare.

import { NONE, checkOptions, freed, ms } from "../common.js";
import { FIRST_EVENTS, MAX_RUN_EVENTS } from "./limits.js";
import { G, R, ready, W } from "./instance.js";
import { hold, recordedRun, release, room } from "./memory.js";
import { count, flag, seed } from "./checks.js";
import { failure } from "./errors.js";
import { out, toJson } from "./json.js";
import { scenarioArg } from "./presets.js";

export function fencingCode(argName, v) {
  if (v === undefined || v === null) return 0;
  return flag(argName, v) ? 1 : 2;
}

/** Findings and malformed lines per piece of a history report the module hands out. */
export const REPORT_PIECE = 8192;

/** The pieces `next(from)` hands out from 0 on, as one array. */
export function pieces(next) {
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
