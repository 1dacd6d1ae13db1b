// Deno: reads the module next to this file (needs --allow-read for it) and instantiates it.
import { initSync } from "./api.js";

initSync(Deno.readFileSync(new URL("./fencepost_bg.wasm", import.meta.url)));

export * from "./api.js";
