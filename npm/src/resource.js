// Idempotent writes: FencedResource in this process, and decideStoredWrite for stores that keep
// the mark beside their data.

import * as raw from "./fencepost_bg.js";
import {
  LEDGER_CAPACITY,
  WRITE_APPLIED,
  WRITE_DUPLICATE,
  WRITE_STALE,
  ledgerHighest,
  ledgerRemembered,
  staleHighest,
  writtenSlot,
} from "./abi.js";
import { describe, freed } from "./common.js";
import { W, ready } from "./instance.js";
import { token, u64 } from "./checks.js";
import { ACCEPTED, adopt, dropResource, orNull, release, resources } from "./objects.js";

// Idempotency.

/** The outcome slot of an operation whose apply has not returned yet. */
const APPLYING = Object.freeze({ failed: false, outcome: undefined });

function opId(v) {
  if (typeof v === "number") {
    if (!Number.isSafeInteger(v) || v < 0) {
      throw new RangeError(`opId must be a whole number from 0 to 2^53 - 1 or a bigint, got ${describe(v)}`);
    }
    return BigInt(v);
  }
  if (typeof v !== "bigint") throw new TypeError(`opId must be a bigint or a number, got ${describe(v)}`);
  return u64("opId", v);
}

/**
 * A guard plus an idempotency ledger: a retried operation is applied at most once, and a stale
 * owner's operation never.
 */
export class FencedResource {
  #i = -1;
  #outcomes = new Map();

  constructor() {
    ready();
    this.#i = adopt(resources, this, W.resource_new(), "FencedResource");
  }

  #live() {
    if (this.#i < 0) throw freed("FencedResource");
    return this.#i;
  }

  write(token, op, apply) {
    u64("token", token);
    const id = opId(op);
    if (typeof apply !== "function") throw new TypeError(`apply must be a function, got ${describe(apply)}`);
    switch (raw.resource_write(this.#live(), token, id)) {
      case WRITE_APPLIED: {
        const slot = writtenSlot();
        this.#outcomes.delete((slot - LEDGER_CAPACITY) >>> 0);
        // Marked until apply returns: a write of the same operation from inside apply finds it.
        this.#outcomes.set(slot, APPLYING);
        let outcome;
        try {
          outcome = apply();
        } catch (error) {
          this.#outcomes.set(slot, { failed: true, error });
          throw error;
        }
        this.#outcomes.set(slot, { failed: false, outcome });
        return { ok: true, applied: true, outcome };
      }
      case WRITE_DUPLICATE: {
        const first = this.#outcomes.get(writtenSlot());
        if (first === APPLYING) {
          throw new TypeError(`op ${id} is still being applied: its apply called write for the same operation`);
        }
        if (first === undefined) throw new Error("fencepost: the first outcome of this operation is missing");
        if (first.failed) throw first.error;
        return { ok: true, applied: false, outcome: first.outcome };
      }
      case WRITE_STALE:
        return { ok: false, reason: "stale", presented: token, highest: staleHighest() };
      default:
        return { ok: false, reason: "invalid", presented: token };
    }
  }

  get highest() {
    raw.resource_state(this.#live());
    return orNull(ledgerHighest());
  }

  /** Operations the ledger remembers (at most `capacity`). */
  get size() {
    raw.resource_state(this.#live());
    return ledgerRemembered();
  }

  get capacity() {
    return LEDGER_CAPACITY;
  }

  free() {
    this.#i = release(resources, this, dropResource, this.#i);
    this.#outcomes.clear();
  }
}

// Fenced stores: the mark and the idempotency entries live beside the data, not in this process.

/**
 * What a store may do with a write, decided by the core from what the store read for the key:
 * `highest`, its mark (null: nothing written yet), and `recorded`, the token it holds for the
 * write's idempotency key (null: no key, or never seen). `{ ok: true }` means write the data with
 * `token` as the new mark, in the same atomic step as the read.
 */
export function decideStoredWrite(highest, tok, recorded = null) {
  ready();
  const h = highest === null ? 0n : token("highest", highest);
  const r = recorded === null ? 0n : token("recorded", recorded);
  u64("token", tok);
  switch (W.store_decide(h, r, tok)) {
    case WRITE_APPLIED:
      return ACCEPTED;
    case WRITE_DUPLICATE:
      return { ok: false, reason: "duplicate", presented: tok };
    case WRITE_STALE:
      return { ok: false, reason: "stale", presented: tok, highest: staleHighest() };
    default:
      return { ok: false, reason: "invalid", presented: tok };
  }
}
