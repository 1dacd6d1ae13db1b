// One lock operation, decided by fencepost's core on the lock's state as read: what to answer,
// whether the state changed (and so must be committed before the answer goes out: fencepost's
// contract for never re-issuing a token), when it may be deleted, and what to count once it is.
// Nothing here reads or writes storage; service.js does, through a backend.

import { LeaseAuthority, tokenFromString } from "fencepost";
import { HttpError } from "./http.js";

/** The authority's config, the same wherever it is restored. */
const AUTHORITY = Object.freeze({ ttlMs: 30_000 });

const LEASE_ID = /^[0-9a-f]{32}$/;

/**
 * A decision's answer, `{ status, body }`, made into a JSON Response only once it is sent (see
 * json in http.js): an acquire waiting for a lock is decided "held" again and again, and a
 * Response each time would cost more than the decision.
 */
const reply = (status, body) => ({ status, body });

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));
/** Random bytes for the next lease secrets, drawn 256 secrets at a time. */
let randomPool = new Uint8Array(0);
let randomAt = 0;

/**
 * A fresh lease secret: 128 random bits from the runtime's cryptographic generator, in hex. Every
 * acquire decided makes one, even one that finds the lock held; a call to the generator per
 * secret profiled as a few percent of a busy service's time, so its bytes are drawn in bulk.
 */
function newLeaseId() {
  if (randomAt === randomPool.length) {
    randomPool = crypto.getRandomValues(new Uint8Array(16 * 256));
    randomAt = 0;
  }
  let id = "";
  for (let i = 0; i < 16; i++) id += HEX[randomPool[randomAt++]];
  return id;
}

function leaseIdOf(body, required) {
  const id = body.leaseId;
  if (id === undefined && !required) return null;
  if (id === undefined) throw new HttpError(400, "leaseId is required");
  if (typeof id !== "string" || !LEASE_ID.test(id)) {
    throw new HttpError(400, "leaseId must be the 32 lowercase hex digits an acquire answered");
  }
  return id;
}

function tokenOf(body) {
  const t = body.token;
  if (t === undefined) throw new HttpError(400, "token is required");
  if (typeof t !== "string") throw new HttpError(400, "token must be a decimal string, like \"34\"");
  try {
    return tokenFromString(t);
  } catch (e) {
    throw new HttpError(400, `token ${JSON.stringify(t.slice(0, 40))} is malformed: ${e.message}`);
  }
}

function ttlOf(body, limits) {
  const t = body.ttlMs;
  if (t === undefined) return limits.defaultTtlMs;
  if (!Number.isSafeInteger(t) || t < 1 || t > limits.maxTtlMs) {
    throw new HttpError(400, `ttlMs must be a whole number from 1 to ${limits.maxTtlMs}`);
  }
  return t;
}

/**
 * The authority stored as `snapshot` (bytes or base64), or a fresh one whose first token comes
 * from the clock (`firstTokenAt`, the core's rule): a lock whose state was lost or deleted
 * resumes above every token its earlier state issued, as long as the clocks of the instances
 * that served it did not step back past that state's creation. The millisecond clock is the one
 * durable, increasing thing every host has even when a store is new or emptied.
 */
export function loadAuthority(snapshot, now) {
  if (snapshot == null) return new LeaseAuthority({ ...AUTHORITY, firstTokenAt: Math.floor(now) });
  return LeaseAuthority.restore(snapshot, AUTHORITY);
}

/** The answer to a grant: the token, the header that carries it signed, and the lease secret. */
function granted(limits, lock, leaseId, r) {
  return reply(200, { token: r.token, header: limits.ring.sign(lock, r.token), leaseId, expiresAt: r.expiresAt });
}

/**
 * The refusal of a renew or release the core turned down, as the core names it: 403 when the live
 * lease has the token but not this leaseId (the caller has the token but not its secret), else
 * 409: the caller's lease is over.
 */
function refusal(r) {
  if (r.reason === "notHolder") {
    return reply(403, { error: "forbidden: this leaseId does not hold the lease of this token" });
  }
  return reply(409, { error: "lost: no live lease with this leaseId and token" });
}

const unchanged = (response) => ({ changed: false, response, counted: [] });

function acquire(limits, auth, lock, body, now) {
  const ttlMs = ttlOf(body, limits);
  // Re-entry only for the secret of the live lease; anyone else gets a new lease or nothing.
  const asked = leaseIdOf(body, false);
  if (asked !== null && auth.lease(now)?.holder !== asked) {
    return unchanged(reply(409, { error: "lost: no live lease with this leaseId" }));
  }
  const leaseId = asked ?? newLeaseId();
  const r = auth.acquire(leaseId, now, { ttlMs });
  if (r.ok) return { changed: true, response: granted(limits, lock, leaseId, r), counted: ["grants"] };
  if (r.reason === "held" || r.reason === "lockDelay") {
    return { ...unchanged(reply(409, { error: "held", until: r.until })), held: r.until };
  }
  return unchanged(reply(409, { error: r.reason }));
}

function renew(limits, auth, lock, body, now) {
  const leaseId = leaseIdOf(body, true);
  const token = tokenOf(body);
  const ttlMs = ttlOf(body, limits);
  const r = auth.renew(leaseId, token, now, { ttlMs });
  return r.ok ? { changed: true, response: granted(limits, lock, leaseId, r), counted: ["renewals"] } : unchanged(refusal(r));
}

function release(auth, body, now) {
  const leaseId = leaseIdOf(body, true);
  const token = tokenOf(body);
  const r = auth.release(leaseId, token, now);
  if (!r.ok) return unchanged(refusal(r));
  const response = reply(200, { released: r.depth === 0 ? "free" : "held", depth: r.depth });
  return { changed: true, response, counted: ["releases"] };
}

/**
 * Checks a lock operation's body before anything changes, so a refused request leaves the lock
 * as it was; throws HttpError 400 for what is malformed.
 */
export function checkLockBody(limits, action, body) {
  if (action === "acquire") {
    leaseIdOf(body, false);
  } else {
    leaseIdOf(body, true);
    tokenOf(body);
  }
  if (action !== "release") ttlOf(body, limits);
}

/**
 * Applies one lock operation at `now`. Returns `{ response, changed, deleteAt, counted, held }`,
 * `response` as `{ status, body }`: when `changed`, the caller must commit `auth.snapshot()`
 * before sending `response`, and count `counted` only once that commit held. `held`: for an
 * acquire refused because another lease holds the lock (or its lock-delay runs), when that ends
 * (unix ms); else null. `deleteAt`: when the lock's state may be deleted if nothing changes it
 * meanwhile (see `deleteAt`).
 */
export function lockOp(limits, auth, lock, action, body, now) {
  checkLockBody(limits, action, body);
  // An expiry the authority notices is a change of its own: committed and counted with the op.
  const noticed = auth.expire(now) !== null;
  let op;
  if (action === "acquire") op = acquire(limits, auth, lock, body, now);
  else if (action === "renew") op = renew(limits, auth, lock, body, now);
  else op = release(auth, body, now);
  const counted = noticed ? ["expiries", ...op.counted] : op.counted;
  return { response: op.response, changed: op.changed || noticed, deleteAt: deleteAt(limits, auth, now), counted, held: op.held ?? null };
}

/**
 * When a lock's state may be deleted: `idleKeepMs` after its live lease ends, or after now. Every
 * change moves the time later, so a state whose time came unchanged has no live lease, and a lock
 * nobody holds costs no storage; a later acquire starts a fresh authority whose first token is
 * above every token of the deleted one (see `loadAuthority`).
 */
export function deleteAt(limits, auth, now) {
  return (auth.lease(now)?.expiresAt ?? now) + limits.idleKeepMs;
}

/** GET /locks/:name: free, or held until when. Never who holds it, nor the lease's secret. */
export function lockState(auth, now) {
  const live = auth.lease(now);
  return reply(200, live === null ? { state: "free" } : { state: "held", until: live.expiresAt });
}
