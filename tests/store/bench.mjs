// The store benchmark (`cargo xtask bench-store`, part of `cargo xtask bench`): per engine, a
// fenced write through fencepost/store against the same write without a fence (the plain upsert
// of the value, prepared as the store's statement is), one writer, in ROUNDS interleaved rounds
// (the ratio is the median of the rounds' own); then WRITERS concurrent writers to one key, plain
// and fenced in interleaved rounds (the fenced ones each taking the next token of a shared
// counter, so tokens interleave and some are refused), with stale refusals and conflict retries
// counted. Each ratio is printed beside its goal; nothing here fails on a time.
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
 * Many short rounds, each a plain run beside a fenced one, and the median of their ratios: on a
 * shared machine a burst of other work spoils the round it falls in, and the two halves of a
 * round see the same load. (The best of each kind alone let one kind's luck decide the ratio.)
 */
const ROUNDS = 15;
const CROWD_ROUNDS = 5;
const WRITERS = 16;
/** Goals: a fenced write costs at most this much more than the plain one... */
const SINGLE_GOAL = 1.15;
/** ...and writers crowding one key keep at least this share of the plain writes' throughput. */
const CROWD_GOAL = 0.9;

/** The median of some numbers. */
function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * µs per write of `round(n)`, the best of ROUNDS for each kind, and the median over the rounds of
 * fenced / plain; which kind runs first alternates from round to round.
 */
async function pair(n, plain, fenced) {
  const figures = { plain: Infinity, fenced: Infinity };
  const ratios = [];
  const timed = async (round, r) => {
    const t = performance.now();
    await round(n, r);
    return ((performance.now() - t) * 1000) / n;
  };
  for (let r = 0; r < ROUNDS; r++) {
    const round = {};
    for (const kind of r % 2 ? ["fenced", "plain"] : ["plain", "fenced"]) round[kind] = await timed(kind === "plain" ? plain : fenced, r);
    figures.plain = Math.min(figures.plain, round.plain);
    figures.fenced = Math.min(figures.fenced, round.fenced);
    ratios.push(round.fenced / round.plain);
  }
  return { ...figures, ratio: median(ratios) };
}

/**
 * Writes/s of `crowd(kind)` for plain and fenced, the best of CROWD_ROUNDS for each kind, and the
 * median over the rounds of fenced / plain (which runs first alternating); `crowd` resolves to
 * { writes, tallies } with the fenced writes' { accepted, stale, retries }.
 */
async function crowds(crowd) {
  const best = { plain: 0, fenced: 0, tally: { accepted: 0, stale: 0, retries: 0 } };
  const ratios = [];
  for (let r = 0; r < CROWD_ROUNDS; r++) {
    const round = {};
    for (const kind of r % 2 ? ["fenced", "plain"] : ["plain", "fenced"]) {
      const t = performance.now();
      const { writes, tally } = await crowd(kind);
      round[kind] = (writes * 1000) / (performance.now() - t);
      best[kind] = Math.max(best[kind], round[kind]);
      if (kind === "fenced") for (const k of Object.keys(best.tally)) best.tally[k] += tally[k];
    }
    ratios.push(round.fenced / round.plain);
  }
  return { ...best, ratio: median(ratios) };
}

/** SQLite: a file in WAL mode, as a server would keep it; the crowd in threads of their own. */
async function sqlite(dir) {
  const file = join(dir, "bench.db");
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  const store = new SqliteStore(db, { table: "bench" });
  await store.createTable();
  const upsert = db.prepare(`INSERT INTO bench (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`);
  let next = 0n;
  const single = await pair(
    700,
    (n) => {
      for (let i = 0; i < n; i++) upsert.run("plain", JSON.stringify(`v${i}`));
    },
    async (n) => {
      for (let i = 0; i < n; i++) await store.write("fenced", ++next, `v${i}`);
    },
  );
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
    let next = 0n;
    const single = await pair(
      100,
      async (n) => {
        for (let i = 0; i < n; i++) await pool.query({ ...upsert("bench"), values: ["plain", JSON.stringify(`v${i}`)] });
      },
      async (n) => {
        for (let i = 0; i < n; i++) await store.write("fenced", ++next, `v${i}`);
      },
    );
    const crowdStore = new PostgresStore(pool, { table: "crowd" });
    await crowdStore.createTable();
    let shared = 0n;
    const per = 60;
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
    const single = await pair(
      1700,
      (n) => post(workerd.base, "bench", "/bench", { n, fenced: false }),
      async (n) => {
        await post(workerd.base, "bench", "/bench", { n, fenced: true, from });
        from += n;
      },
    );
    await post(workerd.base, "crowd", "/open", { table: "bench" });
    let before = { accepted: 0, stale: 0 };
    const crowd = await crowds(async (kind) => {
      const fenced = kind === "fenced";
      await Promise.all(Array.from({ length: WRITERS }, () => post(workerd.base, "crowd", "/bench", { n: 200, fenced, shared: true })));
      const now = await post(workerd.base, "crowd", "/bench", { n: 0, fenced: true, shared: true });
      const tally = { accepted: now.accepted - before.accepted, stale: now.stale - before.stale, retries: 0 };
      before = now;
      return { writes: WRITERS * 200, tally };
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

console.log(`fenced write vs the same plain write (one writer, ${ROUNDS} rounds: best of each, median ratio of a round's two; goal: at most ${SINGLE_GOAL}x):`);
for (const { engine, single: f } of results) {
  const { ratio } = f;
  console.log(
    `  ${engine.padEnd(30)} plain ${f.plain.toFixed(1).padStart(8)} µs   fenced ${f.fenced.toFixed(1).padStart(8)} µs   ratio ${ratio.toFixed(2)}x   goal ${verdict(ratio <= SINGLE_GOAL)}`,
  );
}
console.log(`${WRITERS} concurrent writers to one key, ${CROWD_ROUNDS} rounds: best of each, median ratio of a round's two (goal: fenced at least ${CROWD_GOAL}x the plain writes/s); fenced writes each take the next token of a shared counter:`);
for (const { crowd, plain, fenced, tally, ratio } of results) {
  console.log(
    `  ${crowd.padEnd(34)} plain ${String(Math.round(plain)).padStart(7)} writes/s   fenced ${String(Math.round(fenced)).padStart(7)} writes/s   ratio ${ratio.toFixed(2)}x   goal ${verdict(ratio >= CROWD_GOAL)}   (fenced, ${CROWD_ROUNDS} rounds: accepted ${tally.accepted}, stale ${tally.stale}, conflict retries ${tally.retries})`,
  );
}
