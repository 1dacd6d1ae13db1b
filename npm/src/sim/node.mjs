// Node.js (import): reads the simulator's module next to this file and instantiates it
// synchronously.
import { readFileSync } from "node:fs";
import { initSync } from "./api.js";

initSync(readFileSync(new URL("./fencepost_sim_bg.wasm", import.meta.url)));

export * from "./api.js";
