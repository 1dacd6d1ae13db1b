// Node.js (import): reads the module next to this file and instantiates it synchronously.
import { readFileSync } from "node:fs";
import { initSync } from "./api.js";

initSync(readFileSync(new URL("./fencepost_bg.wasm", import.meta.url)));

export * from "./api.js";
