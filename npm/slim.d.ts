// `fencepost/slim`: the same API, with no WebAssembly loaded until `init` or `initSync` is called
// with the module (`fencepost/fencepost_bg.wasm`), its bytes, a Response or a URL.
export * from "./index.js";
