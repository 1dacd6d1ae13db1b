// Node.js (require): the same API as node.mjs, as one CommonJS file. `cargo xtask dist` bundles
// this file with api.js, everything it imports and the bindings' glue into dist/node.cjs.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { initSync } from "./api.js";

initSync(readFileSync(join(__dirname, "fencepost_bg.wasm")));

export * from "./api.js";
