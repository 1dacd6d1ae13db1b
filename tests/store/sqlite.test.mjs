// fencepost/store on a real SQLite (better-sqlite3): the shared cases, the migration of an
// existing table (by several processes at once too), 100 writers on four connections in four
// threads, and processes killed right after a one-statement write and between a transaction's
// write and its COMMIT.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { Worker } from "node:worker_threads";
import Database from "better-sqlite3";
import { KeyRing } from "fencepost";
import { SqliteStore, StoreContentionError } from "fencepost/store";
import { cases, check, shuffled } from "./cases.mjs";

const dir = mkdtempSync(join(tmpdir(), "fencepost-sqlite-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const file = join(dir, "store.db");
const db = new Database(file);
db.pragma("journal_mode = WAL");
after(() => db.close());

cases(
  "SQLite",
  async (table, options = {}) => {
    const store = new SqliteStore(db, { table, ...options });
    await store.createTable();
    return store;
  },
  async (table, key) => db.prepare(`SELECT fence, fence_ops FROM "${table}" WHERE key = ?`).get(key),
  async (table, key, part, text) => db.prepare(`UPDATE "${table}" SET "${part}" = ? WHERE key = ?`).run(text, key),
);

test("SQLite: createTable adds the fence columns to an existing table and keeps its rows", async () => {
  db.exec(`CREATE TABLE documents (id TEXT PRIMARY KEY, body TEXT, author TEXT DEFAULT 'n/a')`);
  db.prepare(`INSERT INTO documents (id, body) VALUES (?, ?)`).run("d1", JSON.stringify("before fencing"));
  const store = new SqliteStore(db, { table: "documents", keyColumn: "id", valueColumn: "body" });
  await store.createTable();
  await store.createTable(); // a second run changes nothing
  const columns = db.prepare(`SELECT name FROM pragma_table_info('documents')`).all().map((c) => c.name);
  assert.deepEqual(columns, ["id", "body", "author", "fence", "fence_ops"]);
  // A row no fenced write has touched has no mark yet.
  assert.equal(await store.read("d1"), null);
  assert.deepEqual(await store.write("d1", 33n, "fenced"), { ok: true });
  assert.deepEqual(await store.read("d1"), { value: "fenced", token: 33n });
  assert.deepEqual(db.prepare(`SELECT author FROM documents WHERE id = 'd1'`).get(), { author: "n/a" });
});

test("SQLite: createTable by four processes' connections at once: each succeeds, the columns are added once", async () => {
  // Tables as an earlier version made them, without the fence columns, so every caller has work.
  const tables = Array.from({ length: 20 }, (_, i) => `racing_${i}`);
  for (const t of tables) db.exec(`CREATE TABLE ${t} (key TEXT PRIMARY KEY NOT NULL, value TEXT)`);
  const start = new Int32Array(new SharedArrayBuffer(4));
  const threads = [0, 1, 2, 3].map(() => new Worker(new URL("./sqlite-create.mjs", import.meta.url), { workerData: { file, tables, start } }));
  const results = threads.map((w) => new Promise((ok, fail) => w.on("message", (m) => m !== "ready" && ok(m)).once("error", fail)));
  // Each table's race starts once every thread waits for it.
  let ready = 0;
  for (const w of threads) w.on("message", (m) => m === "ready" && ++ready % threads.length === 0 && (Atomics.add(start, 0, 1), Atomics.notify(start, 0)));
  const outcomes = await Promise.all(results);
  assert.deepEqual(outcomes, threads.map(() => tables.map(() => "ok")));
  for (const t of tables) {
    const columns = db.prepare(`SELECT name FROM pragma_table_info(?)`).all(t).map((c) => c.name);
    assert.deepEqual(columns, ["key", "value", "fence", "fence_ops"], t);
  }
});

test("SQLite: bad options are refused", () => {
  assert.throws(() => new SqliteStore(db, {}), { name: "TypeError", message: /options.table is required/ });
  assert.throws(() => new SqliteStore(db, { table: "x; DROP TABLE y" }), RangeError);
  assert.throws(() => new SqliteStore(db, { table: "t", keyColumn: "1k" }), RangeError);
  assert.throws(() => new SqliteStore({}, { table: "t" }), TypeError);
  assert.throws(() => new SqliteStore(db, { table: "t", signer: {} }), TypeError);
});

/** The accepted writes in the order SQLite applied them, kept by a trigger on the table. */
function logTable(table) {
  db.exec(`CREATE TABLE "${table}_log" (seq INTEGER PRIMARY KEY AUTOINCREMENT, key TEXT, value TEXT, fence TEXT)`);
  for (const on of ["INSERT", "UPDATE"]) {
    db.exec(`CREATE TRIGGER "${table}_${on}" AFTER ${on} ON "${table}" BEGIN
      INSERT INTO "${table}_log" (key, value, fence) VALUES (NEW.key, NEW.value, NEW.fence); END`);
  }
}

test("SQLite: 100 writers with interleaved tokens on four connections keep the fence", async () => {
  const store = new SqliteStore(db, { table: "crowd" });
  await store.createTable();
  logTable("crowd");
  // Tokens 1..100 dealt round-robin to the threads in a shuffled order: each thread holds a mix
  // of low and high tokens, and they all write at once.
  const tokens = shuffled(100).map(Number);
  const threads = [0, 1, 2, 3].map((t) => tokens.filter((_, i) => i % 4 === t));
  const start = new Int32Array(new SharedArrayBuffer(4));
  const workers = threads.map((mine) => new Worker(new URL("./sqlite-writer.mjs", import.meta.url), { workerData: { file, tokens: mine, start } }));
  const message = (w) =>
    new Promise((resolve, reject) => {
      w.once("message", resolve);
      w.once("error", reject);
    });
  // Every thread has its connection open before any writes.
  await Promise.all(workers.map(message));
  const done = Promise.all(workers.map(message));
  Atomics.store(start, 0, 1);
  Atomics.notify(start, 0);
  const results = await done;
  const all = results.flat();
  assert.equal(all.length, 100);
  const accepted = all.filter((r) => r.result.ok);
  const refused = all.filter((r) => !r.result.ok);
  assert.ok(refused.every((r) => r.result.reason === "stale"), JSON.stringify(refused.filter((r) => r.result.reason !== "stale")));
  // The highest token is never refused, whatever the others did.
  assert.ok(accepted.some((r) => r.token === "100"));
  assert.deepEqual(await store.read("one"), { value: { writer: "w100" }, token: 100n });
  // The log of applied writes, in SQLite's order, then the refusals: `fencepost check` finds none.
  const applied = db.prepare(`SELECT seq, value, fence FROM crowd_log ORDER BY seq`).all();
  assert.equal(applied.length, accepted.length);
  const log = applied.map((row) => ({ t: row.seq, resource: "one", writer: JSON.parse(row.value).writer, token: Number(row.fence), result: "ok" }));
  for (const r of refused) log.push({ t: 1000, resource: "one", writer: `w${r.token}`, token: Number(r.token), result: "rejected" });
  const { status, report, stderr } = check(log);
  assert.equal(status, 0, stderr + JSON.stringify(report));
  const summary = report.find((o) => o.summary).summary;
  assert.equal(summary.accepted, accepted.length);
  assert.equal(report.filter((o) => o.finding).length, 0);
});

/**
 * Runs sqlite-crash.mjs: a child process writes `token` to `key` of table "crash" (with
 * idempotency key `op` when given) and freezes right after the statement that writes the row,
 * before the write answers (and before COMMIT when the store writes in a transaction); then it
 * is killed.
 */
async function killedAfterWriting(token, key, op) {
  const args = [new URL("./sqlite-crash.mjs", import.meta.url).pathname, file, token, key, ...(op === undefined ? [] : [op])];
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
  await new Promise((resolve, reject) => {
    child.stdout.on("data", (d) => String(d).includes("written") && resolve());
    child.once("exit", (code) => reject(new Error(`the child exited (${code}) before writing`)));
  });
  const killed = new Promise((resolve) => child.once("exit", (_code, signal) => resolve(signal)));
  child.kill("SIGKILL");
  assert.equal(await killed, "SIGKILL");
}

test("SQLite: a process killed right after its one-statement write, before answering, leaves that write whole and lets nothing stale in", async () => {
  const store = new SqliteStore(db, { table: "crash" });
  await store.createTable();
  assert.deepEqual(await store.write("k", 40n, "committed by 40"), { ok: true });
  // A child process writes 50 through the store and freezes (a blocked event loop) right after
  // the statement, before its write answers; then it is killed. A write without an idempotency
  // key over a row without entries is that one statement, committed on its own: value and mark
  // are there together.
  await killedAfterWriting("50", "k");
  assert.deepEqual(await store.read("k"), { value: "written by 50", token: 50n });
  // Nothing stale gets in, the dead owner's token included, and a newer one is admitted.
  assert.deepEqual(await store.write("k", 45n, "stale"), { ok: false, reason: "stale", presented: 45n, highest: 50n });
  assert.deepEqual(await store.write("k", 51n, "after the crash"), { ok: true });
  assert.deepEqual(await store.read("k"), { value: "after the crash", token: 51n });
});

test("SQLite: a process killed between a write the core decided and its COMMIT loses nothing and lets nothing stale in", async () => {
  const store = new SqliteStore(db, { table: "crash" });
  await store.createTable();
  // A row with an idempotency entry: a write without a key over it is the core's to decide, in
  // a transaction.
  assert.deepEqual(await store.write("entries", 40n, "committed by 40", { idempotencyKey: "first" }), { ok: true });
  const before = db.prepare(`SELECT value, fence, fence_ops FROM crash WHERE key = 'entries'`).get();
  await killedAfterWriting("50", "entries");
  // Its write never happened: the committed row stands.
  assert.deepEqual(db.prepare(`SELECT value, fence, fence_ops FROM crash WHERE key = 'entries'`).get(), before);
  // Nothing stale gets in, and a newer owner (45, below the dead 50) is admitted.
  assert.deepEqual(await store.write("entries", 39n, "stale"), { ok: false, reason: "stale", presented: 39n, highest: 40n });
  assert.deepEqual(await store.write("entries", 45n, "after the crash"), { ok: true });
  assert.deepEqual(await store.read("entries"), { value: "after the crash", token: 45n });
  assert.deepEqual(JSON.parse(db.prepare(`SELECT fence_ops FROM crash WHERE key = 'entries'`).get().fence_ops), [["first", "00000000000000000040"]]);
});

test("SQLite: a process killed between a keyed write and its COMMIT leaves the row and its entries as they were", async () => {
  const store = new SqliteStore(db, { table: "crash" });
  await store.createTable();
  assert.deepEqual(await store.write("keyed", 40n, "committed by 40", { idempotencyKey: "first" }), { ok: true });
  const before = db.prepare(`SELECT value, fence, fence_ops FROM crash WHERE key = 'keyed'`).get();
  // The child reads the row, the core admits 50 with key "second", and the row is written; then
  // it is frozen and killed before COMMIT.
  await killedAfterWriting("50", "keyed", "second");
  assert.deepEqual(db.prepare(`SELECT value, fence, fence_ops FROM crash WHERE key = 'keyed'`).get(), before);
  assert.deepEqual(JSON.parse(before.fence_ops), [["first", "00000000000000000040"]]);
  // The dead write's key was never recorded: the same operation, sent again, is applied once.
  assert.deepEqual(await store.write("keyed", 50n, "written by 50", { idempotencyKey: "second" }), { ok: true });
  assert.deepEqual(await store.write("keyed", 50n, "written by 50", { idempotencyKey: "second" }), { ok: false, reason: "duplicate", presented: 50n });
  assert.deepEqual(await store.read("keyed"), { value: "written by 50", token: 50n });
});

test("SQLite: a write that finds the database busy on every attempt ends in StoreContentionError", async () => {
  const store = new SqliteStore(db, { table: "busy" });
  await store.createTable();
  assert.deepEqual(await store.write("k", 3n, "by 3"), { ok: true });
  // Another connection holds the write lock; this one gives up waiting after 1 ms each time.
  const other = new Database(file);
  other.exec("BEGIN IMMEDIATE");
  const impatient = new Database(file, { timeout: 1 });
  try {
    const blocked = new SqliteStore(impatient, { table: "busy" });
    await assert.rejects(blocked.write("k", 4n, "by 4"), (e) => {
      assert.equal(e.name, "StoreContentionError");
      assert.ok(e instanceof StoreContentionError);
      assert.equal(e.key, "k");
      assert.equal(e.attempts, 32);
      assert.equal(e.cause.code, "SQLITE_BUSY");
      return true;
    });
    assert.equal(blocked.retries, 32);
  } finally {
    other.exec("ROLLBACK");
    other.close();
    impatient.close();
  }
  // It was not applied, and once the lock is free the same write goes through.
  assert.deepEqual(await store.read("k"), { value: "by 3", token: 3n });
  assert.deepEqual(await store.write("k", 4n, "by 4"), { ok: true });
});

test("SQLite: a store verifying with a KeyRing answers the ring's own refusals", async () => {
  const key = (fill) => new Uint8Array(32).fill(fill);
  const ring = new KeyRing(1, key(1));
  const store = new SqliteStore(db, { table: "ring", signer: ring });
  await store.createTable();
  const old = ring.sign("k", 40n);
  ring.rotate(2, key(2));
  assert.deepEqual(await store.write("k", old, "signed by key 1"), { ok: true });
  ring.remove(1);
  // Key 1 is gone: its tokens name a key the ring does not know, which is not a forgery.
  assert.deepEqual(await store.write("k", old, "again"), { ok: false, reason: "unknownKey", keyId: 1 });
  assert.deepEqual(await store.write("k", ring.sign("k", 41n).replace(/.$/, (c) => (c === "0" ? "1" : "0")), "tampered"), { ok: false, reason: "forged" });
  assert.deepEqual(await store.write("k", ring.sign("k", 41n), "signed by key 2"), { ok: true });
  assert.deepEqual(await store.read("k"), { value: "signed by key 2", token: 41n });
});

