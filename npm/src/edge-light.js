// Vercel's Edge runtime (the `edge-light` condition): like workerd.js, the .wasm file is imported
// as a module, with the `?module` suffix that runtime's bundler asks for.
import wasm from "./fencepost_bg.wasm?module";
import { initSync } from "./api.js";

initSync(wasm);

export * from "./api.js";
