// Lease authorities: LeaseAuthority (one lock) and LockTable (many), over the module's authorities
// and lock tables.

import * as raw from "./fencepost_bg.js";
import {
  ACQUIRE_BAD_NAME,
  ACQUIRE_EXHAUSTED,
  ACQUIRE_GRANTED,
  ACQUIRE_HELD,
  ACQUIRE_LOCK_DELAY,
  ACQUIRE_REENTRY_LIMIT,
  CALL_ACQUIRE,
  CALL_EXPIRE,
  CALL_EXPIRED,
  CALL_EXPIRE_ALL,
  CALL_LEASE,
  CALL_REFUSED,
  CALL_RELEASE,
  CALL_RENEW,
  CALL_SNAPSHOT,
  KIND_AUTHORITY,
  KIND_TABLE,
  LEASE_DONE,
  LEASE_NOT_HOLDER,
  MAX_SNAPSHOT_BYTES,
  countersClamps,
  countersFreeAt,
  countersLastIssued,
  countersLatest,
  countersNextToken,
  countersReservedThrough,
  errorCode,
  expiredAt,
  expiredFreeAt,
  expiredHolder,
  expiredToken,
  grantedExpiresAt,
  grantedToken,
  heldHolder,
  heldUntil,
  isConfigError,
  leaseDepth,
  leaseExpiresAt,
  leaseGrantedAt,
  leaseHolder,
  leaseToken,
  lockDelayUntil,
  locksCount,
  outputAt,
  reentryLimitMax,
  releasedDepth,
  renewedExpiresAt,
  renewedToken,
  tableExpiryAt,
  tableExpiryFreeAt,
  tableExpiryHolder,
  tableExpiryLock,
  tableExpiryToken,
} from "./abi.js";
import { NONE, checkOptions, describe, freed, ms } from "./common.js";
import { bytesAt, put, putBytes, ready, second } from "./instance.js";
import { bytes, name, token } from "./checks.js";
import { coreMessage } from "./errors.js";
import { EXHAUSTED, LOST, NOT_HOLDER, adopt, cleanup, dropper, orNull, refusal, release } from "./objects.js";

const CONFIG_KEYS = ["ttlMs", "firstToken", "firstTokenAt", "lockDelayMs", "maxReentry", "reserveBlock"];
const TTL_KEYS = ["ttlMs"];

function config(v) {
  if (v === undefined) throw new TypeError("options must be an object with ttlMs, got undefined");
  // Each option is read once: a getter answers once.
  const { ttlMs, firstToken, firstTokenAt, lockDelayMs, maxReentry, reserveBlock } = checkOptions("options", v, CONFIG_KEYS);
  if (ttlMs === undefined) throw new TypeError("options.ttlMs is required (the lease length in milliseconds)");
  const ttl = ms("options.ttlMs", ttlMs);
  if (firstToken !== undefined && firstTokenAt !== undefined) {
    throw new TypeError("options.firstToken and options.firstTokenAt name the first token twice: give one");
  }
  let first = firstToken === undefined ? 1n : token("options.firstToken", firstToken);
  // The core's rule for a host that may lose a lock's state: the first token from the clock.
  if (firstTokenAt !== undefined) first = raw.token_first_at(ms("options.firstTokenAt", firstTokenAt));
  const delay = lockDelayMs === undefined ? 0 : ms("options.lockDelayMs", lockDelayMs);
  let reentry = 0xffff_ffff;
  if (maxReentry !== undefined) {
    reentry = maxReentry;
    if (typeof reentry !== "number") throw new TypeError(`options.maxReentry must be a number, got ${describe(reentry)}`);
    if (!Number.isInteger(reentry) || reentry < 0 || reentry > 0xffff_ffff) {
      throw new RangeError(`options.maxReentry must be a whole number from 1 to 4294967295, got ${describe(reentry)}`);
    }
  }
  let block = 1;
  if (reserveBlock !== undefined) {
    block = reserveBlock;
    if (typeof block !== "number") throw new TypeError(`options.reserveBlock must be a number, got ${describe(block)}`);
    if (!Number.isSafeInteger(block) || block < 1) {
      throw new RangeError(`options.reserveBlock must be a whole number of tokens from 1 to 2^53 - 1, got ${describe(block)}`);
    }
  }
  // In the order the module's lock_new takes them.
  return [first, ttl, delay, reentry, block];
}

function ttlOf(v) {
  if (v === undefined) return -1;
  const ttl = checkOptions("options", v, TTL_KEYS).ttlMs;
  // 0 is the core's to judge (it treats a per-lease length of 0 as 1 ms).
  return ttl === undefined ? -1 : ms("options.ttlMs", ttl);
}

function snapshotBytes(v) {
  if (typeof v === "string") return fromBase64(v);
  return bytes("snapshot", v, MAX_SNAPSHOT_BYTES);
}

// Base64 digits, then at most two `=`; the length is checked apart (a regex that counts groups of
// four recurses per group and overflows the stack on a string of a few million characters).
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function fromBase64(s) {
  if (s.length > ((MAX_SNAPSHOT_BYTES + 2) / 3) * 4) {
    throw new RangeError(`snapshot must be at most ${MAX_SNAPSHOT_BYTES} bytes, got a string of ${s.length} characters`);
  }
  if (s.length % 4 !== 0 || !BASE64.test(s)) throw new RangeError("snapshot must be a base64 string (as snapshotString() returns)");
  const bin = atob(s);
  if (bin.length > MAX_SNAPSHOT_BYTES) {
    throw new RangeError(`snapshot must be at most ${MAX_SNAPSHOT_BYTES} bytes, got ${bin.length}`);
  }
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

function toBase64(b) {
  let bin = "";
  for (let i = 0; i < b.length; i += 0x8000) {
    bin += String.fromCharCode.apply(null, b.subarray(i, i + 0x8000));
  }
  return btoa(bin);
}

/** Why a restore made nothing: the options (the config's error codes) or the snapshot. */
function restored(i) {
  if (i >>> 0 !== NONE) return i;
  throw refusal(isConfigError(errorCode()) ? "options" : "snapshot");
}

/** The snapshot a call left in the output area (`n` bytes; none: why). */
function snapshotOf(n) {
  if (n === 0) throw new RangeError(`snapshot: ${coreMessage()}`);
  return bytesAt(outputAt(), n);
}

/**
 * A time the module reports. Past 2^53 - 1 (a lease or delay that outlasts any time a caller can
 * pass) it is Infinity rather than a rounded number that would be refused when passed back.
 */
function time(t) {
  return t <= Number.MAX_SAFE_INTEGER ? t : Infinity;
}

function acquired(code) {
  switch (code) {
    case ACQUIRE_GRANTED:
      return { ok: true, token: grantedToken(), expiresAt: time(grantedExpiresAt()) };
    case ACQUIRE_HELD:
      return { ok: false, reason: "held", holder: heldHolder(), until: time(heldUntil()) };
    case ACQUIRE_LOCK_DELAY:
      return { ok: false, reason: "lockDelay", until: time(lockDelayUntil()) };
    case ACQUIRE_REENTRY_LIMIT:
      return { ok: false, reason: "reentryLimit", max: reentryLimitMax() };
    case ACQUIRE_EXHAUSTED:
      return EXHAUSTED;
    case ACQUIRE_BAD_NAME:
      throw new RangeError(coreMessage());
    default:
      throw new Error(`fencepost: unknown acquire result ${code}`);
  }
}

/** A refused renew or release: another holder's live lease has the token, or none has. */
function leaseRefusal(code) {
  return code === LEASE_NOT_HOLDER ? NOT_HOLDER : LOST;
}

function renewed(code) {
  return code === LEASE_DONE ? { ok: true, token: renewedToken(), expiresAt: time(renewedExpiresAt()) } : leaseRefusal(code);
}

function released(code) {
  return code === LEASE_DONE ? { ok: true, depth: releasedDepth() } : leaseRefusal(code);
}

function expired(code) {
  if (code === 0) return null;
  return { holder: expiredHolder(), token: expiredToken(), at: time(expiredAt()), freeAt: time(expiredFreeAt()) };
}

function leaseOf(code) {
  if (code === 0) return null;
  return {
    holder: leaseHolder(),
    token: leaseToken(),
    grantedAt: time(leaseGrantedAt()),
    expiresAt: time(leaseExpiresAt()),
    depth: leaseDepth(),
  };
}

/**
 * The module's `lock_call`, with its one refusal for every operation thrown: the module's memory
 * cannot hold what the call allocates (it changed nothing).
 */
function lockCall(op, i, lock, holder, tok, now, ttl) {
  const answer = raw.lock_call(op, i, lock, holder, tok, now, ttl);
  if (answer === CALL_REFUSED) throw new RangeError(coreMessage());
  return answer;
}

/** A kind of lock object in the module, with what gives one back (its class's name for errors). */
function lockKind(kind, className) {
  const drop = dropper(kind);
  return { kind, className, drop, registry: cleanup(drop) };
}

const AUTHORITIES = lockKind(KIND_AUTHORITY, "LeaseAuthority");
const TABLES = lockKind(KIND_TABLE, "LockTable");

/** The module index behind a live LeaseAuthority or LockTable (set by Locks). */
let lockIndex;
/** Restores a snapshot into the module: the next Locks made (of that kind) takes the object. */
let restoring;

/**
 * What LeaseAuthority and LockTable share: their object in the module, made from options or
 * restored from a snapshot, their counters, their snapshot and their end. Their lock calls differ
 * only in whether a lock name goes with the holder, so each class writes its own.
 */
class Locks {
  #i = -1;
  #of;

  /** The index `restoring` hands to the next constructor (-1: make one from the options). */
  static #restored = -1;

  static {
    lockIndex = (o) => o.#live();
    restoring = (of, snapshot, options) => {
      ready();
      const cfg = config(options);
      const b = snapshotBytes(snapshot);
      Locks.#restored = restored(raw.lock_new(of.kind === KIND_TABLE, true, putBytes(b), ...cfg));
    };
  }

  constructor(of, options) {
    ready();
    this.#of = of;
    const i = Locks.#restored;
    if (i >= 0) {
      Locks.#restored = -1;
      this.#i = adopt(of.registry, this, i, "snapshot");
      return;
    }
    this.#i = adopt(of.registry, this, raw.lock_new(of.kind === KIND_TABLE, false, 0, ...config(options)), "options");
  }

  #live() {
    if (this.#i < 0) throw freed(this.#of.className);
    return this.#i;
  }

  /** The object's counters into the module's record. */
  #state() {
    raw.lock_state(this.#live());
  }

  get nextToken() {
    this.#state();
    return orNull(countersNextToken());
  }

  get lastIssued() {
    this.#state();
    return orNull(countersLastIssued());
  }

  get reservedThrough() {
    this.#state();
    return countersReservedThrough();
  }

  get latestNow() {
    this.#state();
    return time(countersLatest());
  }

  get clamps() {
    this.#state();
    return countersClamps();
  }

  snapshot() {
    return snapshotOf(lockCall(CALL_SNAPSHOT, this.#live(), 0, 0, 0n, 0, -1));
  }

  snapshotString() {
    return toBase64(this.snapshot());
  }

  free() {
    this.#i = release(this.#of.registry, this, this.#of.drop, this.#i);
  }
}

/** The lease authority for one lock: grants leases with strictly increasing fencing tokens. */
export class LeaseAuthority extends Locks {
  constructor(options) {
    super(AUTHORITIES, options);
  }

  /** An authority resuming from `snapshot()` or `snapshotString()`: it never re-issues a token. */
  static restore(snapshot, options) {
    restoring(AUTHORITIES, snapshot, options);
    return new LeaseAuthority();
  }

  acquire(holder, now, options) {
    const h = name("holder", holder);
    const t = ms("now", now);
    const ttl = ttlOf(options);
    // After the options: their getters may free this object.
    const i = lockIndex(this);
    return acquired(lockCall(CALL_ACQUIRE, i, 0, put(h), 0n, t, ttl));
  }

  renew(holder, tok, now, options) {
    const h = name("holder", holder);
    const tk = token("token", tok);
    const t = ms("now", now);
    const ttl = ttlOf(options);
    const i = lockIndex(this);
    return renewed(lockCall(CALL_RENEW, i, 0, put(h), tk, t, ttl));
  }

  release(holder, tok, now) {
    const i = lockIndex(this);
    return released(lockCall(CALL_RELEASE, i, 0, put(name("holder", holder)), token("token", tok), ms("now", now), -1));
  }

  expire(now) {
    return expired(lockCall(CALL_EXPIRE, lockIndex(this), 0, 0, 0n, ms("now", now), -1));
  }

  lease(now) {
    return leaseOf(lockCall(CALL_LEASE, lockIndex(this), 0, 0, 0n, ms("now", now), -1));
  }

  get freeAt() {
    raw.lock_state(lockIndex(this));
    return time(countersFreeAt());
  }
}

/** A lease authority for many named locks; all of them share one token sequence. */
export class LockTable extends Locks {
  constructor(options) {
    super(TABLES, options);
  }

  static restore(snapshot, options) {
    restoring(TABLES, snapshot, options);
    return new LockTable();
  }

  acquire(lock, holder, now, options) {
    const l = name("lock", lock);
    const h = name("holder", holder);
    const t = ms("now", now);
    const ttl = ttlOf(options);
    // After the options: their getters may free this object.
    const i = lockIndex(this);
    return acquired(lockCall(CALL_ACQUIRE, i, put(l, h), second, 0n, t, ttl));
  }

  renew(lock, holder, tok, now, options) {
    const l = name("lock", lock);
    const h = name("holder", holder);
    const tk = token("token", tok);
    const t = ms("now", now);
    const ttl = ttlOf(options);
    const i = lockIndex(this);
    return renewed(lockCall(CALL_RENEW, i, put(l, h), second, tk, t, ttl));
  }

  release(lock, holder, tok, now) {
    const i = lockIndex(this);
    return released(lockCall(CALL_RELEASE, i, put(name("lock", lock), name("holder", holder)), second, token("token", tok), ms("now", now), -1));
  }

  expire(lock, now) {
    const i = lockIndex(this);
    return expired(lockCall(CALL_EXPIRE, i, put(name("lock", lock)), 0, 0n, ms("now", now), -1));
  }

  expireAll(now) {
    const i = lockIndex(this);
    const n = lockCall(CALL_EXPIRE_ALL, i, 0, 0, 0n, ms("now", now), -1);
    const out = [];
    for (let k = 0; k < n; k++) {
      lockCall(CALL_EXPIRED, i, k, 0, 0n, 0, -1);
      out.push({
        lock: tableExpiryLock(),
        holder: tableExpiryHolder(),
        token: tableExpiryToken(),
        at: time(tableExpiryAt()),
        freeAt: time(tableExpiryFreeAt()),
      });
    }
    return out;
  }

  lease(lock, now) {
    const i = lockIndex(this);
    return leaseOf(lockCall(CALL_LEASE, i, put(name("lock", lock)), 0, 0n, ms("now", now), -1));
  }

  /** Locks the table remembers. */
  get size() {
    raw.lock_state(lockIndex(this));
    return locksCount();
  }
}
