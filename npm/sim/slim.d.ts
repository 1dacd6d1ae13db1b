// `fencepost/sim/slim`: the same API, with no WebAssembly loaded until `init` or `initSync` is
// called with the simulator's module (`fencepost/sim/fencepost_sim_bg.wasm`), its bytes, a
// Response or a URL.
export * from "./index.js";
