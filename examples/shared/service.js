// The HTTP API of the fenced lease service, shared by the Cloudflare and Deno hosts.
//
// Each host owns storage (Durable Object storage, Deno KV) and calls into this module to turn a
// request into a decision. Every lease and fence rule runs in fencepost's WebAssembly core through
// the `fencepost` package; this module only validates input, maps results to HTTP, and tells the
// host what to persist.
//
//   POST /locks/:name/acquire  {holder, ttlMs?}  -> 200 {token, expiresAt} | 409 {holder, until}
//   POST /locks/:name/renew    {holder, token, ttlMs?} -> 200 {token, expiresAt} | 409 {error}
//   POST /locks/:name/release  {holder, token}   -> 200 {released, depth} | 409 {error}
//   PUT  /docs/:key  (header Fencing-Token, UTF-8 body) -> 200 {token} | 409 {presented, highest}
//   GET  /docs/:key  -> 200 {data, token} | 404
//
// Tokens travel as decimal strings (JSON numbers cannot hold every u64). Any malformed input gets
// 400 with {error: "<what is wrong>"}; a failure on the server's side (storage, a stored state it
// cannot read) gets 500 or 503, never a 4xx that tells the client its request was at fault.

import { FenceGuard, LeaseAuthority, tokenFromHeader, tokenFromString } from "fencepost";

/** Largest request body read, in bytes. */
export const MAX_BODY = 64 * 1024;
/** Default and largest lease length a client may ask for. */
export const DEFAULT_TTL_MS = 30_000;
export const MAX_TTL_MS = 24 * 60 * 60 * 1000;
/** The authority's config, the same wherever it is restored. */
export const AUTHORITY = Object.freeze({ ttlMs: DEFAULT_TTL_MS });

const NAME = /^[A-Za-z0-9._~-]{1,128}$/;

/** An error that becomes an HTTP response. */
export class HttpError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/** A JSON response; bigints become decimal strings. */
export function json(status, body) {
  const text = JSON.stringify(body, (_, v) => (typeof v === "bigint" ? v.toString() : v));
  return new Response(text, { status, headers: { "content-type": "application/json" } });
}

/**
 * Runs `handler`, turning thrown HttpErrors into responses. Every input is checked (and refused
 * with an HttpError) before it reaches fencepost or storage, so any other error is the server's:
 * 500, logged for the operator.
 */
export async function answer(handler) {
  try {
    return await handler();
  } catch (e) {
    if (e instanceof HttpError) return json(e.status, { error: e.message });
    console.error("fencepost service:", e);
    return json(500, { error: "internal error" });
  }
}

/**
 * What a URL asks for, or null.
 * @param {Request} request
 * @returns {{ kind: "lock", name: string, action: string } | { kind: "doc", key: string } | null}
 */
export function route(request) {
  const url = new URL(request.url);
  const parts = url.pathname.split("/").slice(1);
  if (parts[0] === "locks" && parts.length === 3) {
    const [, name, action] = parts;
    if (!["acquire", "renew", "release"].includes(action)) return null;
    if (request.method !== "POST") throw new HttpError(405, `use POST for /locks/:name/${action}`);
    return { kind: "lock", name: checkName("lock name", decode(name)), action };
  }
  if (parts[0] === "docs" && parts.length === 2) {
    if (request.method !== "PUT" && request.method !== "GET") {
      throw new HttpError(405, "use GET or PUT for /docs/:key");
    }
    return { kind: "doc", key: checkName("document key", decode(parts[1])) };
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

/** Largest body drained (read and dropped) before a refusal, so the client sees the 400. */
const DRAIN_LIMIT = 16 * 1024 * 1024;

/**
 * Reads at most `max` bytes of the body as UTF-8 text (a leading byte-order mark is kept). A longer
 * body is refused with 400; it is never buffered, only drained (up to DRAIN_LIMIT) so the client
 * can read the answer.
 */
export async function readText(request, max = MAX_BODY) {
  if (request.body === null) return "";
  const reader = request.body.getReader();
  const chunks = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      if (size > DRAIN_LIMIT) {
        await reader.cancel();
        break;
      }
      continue;
    }
    chunks.push(value);
  }
  if (size > max) throw new HttpError(400, `body is larger than ${max} bytes`);
  const all = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.byteLength;
  }
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(all);
  } catch {
    throw new HttpError(400, "body is not valid UTF-8");
  }
}

/** Reads a JSON object body. */
export async function readJson(request) {
  const text = await readText(request);
  let v;
  try {
    v = JSON.parse(text);
  } catch {
    throw new HttpError(400, "body is not valid JSON");
  }
  if (v === null || typeof v !== "object" || Array.isArray(v)) {
    throw new HttpError(400, "body must be a JSON object");
  }
  return v;
}

function holderOf(body) {
  const h = body.holder;
  if (h === undefined) throw new HttpError(400, "holder is required");
  if (typeof h !== "string" || h.length === 0 || h.length > 256) {
    throw new HttpError(400, "holder must be a string of 1 to 256 characters");
  }
  // JSON can spell a lone surrogate ("\ud800"); fencepost takes names as well-formed Unicode.
  if (!h.isWellFormed()) throw new HttpError(400, "holder must be well-formed Unicode (no lone surrogates)");
  return h;
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

function ttlOf(body) {
  const t = body.ttlMs;
  if (t === undefined) return DEFAULT_TTL_MS;
  if (!Number.isSafeInteger(t) || t < 1 || t > MAX_TTL_MS) {
    throw new HttpError(400, `ttlMs must be a whole number from 1 to ${MAX_TTL_MS}`);
  }
  return t;
}

/** The authority stored as `snapshot` (bytes or base64), or a fresh one. */
export function loadAuthority(snapshot) {
  return snapshot == null ? new LeaseAuthority(AUTHORITY) : LeaseAuthority.restore(snapshot, AUTHORITY);
}

/**
 * Applies one lock operation at `now`. Returns the response and whether the authority changed (the
 * host must then persist `auth.snapshot()` before sending the response: that is fencepost's
 * contract for never re-issuing a token).
 */
export function lockOp(auth, action, body, now) {
  const holder = holderOf(body);
  if (action === "acquire") {
    const r = auth.acquire(holder, now, { ttlMs: ttlOf(body) });
    if (r.ok) return { changed: true, response: json(200, { token: r.token, expiresAt: r.expiresAt }) };
    if (r.reason === "held") return { changed: false, response: json(409, { holder: r.holder, until: r.until }) };
    if (r.reason === "lockDelay") return { changed: false, response: json(409, { holder: null, until: r.until }) };
    return { changed: false, response: json(409, { error: r.reason }) };
  }
  const token = tokenOf(body);
  if (action === "renew") {
    const r = auth.renew(holder, token, now, { ttlMs: ttlOf(body) });
    if (r.ok) return { changed: true, response: json(200, { token: r.token, expiresAt: r.expiresAt }) };
    return { changed: false, response: json(409, { error: "lost: this holder no longer holds the lock with this token" }) };
  }
  const r = auth.release(holder, token, now);
  if (r.ok) {
    return { changed: true, response: json(200, { released: r.depth === 0 ? "free" : "held", depth: r.depth }) };
  }
  return { changed: false, response: json(409, { error: "lost: this holder no longer holds the lock with this token" }) };
}

/** The token of a PUT, from its Fencing-Token header. */
export function fencingToken(request) {
  const value = request.headers.get("fencing-token");
  if (value === null) throw new HttpError(400, "the Fencing-Token header is required");
  try {
    return tokenFromHeader(value);
  } catch (e) {
    throw new HttpError(400, `Fencing-Token ${JSON.stringify(value.slice(0, 40))} is malformed: ${e.message}`);
  }
}

/**
 * Decides a PUT against the stored high-water mark (`highest`, a decimal string or null). Returns
 * the response and, when accepted, the new mark to store in the same transaction as the data.
 */
export function docPut(highest, token) {
  const guard = new FenceGuard(highest == null ? undefined : { highest: BigInt(highest) });
  try {
    const v = guard.admit(token);
    if (!v.ok) {
      const body = v.reason === "stale" ? { presented: v.presented, highest: v.highest } : { error: v.reason };
      return { accepted: false, response: json(409, body) };
    }
    const mark = guard.highest.toString();
    return { accepted: true, highest: mark, response: json(200, { token, highest: mark }) };
  } finally {
    guard.free();
  }
}
