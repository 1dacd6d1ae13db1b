// Seed sweeps: Sweep.

import { NONE, U64_MAX, checkOptions, describe, freed, text } from "../common.js";
import { G, ready, W } from "./instance.js";
import { hold, release, room, stopGrowing, sweepBytes, sweepEventsThatFit } from "./memory.js";
import { count, MEMORY_BOUND, plainCopy, seed } from "./checks.js";
import { failure } from "./errors.js";
import { out } from "./json.js";
import { fileCopy, presetEntry, presetTable, templateTable } from "./presets.js";
import { run } from "./runs.js";

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
