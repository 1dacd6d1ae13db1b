// Loading the simulator's module and calling into it.

import * as raw from "./fencepost_sim_bg.js";
import { wasmLoader } from "../common.js";

/** The glue's functions. */
export const R = raw;
/** The module's own exports (numbers only; `memory` and `__stack_pointer`), once instantiated. */
export let W = null;
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
export const G = Object.fromEntries(
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

export const ready = loader.ready;
