// The public API of the npm package `fencepost`, shared by every entry point: what the files
// beside it define, one family each.
//
// Every lease and fence rule runs in the WebAssembly module built from crates/fencepost (through the
// thin bindings of crates/fencepost-wasm). These files only check arguments, turn the module's
// result codes into plain objects, and throw TypeError / RangeError for misuse, before anything
// reaches the module, so no input can trap it.
//
// - instance.js: loading the module, its memory (the input area, the result record);
// - checks.js: checking arguments; errors.js: the module's errors in the core's wording;
// - objects.js: what every class shares (its object in the module, the shared results);
// - locks.js: LeaseAuthority, LockTable; guards.js: FenceGuard, GuardMap;
// - resource.js: FencedResource, decideStoredWrite; signing.js: TokenSigner, KeyRing;
// - keeper.js: LeaseKeeper; tokens.js: the token codecs;
// - abi.js: the numbers shared with the module, generated from its Rust definitions.

export { initSync, init } from "./instance.js";
export { LeaseAuthority, LockTable } from "./locks.js";
export { TokenSigner, KeyRing } from "./signing.js";
export { AdmitCode, FenceGuard, GuardMap } from "./guards.js";
export { FencedResource, decideStoredWrite } from "./resource.js";
export { LeaseKeeper } from "./keeper.js";
export { HEADER_NAME, tokenToString, tokenFromString, tokenToHeader, tokenFromHeader, tokenToBytes, tokenFromBytes } from "./tokens.js";

import { LeaseAuthority, LockTable } from "./locks.js";
import { TokenSigner, KeyRing } from "./signing.js";
import { FenceGuard, GuardMap } from "./guards.js";
import { FencedResource } from "./resource.js";
import { LeaseKeeper } from "./keeper.js";

// `using` support where the runtime has Symbol.dispose (Node 20 may not).
if (typeof Symbol.dispose === "symbol") {
  for (const C of [LeaseAuthority, LockTable, FenceGuard, GuardMap, FencedResource, TokenSigner, KeyRing, LeaseKeeper]) {
    Object.defineProperty(C.prototype, Symbol.dispose, {
      value: C.prototype.free,
      writable: true,
      configurable: true,
    });
  }
}
