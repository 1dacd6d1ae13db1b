// The store benchmark (`cargo xtask bench-store`, part of `cargo xtask bench`): per engine, a
// fenced write through fencepost/store against the same write without a fence (the plain upsert
// of the value, prepared as the store's statement is), one writer, in ROUNDS rounds after one
// warm-up round (the ratio is the median of the rounds' own, printed with the spread of the
// middle half; on Postgres the kinds take turns write by write within a round, see
// `alternating`); then WRITERS concurrent writers to one key, plain and fenced in interleaved
// rounds (the fenced ones each taking the next token of a shared counter, so tokens interleave and
// some are refused), with stale refusals and conflict retries counted. Each ratio is printed
// beside its goal; nothing here fails on a time.
//
// Beside the two, each round times a third write, the floor: the plain upsert that also writes the
// token in the store's stored form (20 digits in the fence column), bound as the store binds it
// (on SQLite and Durable Object SQL a number below 2^53, which SQLite writes as 20 digits; on
// Postgres the 20 digits), with no comparison. It is the
// least a fenced write can cost on the engine while keeping the stored form existing tables hold,
// so the output shows how much of a fenced write's cost is the engine's and how much is the
// rule's.
//
// SQLite and Postgres run here in Node (Postgres on the server cargo xtask starts: PGHOST);
// Durable Object SQL in workerd, measured around requests that make all of a round's writes.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import Database from "better-sqlite3";
import pg from "pg";
import { PostgresStore, SqliteStore } from "fencepost/store";
import { post } from "./runtime.mjs";
import { configure, startWorkerd } from "./workerd.mjs";

/**
 * Many rounds, each a plain run beside a floor and a fenced one, and the median of their ratios:
 * on a shared machine a burst of other work spoils the round it falls in, and the parts of a round
 * see the same load. A round is thousands of writes: a round of a few milliseconds measures the
 * scheduler (Postgres rounds of 100 writes gave ratios from 0.6x to 4.8x within one run).
 */
const ROUNDS = 15;
const CROWD_ROUNDS = 5;
const WRITERS = 16;
/** Goals: a fenced write costs at most this much more than the plain one... */
const SINGLE_GOAL = 1.15;
/** ...and writers crowding one key keep at least this share of the plain writes' throughput. */
const CROWD_GOAL = 0.9;
/**
 * The kinds of write a single-writer round times, in the order of its first round: the plain
 * upsert, the floor, a fenced write, and a fenced write with an idempotency key (one of 40 in
 * turn, so the row keeps its 16 entries, as a row written with keys for a while does).
 */
const KINDS = ["plain", "floor", "fenced", "keyed"];
/** The idempotency key of the keyed kind's write `i`. */
const opKey = (i) => ({ idempotencyKey: `op${i % 40}` });

/** The median of some numbers, and the values a quarter and three quarters of the way up. */
function quartiles(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q) => {
    const i = (sorted.length - 1) * q;
    const lo = Math.floor(i);
    return sorted[lo] + (sorted[Math.ceil(i)] - sorted[lo]) * (i - lo);
  };
  return { median: at(0.5), low: at(0.25), high: at(0.75) };
}

/**
 * µs per write of each kind (`writers`: a `(n) => work` for each of KINDS), the best of ROUNDS
 * (`best`), and for each kind but plain the quartiles over the rounds of its time over plain's
 * (`ratio`); the kinds take turns being first from round to round. A warm-up round runs first
 * and is not counted.
 */
async function pair(n, writers) {
  const best = Object.fromEntries(KINDS.map((k) => [k, Infinity]));
  const ratios = Object.fromEntries(KINDS.map((k) => [k, []]));
  for (let r = -1; r < ROUNDS; r++) {
    const round = {};
    const first = ((r % KINDS.length) + KINDS.length) % KINDS.length;
    for (const kind of [...KINDS.slice(first), ...KINDS.slice(0, first)]) {
      const t = performance.now();
      await writers[kind](n);
      round[kind] = ((performance.now() - t) * 1000) / n;
    }
    if (r < 0) continue;
    for (const kind of KINDS) {
      best[kind] = Math.min(best[kind], round[kind]);
      ratios[kind].push(round[kind] / round.plain);
    }
  }
  return { best, ratio: Object.fromEntries(KINDS.map((k) => [k, quartiles(ratios[k])])) };
}

/** A copy of `items` in a random order (Fisher-Yates). */
function shuffled(items) {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/**
 * As `pair`, but the kinds take turns write by write (`write(kind, i)` makes write `i` of `kind`),
 * each write timed on its own: for an engine across a network, where a write is mostly its round
 * trip and the round trip's latency moves between levels for seconds at a time (about 40 and
 * 100 µs to a local Postgres here), so that every kind meets every level alike. Each turn takes
 * the kinds in a random order: a write pays for some of what the one before it left (a keyed
 * write's longer row, its garbage), and in a fixed rotation each kind would mostly follow the
 * same other kind (plain after keyed three times in four, which made plain 5% slower than the
 * floor).
 */
async function alternating(n, write) {
  const best = Object.fromEntries(KINDS.map((k) => [k, Infinity]));
  const ratios = Object.fromEntries(KINDS.map((k) => [k, []]));
  for (let r = -1; r < ROUNDS; r++) {
    const spent = Object.fromEntries(KINDS.map((k) => [k, 0]));
    for (let i = 0; i < n; i++) {
      for (const kind of shuffled(KINDS)) {
        const t = performance.now();
        await write(kind, i);
        spent[kind] += performance.now() - t;
      }
    }
    if (r < 0) continue;
    for (const kind of KINDS) {
      best[kind] = Math.min(best[kind], (spent[kind] * 1000) / n);
      ratios[kind].push(spent[kind] / spent.plain);
    }
  }
  return { best, ratio: Object.fromEntries(KINDS.map((k) => [k, quartiles(ratios[k])])) };
}

/**
 * Writes/s of `crowd(kind)` for plain and fenced, the best of CROWD_ROUNDS for each kind, and the
 * median over the rounds of fenced / plain (which runs first alternating); `crowd` resolves to
 * { writes, tallies } with the fenced writes' { accepted, stale, retries }. A warm-up round of
 * each kind runs first and is not counted.
 */
async function crowds(crowd) {
  const best = { plain: 0, fenced: 0, tally: { accepted: 0, stale: 0, retries: 0 } };
  const ratios = [];
  for (let r = -1; r < CROWD_ROUNDS; r++) {
    const round = {};
    for (const kind of r % 2 ? ["fenced", "plain"] : ["plain", "fenced"]) {
      const t = performance.now();
      const { writes, tally } = await crowd(kind);
      round[kind] = (writes * 1000) / (performance.now() - t);
      if (r < 0) continue;
      best[kind] = Math.max(best[kind], round[kind]);
      if (kind === "fenced") for (const k of Object.keys(best.tally)) best.tally[k] += tally[k];
    }
    if (r >= 0) ratios.push(round.fenced / round.plain);
  }
  return { ...best, ratio: quartiles(ratios).median };
}

/** The stored form of token `n` (see markText in fencepost/store): 20 digits. */
const mark = (n) => String(n).padStart(20, "0");

/** SQLite: a file in WAL mode, as a server would keep it; the crowd in threads of their own. */
async function sqlite(dir) {
  const file = join(dir, "bench.db");
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  const store = new SqliteStore(db, { table: "bench" });
  await store.createTable();
  const upsert = db.prepare(`INSERT INTO bench (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`);
  // The token bound as the store binds it (below 2^53, a number SQLite writes as 20 digits).
  const withMark = db.prepare(`INSERT INTO bench (key, value, fence) VALUES (?, ?, printf('%020d', ?)) ON CONFLICT (key) DO UPDATE SET value = excluded.value, fence = excluded.fence`);
  let next = 0n;
  let marked = 0;
  const single = await pair(5000, {
    plain: (n) => {
      for (let i = 0; i < n; i++) upsert.run("plain", JSON.stringify(`v${i}`));
    },
    floor: (n) => {
      for (let i = 0; i < n; i++) withMark.run("floor", JSON.stringify(`v${i}`), ++marked);
    },
    fenced: async (n) => {
      for (let i = 0; i < n; i++) await store.write("fenced", ++next, `v${i}`);
    },
    keyed: async (n) => {
      for (let i = 0; i < n; i++) await store.write("keyed", ++next, `v${i}`, opKey(i));
    },
  });
  await new SqliteStore(db, { table: "crowd" }).createTable();
  db.close();
  const counter = new Int32Array(new SharedArrayBuffer(4));
  const crowd = await crowds(async (kind) => {
    const start = new Int32Array(new SharedArrayBuffer(4));
    const per = 100;
    const data = { file, writes: per, counter, start, fenced: kind === "fenced" };
    const workers = Array.from({ length: WRITERS }, () => new Worker(new URL("./bench-sqlite-writer.mjs", import.meta.url), { workerData: data }));
    const message = (w) => new Promise((resolve, reject) => (w.once("message", resolve), w.once("error", reject)));
    await Promise.all(workers.map(message));
    const done = Promise.all(workers.map(message));
    Atomics.store(start, 0, 1);
    Atomics.notify(start, 0);
    return { writes: WRITERS * per, tally: sum(await done) };
  });
  return { engine: "SQLite (better-sqlite3)", crowd: "SQLite (16 threads)", single, ...crowd };
}

/** The tallies of several writers added up. */
function sum(tallies) {
  const out = { accepted: 0, stale: 0, retries: 0 };
  for (const t of tallies) for (const k of Object.keys(out)) out[k] += t[k] ?? 0;
  return out;
}

/** Postgres: one statement per write, fenced or plain; the crowd on 16 connections. */
async function postgres() {
  const pool = new pg.Pool({ max: WRITERS });
  try {
    await pool.query("DROP TABLE IF EXISTS bench, crowd");
    const store = new PostgresStore(pool, { table: "bench" });
    await store.createTable();
    const upsert = (table) => ({ name: `plain_${table}`, text: `INSERT INTO ${table} (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value` });
    const withMark = {
      name: "floor_bench",
      text: `INSERT INTO bench (key, value, fence) VALUES ($1, $2, $3) ON CONFLICT (key) DO UPDATE SET value = excluded.value, fence = excluded.fence`,
    };
    let next = 0n;
    let marked = 0;
    const writes = {
      plain: (i) => pool.query({ ...upsert("bench"), values: ["plain", JSON.stringify(`v${i}`)] }),
      floor: (i) => pool.query({ ...withMark, values: ["floor", JSON.stringify(`v${i}`), mark(++marked)] }),
      fenced: (i) => store.write("fenced", ++next, `v${i}`),
      keyed: (i) => store.write("keyed", ++next, `v${i}`, opKey(i)),
    };
    const single = await alternating(1000, (kind, i) => writes[kind](i));
    const crowdStore = new PostgresStore(pool, { table: "crowd" });
    await crowdStore.createTable();
    let shared = 0n;
    const per = 200;
    const crowd = await crowds(async (kind) => {
      const retries = crowdStore.retries;
      const tallies = await Promise.all(
        Array.from({ length: WRITERS }, async () => {
          const tally = { accepted: 0, stale: 0 };
          for (let i = 0; i < per; i++) {
            if (kind === "plain") {
              await pool.query({ ...upsert("crowd"), values: ["plain", JSON.stringify(`v${i}`)] });
              continue;
            }
            const r = await crowdStore.write("one", ++shared, `v${i}`);
            if (r.ok) tally.accepted++;
            else tally.stale++;
          }
          return tally;
        }),
      );
      return { writes: WRITERS * per, tally: { ...sum(tallies), retries: crowdStore.retries - retries } };
    });
    return { engine: "Postgres (pg, unix socket)", crowd: "Postgres (16 connections)", single, ...crowd };
  } finally {
    await pool.end();
  }
}

/** Durable Object SQL in workerd: each round is requests making all its writes in the object. */
async function durableObject(dir) {
  configure(dir);
  const workerd = await startWorkerd(dir);
  try {
    await post(workerd.base, "bench", "/open", { table: "bench" });
    let from = 1;
    const single = await pair(20000, {
      plain: (n) => post(workerd.base, "bench", "/bench", { n, kind: "plain" }),
      floor: (n) => post(workerd.base, "bench", "/bench", { n, kind: "floor" }),
      fenced: async (n) => {
        await post(workerd.base, "bench", "/bench", { n, kind: "fenced", from });
        from += n;
      },
      keyed: async (n) => {
        await post(workerd.base, "bench", "/bench", { n, kind: "keyed", from });
        from += n;
      },
    });
    await post(workerd.base, "crowd", "/open", { table: "bench" });
    // Requests of 1,000 writes: in requests of 200, the HTTP around them was most of the time.
    let before = { accepted: 0, stale: 0 };
    const crowd = await crowds(async (kind) => {
      await Promise.all(Array.from({ length: WRITERS }, () => post(workerd.base, "crowd", "/bench", { n: 1000, kind, shared: true })));
      const now = await post(workerd.base, "crowd", "/bench", { n: 0, kind: "fenced", shared: true });
      const tally = { accepted: now.accepted - before.accepted, stale: now.stale - before.stale, retries: 0 };
      before = now;
      return { writes: WRITERS * 1000, tally };
    });
    return { engine: "Durable Object SQL (workerd)", crowd: "Durable Object SQL (16 requests)", single, ...crowd };
  } finally {
    await workerd.stop();
  }
}

const verdict = (ok) => (ok ? "met" : "NOT met");

const dir = mkdtempSync(join(tmpdir(), "fencepost-bench-"));
const results = [];
try {
  results.push(await sqlite(dir));
  results.push(await postgres());
  results.push(await durableObject(dir));
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const spread = (q) => `${q.median.toFixed(2)}x (${q.low.toFixed(2)}-${q.high.toFixed(2)})`;
console.log(
  `fenced write vs the same plain write, one writer, ${ROUNDS} rounds: best µs of each; median ratio to plain of a round's own, with the middle half of the rounds in brackets (goal: fenced at most ${SINGLE_GOAL}x). "floor": the plain upsert writing the token's stored form too, the least a fenced write can cost; "keyed": a fenced write with an idempotency key, on a row keeping 16 (no goal):`,
);
for (const { engine, single } of results) {
  const { best, ratio } = single;
  const figure = (kind) => `${kind} ${best[kind].toFixed(1).padStart(7)} µs ${spread(ratio[kind]).padEnd(19)}`;
  console.log(`  ${engine.padEnd(30)} plain ${best.plain.toFixed(1).padStart(7)} µs   ${figure("floor")}   ${figure("fenced")}   goal ${verdict(ratio.fenced.median <= SINGLE_GOAL).padEnd(7)}   ${figure("keyed")}`);
}
console.log(`${WRITERS} concurrent writers to one key, ${CROWD_ROUNDS} rounds: best of each, median ratio of a round's two (goal: fenced at least ${CROWD_GOAL}x the plain writes/s); fenced writes each take the next token of a shared counter:`);
for (const { crowd, plain, fenced, tally, ratio } of results) {
  console.log(
    `  ${crowd.padEnd(34)} plain ${String(Math.round(plain)).padStart(7)} writes/s   fenced ${String(Math.round(fenced)).padStart(7)} writes/s   ratio ${ratio.toFixed(2)}x   goal ${verdict(ratio >= CROWD_GOAL)}   (fenced, ${CROWD_ROUNDS} rounds: accepted ${tally.accepted}, stale ${tally.stale}, conflict retries ${tally.retries})`,
  );
}
