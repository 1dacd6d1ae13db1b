// The errors the simulator's module reports, as TypeError and RangeError.

import { R } from "./instance.js";

/** The module's error kinds (`kind` in crates/fencepost-sim-wasm/src/failure.rs). */
const KIND_TYPE = 1;
export const KIND_MEMORY = 3;

/** The module reported that its memory cannot grow as far as the call needed. */
export const NO_MEMORY =
  "fencepost/sim: the simulator's memory cannot grow as far as this call may need: free() runs, sweeps, searches and history checkers no longer needed";

/**
 * The error the module reported for its last call, naming the argument and field. `parts` are the
 * call's object arguments: `[argName, value]` (the plain copy), value undefined for a value the
 * package made itself.
 */
export function failure(...parts) {
  const kind = R.error_kind();
  if (kind === KIND_MEMORY) return new RangeError(NO_MEMORY);
  const message = R.error_message();
  let [arg, value] = parts[R.error_part()] ?? parts[0] ?? [null, undefined];
  let field = R.error_field();
  if (field === "scope" || field.startsWith("scope.") || field.startsWith("scope[")) arg = "options";
  else if (value !== undefined && /\.(min|max)$/.test(field)) {
    // A range given as a plain number: the validator names its `min`, the caller wrote one number.
    let v = value;
    for (const k of field.slice(0, field.lastIndexOf(".")).split(/\.|\[(\d+)\]/)) if (k) v = v?.[k];
    if (typeof v === "number" || typeof v === "bigint") field = field.slice(0, field.lastIndexOf("."));
  }
  const full = arg === null ? message : field === "" ? `${arg}: ${message}` : `${arg}.${field}: ${message}`;
  return kind === KIND_TYPE ? new TypeError(full) : new RangeError(full);
}
