// The store benchmark (part of `cargo xtask bench`): per engine, a fenced write through
// fencepost/store against the same write without a fence (a plain upsert of the value), one
// writer, best of ROUNDS interleaved rounds; then 16 concurrent writers to one key, each write
// with the next token of a shared counter (so tokens interleave), with stale refusals and
// conflict retries counted. Figures only; nothing here asserts a time.
//
// SQLite and Postgres run here in Node (Postgres on the server cargo xtask starts: PGHOST);
// Durable Object SQL in workerd, measured around one request that makes all of a round's writes.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import Database from "better-sqlite3";
import pg from "pg";
import { PostgresStore, SqliteStore } from "fencepost/store";
import { post } from "./runtime.mjs";
import { configure, startWorkerd } from "./workerd.mjs";

const ROUNDS = 5;
const WRITERS = 16;

/** Plain and fenced, their rounds interleaved so both see the same machine load. */
async function pair(n, plain, fenced) {
  const figures = { plain: Infinity, fenced: Infinity };
  for (let r = 0; r < ROUNDS; r++) {
    figures.plain = Math.min(figures.plain, await best1(n, plain, r));
    figures.fenced = Math.min(figures.fenced, await best1(n, fenced, r));
  }
  return figures;
}

async function best1(n, round, r) {
  const t = performance.now();
  await round(n, r);
  return ((performance.now() - t) * 1000) / n;
}

const rows = [];
const crowds = [];
const dir = mkdtempSync(join(tmpdir(), "fencepost-bench-"));
try {
  // SQLite: a file in WAL mode, as a server would keep it.
  const file = join(dir, "bench.db");
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  const sqlite = new SqliteStore(db, { table: "bench" });
  await sqlite.createTable();
  const upsert = db.prepare(`INSERT INTO bench (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`);
  let next = 0n;
  const sq = await pair(
    2000,
    (n) => {
      for (let i = 0; i < n; i++) upsert.run("plain", JSON.stringify(`v${i}`));
    },
    async (n) => {
      for (let i = 0; i < n; i++) await sqlite.write("fenced", ++next, `v${i}`);
    },
  );
  rows.push(["SQLite (better-sqlite3)", sq]);
  const crowdStore = new SqliteStore(db, { table: "crowd" });
  await crowdStore.createTable();
  const counter = new Int32Array(new SharedArrayBuffer(4));
  const start = new Int32Array(new SharedArrayBuffer(4));
  const per = 100;
  const workers = Array.from({ length: WRITERS }, () => new Worker(new URL("./bench-sqlite-writer.mjs", import.meta.url), { workerData: { file, writes: per, counter, start } }));
  const message = (w) => new Promise((resolve, reject) => (w.once("message", resolve), w.once("error", reject)));
  await Promise.all(workers.map(message));
  const done = Promise.all(workers.map(message));
  const t = performance.now();
  Atomics.store(start, 0, 1);
  Atomics.notify(start, 0);
  const tallies = await done;
  crowds.push(["SQLite (16 threads)", WRITERS * per, performance.now() - t, tallies]);
  db.close();

  // Postgres, one transaction per fenced write, one statement per plain one.
  const pool = new pg.Pool({ max: WRITERS });
  await pool.query("DROP TABLE IF EXISTS bench, crowd");
  const pgStore = new PostgresStore(pool, { table: "bench" });
  await pgStore.createTable();
  const pgr = await pair(
    300,
    async (n) => {
      for (let i = 0; i < n; i++) await pool.query(`INSERT INTO bench (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, ["plain", JSON.stringify(`v${i}`)]);
    },
    async (n) => {
      for (let i = 0; i < n; i++) await pgStore.write("fenced", ++next, `v${i}`);
    },
  );
  rows.push(["Postgres (pg, unix socket)", pgr]);
  const pgCrowd = new PostgresStore(pool, { table: "crowd" });
  await pgCrowd.createTable();
  let shared = 0n;
  const pgStart = performance.now();
  const pgTallies = await Promise.all(
    Array.from({ length: WRITERS }, async () => {
      const tally = { accepted: 0, stale: 0, retries: 0 };
      for (let i = 0; i < 60; i++) {
        const r = await pgCrowd.write("one", ++shared, `v${i}`);
        if (r.ok) tally.accepted++;
        else tally.stale++;
      }
      return tally;
    }),
  );
  pgTallies[0].retries = pgCrowd.retries;
  crowds.push(["Postgres (16 connections)", WRITERS * 60, performance.now() - pgStart, pgTallies]);
  await pool.end();

  // Durable Object SQL in workerd: each round is one request making all its writes.
  configure(dir);
  const workerd = await startWorkerd(dir);
  try {
    await post(workerd.base, "bench", "/open", { table: "bench" });
    let from = 1;
    const dor = await pair(
      5000,
      (n) => post(workerd.base, "bench", "/bench", { n, fenced: false }),
      async (n) => {
        await post(workerd.base, "bench", "/bench", { n, fenced: true, from });
        from += n;
      },
    );
    rows.push(["Durable Object SQL (workerd)", dor]);
    await post(workerd.base, "crowd", "/open", { table: "bench" });
    const doStart = performance.now();
    await Promise.all(Array.from({ length: WRITERS }, () => post(workerd.base, "crowd", "/bench", { n: 200, fenced: true, shared: true })));
    const last = await post(workerd.base, "crowd", "/bench", { n: 0, fenced: true, shared: true });
    crowds.push(["Durable Object SQL (16 requests)", WRITERS * 200, performance.now() - doStart, [{ accepted: last.accepted, stale: last.stale, retries: 0 }]]);
  } finally {
    await workerd.stop();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

console.log("fenced write vs the same plain write (one writer, best of 5 rounds):");
for (const [engine, f] of rows) {
  console.log(`  ${engine.padEnd(30)} plain ${f.plain.toFixed(1).padStart(8)} µs   fenced ${f.fenced.toFixed(1).padStart(8)} µs   ratio ${(f.fenced / f.plain).toFixed(2)}x`);
}
console.log(`${WRITERS} concurrent writers to one key, each write with the next token of a shared counter:`);
for (const [engine, writes, ms, tallies] of crowds) {
  const sum = (k) => tallies.reduce((n, t) => n + t[k], 0);
  console.log(
    `  ${engine.padEnd(34)} ${String(Math.round((writes * 1000) / ms)).padStart(7)} writes/s   accepted ${sum("accepted")}, stale ${sum("stale")}, conflict retries ${sum("retries")}`,
  );
}
