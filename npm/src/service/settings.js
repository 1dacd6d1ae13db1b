// What a deployer sets, read once when a host starts: the signing keys and the limits, from the
// host's environment or bindings. Every host of the service reads the same names:
//
//   FENCEPOST_KEYS        required. "<key id>:<secret>", or several separated by commas: the first
//                         signs, the others only verify (tokens signed before a rotation) until
//                         they are removed. A key id is a whole number from 0 to 4294967295; a
//                         secret is at least 16 bytes (32 random bytes in hex are a good secret).
//   FENCEPOST_MAX_TTL_MS  the longest lease a client may ask for (default 300000: five minutes).
//   FENCEPOST_IDLE_KEEP_MS how long a lock's state is kept after its last lease ended (default
//                         60000, at least 1000); then it is deleted, and a later acquire starts
//                         above every token the deleted state issued (see loadAuthority in
//                         decide.js).
//   FENCEPOST_WRITE_LOG   "1": log every document write as a JSON line for `fencepost check`.
//   FENCEPOST_CORS_ORIGINS pages of which origins may call the service from a browser: exact
//                         origins separated by commas, like "https://app.example.com" (default:
//                         none; see cors.js).
//
// A host without FENCEPOST_KEYS serves nothing but 503s naming it, or refuses to start: a service
// that cannot sign would hand out tokens anyone can forge.

import { KeyRing } from "fencepost";
import { corsOrigins as checkOrigins } from "./cors.js";
import { DEFAULT_IDLE_KEEP_MS, DEFAULT_MAX_TTL_MS, LONGEST_MS, MIN_IDLE_KEEP_MS } from "./options.js";

/** The names of the settings, as a host's environment holds them. */
export const SETTINGS = Object.freeze(["FENCEPOST_KEYS", "FENCEPOST_MAX_TTL_MS", "FENCEPOST_IDLE_KEEP_MS", "FENCEPOST_WRITE_LOG", "FENCEPOST_CORS_ORIGINS"]);

const KEY_ENTRY = /^([0-9]{1,10}):(.+)$/s;
const encoder = new TextEncoder();

/** The key ring described by FENCEPOST_KEYS (current key first), or the reason it is refused. */
export function keyRingOf(text) {
  const entries = text.split(",").map((entry, i) => {
    const m = KEY_ENTRY.exec(entry.trim());
    const id = m === null ? NaN : Number(m[1]);
    if (m === null || id > 0xffff_ffff) {
      throw new Error(`FENCEPOST_KEYS entry ${i + 1} must be "<key id 0..4294967295>:<secret>"`);
    }
    return { id, secret: encoder.encode(m[2]) };
  });
  // Built from the oldest key up: each rotation makes the newer key current and keeps the older
  // one for verifying, which is the order the setting lists them in, reversed.
  const oldest = entries.pop();
  const ring = new KeyRing(oldest.id, oldest.secret);
  try {
    for (const { id, secret } of entries.reverse()) ring.rotate(id, secret);
  } catch (e) {
    ring.free();
    throw e;
  }
  return ring;
}

/** A duration setting in ms: undefined when unset, else a whole number from `min` to `max`. */
function millis(name, text, min, max) {
  if (text === undefined || text === "") return undefined;
  const n = Number(text);
  if (!/^[0-9]+$/.test(text) || n < min || n > max) {
    throw new Error(`${name} must be a whole number of milliseconds from ${min} to ${max}`);
  }
  return n;
}

/**
 * The service's options from `get(name)` (the host's environment or bindings), without its
 * backends: `{ keys, maxTtlMs, idleKeepMs, writeLog, corsOrigins }`, or `{ unavailable: "<what
 * is missing or wrong>" }`.
 */
export function readSettings(get) {
  const keys = get("FENCEPOST_KEYS");
  if (typeof keys !== "string" || keys.trim() === "") {
    return { unavailable: "the service has no signing key: set FENCEPOST_KEYS" };
  }
  try {
    const maxTtlMs = millis("FENCEPOST_MAX_TTL_MS", get("FENCEPOST_MAX_TTL_MS"), 1, LONGEST_MS) ?? DEFAULT_MAX_TTL_MS;
    const idleKeepMs = millis("FENCEPOST_IDLE_KEEP_MS", get("FENCEPOST_IDLE_KEEP_MS"), MIN_IDLE_KEEP_MS, LONGEST_MS) ?? DEFAULT_IDLE_KEEP_MS;
    const origins = get("FENCEPOST_CORS_ORIGINS");
    const corsOrigins = typeof origins === "string" && origins.trim() !== "" ? origins.split(",") : [];
    // Checked here so that a bad origin is named with its setting, before any key is made.
    checkOrigins(corsOrigins, "FENCEPOST_CORS_ORIGINS");
    const writeLog = get("FENCEPOST_WRITE_LOG") === "1";
    return { keys: keyRingOf(keys), maxTtlMs, idleKeepMs, writeLog, corsOrigins };
  } catch (e) {
    return { unavailable: `the service's settings are refused: ${e.message}` };
  }
}
