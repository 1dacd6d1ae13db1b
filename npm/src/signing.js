// Signed tokens: TokenSigner and KeyRing.

import * as raw from "./fencepost_bg.js";
import {
  ERR_FORGED,
  ERR_UNKNOWN_KEY,
  RING_REMOVE,
  RING_ROTATE,
  errorCode,
  errorDetail,
  outputAt,
  ringCurrentKeyId,
} from "./abi.js";
import { describe, freed, text } from "./common.js";
import { put, putBytes, ready, second, textAt } from "./instance.js";
import { MAX_TEXT, bytes, name, token } from "./checks.js";
import { coreMessage } from "./errors.js";
import { FORGED, adopt, dropRing, dropSigner, release, rings, signers } from "./objects.js";

// Signed tokens. A TokenSigner (one key, the v1 form) and a KeyRing (keys by id, the v2 form)
// share the module's sign and verify exports: the module tells them apart by their kind.

/** The header value signer or ring `i` makes for `token` on `lock`. */
function signWith(i, lock, tok) {
  const n = raw.signer_sign(i, put(name("lock", lock)), token("token", tok));
  if (n === 0) throw new RangeError(coreMessage());
  return textAt(outputAt(), n);
}

/** A refusal of a signature, with the key id when it names a key the ring does not have. */
export function forgery() {
  if (errorCode() === ERR_UNKNOWN_KEY) return { ok: false, reason: "unknownKey", keyId: errorDetail() };
  return FORGED;
}

/** What signer or ring `i` says of `header` for `lock`. */
function verifyWith(i, lock, header) {
  const t = raw.signer_verify(i, put(name("lock", lock), text("header", header, MAX_TEXT)), second);
  if (t !== 0n) return { ok: true, token: t };
  const code = errorCode();
  if (code === ERR_FORGED || code === ERR_UNKNOWN_KEY) return forgery();
  throw new RangeError(`header is not a signed token: ${coreMessage()}`);
}

/** The module index behind a TokenSigner (set by the class; nothing outside this file sees it). */
export let signerOf;

/** Signs and verifies tokens with one secret key (HMAC-SHA-256 over the lock name and token). */
export class TokenSigner {
  #i = -1;

  constructor(key) {
    ready();
    const k = bytes("key", key, MAX_TEXT);
    this.#i = adopt(signers, this, raw.signer_new(false, putBytes(k), 0n), "key");
  }

  #live() {
    if (this.#i < 0) throw freed("TokenSigner");
    return this.#i;
  }

  static {
    // null for anything that is not a TokenSigner made by this package (a look-alike or an
    // object made from the prototype).
    signerOf = (signer) => (typeof signer === "object" && signer !== null && #i in signer ? signer.#live() : null);
  }

  /** The `Fencing-Token` header value of `token` for `lock`: `<token>.<64 hex digits>`. */
  sign(lock, tok) {
    return signWith(this.#live(), lock, tok);
  }

  /** Checks a signed header value for `lock`. */
  verify(lock, header) {
    return verifyWith(this.#live(), lock, header);
  }

  free() {
    this.#i = release(signers, this, dropSigner, this.#i);
  }
}

/** The module index behind a KeyRing (set by the class). */
export let ringOf;

/** A key id: a whole number from 0 to 2^32 - 1. */
function keyId(argName, v) {
  if (typeof v !== "number") throw new TypeError(`${argName} must be a number, got ${describe(v)}`);
  if (!Number.isInteger(v) || v < 0 || v > 0xffff_ffff) {
    throw new RangeError(`${argName} must be a whole number from 0 to 4294967295, got ${describe(v)}`);
  }
  return v;
}

/**
 * The signing keys of a deployment, by id: the current key signs, previous keys only verify until
 * they are removed. Headers are `<token>.<key id>.<64 hex digits>` (HMAC-SHA-256 over the key id,
 * the lock name and the token).
 */
export class KeyRing {
  #i = -1;

  constructor(id, key) {
    ready();
    const kid = keyId("keyId", id);
    const k = bytes("key", key, MAX_TEXT);
    this.#i = adopt(rings, this, raw.signer_new(true, putBytes(k), BigInt(kid)), "key");
  }

  #live() {
    if (this.#i < 0) throw freed("KeyRing");
    return this.#i;
  }

  static {
    ringOf = (ring) => (typeof ring === "object" && ring !== null && #i in ring ? ring.#live() : null);
  }

  /** Makes `key` (id `id`) the current key; the current one stays, for verifying only. */
  rotate(id, key) {
    const kid = keyId("keyId", id);
    const k = bytes("key", key, MAX_TEXT);
    if (raw.ring_call(RING_ROTATE, this.#live(), putBytes(k), kid) !== 0) throw new RangeError(coreMessage());
  }

  /** Removes a previous key: tokens it signed no longer verify. */
  remove(id) {
    const kid = keyId("keyId", id);
    if (raw.ring_call(RING_REMOVE, this.#live(), 0, kid) === 0) return;
    throw new RangeError(errorCode() === ERR_UNKNOWN_KEY ? `the key ring has no key ${kid}` : coreMessage());
  }

  /** The id of the key that signs. */
  get currentKeyId() {
    raw.ring_state(this.#live());
    return ringCurrentKeyId();
  }

  /** The `Fencing-Token` header value of `token` for `lock`, signed with the current key. */
  sign(lock, tok) {
    return signWith(this.#live(), lock, tok);
  }

  /** Checks a header value for `lock` with the key its id names. */
  verify(lock, header) {
    return verifyWith(this.#live(), lock, header);
  }

  free() {
    this.#i = release(rings, this, dropRing, this.#i);
  }
}
