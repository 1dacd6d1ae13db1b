// HTTP plumbing of the lease service: typed refusals, JSON answers and bounded bodies. Nothing
// here knows about leases or tokens; the service decides, this file speaks HTTP.

import { BackendUnavailableError } from "./errors.js";

/** Largest request body read, in bytes. */
export const MAX_BODY = 64 * 1024;

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
 * with an HttpError) before it reaches fencepost or storage, so an engine that cannot answer is a
 * 503 the client may retry, and any other error is the server's: 500, logged for the operator.
 */
export async function answer(handler) {
  try {
    return await handler();
  } catch (e) {
    if (e instanceof HttpError) return json(e.status, { error: e.message });
    if (e instanceof BackendUnavailableError) return json(503, { error: `the lock store cannot answer now; try again (${e.message})` });
    console.error("fencepost service:", e);
    return json(500, { error: "internal error" });
  }
}

/** Largest body drained (read and dropped) before a refusal, so the client sees the 400. */
const DRAIN_LIMIT = 16 * 1024 * 1024;

/** Reads and drops what is left of a refused body (up to DRAIN_LIMIT), so the client can read the answer. */
async function drain(reader, seen) {
  let size = seen;
  while (size <= DRAIN_LIMIT) {
    const { done, value } = await reader.read();
    if (done) return;
    size += value.byteLength;
  }
  await reader.cancel();
}

/** A whole-input decoder (no `stream` option), so it keeps no state from one call to the next. */
const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * Reads at most `max` bytes of the body as UTF-8 text (a leading byte-order mark is kept). A body
 * that declares a larger Content-Length is refused before a byte of it is kept; one that turns out
 * longer while read is refused too. Neither is buffered, only drained.
 */
export async function readText(request, max = MAX_BODY) {
  // Made only when thrown: an Error's stack costs more than reading a small body.
  const tooLarge = () => new HttpError(400, `body is larger than ${max} bytes`);
  const declared = request.headers.get("content-length");
  if (declared !== null && !/^[0-9]{1,16}$/.test(declared)) throw new HttpError(400, "Content-Length is not a number");
  if (request.body === null) return "";
  const reader = request.body.getReader();
  if (declared !== null && Number(declared) > max) {
    if (Number(declared) > DRAIN_LIMIT) await reader.cancel();
    else await drain(reader, 0);
    throw tooLarge();
  }
  const chunks = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await drain(reader, size);
      throw tooLarge();
    }
    chunks.push(value);
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.byteLength;
  }
  try {
    return UTF8.decode(all);
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
