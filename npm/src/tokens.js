// Token codecs: the decimal, header and 8-byte forms.

import * as raw from "./fencepost_bg.js";
import { FORM_BYTES, FORM_DECIMAL, FORM_HEADER } from "./abi.js";
import { text } from "./common.js";
import { put, putBytes, ready } from "./instance.js";
import { MAX_TEXT, bytes, token } from "./checks.js";
import { coreMessage } from "./errors.js";

/** The HTTP header that carries a fencing token. */
export const HEADER_NAME = "Fencing-Token";

function parsed(argName, t) {
  if (t === 0n) throw new RangeError(`${argName} is not a token: ${coreMessage()}`);
  return t;
}

/** The canonical decimal form of a token. */
export function tokenToString(tok) {
  return token("token", tok).toString();
}

/** Parses the strict decimal form: digits only, no sign, no whitespace, no leading zero. */
export function tokenFromString(value) {
  ready();
  return parsed("value", raw.token_decode(FORM_DECIMAL, put(text("value", value, MAX_TEXT))));
}

/** The `Fencing-Token` header value of an unsigned token (its decimal form). */
export function tokenToHeader(tok) {
  return token("token", tok).toString();
}

/** Parses an unsigned `Fencing-Token` header value. */
export function tokenFromHeader(value) {
  ready();
  return parsed("value", raw.token_decode(FORM_HEADER, put(text("value", value, MAX_TEXT))));
}

/** The 8-byte big-endian form of a token. */
export function tokenToBytes(tok) {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, token("token", tok));
  return out;
}

/** Parses the 8-byte big-endian form. */
export function tokenFromBytes(value) {
  ready();
  return parsed("value", raw.token_decode(FORM_BYTES, putBytes(bytes("value", value, MAX_TEXT))));
}
