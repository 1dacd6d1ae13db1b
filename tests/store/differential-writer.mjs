// One writer thread of the differential test's SQLite part: its own connection, `writes` random
// writes (differential.mjs) to table "concurrent", each recorded with its answer and the shared
// event counter read before it starts and after it ends.
import { parentPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";
import { SqliteStore } from "fencepost/store";
import { concurrentWrite, random, show } from "./differential.mjs";

const { file, seed, writer, writes, shared, start } = workerData;
const db = new Database(file, { timeout: 10_000 });
const store = new SqliteStore(db, { table: "concurrent" });
const rnd = random(seed);
const event = () => Atomics.add(shared, 1, 1n) + 1n;
parentPort.postMessage("ready");
Atomics.wait(start, 0, 0);
const mine = [];
for (let n = 0; n < writes; n++) {
  const next = concurrentWrite(rnd, () => Atomics.add(shared, 0, 1n) + 1n, mine);
  const r = { id: writer * 100_000 + n, ...next, start: event() };
  r.answer = await store.write(r.key, r.token, { id: r.id }, r.op === undefined ? undefined : { idempotencyKey: r.op });
  r.end = event();
  mine.push(r);
}
db.close();
// Bigints do not cross postMessage inside JSON: tokens and answers as text.
parentPort.postMessage(mine.map((r) => ({ ...r, token: String(r.token), answer: show(r.answer), start: Number(r.start), end: Number(r.end) })));
