// Cloudflare Workers (workerd) and other edge runtimes that refuse to compile WebAssembly from
// bytes at run time: the simulator's .wasm file is imported as a module, compiled at deploy.
import wasm from "./fencepost_sim_bg.wasm";
import { initSync } from "./api.js";

initSync(wasm);

export * from "./api.js";
