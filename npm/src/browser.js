// Browsers and bundlers: fetches the module next to this file (bundlers that understand
// `new URL(..., import.meta.url)` copy it into the build) and instantiates it before any import of
// this file resolves.
import { init } from "./api.js";

await init(new URL("./fencepost_bg.wasm", import.meta.url));

export * from "./api.js";
