// The exhaustive search: Search, search.

import { NONE, checkOptions, freed } from "../common.js";
import { G, ready, W } from "./instance.js";
import { hold, release, room, searchBytes, statesThatFit, stopGrowing } from "./memory.js";
import { count, flag, MEMORY_BOUND, plainCopy } from "./checks.js";
import { failure } from "./errors.js";
import { out } from "./json.js";
import { scenarioArg } from "./presets.js";
import { fencingCode, run } from "./runs.js";

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
