// The service's documents, fenced where they are stored: through a `fencepost/store` store, which
// reads a document's high-water mark, lets fencepost's core decide, and writes text and mark in
// one atomic step.
//
// The store is given the token `signedToken` already verified with the service's KeyRing for the
// document's lock, not the signed header: the service answers each kind of bad signature with its
// own status and names a removed key, which a store's signer, answering only "forged", cannot tell
// apart. So the store is made without a signer and takes a bare token, which is safe only because
// nothing but a verified token ever reaches it.

import { tokenFromHeader, tokenFromString } from "fencepost";
import { HttpError, json } from "./http.js";
import { NAME, lockOfDocument } from "./routes.js";

/**
 * The token of a PUT to `key`, verified: its Fencing-Token must be a header the service signed for
 * the lock that guards `key`, with a key the service still has. Refused with 401 (missing, not
 * signed, or not a token at all), 400 (a bare token that is malformed) or 403 (the signature does
 * not verify); each refusal of a token is pushed onto `counted`.
 */
export function signedToken(ring, request, key, counted) {
  const value = request.headers.get("fencing-token");
  if (value === null) {
    counted.push("invalid_rejections");
    throw new HttpError(401, "the Fencing-Token header is required: send the `header` the lock's acquire or renew answered");
  }
  if (!value.includes(".")) {
    try {
      tokenFromHeader(value);
    } catch (e) {
      throw new HttpError(400, `Fencing-Token ${JSON.stringify(value.slice(0, 40))} is malformed: ${e.message}`);
    }
    counted.push("invalid_rejections");
    throw new HttpError(401, "Fencing-Token must be signed: send the `header` the lock's acquire or renew answered");
  }
  let v;
  try {
    v = ring.verify(lockOfDocument(key), value);
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    counted.push("invalid_rejections");
    throw new HttpError(401, `Fencing-Token ${e.message}`);
  }
  if (v.ok) return v.token;
  counted.push("forged_rejections");
  if (v.reason === "unknownKey") {
    throw new HttpError(403, `Fencing-Token is signed with key ${v.keyId}, which this service does not have`);
  }
  throw new HttpError(403, `Fencing-Token does not verify for lock ${JSON.stringify(lockOfDocument(key))}`);
}

/**
 * Writes a PUT's text `data` to document `key` with a verified `token`. Returns the response and
 * whether the write was accepted: 200 {token, highest}, or 409 {presented, highest} for a token
 * below the document's mark.
 */
export async function docPut(store, key, token, data, counted) {
  const v = await store.write(key, token, data);
  if (v.ok) {
    // The store keeps an accepted write's token as the document's mark.
    return { accepted: true, response: json(200, { token, highest: token }) };
  }
  if (v.reason === "stale") {
    counted.push("stale_rejections");
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
 * One line of the write log (JSON Lines, the input of `fencepost check`). `writer` is the
 * request's optional Fencepost-Writer header: the service cannot know who a client is, so a client
 * that wants its writes told apart names itself. The token is written as a bare integer: JSON
 * numbers of 64 bits are exact for the checker.
 */
export function writeLine(request, key, token, accepted, now) {
  const named = request.headers.get("fencepost-writer");
  const writer = named !== null && NAME.test(named) ? named : "-";
  return `{"t":${Math.floor(now)},"resource":${JSON.stringify(key)},"writer":${JSON.stringify(writer)},"token":${token},"result":"${accepted ? "ok" : "rejected"}"}`;
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
