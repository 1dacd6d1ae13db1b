// One thread of the SQLite crowd test: its own connection, its tokens written to one key as soon
// as every thread is ready.
import { parentPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";
import { SqliteStore } from "fencepost/store";

const db = new Database(workerData.file, { timeout: 10_000 });
const store = new SqliteStore(db, { table: "crowd" });
parentPort.postMessage("ready");
Atomics.wait(workerData.start, 0, 0);
const out = [];
for (const t of workerData.tokens) {
  const result = await store.write("one", BigInt(t), { writer: `w${t}` });
  out.push({ token: String(t), result: result.ok ? { ok: true } : { ok: false, reason: result.reason } });
}
db.close();
parentPort.postMessage(out);
