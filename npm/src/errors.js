// The errors the module reports, in the core's wording (the messages are generated into abi.js
// from crates/fencepost-wasm/src/errors.rs).

import { errorCode, errorDetail, errorMessage } from "./abi.js";

/** The message of the error the last call reported. */
export function coreMessage() {
  return errorMessage(errorCode(), errorDetail());
}
