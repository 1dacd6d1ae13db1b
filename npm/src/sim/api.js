// The public API of `fencepost/sim`, shared by every entry point of the simulator: what the files
// beside it define, one family each.
//
// Every rule runs in the simulator's WebAssembly module, built from crates/fencepost-sim (through
// the thin bindings of crates/fencepost-sim-wasm); its lock service and storage are the real
// fencepost core. These files check arguments, copy scenarios into plain data (own data
// properties only, objects without a prototype) and hand them to the module as objects (read
// there through serde-wasm-bindgen by the simulator's own definitions, which refuse unknown
// fields and name the field of every error), take traces and reports back as objects, and
// throw TypeError / RangeError for misuse, so no input can trap the module.
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
//
// - instance.js: loading the module and calling into it; memory.js: what each call may take;
// - limits.js: the most one call may ask; checks.js: checking and copying arguments;
// - errors.js: the module's errors; json.js: values out of the module, and `toJson`;
// - presets.js: presets and templates; runs.js: SimRun, run, PreparedScenario, prepare;
// - sweep.js: Sweep; search.js: Search, search; history.js: HistoryChecker, checkHistory.

export { initSync, init } from "./instance.js";
export { toJson } from "./json.js";
export { presets, templates } from "./presets.js";
export { SimRun, run, PreparedScenario, prepare } from "./runs.js";
export { Sweep } from "./sweep.js";
export { Search, search } from "./search.js";
export { HistoryChecker, checkHistory } from "./history.js";

import { SimRun, PreparedScenario } from "./runs.js";
import { Sweep } from "./sweep.js";
import { Search } from "./search.js";
import { HistoryChecker } from "./history.js";

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
