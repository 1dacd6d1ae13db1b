// The service's documents, fenced where they are stored: through `fencepost/store`, which reads a
// document's high-water mark, lets fencepost's core decide, and writes text and mark in one
// atomic step (a Durable Object SQL transaction on Cloudflare, a versionstamp check on Deno KV).
//
// The store is given the token `signedToken` (service.js) already verified with the service's
// KeyRing for the document's lock, not the signed header: the service answers each kind of bad
// signature with its own status and names a removed key, which a store's signer, answering only
// "forged", cannot tell apart. So the store is built without a signer and takes a bare token,
// which is safe only because nothing but a verified token ever reaches it.

import { tokenFromString } from "fencepost";
import { DenoKvStore, DurableObjectSqlStore } from "fencepost/store";
import { json } from "./http.js";
import { count } from "./metrics.js";

/** The table of a document's Durable Object (one object per document, so one row). */
const TABLE = "document";
/**
 * The Deno KV key parts before a document's key. Not ["doc"]: documents stored there by earlier
 * versions have another shape, which a store would take for an empty entry (see adoptDoc).
 */
const PREFIX = ["document"];

/** The fenced documents of a Durable Object's SQL storage (`ctx.storage`). */
export function durableObjectDocs(storage) {
  return new DurableObjectSqlStore(storage, { table: TABLE });
}

/** Whether `durableObjectDocs(storage)` has its table: a GET must not create state. */
export function hasDocTable(storage) {
  return storage.sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", TABLE).toArray().length > 0;
}

/** The fenced documents of a Deno KV store. */
export function denoKvDocs(kv) {
  return new DenoKvStore(kv, { prefix: PREFIX });
}

/**
 * Writes a PUT's text `data` to document `key` with a verified `token`. Returns the response and
 * whether the write was accepted: 200 {token, highest}, or 409 {presented, highest} for a token
 * below the document's mark.
 */
export async function docPut(store, key, token, data) {
  const v = await store.write(key, token, data);
  if (v.ok) {
    // The store keeps an accepted write's token as the document's mark.
    return { accepted: true, response: json(200, { token, highest: token }) };
  }
  if (v.reason === "stale") {
    count("stale_rejections");
    return { accepted: false, response: json(409, { presented: v.presented, highest: v.highest }) };
  }
  return { accepted: false, response: json(409, { error: v.reason }) };
}

/** GET /docs/:key: 200 {data, token} or 404. */
export async function docGet(store, key) {
  const doc = await store.read(key);
  return doc === null ? json(404, { error: "no such document" }) : json(200, { data: doc.value, token: doc.token });
}

/**
 * Moves a document stored by an earlier version of the service (its mark `highest`, a decimal
 * string, and its text) into `store`, through the core like any write: on an empty entry it is
 * accepted with its mark, so no token below that mark is admitted afterwards; over a newer
 * accepted write it is stale and dropped. The move carries one idempotency key, so a second move
 * of the same document (two instances starting together) is a duplicate: it cannot put the old
 * text back over a write the holder of that same token made after the first move. Either way the
 * caller may then delete the old entry.
 */
export async function adoptDoc(store, key, highest, data) {
  const v = await store.write(key, tokenFromString(highest), data, { idempotencyKey: "moved-from-an-earlier-version" });
  if (!v.ok && v.reason !== "stale" && v.reason !== "duplicate") {
    throw new Error(`document ${JSON.stringify(key)}: its earlier mark ${highest} was refused (${v.reason})`);
  }
}
