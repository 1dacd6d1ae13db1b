// The stores' SQL against the core. A fenced write on Postgres and SQLite is one statement that
// restates the core's rule (npm/src/store/sql.js); this test keeps the two in step. Random
// sequences of writes (tokens equal to the mark, lower, higher, at u64 edges and 0; idempotency
// keys reused across tokens, retried, and more than 16 of them on one row) go to real Postgres
// and real SQLite (and Durable Object SQL in workerd, whose SQLite runs the same statement), and
// every answer and every final row is compared with decideStoredWrite fed the same sequence
// (differential.mjs). Then concurrent writers on one row: each answer must be
// the core's over some state the row went through while the write was under way, every accepted
// write the core's choice at its place in the order the engine applied them (a trigger's log),
// and the final row the one that order leads to.

import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { Worker } from "node:worker_threads";
import Database from "better-sqlite3";
import pg from "pg";
import { PostgresStore, SqliteStore } from "fencepost/store";
import { KEYS, Model, concurrentWrite, nextWrite, random, show } from "./differential.mjs";
import { post, remote } from "./runtime.mjs";
import { configure, startWorkerd } from "./workerd.mjs";

const SEQUENCES = 40;
const WRITES = 150;

const database = `fencepost_differential_${process.pid}`;
const admin = new pg.Client();
await admin.connect();
await admin.query(`DROP DATABASE IF EXISTS ${database}`);
await admin.query(`CREATE DATABASE ${database}`);
const pool = new pg.Pool({ max: 8, database });
const dir = mkdtempSync(join(tmpdir(), "fencepost-differential-"));
const file = join(dir, "store.db");
const db = new Database(file);
db.pragma("journal_mode = WAL");
// Durable Object SQL runs the SQLite statement on workerd's own SQLite.
configure(dir);
const workerd = await startWorkerd(dir);
after(async () => {
  await workerd.stop();
  db.close();
  rmSync(dir, { recursive: true, force: true });
  await pool.end();
  await admin.query(`DROP DATABASE ${database}`);
  await admin.end();
});

/** Per engine: a fresh store over table `name`, its rows' columns, and a log of applied writes. */
const engines = {
  Postgres: {
    async make(name) {
      const store = new PostgresStore(pool, { table: name });
      await store.createTable();
      return store;
    },
    row: async (name, key) => (await pool.query(`SELECT value, fence, fence_ops FROM "${name}" WHERE key = $1`, [key])).rows[0],
    async logged(name) {
      await pool.query(`
        CREATE TABLE "${name}_log" (seq bigserial PRIMARY KEY, key text, value text);
        CREATE FUNCTION "${name}_logged"() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN INSERT INTO "${name}_log" (key, value) VALUES (NEW.key, NEW.value); RETURN NEW; END $$;
        CREATE TRIGGER "${name}_logged" AFTER INSERT OR UPDATE ON "${name}" FOR EACH ROW EXECUTE FUNCTION "${name}_logged"();`);
    },
    log: async (name) => (await pool.query(`SELECT key, value FROM "${name}_log" ORDER BY seq`)).rows,
  },
  SQLite: {
    async make(name) {
      const store = new SqliteStore(db, { table: name });
      await store.createTable();
      return store;
    },
    row: async (name, key) => db.prepare(`SELECT value, fence, fence_ops FROM "${name}" WHERE key = ?`).get(key),
    async logged(name) {
      db.exec(`CREATE TABLE "${name}_log" (seq INTEGER PRIMARY KEY AUTOINCREMENT, key TEXT, value TEXT)`);
      for (const on of ["INSERT", "UPDATE"]) {
        db.exec(`CREATE TRIGGER "${name}_${on}" AFTER ${on} ON "${name}" BEGIN INSERT INTO "${name}_log" (key, value) VALUES (NEW.key, NEW.value); END`);
      }
    },
    log: async (name) => db.prepare(`SELECT key, value FROM "${name}_log" ORDER BY seq`).all(),
  },
  "Durable Object SQL": {
    async make(name) {
      await post(workerd.base, name, "/open", { table: name });
      return remote(workerd.base, name);
    },
    row: async (name, key) => (await post(workerd.base, name, "/sql", { sql: `SELECT value, fence, fence_ops FROM "${name}" WHERE key = ?`, params: [key] }))[0],
  },
};

/** A row's columns as the model holds them: the value and entries parsed. */
function parsedRow(row) {
  if (row === undefined) return null;
  return { value: JSON.parse(row.value), fence: row.fence, fence_ops: row.fence_ops === null ? null : JSON.parse(row.fence_ops) };
}

/**
 * The final rows: what the store reads and holds under `prefix` + key must be what the model
 * holds under the key, for every key written.
 */
async function sameRows(engine, name, store, model, prefix, what) {
  for (const key of KEYS) {
    const expected = model.stored(key);
    assert.deepEqual(parsedRow(await engines[engine].row(name, prefix + key)), expected, `${what}: the row of ${show(key)}`);
    const read = await store.read(prefix + key);
    assert.deepEqual(read, expected === null ? null : { value: expected.value, token: model.row(key).mark }, `${what}: reading ${show(key)}`);
  }
}

for (const engine of Object.keys(engines)) {
  test(`${engine}: ${SEQUENCES} random sequences of ${WRITES} writes answer as the core does, write for write`, async () => {
    const store = await engines[engine].make("sequences");
    let accepted = 0;
    for (let seed = 1; seed <= SEQUENCES; seed++) {
      const rnd = random(seed);
      const model = new Model();
      // Each sequence on rows of its own.
      const prefix = `${seed}/`;
      for (let n = 0; n < WRITES; n++) {
        const w = nextWrite(rnd, model);
        const value = { seed, n };
        const options = w.op === undefined ? undefined : { idempotencyKey: w.op };
        let answer;
        try {
          answer = await store.write(prefix + w.key, w.token, value, options);
        } catch (error) {
          answer = `${error.name}: ${error.message}`;
        }
        const over = show(model.row(w.key));
        const expected = model.write(w.key, w.token, w.op, value);
        if (expected.ok) accepted++;
        assert.deepEqual(answer, expected, `seed ${seed}, write ${n}: ${show(w)} over ${over}`);
      }
      await sameRows(engine, "sequences", store, model, prefix, `seed ${seed}`);
    }
    // The sequences did what they are for: most writes were refused as well as accepted.
    assert.ok(accepted > (SEQUENCES * WRITES) / 4 && accepted < (SEQUENCES * WRITES * 3) / 4, `${accepted} accepted`);
  });
}

/**
 * Checks concurrent writes to one table against the core. `records`: each write with its answer
 * and the events (`start`, `end`, from one counter) around it; `log`: the applied writes in the
 * engine's order (each value names its write).
 */
function linearized(records, log) {
  const byId = new Map(records.map((r) => [r.id, r]));
  const model = new Model();
  const states = new Map(); // key -> [model after 0, 1, ... applied writes to it]
  const place = new Map(); // id -> how many writes to its key were applied before it
  for (const { key, value } of log) {
    const r = byId.get(JSON.parse(value).id);
    assert.ok(r !== undefined && r.key === key, `the log holds a write no writer made: ${value}`);
    if (!states.has(key)) states.set(key, [model.clone()]);
    assert.deepEqual(r.answer, { ok: true }, `write ${show(r)} was applied`);
    const verdict = model.write(key, r.token, r.op, JSON.parse(value));
    assert.deepEqual(verdict, { ok: true }, `the core refuses the applied write ${show(r)} at its place in the log`);
    place.set(r.id, states.get(key).length - 1);
    states.get(key).push(model.clone());
  }
  const accepted = records.filter((r) => r.answer.ok);
  assert.equal(place.size, accepted.length, "every accepted write is applied once, and no other");
  for (const r of records) {
    const chain = states.get(r.key) ?? [new Model()];
    // The states the row went through while `r` was under way: after every write that ended
    // before it began, and up to every write that began before it ended.
    let from = 0;
    let to = 0;
    for (const other of accepted) {
      if (other.key !== r.key || other === r) continue;
      if (other.end < r.start) from = Math.max(from, place.get(other.id) + 1);
      if (other.start < r.end) to = Math.max(to, place.get(other.id) + 1);
    }
    if (r.answer.ok) {
      assert.ok(place.get(r.id) >= from, `write ${show(r)} was applied before a write that had ended before it began`);
      continue;
    }
    to = Math.max(from, to);
    const explained = chain.slice(from, to + 1).some((state) => show(state.decide(r.key, r.token, r.op)) === show(r.answer));
    assert.ok(explained, `no state of ${show(r.key)} from ${from} to ${to} makes the core answer ${show(r.answer)} to ${show(r)}`);
  }
  return model;
}

test("Postgres: 8 concurrent writers on one row answer as the core does in the order Postgres applied them", async () => {
  const store = await engines.Postgres.make("concurrent");
  await engines.Postgres.logged("concurrent");
  let counter = 0n;
  let events = 0;
  let ids = 0;
  const records = [];
  await Promise.all(
    Array.from({ length: 8 }, async (_, w) => {
      const rnd = random(1000 + w);
      const mine = [];
      for (let n = 0; n < 80; n++) {
        const next = concurrentWrite(rnd, () => ++counter, mine);
        const r = { id: ++ids, ...next, start: ++events };
        const options = r.op === undefined ? undefined : { idempotencyKey: r.op };
        r.answer = await store.write(r.key, r.token, { id: r.id }, options);
        r.end = ++events;
        mine.push(r);
        records.push(r);
      }
    }),
  );
  const model = linearized(records, await engines.Postgres.log("concurrent"));
  await sameRows("Postgres", "concurrent", store, model, "", "after the writers");
  const answers = new Set(records.map((r) => (r.answer.ok ? "ok" : r.answer.reason)));
  assert.deepEqual([...answers].sort(), ["duplicate", "ok", "stale"]);
});

test("SQLite: 4 writer threads on their own connections answer as the core does in the order SQLite applied them", async () => {
  const store = await engines.SQLite.make("concurrent");
  await engines.SQLite.logged("concurrent");
  const shared = new BigInt64Array(new SharedArrayBuffer(16)); // [token counter, event counter]
  const start = new Int32Array(new SharedArrayBuffer(4));
  const workers = [0, 1, 2, 3].map((w) => new Worker(new URL("./differential-writer.mjs", import.meta.url), { workerData: { file, seed: 2000 + w, writer: w, writes: 100, shared, start } }));
  const message = (w) => new Promise((resolve, reject) => (w.once("message", resolve), w.once("error", reject)));
  await Promise.all(workers.map(message));
  const done = Promise.all(workers.map(message));
  Atomics.store(start, 0, 1);
  Atomics.notify(start, 0);
  const records = (await done).flat().map((r) => ({ ...r, token: BigInt(r.token), answer: JSON.parse(r.answer, (_, x) => (typeof x === "string" && /^[0-9]+n$/.test(x) ? BigInt(x.slice(0, -1)) : x)) }));
  const model = linearized(records, await engines.SQLite.log("concurrent"));
  await sameRows("SQLite", "concurrent", store, model, "", "after the writers");
  const answers = new Set(records.map((r) => (r.answer.ok ? "ok" : r.answer.reason)));
  assert.deepEqual([...answers].sort(), ["duplicate", "ok", "stale"]);
});
