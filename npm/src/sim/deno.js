// Deno: reads the simulator's module next to this file (needs --allow-read for it).
import { initSync } from "./api.js";

initSync(Deno.readFileSync(new URL("./fencepost_sim_bg.wasm", import.meta.url)));

export * from "./api.js";
