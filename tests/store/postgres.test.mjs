// fencepost/store on a real Postgres (through `pg`), the server cargo xtask test-store starts on a
// unix socket (PGHOST): the shared cases, the migration of an existing table, a Client shared by
// concurrent writes, 100 writers on 50 connections, lost races under SERIALIZABLE, and
// connections killed mid-transaction with pg_terminate_backend.

import assert from "node:assert/strict";
import { after, test } from "node:test";
import pg from "pg";
import { PostgresStore } from "fencepost/store";
import { cases, check, shuffled } from "./cases.mjs";

// A database of its own, so other test files on the same server (the README's examples) and
// earlier runs do not meet this one's tables.
const database = `fencepost_store_${process.pid}`;
const admin = new pg.Client();
await admin.connect();
await admin.query(`DROP DATABASE IF EXISTS ${database}`);
await admin.query(`CREATE DATABASE ${database}`);
const pool = new pg.Pool({ max: 50, database });
after(async () => {
  await pool.end();
  await admin.query(`DROP DATABASE ${database}`);
  await admin.end();
});

cases(
  "Postgres",
  async (table, options = {}) => {
    const store = new PostgresStore(pool, { table, ...options });
    await store.createTable();
    return store;
  },
  async (table, key) => (await pool.query(`SELECT fence, fence_ops FROM "${table}" WHERE key = $1`, [key])).rows[0],
  async (table, key, part, text) => pool.query(`UPDATE "${table}" SET "${part}" = $2 WHERE key = $1`, [key, text]),
);

test("Postgres: something with query() that is neither a Pool nor a Client is refused", () => {
  // A pool taken for a Client would run BEGIN, the row lock and COMMIT on different connections.
  const poolLike = { query: async () => ({ rows: [] }), connect: async () => ({}) };
  assert.throws(() => new PostgresStore(poolLike, { table: "t" }), {
    name: "TypeError",
    message: "poolOrClient must be a pg Pool or Client, got an object (Object)",
  });
  assert.doesNotThrow(() => new PostgresStore(pool, { table: "t" }));
  assert.doesNotThrow(() => new PostgresStore(new pg.Client({ database }), { table: "t" }));
});

test("Postgres: createTable adds the fence columns to an existing table and keeps its rows", async () => {
  await pool.query(`CREATE TABLE documents (id text PRIMARY KEY, body text, author text DEFAULT 'n/a')`);
  await pool.query(`INSERT INTO documents (id, body) VALUES ($1, $2)`, ["d1", JSON.stringify("before fencing")]);
  const store = new PostgresStore(pool, { table: "documents", keyColumn: "id", valueColumn: "body" });
  await store.createTable();
  await store.createTable(); // a second run changes nothing
  const { rows } = await pool.query(
    `SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'documents' ORDER BY ordinal_position`,
  );
  assert.deepEqual(
    rows.map((r) => [r.column_name, r.data_type]),
    [
      ["id", "text"],
      ["body", "text"],
      ["author", "text"],
      ["fence", "text"],
      ["fence_ops", "text"],
    ],
  );
  assert.equal(await store.read("d1"), null);
  assert.deepEqual(await store.write("d1", 33n, "fenced"), { ok: true });
  assert.deepEqual(await store.read("d1"), { value: "fenced", token: 33n });
  assert.deepEqual((await pool.query(`SELECT author FROM documents WHERE id = 'd1'`)).rows, [{ author: "n/a" }]);
});

test("Postgres: concurrent writes through one Client take turns on it", async () => {
  const client = new pg.Client({ database });
  await client.connect();
  try {
    const store = new PostgresStore(client, { table: "one_client" });
    await store.createTable();
    const tokens = [7n, 3n, 9n, 1n, 8n, 9n, 2n];
    const results = await Promise.all(tokens.map((t) => store.write("k", t, `by ${t}`)));
    // In call order: 7 in, 3 stale, 9 in, 1 stale, 8 stale, 9 again in, 2 stale.
    assert.deepEqual(
      results.map((r) => (r.ok ? "ok" : `${r.reason} ${r.presented}<${r.highest}`)),
      ["ok", "stale 3<7", "ok", "stale 1<9", "stale 8<9", "ok", "stale 2<9"],
    );
    assert.deepEqual(await store.read("k"), { value: "by 9", token: 9n });
  } finally {
    await client.end();
  }
});

/**
 * Keeps every applied write to `table`, in the order Postgres applied them, in `<table>_log`: the
 * first write to a key inserts its row, every later one updates it.
 */
async function logTable(table) {
  await pool.query(`
    CREATE TABLE "${table}_log" (seq bigserial PRIMARY KEY, key text, value text, fence text);
    CREATE FUNCTION "${table}_logged"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN INSERT INTO "${table}_log" (key, value, fence) VALUES (NEW.key, NEW.value, NEW.fence); RETURN NEW; END $$;
    CREATE TRIGGER "${table}_logged" AFTER INSERT OR UPDATE ON "${table}" FOR EACH ROW EXECUTE FUNCTION "${table}_logged"();`);
}


/** The write log of `table` (applied writes in order, then the refusals), checked by the CLI. */
async function checkLog(table, results) {
  const applied = (await pool.query(`SELECT seq, value, fence FROM "${table}_log" ORDER BY seq`)).rows;
  const accepted = results.filter((r) => r.result.ok);
  assert.equal(applied.length, accepted.length);
  const log = applied.map((row) => ({ t: Number(row.seq), resource: table, writer: JSON.parse(row.value), token: Number(row.fence), result: "ok" }));
  for (const r of results.filter((r) => !r.result.ok)) log.push({ t: 0, resource: table, writer: `w${r.token}`, token: Number(r.token), result: "rejected" });
  const { status, report, stderr } = check(log);
  assert.equal(status, 0, stderr + JSON.stringify(report));
  assert.equal(report.find((o) => o.summary).summary.accepted, accepted.length);
  assert.equal(report.filter((o) => o.finding).length, 0);
}

test("Postgres: 100 writers with interleaved tokens on 50 connections keep the fence", async () => {
  const store = new PostgresStore(pool, { table: "crowd" });
  await store.createTable();
  await logTable("crowd");
  const results = await Promise.all(shuffled(100).map(async (token) => ({ token, result: await store.write("one", token, `w${token}`) })));
  assert.ok(results.every((r) => r.result.ok || r.result.reason === "stale"));
  assert.ok(results.find((r) => r.token === 100n).result.ok, "the highest token is never refused");
  assert.deepEqual(await store.read("one"), { value: "w100", token: 100n });
  await checkLog("crowd", results);
});

test("Postgres: under SERIALIZABLE, lost races are read again and decided again, never refused", async () => {
  const strict = new pg.Pool({ max: 20, database, options: "-c default_transaction_isolation=serializable" });
  try {
    const store = new PostgresStore(strict, { table: "serial" });
    await store.createTable();
    await logTable("serial");
    const results = await Promise.all(shuffled(20).map(async (token) => ({ token, result: await store.write("one", token, `w${token}`) })));
    assert.ok(results.find((r) => r.token === 20n).result.ok, "the highest token is never refused");
    assert.deepEqual(await store.read("one"), { value: "w20", token: 20n });
    await checkLog("serial", results);
    // The races did happen: writes failed to serialize and were decided again.
    assert.ok(store.retries > 0, `${store.retries} retries`);
  } finally {
    await strict.end();
  }
});

/** Waits (at most 10 s) until backend `pid` waits for a lock of `kind` (pg_stat_activity's wait_event). */
async function waitsFor(pid, kind) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const { rows } = await pool.query(`SELECT wait_event_type, wait_event FROM pg_stat_activity WHERE pid = $1`, [pid]);
    if (rows[0]?.wait_event_type === "Lock" && (kind === undefined || rows[0].wait_event === kind)) return;
    assert.ok(Date.now() < deadline, `backend ${pid} never waited for a lock${kind ? ` (${kind})` : ""}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

test("Postgres: a connection killed between its write and its COMMIT loses nothing and lets nothing stale in", async () => {
  const store = new PostgresStore(pool, { table: "crash" });
  await store.createTable();
  assert.deepEqual(await store.write("k", 40n, "committed by 40", { idempotencyKey: "op-40" }), { ok: true });
  // A write is one statement, committed as it ends. To hold it after the row is written and
  // before its COMMIT, a trigger that runs once the row is written waits for a lock this test holds.
  await pool.query(`
    CREATE FUNCTION crash_held() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM pg_advisory_xact_lock(4242); RETURN NEW; END $$;
    CREATE TRIGGER crash_held AFTER UPDATE ON crash FOR EACH ROW EXECUTE FUNCTION crash_held();`);
  const holder = await pool.connect();
  await holder.query("BEGIN");
  await holder.query("SELECT pg_advisory_xact_lock(4242)");
  const victim = new pg.Client({ database });
  victim.on("error", () => {}); // the kill is expected
  await victim.connect();
  // Its failure is taken as soon as it comes: it may come before the test looks.
  const failed = new PostgresStore(victim, { table: "crash" }).write("k", 50n, "written by 50", { idempotencyKey: "op-50" }).then(
    (r) => assert.fail(`the killed write answered ${JSON.stringify(r, (_, v) => (typeof v === "bigint" ? `${v}` : v))}`),
    (e) => e,
  );
  // Whatever fails below, the lock is let go, the trigger dropped and the connection closed: a
  // connection left open would keep the pool's end (and the run) waiting instead of failing.
  try {
    await waitsFor(victim.processID, "advisory");
    // Its row is written and locked, uncommitted: other sessions still see 40.
    assert.deepEqual(await store.read("k"), { value: "committed by 40", token: 40n });
    const { rows } = await pool.query("SELECT pg_terminate_backend($1) AS killed", [victim.processID]);
    assert.deepEqual(rows, [{ killed: true }]);
    const e = await failed;
    assert.ok(e.name !== "StoreContentionError" && /terminat|Connection/i.test(e.message), e.message);
  } finally {
    await victim.end().catch(() => {});
    await holder.query("ROLLBACK").catch(() => {});
    holder.release();
    await pool.query("DROP TRIGGER crash_held ON crash; DROP FUNCTION crash_held()");
  }
  // Nothing of 50 stayed; 40 stands, nothing older gets in.
  assert.deepEqual(await store.read("k"), { value: "committed by 40", token: 40n });
  assert.deepEqual(await store.write("k", 39n, "stale"), { ok: false, reason: "stale", presented: 39n, highest: 40n });
  // The owner of 50 retries with the same idempotency key: applied now, once.
  assert.deepEqual(await store.write("k", 50n, "written by 50", { idempotencyKey: "op-50" }), { ok: true });
  assert.deepEqual(await store.write("k", 50n, "written by 50", { idempotencyKey: "op-50" }), { ok: false, reason: "duplicate", presented: 50n });
  assert.deepEqual(await store.read("k"), { value: "written by 50", token: 50n });
});

test("Postgres: a writer killed while it waits for the row lock changes nothing", async () => {
  const store = new PostgresStore(pool, { table: "waiting" });
  await store.createTable();
  assert.deepEqual(await store.write("k", 10n, "by 10"), { ok: true });
  // Another session holds the row lock.
  const holder = await pool.connect();
  await holder.query("BEGIN");
  await holder.query(`SELECT * FROM waiting WHERE key = 'k' FOR UPDATE`);
  const victim = new pg.Client({ database });
  victim.on("error", () => {});
  await victim.connect();
  // Its failure is taken as soon as it comes: it may come before the test looks.
  const failed = new PostgresStore(victim, { table: "waiting" }).write("k", 12n, "by 12").then(
    (r) => assert.fail(`the killed write answered ${JSON.stringify(r, (_, v) => (typeof v === "bigint" ? `${v}` : v))}`),
    (e) => e,
  );
  try {
    // Wait (at most 10 s) until it is blocked on the lock, then kill it there.
    const deadline = Date.now() + 10_000;
    for (;;) {
      const { rows } = await pool.query(`SELECT wait_event_type FROM pg_stat_activity WHERE pid = $1`, [victim.processID]);
      if (rows[0]?.wait_event_type === "Lock") break;
      assert.ok(Date.now() < deadline, "the second writer never waited for the row lock");
      await new Promise((r) => setTimeout(r, 10));
    }
    await pool.query("SELECT pg_terminate_backend($1)", [victim.processID]);
    assert.equal((await failed).code, "57P01"); // terminated by pg_terminate_backend
  } finally {
    // Back to the pool and closed even when an assertion failed, so the pool can end.
    await victim.end().catch(() => {});
    await holder.query("ROLLBACK").catch(() => {});
    holder.release();
  }
  assert.deepEqual(await store.read("k"), { value: "by 10", token: 10n });
  assert.deepEqual(await store.write("k", 9n, "stale"), { ok: false, reason: "stale", presented: 9n, highest: 10n });
  assert.deepEqual(await store.write("k", 11n, "by 11"), { ok: true });
});
