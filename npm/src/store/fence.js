// What every fenced store shares: reading the presented token (a bigint, an unsigned header value,
// or a signed one verified with a TokenSigner), asking the core what to do with a write given what
// the store read, and the stored forms of a mark and of the idempotency entries.
//
// No token is compared here: the store hands the core the mark and the idempotency entry it read,
// and the core (decideStoredWrite, crates/fencepost) answers. A store only writes when the answer
// is `{ ok: true }`, in the same atomic step as its read.

import { decideStoredWrite, tokenFromHeader, tokenFromString } from "fencepost";
import { checkOptions, describe } from "../common.js";

/** Idempotency entries a key keeps beside its data, newest last; the oldest is forgotten first. */
export const OPS_KEPT = 16;
/** Longest idempotency key, in UTF-16 code units: what one write can make a row hold is bounded. */
export const MAX_OP_KEY = 200;
/** Longest key, in UTF-16 code units. */
export const MAX_KEY = 1024;
/** Attempts of one write before it ends in a StoreContentionError. */
export const ATTEMPTS = 32;

/**
 * A write that lost the race for its key `attempts` times in a row (a compare-and-set that kept
 * failing, or a database that kept answering "busy"). It was not applied; nothing was refused:
 * try again.
 */
export class StoreContentionError extends Error {
  constructor(key, attempts, cause) {
    super(`fencepost/store: the write to ${describe(key)} lost the race for its key ${attempts} times in a row; it was not applied`, cause === undefined ? undefined : { cause });
    this.name = "StoreContentionError";
    this.key = key;
    this.attempts = attempts;
  }
}

/**
 * A stored row or entry that no fenced write could have left: a mark that is not 20 digits,
 * idempotency entries that are not a list of [key, mark], a value that is not JSON, or (Deno KV) an
 * entry of another shape under the store's key. Nothing was written: writing over it would lose
 * whatever is there, and reading it as "no mark yet" would let an old token through.
 */
export class StoreDamageError extends Error {
  constructor(where, found, expected) {
    super(`fencepost/store: ${where} holds ${describe(found)}, not ${expected}; it was left as it is`);
    this.name = "StoreDamageError";
    this.where = where;
    this.found = found;
  }
}

/**
 * Runs `attempt()` until it settles the write to `key`, at most ATTEMPTS times. An attempt that
 * lost the race answers `lost(cause, { pause })` and is tried again (after a short random wait
 * that grows with each attempt when `pause` is set: a driver that fails at once would otherwise
 * spend every attempt in microseconds, and contenders spread out). `counted()` is told of every
 * lost race. After the last one: a StoreContentionError. `first`, when given, is the outcome of
 * a first attempt already made (a store that can settle a write without waiting makes it so).
 */
export async function untilSettled(key, counted, attempt, first) {
  let cause;
  for (let n = 0; n < ATTEMPTS; n++) {
    const outcome = n === 0 && first !== undefined ? first : await attempt();
    if (!(outcome instanceof Lost)) return outcome;
    cause = outcome.cause ?? cause;
    counted();
    if (outcome.pause) await new Promise((resolve) => setTimeout(resolve, Math.random() * 2 ** Math.min(n, 6)));
  }
  throw new StoreContentionError(key, ATTEMPTS, cause);
}

class Lost {
  constructor(cause, pause) {
    this.cause = cause;
    this.pause = pause;
  }
}

/** What an attempt of `untilSettled` answers when it lost the race for its key. */
export function lost(cause, { pause = false } = {}) {
  return new Lost(cause, pause);
}

/** Whether an attempt's outcome is a lost race. */
export function isLost(outcome) {
  return outcome instanceof Lost;
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const ZEROS = "00000000000000000000";

/**
 * A token stored as 20 decimal digits, zero-padded. A token is a u64; Postgres' bigint and
 * SQLite's INTEGER are signed 64-bit (u64::MAX does not fit) and SQLite's NUMERIC turns large
 * numbers into lossy floats. Fixed-width text holds every token exactly in every engine and sorts
 * in token order, so `ORDER BY fence` still reads right.
 */
export function markText(token) {
  // A bigint's decimal text costs about three times a number's; most tokens fit in a number exactly.
  const digits = token <= MAX_SAFE ? String(Number(token)) : token.toString();
  return ZEROS.slice(digits.length) + digits;
}

/**
 * A token as SQLite's statement of a write takes it (see sqliteWrite in sql.js): a number when one
 * holds it exactly, for the statement that writes a number as 20 digits; else its 20 digits.
 */
export function sqliteToken(token) {
  return token <= MAX_SAFE ? Number(token) : markText(token);
}

/** A stored mark: a token as markText writes it. */
const MARK = /^[0-9]{20}$/;

/** The token of a stored mark (null: none), parsed by the core; anything else is damage. */
export function markOf(text, where) {
  if (text === null || text === undefined) return null;
  if (typeof text !== "string" || !MARK.test(text)) {
    throw new StoreDamageError(where, text, "a stored token (20 digits)");
  }
  return tokenFromString(text.replace(/^0+/, "") || "0");
}

/** The idempotency entries of a stored `ops` text ([[key, mark], ...]; null: none). */
export function opsOf(text, where) {
  if (text === null || text === undefined) return [];
  if (typeof text !== "string") throw new StoreDamageError(where, text, "idempotency entries");
  let ops;
  try {
    ops = JSON.parse(text);
  } catch {
    ops = null;
  }
  const entry = (e) => Array.isArray(e) && e.length === 2 && typeof e[0] === "string" && typeof e[1] === "string" && MARK.test(e[1]);
  if (!Array.isArray(ops) || !ops.every(entry)) {
    throw new StoreDamageError(where, text, "idempotency entries");
  }
  return ops;
}

/** The token `ops` holds for idempotency key `op` (null: none). */
function recordedFor(ops, op, where) {
  if (op === undefined) return null;
  const entry = ops.find((e) => e[0] === op);
  return entry === undefined ? null : markOf(entry[1], where);
}

/** `ops` with `op` recorded under `token`, newest last, at most OPS_KEPT entries. */
export function opsWith(ops, op, token) {
  if (op === undefined) return ops.length === 0 ? null : JSON.stringify(ops);
  const kept = ops.filter((e) => e[0] !== op);
  kept.push([op, markText(token)]);
  return JSON.stringify(kept.slice(-OPS_KEPT));
}

const STORE_KEYS = ["table", "signer", "lock", "keyColumn", "valueColumn"];
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

function identifier(argName, v) {
  if (typeof v !== "string") throw new TypeError(`${argName} must be a string, got ${describe(v)}`);
  if (!IDENTIFIER.test(v)) {
    throw new RangeError(`${argName} must be a SQL name of letters, digits and _ (at most 63, not starting with a digit), got ${describe(v)}`);
  }
  // Quoted, so a name that is also a keyword (`key`, `value`) is taken as a name.
  return `"${v}"`;
}

/** The options every store takes, checked: how it names things and how it reads tokens. */
export function storeOptions(options, { sql }) {
  const allowed = sql ? STORE_KEYS : ["prefix", "signer", "lock"];
  const o = checkOptions("options", options, allowed);
  const out = { signer: null, lock: (key) => key };
  if (o.signer !== undefined) {
    // Anything with TokenSigner's verify: a TokenSigner of this or another copy of the package
    // (a bundle may hold two), or a verifier that knows several keys.
    if (typeof o.signer?.verify !== "function") throw new TypeError(`options.signer must be a TokenSigner, got ${describe(o.signer)}`);
    out.signer = o.signer;
  }
  if (o.lock !== undefined) {
    if (typeof o.lock !== "function") throw new TypeError(`options.lock must be a function from a key to the lock name its tokens are signed for, got ${describe(o.lock)}`);
    out.lock = o.lock;
  }
  if (sql) {
    if (o.table === undefined) throw new TypeError("options.table is required (the table the store keeps its rows in)");
    out.table = identifier("options.table", o.table);
    out.key = identifier("options.keyColumn", o.keyColumn ?? "key");
    out.value = identifier("options.valueColumn", o.valueColumn ?? "value");
  }
  return out;
}

/** U+0000, or a surrogate that is not half of a pair. */
const INEXACT = /\0|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * `text` itself, or a TypeError naming what in it some engine cannot store exactly: Postgres
 * refuses U+0000 in text, and an unpaired surrogate has no UTF-8 form (pg and Deno KV store it as
 * U+FFFD, so two different keys would share one row). Every store refuses both, so a key works
 * the same on every engine.
 */
function exact(argName, text) {
  const found = INEXACT.exec(text);
  if (found === null) return text;
  const code = found[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, "0");
  const what = code === "0000" ? "U+0000" : `an unpaired surrogate (U+${code})`;
  throw new TypeError(`${argName} holds ${what} at index ${found.index}, which not every engine can store exactly; nothing was written or read`);
}

/** A key: a string of at most MAX_KEY characters that every engine stores exactly. */
export function keyOf(key) {
  if (typeof key !== "string") throw new TypeError(`key must be a string, got ${describe(key)}`);
  if (key.length === 0 || key.length > MAX_KEY) throw new RangeError(`key must be 1 to ${MAX_KEY} characters, got ${key.length}`);
  return exact("key", key);
}

const WRITE_KEYS = ["idempotencyKey"];

/** The idempotency key of a write's options (undefined: none). */
export function opOf(options) {
  const { idempotencyKey } = checkOptions("options", options, WRITE_KEYS);
  if (idempotencyKey === undefined) return undefined;
  if (typeof idempotencyKey !== "string") throw new TypeError(`options.idempotencyKey must be a string, got ${describe(idempotencyKey)}`);
  if (idempotencyKey.length === 0 || idempotencyKey.length > MAX_OP_KEY) {
    throw new RangeError(`options.idempotencyKey must be 1 to ${MAX_OP_KEY} characters, got ${idempotencyKey.length}`);
  }
  return exact("options.idempotencyKey", idempotencyKey);
}

/** The JSON text of a value (what the value column holds). */
export function valueText(value) {
  const text = JSON.stringify(value);
  if (text === undefined) throw new TypeError(`value must be something JSON can hold, got ${describe(value)}`);
  return text;
}

/**
 * The token a write presents, or the refusal it already is. A store with a signer takes only the
 * signed header value (a malformed one throws the RangeError TokenSigner#verify throws) and
 * answers the signer's own refusal ("forged", or a KeyRing's "unknownKey" with the key id);
 * without one, a bigint or an unsigned header value (malformed: tokenFromHeader's RangeError).
 */
export function presented(config, key, tokenOrHeader) {
  if (config.signer !== null) {
    if (typeof tokenOrHeader !== "string") {
      throw new TypeError(`a store with a signer takes the signed Fencing-Token value, got ${describe(tokenOrHeader)}`);
    }
    const verified = config.signer.verify(config.lock(key), tokenOrHeader);
    return verified.ok ? verified.token : { ...verified };
  }
  if (typeof tokenOrHeader === "string") return tokenFromHeader(tokenOrHeader);
  if (typeof tokenOrHeader !== "bigint") {
    throw new TypeError(`token must be a bigint or a Fencing-Token header value, got ${describe(tokenOrHeader)}`);
  }
  if (BigInt.asUintN(64, tokenOrHeader) !== tokenOrHeader) {
    throw new RangeError(`token must be between 0n and 18446744073709551615n, got ${describe(tokenOrHeader)}`);
  }
  return tokenOrHeader;
}

/**
 * A write's arguments, checked in the order every store checks them: `{ key, op, text, token }`,
 * or the refusal the token already is (a signature that does not verify).
 */
export function writeArgs(config, key, tokenOrHeader, value, options) {
  const k = keyOf(key);
  const op = opOf(options);
  const text = valueText(value);
  const token = presented(config, k, tokenOrHeader);
  return typeof token === "bigint" ? { key: k, op, text, token } : token;
}

/** What an accepted write answers (the core's own answer is the same shape). */
export const ACCEPTED = Object.freeze({ ok: true });

/**
 * What a write that the statement did not apply answers: the core's decision over the row the
 * statement read (`row`: its `fence`, `fence_ops` and, from Postgres, `sound`; undefined when
 * there was none). A row the statement found unsound is a StoreDamageError, named by the part the
 * core's reading finds damaged; a row read without `sound` is judged by the core's reading alone.
 * Should the core admit the write over that very row, the SQL and the core disagree, which the
 * differential test exists to rule out: that is an Error, and nothing was written.
 */
export function refusal(key, token, op, row) {
  const verdict = refusedOver(key, token, op, row);
  if (verdict !== null) return verdict;
  throw new Error(
    `fencepost/store: the statement refused the write of ${token} to ${describe(key)}, which the core admits over the row it read (fence ${describe(row?.fence ?? null)}, fence_ops ${describe(row?.fence_ops ?? null)}); nothing was written`,
  );
}

/**
 * The core's refusal of writing `token` over `row` (as `refusal` reads it), or null when the core
 * admits that write: a store that read the row after its statement, not with it, takes null for
 * a row that changed in between.
 */
export function refusedOver(key, token, op, row) {
  const where = `row ${describe(key)}`;
  if (row?.sound === false) {
    markOf(row.fence, `${where} fence`);
    opsOf(row.fence_ops, `${where} fence_ops`);
    throw new StoreDamageError(`${where} fence_ops`, row.fence_ops, "idempotency entries");
  }
  const { verdict } = decide(token, op, row?.fence ?? null, row?.fence_ops ?? null, where);
  return verdict.ok ? null : verdict;
}

/**
 * A write the core decides over `row`, the row's mark and entries as read (undefined: no row),
 * where nothing can come between that read and the write (a SQLite transaction, a Durable
 * Object's synchronous turn): the core's refusal, or, when it admits the write,
 * `writeRow(key, valueText, mark, entriesText)` and ACCEPTED. See sqliteDecided in sql.js.
 */
export function decidedWrite({ key, op, text, token }, row, writeRow) {
  const { verdict, ops } = decide(token, op, row?.fence ?? null, row?.fence_ops ?? null, `row ${describe(key)}`);
  if (!verdict.ok) return verdict;
  writeRow(key, text, markText(token), ops);
  return ACCEPTED;
}

/**
 * A write without an idempotency key that SQLite's statement (sqliteWrite) left as it was, with
 * `row` read after it, nothing between them: a row without entries is one the statement
 * decides, so the core must refuse over it too (see `refusal`); any other row is the core's to
 * decide, as decidedWrite does.
 */
export function leftToCore(args, row, writeRow) {
  if (row?.fence_ops === null || row?.fence_ops === undefined) return refusal(args.key, args.token, undefined, row);
  return decidedWrite(args, row, writeRow);
}

/**
 * What the core says of writing `token` over a row whose stored mark and idempotency entries
 * were read as `mark` and `opsText`: `{ verdict, ops }`, the new entries' text when accepted.
 */
export function decide(token, op, mark, opsText, where) {
  const highest = markOf(mark, `${where} fence`);
  const ops = opsOf(opsText, `${where} fence_ops`);
  const verdict = decideStoredWrite(highest, token, recordedFor(ops, op, `${where} fence_ops`));
  return { verdict, ops: verdict.ok ? opsWith(ops, op, token) : null };
}

/** What `read` answers for a stored row (null: no write accepted yet). */
export function entry(valueText, mark, where) {
  const token = markOf(mark, `${where} fence`);
  if (token === null) return null;
  let value;
  try {
    value = JSON.parse(valueText);
  } catch {
    throw new StoreDamageError(`${where} value`, valueText, "JSON text");
  }
  return { value, token };
}
