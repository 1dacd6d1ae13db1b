// LeaseKeeper: the holder's side of a lease, for the lease client.

import * as raw from "./fencepost_bg.js";
import {
  KEEPER_OP_GRANTED,
  KEEPER_OP_REFUSED,
  KEEPER_OP_RELEASED,
  KEEPER_OP_SEND,
  KEEPER_OP_STATE,
  KEEPER_OP_TRANSIENT,
  KEEPER_STATES,
  KEEPER_STATE_ERROR,
  KIND_KEEPER,
  LOSSES,
  keeperNextSend,
  keeperSafeUntil,
  keeperToken,
  lostWhy,
} from "./abi.js";
import { NONE, checkOptions, describe, freed, ms } from "./common.js";
import { ready } from "./instance.js";
import { token } from "./checks.js";
import { coreMessage } from "./errors.js";
import { adopt, cleanup, dropper, orNull, release } from "./objects.js";

// Keepers: the holder's side of a lease. The lease client (client.js) does the I/O and the
// timers; everything it decides, it asks a keeper.

const KEEPER_KEYS = ["ttlMs", "driftPpm", "marginMs", "renewPpm", "retryMs"];
const dropKeeper = dropper(KIND_KEEPER);
const keepers = cleanup(dropKeeper);

/** A ppm option: undefined (the core's default, -1 to the module) or a whole number to 1,000,000. */
function ppm(argName, v) {
  if (v === undefined) return -1;
  if (typeof v !== "number") throw new TypeError(`${argName} must be a number, got ${describe(v)}`);
  if (!Number.isInteger(v) || v < 0 || v > 1_000_000) {
    throw new RangeError(`${argName} must be a whole number of parts per million from 0 to 1000000, got ${describe(v)}`);
  }
  return v;
}

/** The state the module left in the record after a keeper call that answered `code`. */
function keeperState(code) {
  if (code === KEEPER_STATE_ERROR) throw new RangeError(coreMessage());
  const state = KEEPER_STATES[code];
  const safeUntil = keeperSafeUntil();
  const nextSend = keeperNextSend();
  return Object.freeze({
    state,
    token: orNull(keeperToken()),
    safeUntil: safeUntil < 0 ? null : safeUntil,
    nextSend: nextSend < 0 ? null : nextSend,
    why: state === "lost" ? LOSSES[lostWhy()] : null,
  });
}

/**
 * The holder's side of one lease (the core's keeper): fed with when each acquire or renewal was
 * sent and what came back, it says whether the lease may still be acted on, until when, and when
 * to renew. It reads no clock: every call takes `now`, in milliseconds of one monotonic clock.
 */
export class LeaseKeeper {
  #i = -1;

  constructor(options, now) {
    ready();
    const o = checkOptions("options", options, KEEPER_KEYS);
    if (o.ttlMs === undefined) throw new TypeError("options.ttlMs is required (the lease length in milliseconds)");
    const ttl = ms("options.ttlMs", o.ttlMs);
    const drift = ppm("options.driftPpm", o.driftPpm);
    const margin = o.marginMs === undefined ? -1 : ms("options.marginMs", o.marginMs);
    const renew = ppm("options.renewPpm", o.renewPpm);
    const retry = o.retryMs === undefined ? -1 : ms("options.retryMs", o.retryMs);
    const t = ms("now", now);
    this.#i = adopt(keepers, this, raw.keeper_new(ttl, t, drift, margin, renew, retry), "options");
  }

  #live() {
    if (this.#i < 0) throw freed("LeaseKeeper");
    return this.#i;
  }

  /** Records an acquire or renewal sent at `now`; answers the ticket to hand back with its answer. */
  send(now) {
    const t = ms("now", now);
    return raw.keeper_call(KEEPER_OP_SEND, this.#live(), 0, 0n, 0, t) >>> 0;
  }

  /** A grant of `token` for `ttlMs` answered ticket `ticket` at `now`; answers the state. */
  granted(ticket, tok, ttlMs, now) {
    const n = ticketOf(ticket);
    const tk = token("token", tok);
    const ttl = ms("ttlMs", ttlMs);
    const t = ms("now", now);
    return keeperState(raw.keeper_call(KEEPER_OP_GRANTED, this.#live(), n, tk, ttl, t));
  }

  /**
   * Ticket `ticket` failed at `now`: `"transient"` (no word on the lease: network, server error)
   * or `"refused"` (the lease is not this holder's); answers the state.
   */
  failed(ticket, failure, now) {
    const n = ticketOf(ticket);
    if (failure !== "transient" && failure !== "refused") {
      throw new TypeError(`failure must be "transient" or "refused", got ${describe(failure)}`);
    }
    const t = ms("now", now);
    const op = failure === "transient" ? KEEPER_OP_TRANSIENT : KEEPER_OP_REFUSED;
    return keeperState(raw.keeper_call(op, this.#live(), n, 0n, 0, t));
  }

  /** The holder lets go at `now`: lost for good; answers the state. */
  released(now) {
    const t = ms("now", now);
    return keeperState(raw.keeper_call(KEEPER_OP_RELEASED, this.#live(), 0, 0n, 0, t));
  }

  /** The state at `now`. */
  state(now) {
    const t = ms("now", now);
    return keeperState(raw.keeper_call(KEEPER_OP_STATE, this.#live(), 0, 0n, 0, t));
  }

  free() {
    this.#i = release(keepers, this, dropKeeper, this.#i);
  }
}

function ticketOf(v) {
  if (typeof v !== "number") throw new TypeError(`ticket must be a number a send() answered, got ${describe(v)}`);
  if (!Number.isInteger(v) || v < 0 || v >= NONE) throw new RangeError(`ticket must be a number a send() answered, got ${describe(v)}`);
  return v;
}
