// One writer thread of the SQLite concurrency figure: its own connection, `writes` writes to one
// key, fenced (each with the next token of the shared counter) or plain (the same upsert without
// a fence).
import { parentPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";
import { SqliteStore } from "fencepost/store";

const db = new Database(workerData.file, { timeout: 10_000 });
const store = new SqliteStore(db, { table: "crowd" });
const upsert = db.prepare(`INSERT INTO crowd (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`);
parentPort.postMessage("ready");
Atomics.wait(workerData.start, 0, 0);
let accepted = 0;
let stale = 0;
for (let i = 0; i < workerData.writes; i++) {
  if (!workerData.fenced) {
    upsert.run("plain", JSON.stringify(`v${i}`));
    continue;
  }
  const r = await store.write("one", BigInt(Atomics.add(workerData.counter, 0, 1) + 1), `v${i}`);
  if (r.ok) accepted++;
  else stale++;
}
db.close();
parentPort.postMessage({ accepted, stale, retries: store.retries });
