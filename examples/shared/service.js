// The HTTP API of the fenced lease service, shared by the Cloudflare and Deno hosts.
//
// Each host owns storage (Durable Object storage, Deno KV) and calls into this module to turn a
// request into a decision. Every lease, fence and signing rule runs in fencepost's WebAssembly
// core through the `fencepost` package; this module only validates input, maps results to HTTP,
// and tells the host what to persist. Documents are written through `fencepost/store`
// (documents.js), which fences them where they are stored.
//
//   POST /locks/:name/acquire  {ttlMs?, leaseId?}        -> 200 {token, header, leaseId, expiresAt}
//                                                           | 409 {error: "held", until}
//   POST /locks/:name/renew    {leaseId, token, ttlMs?}  -> 200 {token, header, leaseId, expiresAt}
//                                                           | 403 | 409 {error: "lost: ..."}
//   POST /locks/:name/release  {leaseId, token}          -> 200 {released, depth} | 403 | 409
//   GET  /locks/:name          -> 200 {state: "free"} | {state: "held", until}
//   PUT  /docs/:key  (header Fencing-Token: a signed header, UTF-8 body)
//                    -> 200 {token, highest} | 409 {presented, highest} | 401 | 403
//   GET  /docs/:key  -> 200 {data, token} | 404
//   GET  /metrics    -> Prometheus text
//
// Tokens travel as decimal strings (JSON numbers cannot hold every u64). Malformed input gets 400
// with {error: "<what is wrong>"}; a failure on the server's side (storage, a stored state it
// cannot read) gets 500 or 503, never a 4xx that tells the client its request was at fault.

import { LeaseAuthority, tokenFromHeader, tokenFromString } from "fencepost";
import { HttpError, json } from "./http.js";
import { count } from "./metrics.js";

/** The authority's config, the same wherever it is restored. */
const AUTHORITY = Object.freeze({ ttlMs: 30_000 });

const NAME = /^[A-Za-z0-9._~-]{1,128}$/;
const LEASE_ID = /^[0-9a-f]{32}$/;

/**
 * The lock that guards document `key`: the lock of the same name. Every signed write to a
 * document is verified against this lock, so a token granted for another lock is refused there.
 */
export function lockOfDocument(key) {
  return key;
}

/**
 * What a URL asks for, or null.
 * @returns {{ kind: "lock", name: string, action: string } | { kind: "lockState", name: string }
 *   | { kind: "doc", key: string } | { kind: "metrics" } | null}
 */
export function route(request) {
  const url = new URL(request.url);
  const parts = url.pathname.split("/").slice(1);
  const only = (method, what) => {
    if (request.method !== method) throw new HttpError(405, `use ${method} for ${what}`);
  };
  if (parts[0] === "locks" && parts.length === 3) {
    const [, name, action] = parts;
    if (!["acquire", "renew", "release"].includes(action)) return null;
    only("POST", `/locks/:name/${action}`);
    return { kind: "lock", name: checkName("lock name", decode(name)), action };
  }
  if (parts[0] === "locks" && parts.length === 2) {
    only("GET", "/locks/:name");
    return { kind: "lockState", name: checkName("lock name", decode(parts[1])) };
  }
  if (parts[0] === "docs" && parts.length === 2) {
    if (request.method !== "PUT" && request.method !== "GET") {
      throw new HttpError(405, "use GET or PUT for /docs/:key");
    }
    return { kind: "doc", key: checkName("document key", decode(parts[1])) };
  }
  if (parts[0] === "metrics" && parts.length === 1) {
    only("GET", "/metrics");
    return { kind: "metrics" };
  }
  return null;
}

function decode(s) {
  try {
    return decodeURIComponent(s);
  } catch {
    throw new HttpError(400, "the path is not valid percent-encoding");
  }
}

function checkName(what, s) {
  if (!NAME.test(s)) throw new HttpError(400, `${what} must be 1 to 128 of A-Z a-z 0-9 . _ ~ -`);
  return s;
}

/** A fresh lease secret: 128 random bits from the runtime's cryptographic generator, in hex. */
function newLeaseId() {
  const b = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
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

function ttlOf(body, settings) {
  const t = body.ttlMs;
  if (t === undefined) return settings.defaultTtlMs;
  if (!Number.isSafeInteger(t) || t < 1 || t > settings.maxTtlMs) {
    throw new HttpError(400, `ttlMs must be a whole number from 1 to ${settings.maxTtlMs}`);
  }
  return t;
}

/**
 * The authority stored as `snapshot` (bytes or base64), or a fresh one whose first token comes
 * from the clock (`firstTokenAt`, the core's rule): a lock whose state was lost or evicted
 * resumes above every token its earlier state issued, as long as the host's clock did not step
 * back past that state's creation. The millisecond clock is the one durable, increasing thing
 * both hosts have even when a store is new or emptied.
 */
export function loadAuthority(snapshot, now) {
  if (snapshot == null) return new LeaseAuthority({ ...AUTHORITY, firstTokenAt: Math.floor(now) });
  return LeaseAuthority.restore(snapshot, AUTHORITY);
}

/** The answer to a grant: the token, the header that carries it signed, and the lease secret. */
function granted(settings, lock, leaseId, r) {
  return json(200, { token: r.token, header: settings.ring.sign(lock, r.token), leaseId, expiresAt: r.expiresAt });
}

/**
 * The refusal of a renew or release the core turned down, as the core names it: 403 when the live
 * lease has the token but not this leaseId (the caller has the token but not its secret), else
 * 409: the caller's lease is over.
 */
function refusal(r) {
  if (r.reason === "notHolder") {
    return json(403, { error: "forbidden: this leaseId does not hold the lease of this token" });
  }
  return json(409, { error: "lost: no live lease with this leaseId and token" });
}

function acquire(settings, auth, lock, body, now) {
  const ttlMs = ttlOf(body, settings);
  // Re-entry only for the secret of the live lease; anyone else gets a new lease or nothing.
  const asked = leaseIdOf(body, false);
  if (asked !== null && auth.lease(now)?.holder !== asked) {
    return { changed: false, response: json(409, { error: "lost: no live lease with this leaseId" }) };
  }
  const leaseId = asked ?? newLeaseId();
  const r = auth.acquire(leaseId, now, { ttlMs });
  if (r.ok) {
    count("grants");
    return { changed: true, response: granted(settings, lock, leaseId, r) };
  }
  if (r.reason === "held" || r.reason === "lockDelay") {
    return { changed: false, response: json(409, { error: "held", until: r.until }) };
  }
  return { changed: false, response: json(409, { error: r.reason }) };
}

/**
 * Applies one lock operation at `now`. Returns the response, whether the authority changed (the
 * host must then persist `auth.snapshot()` before sending the response: that is fencepost's
 * contract for never re-issuing a token), and `deleteAt`: when the lock's state may be deleted.
 */
export function lockOp(settings, auth, lock, action, body, now) {
  // Checked before anything changes, so a refused request leaves the lock as it was.
  const leaseId = action === "acquire" ? null : leaseIdOf(body, true);
  const token = action === "acquire" ? null : tokenOf(body);
  const ttlMs = action === "renew" ? ttlOf(body, settings) : null;
  const noticed = noticeExpiry(auth, now);
  let op;
  if (action === "acquire") {
    op = acquire(settings, auth, lock, body, now);
  } else if (action === "renew") {
    const r = auth.renew(leaseId, token, now, { ttlMs });
    if (r.ok) count("renewals");
    op = r.ok
      ? { changed: true, response: granted(settings, lock, leaseId, r) }
      : { changed: false, response: refusal(r) };
  } else {
    const r = auth.release(leaseId, token, now);
    if (r.ok) count("releases");
    op = r.ok
      ? { changed: true, response: json(200, { released: r.depth === 0 ? "free" : "held", depth: r.depth }) }
      : { changed: false, response: refusal(r) };
  }
  return { changed: op.changed || noticed, response: op.response, deleteAt: deleteAt(settings, auth, now) };
}

/** Lets the authority notice a lease that expired by `now` (counted); says whether it changed. */
function noticeExpiry(auth, now) {
  const noticed = auth.expire(now) !== null;
  if (noticed) count("expiries");
  return noticed;
}

/**
 * When a lock's state may be deleted: `settings.idleKeepMs` after its live lease ends, or after
 * now. A host that finds no live lease at that time deletes the state (every change moves the
 * time later), so a lock nobody holds costs no storage; a later acquire starts a fresh authority
 * whose first token is above every token of the deleted one (see `firstTokenAt` in the package).
 */
export function deleteAt(settings, auth, now) {
  return (auth.lease(now)?.expiresAt ?? now) + settings.idleKeepMs;
}

/** Whether a lock's state may be deleted now (its time from `deleteAt` came): no live lease. */
export function idle(auth, now) {
  return auth.lease(now) === null;
}

/** GET /locks/:name: free, or held until when. Never who holds it, nor the lease's secret. */
export function lockState(auth, now) {
  const live = auth.lease(now);
  return json(200, live === null ? { state: "free" } : { state: "held", until: live.expiresAt });
}

/**
 * The token of a PUT to `key`, verified: its Fencing-Token must be a header the service signed for
 * the lock that guards `key`, with a key the service still has. Refused with 400 (not a token),
 * 401 (no signature, or not a signed token) or 403 (the signature does not verify).
 */
export function signedToken(settings, request, key) {
  const value = request.headers.get("fencing-token");
  if (value === null) throw new HttpError(400, "the Fencing-Token header is required");
  if (!value.includes(".")) {
    try {
      tokenFromHeader(value);
    } catch (e) {
      throw new HttpError(400, `Fencing-Token ${JSON.stringify(value.slice(0, 40))} is malformed: ${e.message}`);
    }
    count("invalid_rejections");
    throw new HttpError(401, "Fencing-Token must be signed: send the `header` the lock's acquire or renew answered");
  }
  let v;
  try {
    v = settings.ring.verify(lockOfDocument(key), value);
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    count("invalid_rejections");
    throw new HttpError(401, `Fencing-Token ${e.message}`);
  }
  if (v.ok) return v.token;
  count("forged_rejections");
  if (v.reason === "unknownKey") {
    throw new HttpError(403, `Fencing-Token is signed with key ${v.keyId}, which this service does not have`);
  }
  throw new HttpError(403, `Fencing-Token does not verify for lock ${JSON.stringify(lockOfDocument(key))}`);
}

/**
 * One line of the write log (JSON Lines, the input of `fencepost check`), printed when the
 * deployer set FENCEPOST_WRITE_LOG=1. `writer` is the request's optional Fencepost-Writer header:
 * the service cannot know who a client is, so a client that wants its writes told apart names
 * itself. The token is written as a bare integer: JSON numbers of 64 bits are exact for the checker.
 */
export function logWrite(settings, request, key, token, accepted, now) {
  if (!settings.writeLog) return;
  const named = request.headers.get("fencepost-writer");
  const writer = named !== null && NAME.test(named) ? named : "-";
  const line = `{"t":${Math.floor(now)},"resource":${JSON.stringify(key)},"writer":${JSON.stringify(writer)},"token":${token},"result":"${accepted ? "ok" : "rejected"}"}`;
  console.log(`fencepost-write ${line}`);
}
