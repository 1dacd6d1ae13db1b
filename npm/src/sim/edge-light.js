// Vercel's Edge runtime (the `edge-light` condition): like workerd.js, with the `?module` suffix
// that runtime's bundler asks for.
import wasm from "./fencepost_sim_bg.wasm?module";
import { initSync } from "./api.js";

initSync(wasm);

export * from "./api.js";
