// What every class shares: its object in the module (known by index, given back on free() or
// collection) and the plain results that allocate nothing.

import { ERR_NO_MEMORY, KIND_GUARD, KIND_RESOURCE, KIND_RING, KIND_SIGNER, errorCode } from "./abi.js";
import { NONE } from "./common.js";
import { W } from "./instance.js";
import { coreMessage } from "./errors.js";

// Results. Accepted admissions share one frozen object: the hot path allocates nothing.

export const ACCEPTED = Object.freeze({ ok: true });
export const LOST = Object.freeze({ ok: false, reason: "lost" });
export const NOT_HOLDER = Object.freeze({ ok: false, reason: "notHolder" });
export const EXHAUSTED = Object.freeze({ ok: false, reason: "exhausted" });
export const FORGED = Object.freeze({ ok: false, reason: "forged" });

/** The module's "no object" index. */
export function orNull(t) {
  return t === 0n ? null : t;
}

// Objects. Each lives in a table inside the module and is known here by its index; it is given
// back when its owner calls free() or is garbage-collected.

/** A function that gives object `i` of `kind` back to the module. */
export function dropper(kind) {
  return (i) => W.free(kind, i);
}

export function cleanup(drop) {
  return typeof FinalizationRegistry === "function" ? new FinalizationRegistry((i) => drop(i)) : null;
}

export const dropGuard = dropper(KIND_GUARD);
export const dropResource = dropper(KIND_RESOURCE);
export const dropSigner = dropper(KIND_SIGNER);
export const dropRing = dropper(KIND_RING);
export const guards = cleanup(dropGuard);
export const resources = cleanup(dropResource);
export const signers = cleanup(dropSigner);
export const rings = cleanup(dropRing);

/** Why the module made no object: `what` was refused, or its memory cannot grow (said as such). */
export function refusal(what) {
  const message = coreMessage();
  return new RangeError(errorCode() === ERR_NO_MEMORY ? message : `${what}: ${message}`);
}

/** Registers a new object's index, or throws when the module made none. */
export function adopt(registry, owner, i, what) {
  i >>>= 0;
  if (i === NONE) throw refusal(what);
  registry?.register(owner, i, owner);
  return i;
}

export function release(registry, owner, drop, i) {
  if (i >= 0) {
    drop(i);
    registry?.unregister(owner);
  }
  return -1;
}
