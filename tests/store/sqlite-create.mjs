// One thread of the SQLite createTable race: its own connection, createTable on each of the
// tables it is given as soon as every thread is ready for that table; answers what each call did.
import { parentPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";
import { SqliteStore } from "fencepost/store";

// No busy timeout: a connection that finds the file locked is told so at once, as node:sqlite's
// are by default, so createTable's own waiting is what is tested.
const db = new Database(workerData.file, { timeout: 0 });
const out = [];
for (let i = 0; i < workerData.tables.length; i++) {
  parentPort.postMessage("ready");
  Atomics.wait(workerData.start, 0, i);
  try {
    await new SqliteStore(db, { table: workerData.tables[i] }).createTable();
    out.push("ok");
  } catch (e) {
    out.push(String(e.message));
  }
}
db.close();
parentPort.postMessage(out);
