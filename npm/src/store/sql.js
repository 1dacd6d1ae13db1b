// The core's rule for a stored write (decide_stored in crates/fencepost/src/ledger.rs), restated
// in SQL so that one statement compares the presented token with the row's mark and writes only
// what the core would admit. The restatement is checked, not trusted: tests/store's differential
// test sends random sequences of writes to real engines and compares every answer and the final
// row with decideStoredWrite fed the same sequence.
//
// For a row holding mark M (fence) and idempotency entries E (fence_ops), a write of token T with
// idempotency key K (or none):
//   1. T = 0 is invalid. The core answers it before any statement runs (it never reaches SQL).
//   2. A row no fenced write could have left (M not 20 digits, E not a list of [key, mark]) is not
//      written; the store reports it as a StoreDamageError.
//   3. K given and E holding [K, T]: a retry of an operation already applied, not written.
//   4. No M, or M <= T (20-digit text compares in token order): written, with M := T and E := E
//      without K's entry, then [K, T], the last 16 kept (E unchanged without K).
//   5. Anything else is stale, not written.
// Only whether to write is decided here. What a refused write answers ("duplicate", or "stale"
// with the highest token) is the core's decision over the row the statement read.
//
// Postgres states the whole rule, so a write is one round trip over the network. SQLite and
// Durable Object SQL run in the writer's process: their statement states the rule for a write
// without an idempotency key over a row without entries, the write nearly every unkeyed write
// is, and hands every other row to the core, which decides over the row read in the same
// transaction (see sqliteWrite and sqliteDecided); a write with a key is always decided so.
//
// Parameters: 1 the key, 2 the value's JSON text, 3 the token as 20 digits, 4 (Postgres) the
// idempotency key as JSON text (JSON.stringify of it). Entries are matched by that JSON text, the
// form the stores have always written them in, so Postgres never decodes a stored key (it cannot
// decode "\u0000" in JSON to text).

/** JSON whitespace, and one JSON string (its escapes checked, no raw control characters). */
const WS = "[ \\t\\n\\r]*";
const STRING = '"(?:[^"\\\\\\x01-\\x1f]|\\\\(?:["\\\\/bfnrt]|u[0-9A-Fa-f]{4}))*"';
/** One idempotency entry: [key, mark]. */
const ENTRY = `\\[${WS}${STRING}${WS},${WS}"[0-9]{20}"${WS}\\]`;
/** The whole of a sound fence_ops: a JSON array of entries. */
const ENTRIES = `^${WS}\\[${WS}(?:${ENTRY}(?:${WS},${WS}${ENTRY})*)?${WS}\\]${WS}$`;

/** A Postgres string constant that no setting reads escapes in. */
const dollar = (text) => `$re$${text}$re$`;

/** Postgres: whether the row aliased `r` is one a fenced write could have left. */
function pgSound(r) {
  // String functions for the mark, which every write checks; a pattern only for the entries.
  return `((${r}.fence IS NULL OR (octet_length(${r}.fence) = 20 AND ltrim(${r}.fence, '0123456789') = ''))
      AND (${r}.fence_ops IS NULL OR ${r}.fence_ops ~ ${dollar(ENTRIES)}))`;
}

/**
 * Postgres: the entries of row `r` in order, as (k, m, n): each entry's key as JSON text, its
 * mark's 20 digits and its place. Only for a sound row (the cast cannot fail then). An entry is
 * `[ "key" , "<20 digits>" ]`: with the brackets and the blanks around it trimmed, the mark is
 * its last 22 characters, and the key what is left before the comma.
 */
function pgEntries(r) {
  return `(SELECT rtrim(left(t, -22), E', \\t\\n\\r') AS k, substr(right(t, 21), 1, 20) AS m, n
      FROM json_array_elements(coalesce(${r}.fence_ops, '[]')::json) WITH ORDINALITY AS e(v, n),
      LATERAL btrim(e.v::text, E'[] \\t\\n\\r') AS t) AS e`;
}

/** Postgres: row `r`'s entries without key $4, then [$4, $3], the last 16, as JSON text. */
function pgEntriesAfter(r) {
  return `(SELECT '[' || string_agg(entry, ',' ORDER BY n) || ']' FROM (
        SELECT entry, n FROM (
          SELECT '[' || e.k || ',"' || e.m || '"]' AS entry, e.n FROM ${pgEntries(r)} WHERE e.k <> $4
          UNION ALL SELECT '[' || $4 || ',"' || $3 || '"]', 9223372036854775807
        ) AS candidates ORDER BY n DESC LIMIT 16) AS kept)`;
}

/** The setting that carries a refused write's row out of the conflict check (see postgresWrite). */
const REFUSED = "'fencepost.refused'";

/**
 * Postgres: true when the rule admits writing $3 over row `r` (points 2 to 5 above), with
 * idempotency key $4 when `keyed`; false otherwise, after leaving the row in REFUSED as JSON text:
 * `[fence, fence_ops, sound]`. set_config answers the value it set, never null, so the refusing
 * arm is false. The admitting test comes first and whole: a write that is admitted (the common
 * case) evaluates nothing else, and one arm refuses for every reason, so the statement stays one
 * small expression (an arm per reason measured 10% slower per write on the accepted path).
 * A CASE takes its arms in order, and the inner CASE asks about the entries only of a sound row
 * (pgEntries' cast cannot fail then).
 */
function pgAdmits(r, keyed) {
  const admits = `(${r}.fence IS NULL OR ${r}.fence COLLATE "C" <= $3)`;
  const fresh = `NOT (${r}.fence_ops IS NOT NULL AND EXISTS (SELECT FROM ${pgEntries(r)} WHERE e.k = $4 AND e.m = $3))`;
  const test = keyed ? `CASE WHEN ${pgSound(r)} THEN ${fresh} AND ${admits} ELSE false END` : `${pgSound(r)} AND ${admits}`;
  return `CASE WHEN ${test} THEN true
      ELSE set_config(${REFUSED}, json_build_array(${r}.fence, ${r}.fence_ops, ${pgSound(r)})::text, true) IS NULL END`;
}

/**
 * The Postgres statement of a write: one round trip, its own transaction. The insert makes the
 * row when there is none; its DO UPDATE locks the row (under READ COMMITTED, waiting for a writer
 * holding it, then taking the newest version) and writes it only when the rule admits the token;
 * a refused write leaves the row as it was (no new version, no trigger), still locked.
 *
 * A refused write answers the row the rule was checked against, with whether it is sound: only
 * the conflict check sees that very version, and RETURNING answers written rows only, so the
 * check's refusing branch hands it on, as JSON text (`[fence, fence_ops, sound]`), in a setting
 * local to the transaction, which the outer SELECT reads when nothing was written. The accepted
 * path pays for no read of the table and no second plan node over it: its cost stays next to a
 * plain upsert's. An accepted write answers no row.
 *
 * A write with an idempotency key (`keyed`, parameter 4) has a statement of its own: the work on
 * the entries makes a plan that every execution would set up, and a write without one has no use
 * for it.
 */
export function postgresWrite(table, key, value, keyed) {
  const ops = keyed ? `'[[' || $4 || ',"' || $3 || '"]]'` : "NULL";
  return `WITH w AS (
    INSERT INTO ${table} AS r (${key}, ${value}, fence, fence_ops) VALUES ($1, $2, $3, ${ops})
    ON CONFLICT (${key}) DO UPDATE SET ${value} = excluded.${value}, fence = excluded.fence${keyed ? `, fence_ops = ${pgEntriesAfter("r")}` : ""}
    WHERE ${pgAdmits("r", keyed)}
    RETURNING 1)
  SELECT current_setting(${REFUSED}, true) AS refused WHERE NOT EXISTS (SELECT FROM w)`;
}

/**
 * The SQLite statement of a write (SQLite and Durable Object SQL), stating the rule for the row
 * nearly every unkeyed write finds: the row made when there is none, written over when it has no
 * idempotency entries and a mark that is absent or 20 digits not above the token (points 2, 4
 * and 5 for such a row); left as it is otherwise (it then counts no change), and the store hands
 * the row to the core (see sqliteDecided). The statement may leave to the core a write the core
 * admits, never the other way round; the store tells the two apart (see `refusal` in fence.js).
 *
 * In an upsert's DO UPDATE, a bare column is the row as it was and `excluded.` the row the insert
 * was given (the token). The mark's type is not asked: only text compares at most the token's
 * text (a blob compares above any text), and the text of a number is never 20 digits (at most 19
 * after a minus sign, or with a point or an exponent). Two strings of 20 digits sort alike under
 * every collation SQLite has, so the column's own is used. The text is kept short: a Durable
 * Object reads a statement's whole text on every call (in workerd, a plain upsert padded with 150
 * to 240 blanks took 3% to 14% longer).
 *
 * Its `?` are the key, the value's JSON text and the token, in that order (every driver binds them
 * so). The token is its 20 digits, or with `numeric` a number that holds it exactly (at most
 * 2^53 - 1, see sqliteToken), which SQLite writes as 20 digits itself: workerd and better-sqlite3
 * bind a number faster than a string (about 0.5 µs a write in workerd, against 3.4 µs for a plain
 * upsert; 0.2 to 0.5 µs in better-sqlite3).
 */
export function sqliteWrite(table, key, value, numeric) {
  const token = numeric ? "printf('%020d',?)" : "?";
  return `INSERT INTO ${table}(${key},${value},fence)VALUES(?,?,${token})ON CONFLICT(${key})DO UPDATE SET ${value}=excluded.${value},fence=excluded.fence WHERE fence_ops IS NULL AND(fence IS NULL OR length(fence)=20 AND fence<=excluded.fence AND ltrim(fence,'0123456789')='')`;
}

/**
 * SQLite: the two statements of a write the core decides, run in one transaction (or one
 * synchronous turn of a Durable Object) with the core's decision between them: `read` the row's
 * mark and entries (by key), then, if the core admits the write, `write` the row whole (key, value
 * text, mark, entries text). A write with an idempotency key always takes them: the entries are a
 * list to search and trim, and SQLite's JSON functions take about 38 µs more per write for it than
 * the core (a row keeping 16 entries, better-sqlite3 in memory).
 */
export function sqliteDecided(table, key, value) {
  return {
    read: `SELECT fence, fence_ops FROM ${table} WHERE ${key} = ?`,
    write: `INSERT INTO ${table} (${key}, ${value}, fence, fence_ops) VALUES (?, ?, ?, ?)
  ON CONFLICT (${key}) DO UPDATE SET ${value} = excluded.${value}, fence = excluded.fence, fence_ops = excluded.fence_ops`,
  };
}
