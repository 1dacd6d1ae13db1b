// The lease service's HTTP API: which endpoint a request asks for, with its names checked.
//
//   POST /locks/:name/acquire  {ttlMs?, leaseId?}        -> 200 {token, header, leaseId, expiresAt}
//                                                           | 409 {error: "held", until}
//   POST /locks/:name/renew    {leaseId, token, ttlMs?}  -> 200 {token, header, leaseId, expiresAt}
//                                                           | 403 | 409 {error: "lost: ..."}
//   POST /locks/:name/release  {leaseId, token}          -> 200 {released, depth} | 403 | 409
//   GET  /locks/:name          -> 200 {state: "free"} | {state: "held", until}
//   PUT  /docs/:key  (header Fencing-Token: a signed header, UTF-8 body)
//                    -> 200 {token, highest} | 409 {presented, highest} | 400 | 401 | 403
//   GET  /docs/:key  -> 200 {data, token} | 404
//   GET  /metrics    -> Prometheus text
//
// Tokens travel as decimal strings (JSON numbers cannot hold every u64). Malformed input gets 400
// with {error: "<what is wrong>"}; a failure on the server's side (an engine that cannot answer, a
// stored state it cannot read) gets 503 or 500, never a 4xx that tells the client it was at fault.

import { HttpError } from "./http.js";

/** What a lock name, a document key and a writer's name may be. */
export const NAME = /^[A-Za-z0-9._~-]{1,128}$/;

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
