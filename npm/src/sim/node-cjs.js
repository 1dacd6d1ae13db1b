// Node.js (require): the same simulator API as node.mjs, as one CommonJS file. `cargo xtask dist`
// bundles this file with sim/api.js, everything it imports and the bindings' glue into
// dist/sim/node.cjs.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { initSync } from "./api.js";

initSync(readFileSync(join(__dirname, "fencepost_sim_bg.wasm")));

export * from "./api.js";
