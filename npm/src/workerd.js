// Cloudflare Workers (workerd) and other edge runtimes that refuse to compile WebAssembly from
// bytes at run time: the .wasm file is imported as a module, which the runtime compiles at deploy.
import wasm from "./fencepost_bg.wasm";
import { initSync } from "./api.js";

initSync(wasm);

export * from "./api.js";
