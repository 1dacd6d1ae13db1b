// Browsers and bundlers: fetches the simulator's module next to this file and instantiates it
// before any import of this file resolves.
import { init } from "./api.js";

await init(new URL("./fencepost_sim_bg.wasm", import.meta.url));

export * from "./api.js";
