// fencepost/store's DurableObjectSqlStore in a real workerd (Durable Objects with SQL, on local
// disk), driven over HTTP: the shared cases, the migration of an existing table, 100 concurrent
// writers, and workerd killed in the middle of a burst of writes.

import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { SIGNING_KEY, cases, check, shuffled } from "./cases.mjs";
import { post, remote } from "./runtime.mjs";
import { configure, startWorkerd } from "./workerd.mjs";

const dir = mkdtempSync(join(tmpdir(), "fencepost-do-"));
let workerd;

before(async () => {
  configure(dir);
  workerd = await startWorkerd(dir);
});
after(async () => {
  await workerd?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function open(object, options) {
  await post(workerd.base, object, "/open", options);
  return remote(workerd.base, object);
}

const sql = (object, query, params = []) => post(workerd.base, object, "/sql", { sql: query, params });

cases(
  "Durable Object SQL",
  (table, options = {}) => open(table, { table, ...(options.signer ? { signingKey: SIGNING_KEY, lockPrefix: "lock:" } : {}) }),
  async (table, key) => (await sql(table, `SELECT fence, fence_ops FROM "${table}" WHERE key = ?`, [key]))[0],
  async (table, key, part, text) => sql(table, `UPDATE "${table}" SET "${part}" = ? WHERE key = ?`, [text, key]),
);

test("Durable Object SQL: createTable adds the fence columns to an existing table and keeps its rows", async () => {
  await sql("migrate", `CREATE TABLE documents (id TEXT PRIMARY KEY, body TEXT, author TEXT DEFAULT 'n/a')`);
  await sql("migrate", `INSERT INTO documents (id, body) VALUES (?, ?)`, ["d1", JSON.stringify("before fencing")]);
  const store = await open("migrate", { table: "documents", keyColumn: "id", valueColumn: "body" });
  await open("migrate", { table: "documents", keyColumn: "id", valueColumn: "body" }); // a second run changes nothing
  const columns = (await sql("migrate", `PRAGMA table_info(documents)`)).map((c) => c.name);
  assert.deepEqual(columns, ["id", "body", "author", "fence", "fence_ops"]);
  assert.equal(await store.read("d1"), null);
  assert.deepEqual(await store.write("d1", 33n, "fenced"), { ok: true });
  assert.deepEqual(await store.read("d1"), { value: "fenced", token: 33n });
  assert.deepEqual(await sql("migrate", `SELECT author FROM documents WHERE id = 'd1'`), [{ author: "n/a" }]);
});


test("Durable Object SQL: 100 concurrent writers with interleaved tokens keep the fence", async () => {
  await open("crowd", { table: "crowd" });
  const results = await Promise.all(shuffled(100).map(async (token) => ({ token, ...(await post(workerd.base, "crowd", "/write", { key: "one", token, value: `w${token}` })) })));
  assert.ok(results.every((r) => r.result.ok || r.result.reason === "stale"));
  assert.ok(results.find((r) => r.token === 100n).result.ok, "the highest token is never refused");
  assert.deepEqual(await remote(workerd.base, "crowd").read("one"), { value: "w100", token: 100n });
  // The object's order of applied writes, then the refusals: `fencepost check` finds nothing.
  const accepted = results.filter((r) => r.result.ok).sort((a, b) => a.seq - b.seq);
  const log = accepted.map((r) => ({ t: r.seq, resource: "one", writer: `w${r.token}`, token: Number(r.token), result: "ok" }));
  for (const r of results.filter((r) => !r.result.ok)) log.push({ t: 0, resource: "one", writer: `w${r.token}`, token: Number(r.token), result: "rejected" });
  const { status, report, stderr } = check(log);
  assert.equal(status, 0, stderr + JSON.stringify(report));
  assert.equal(report.find((o) => o.summary).summary.accepted, accepted.length);
});

test("Durable Object SQL: workerd killed in the middle of a burst of writes leaves value and mark together", async () => {
  await open("burst", { table: "burst" });
  // The kill is sent from the 20th answer's own callback, so it lands while most of the burst
  // is still on its way (waiting for the answers in a loop let a fast machine answer them all).
  const BURST = 2000;
  const answered = [];
  let killed;
  const writes = shuffled(BURST).map((token) =>
    post(workerd.base, "burst", "/write", { key: "k", token, value: `w${token}` }).then(
      (r) => {
        answered.push({ token, ok: r.result.ok });
        if (answered.length === 20) killed = workerd.stop();
      },
      () => {}, // cut off by the kill
    ),
  );
  await Promise.all(writes);
  assert.ok(killed !== undefined, `only ${answered.length} of ${BURST} writes were answered before the kill`);
  await killed;
  // The kill landed in the middle of the burst: some writes never got their answer.
  assert.ok(answered.length < BURST, "every write was answered before the kill: nothing was cut off");
  workerd = await startWorkerd(dir);
  const store = await open("burst", { table: "burst" });
  const after = await store.read("k");
  // The value belongs to the mark, and the mark is at least every acknowledged accepted token.
  assert.equal(after.value, `w${after.token}`);
  for (const a of answered.filter((a) => a.ok)) assert.ok(a.token <= after.token, `${a.token} was acknowledged, the mark is ${after.token}`);
  // Nothing older gets in after the restart; a newer owner does.
  if (after.token > 1n) {
    assert.deepEqual(await store.write("k", after.token - 1n, "stale"), { ok: false, reason: "stale", presented: after.token - 1n, highest: after.token });
  }
  assert.deepEqual(await store.write("k", after.token + 1n, "after the crash"), { ok: true });
});
