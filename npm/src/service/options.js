// The options of a LeaseService, checked once when it is made: a service that cannot sign, or
// whose limits are nonsense, refuses to exist rather than serve open or wrong.

import { describe } from "../common.js";
import { corsOrigins } from "./cors.js";
import { MAX_BODY } from "./http.js";

/** Default and longest lease a client gets when the deployer sets nothing. */
export const DEFAULT_TTL_MS = 30_000;
export const DEFAULT_MAX_TTL_MS = 5 * 60 * 1000;
/** How long a lock's state is kept after its last lease ended, unless the deployer says. */
export const DEFAULT_IDLE_KEEP_MS = 60_000;
/**
 * The shortest idle keep: a fresh authority's first token comes from the clock in ms, so the state
 * it replaces must be older than the current millisecond (see loadAuthority in decide.js).
 */
export const MIN_IDLE_KEEP_MS = 1000;
/** Upper bound of a duration a deployer may set: a day. */
export const LONGEST_MS = 24 * 60 * 60 * 1000;
/**
 * The longest an acquire may wait in the service for a held lock, unless the deployer says: a
 * client asks a fraction of its lease's TTL (the lease's safe time counts from when it asked).
 */
export const DEFAULT_MAX_WAIT_MS = 10_000;
/** How many acquires one service object lets wait at once, in all and on one lock. */
export const DEFAULT_MAX_WAITERS = 1000;
export const DEFAULT_MAX_WAITERS_PER_LOCK = 64;
/** The most waiting acquires a deployer may allow: each holds a connection and a timer. */
const MOST_WAITERS = 100_000;

const KNOWN = ["keys", "locks", "documents", "maxTtlMs", "idleKeepMs", "corsOrigins", "writeLog", "maxDocumentBytes", "reportCounts", "maxWaitMs", "maxWaiters", "maxWaitersPerLock"];

function duration(name, v, fallback, min, max) {
  if (v === undefined) return fallback;
  if (!Number.isSafeInteger(v) || v < min || v > max) {
    throw new RangeError(`${name} must be a whole number of milliseconds from ${min} to ${max}, got ${describe(v)}`);
  }
  return v;
}

function count(name, v, fallback) {
  if (v === undefined) return fallback;
  if (!Number.isSafeInteger(v) || v < 0 || v > MOST_WAITERS) {
    throw new RangeError(`${name} must be a whole number from 0 to ${MOST_WAITERS}, got ${describe(v)}`);
  }
  return v;
}

function hasMethods(name, v, methods) {
  if (v === undefined) return undefined;
  for (const m of methods) {
    if (typeof v?.[m] !== "function") throw new TypeError(`${name} must have a ${m}() method, got ${describe(v)}`);
  }
  return v;
}

/** The write log's sink: nothing, the console (a line prefixed "fencepost-write "), or a function. */
function writeLogOf(v) {
  if (v === undefined || v === false) return null;
  if (v === true) return (line) => console.log(`fencepost-write ${line}`);
  if (typeof v === "function") return v;
  throw new TypeError(`writeLog must be a boolean or a function of one line, got ${describe(v)}`);
}

/** `options` checked and completed; throws TypeError / RangeError naming what is wrong. */
export function checkOptions(options) {
  if (options === null || typeof options !== "object") throw new TypeError(`options must be an object, got ${describe(options)}`);
  for (const k of Object.keys(options)) {
    if (!KNOWN.includes(k)) throw new TypeError(`unknown option ${JSON.stringify(k)}; known: ${KNOWN.join(", ")}`);
  }
  const ring = hasMethods("keys", options.keys, ["sign", "verify"]);
  if (ring === undefined) {
    throw new TypeError("keys is required: a KeyRing to sign tokens with (a service that cannot sign would hand out tokens anyone can forge)");
  }
  const locks = hasMethods("locks", options.locks, ["read", "commit"]);
  const documents = hasMethods("documents", options.documents, ["write", "read"]);
  if (locks === undefined && documents === undefined) throw new TypeError("a service needs locks (a lock backend), documents (a fencepost/store store) or both");
  const maxTtlMs = duration("maxTtlMs", options.maxTtlMs, DEFAULT_MAX_TTL_MS, 1, LONGEST_MS);
  const origins = options.corsOrigins ?? [];
  if (!Array.isArray(origins)) throw new TypeError(`corsOrigins must be an array of origins, got ${describe(origins)}`);
  return {
    ring,
    locks,
    documents,
    maxTtlMs,
    defaultTtlMs: Math.min(DEFAULT_TTL_MS, maxTtlMs),
    idleKeepMs: duration("idleKeepMs", options.idleKeepMs, DEFAULT_IDLE_KEEP_MS, MIN_IDLE_KEEP_MS, LONGEST_MS),
    corsOrigins: corsOrigins(origins),
    writeLog: writeLogOf(options.writeLog),
    maxDocumentBytes: duration("maxDocumentBytes", options.maxDocumentBytes, MAX_BODY, 0, MAX_BODY),
    reportCounts: options.reportCounts === true,
    maxWaitMs: duration("maxWaitMs", options.maxWaitMs, DEFAULT_MAX_WAIT_MS, 0, LONGEST_MS),
    maxWaiters: count("maxWaiters", options.maxWaiters, DEFAULT_MAX_WAITERS),
    maxWaitersPerLock: count("maxWaitersPerLock", options.maxWaitersPerLock, DEFAULT_MAX_WAITERS_PER_LOCK),
  };
}
