// The resource side: FenceGuard, the high-water mark of one resource, and GuardMap, one per name.
//
// The hot paths (FenceGuard#admit, #check, #admitMany, GuardMap#admit) call the module's exports
// directly with the guard's index and the token as a bigint (an i64 parameter), and return one
// shared frozen object for an accepted token, so an accepted write allocates nothing.

import * as raw from "./fencepost_bg.js";
import {
  ADMIT_ADVANCED,
  ADMIT_CURRENT,
  ADMIT_FORGED,
  ADMIT_INVALID,
  ADMIT_MALFORMED,
  ADMIT_NO_GUARD,
  ADMIT_STALE,
  BATCH,
} from "./abi.js";
import { checkOptions, describe, freed, text } from "./common.js";
import { BIG_ENDIAN, W, area, memory, put, ready, second, words } from "./instance.js";
import { MAX_TEXT, badBigint, name, notA, token, u64, view } from "./checks.js";
import { coreMessage } from "./errors.js";
import { ACCEPTED, adopt, dropGuard, guards, orNull, release } from "./objects.js";
import { forgery, ringOf, signerOf } from "./signing.js";

/** Outcome codes of `admitMany`: bit 0 set means accepted. */
export const AdmitCode = Object.freeze({ Stale: ADMIT_STALE, Advanced: ADMIT_ADVANCED, Invalid: ADMIT_INVALID, Current: ADMIT_CURRENT });

const GUARD_KEYS = ["highest"];

/** A refusal (code not accepted) by guard `i`, or the error a freed guard gets. */
function refused(code, presented, i, what) {
  if (code === ADMIT_STALE) return { ok: false, reason: "stale", presented, highest: BigInt.asUintN(64, W.guard_highest(i)) };
  if (code === ADMIT_NO_GUARD) throw freed(what);
  return { ok: false, reason: "invalid", presented };
}

/** The high-water mark of one resource: refuses tokens older than the newest one accepted. */
export class FenceGuard {
  #i = -1;

  constructor(options) {
    ready();
    // Read once: a getter answers once.
    const { highest } = checkOptions("options", options, GUARD_KEYS);
    const h = highest === undefined || highest === null ? 0n : token("options.highest", highest);
    this.#i = adopt(guards, this, W.guard_new(h), "FenceGuard");
  }

  admit(token) {
    if (typeof token !== "bigint" || BigInt.asUintN(64, token) !== token) throw badBigint("token", token);
    const code = W.guard_admit(this.#i, token);
    if ((code & 1) === 1) return ACCEPTED;
    return refused(code, token, this.#i, "FenceGuard");
  }

  check(token) {
    if (typeof token !== "bigint" || BigInt.asUintN(64, token) !== token) throw badBigint("token", token);
    const code = W.guard_check(this.#i, token);
    if ((code & 1) === 1) return ACCEPTED;
    return refused(code, token, this.#i, "FenceGuard");
  }

  /**
   * Admits every token in order, in one call; returns one AdmitCode per token (in `out` if given).
   */
  admitMany(tokens, out) {
    const all = view(tokens, "BigUint64Array", BigUint64Array);
    if (all === null) throw notA("tokens", "BigUint64Array", BigUint64Array, tokens);
    const n = all.length;
    let codes;
    if (out === undefined) out = codes = new Uint8Array(n);
    else if ((codes = view(out, "Uint8Array", Uint8Array)) === null) throw notA("out", "Uint8Array", Uint8Array, out);
    else if (codes.length < n) throw new RangeError(`out must hold at least ${n} codes, got ${codes.length}`);
    if (this.#i < 0) throw freed("FenceGuard");
    for (let at = 0; at < n; at += BATCH) {
      const m = Math.min(BATCH, n - at);
      // The tokens into the input area, little-endian: their bytes as they are, unless the host
      // lays them out big-endian.
      const inAt = area(8 * m);
      if (BIG_ENDIAN) {
        memory();
        for (let k = 0; k < m; k++) words.setBigUint64(inAt + 8 * k, all[at + k], true);
      } else {
        new Uint8Array(W.memory.buffer, inAt, 8 * m).set(new Uint8Array(all.buffer, all.byteOffset + 8 * at, 8 * m));
      }
      const outAt = W.guard_admit_many(this.#i, m) >>> 0;
      // Refused only for memory, and then before any token of this batch (the first: later
      // ones fit the same room).
      if (outAt === 0) throw new RangeError(coreMessage());
      codes.set(new Uint8Array(W.memory.buffer, outAt, m), at);
    }
    return out;
  }

  /** Verifies a signed `Fencing-Token` value for `lock` (with a TokenSigner or a KeyRing), then admits its token. */
  admitSigned(signer, lock, header) {
    const si = signerOf(signer) ?? ringOf(signer);
    if (si === null) throw new TypeError(`signer must be a TokenSigner or a KeyRing, got ${describe(signer)}`);
    name("lock", lock);
    text("header", header, MAX_TEXT);
    if (this.#i < 0) throw freed("FenceGuard");
    const code = raw.guard_admit_signed(this.#i, si, put(lock, header), second);
    if ((code & 1) === 1) return ACCEPTED;
    if (code === ADMIT_FORGED) return forgery();
    if (code === ADMIT_MALFORMED) throw new RangeError(`header is not a signed token: ${coreMessage()}`);
    return refused(code, BigInt(header.slice(0, header.indexOf("."))), this.#i, "FenceGuard");
  }

  get highest() {
    if (this.#i < 0) throw freed("FenceGuard");
    return orNull(BigInt.asUintN(64, W.guard_highest(this.#i)));
  }

  free() {
    this.#i = release(guards, this, dropGuard, this.#i);
  }
}

/** Gives every guard of a collected GuardMap back. */
const guardMaps =
  typeof FinalizationRegistry === "function"
    ? new FinalizationRegistry((index) => {
        for (const i of index.values()) dropGuard(i);
      })
    : null;

/** A guard that has seen nothing, made once and never advanced: what the core says of a token for
 * a resource a GuardMap has no guard for yet (checked there, never admitted). */
let freshGuard = -1;

function fresh() {
  if (freshGuard === -1) freshGuard = adopt(null, null, W.guard_new(0n), "GuardMap");
  return freshGuard;
}

/** One guard per resource name. */
export class GuardMap {
  #index = new Map();
  #freed = false;

  constructor() {
    ready();
    guardMaps?.register(this, this.#index, this);
  }

  #slot(resource, create) {
    let i = this.#index.get(resource);
    if (i === undefined) {
      name("resource", resource);
      if (this.#freed) throw freed("GuardMap");
      if (!create) return -1;
      i = adopt(null, this, W.guard_new(0n), "GuardMap");
      this.#index.set(resource, i);
    }
    return i;
  }

  admit(resource, token) {
    if (typeof token !== "bigint" || BigInt.asUintN(64, token) !== token) throw badBigint("token", token);
    // A token a guard that has seen nothing refuses (0) makes no guard for a new resource.
    if (this.#slot(resource, false) === -1) {
      const code = W.guard_check(fresh(), token);
      if ((code & 1) !== 1) return refused(code, token, fresh(), "GuardMap");
    }
    const i = this.#slot(resource, true);
    const code = W.guard_admit(i, token);
    if ((code & 1) === 1) return ACCEPTED;
    return refused(code, token, i, "GuardMap");
  }

  check(resource, token) {
    u64("token", token);
    const slot = this.#slot(resource, false);
    const i = slot === -1 ? fresh() : slot;
    const code = W.guard_check(i, token);
    if ((code & 1) === 1) return ACCEPTED;
    return refused(code, token, i, "GuardMap");
  }

  highest(resource) {
    const i = this.#slot(resource, false);
    return i === -1 ? null : orNull(BigInt.asUintN(64, W.guard_highest(i)));
  }

  get size() {
    return this.#index.size;
  }

  /**
   * Forgets `resource`'s guard and frees its memory; whether it had one. Only for a resource that
   * no longer exists: a forgotten resource admits any token again, a stale owner's included.
   */
  delete(resource) {
    const i = this.#slot(resource, false);
    if (i === -1) return false;
    this.#index.delete(resource);
    dropGuard(i);
    return true;
  }

  /** Every resource with its highest token, in the order they were first seen. */
  entries() {
    if (this.#freed) throw freed("GuardMap");
    const out = [];
    for (const [k, i] of this.#index) out.push([k, orNull(BigInt.asUintN(64, W.guard_highest(i)))]);
    return out;
  }

  free() {
    if (!this.#freed) {
      for (const i of this.#index.values()) dropGuard(i);
      this.#index.clear();
      guardMaps?.unregister(this);
      this.#freed = true;
    }
  }
}
