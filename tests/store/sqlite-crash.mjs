// Writes token argv[3] to key argv[4] of table "crash" through the store, with idempotency key
// argv[5] when given, and freezes (blocks its event loop for good) right after the first
// statement that writes the row, before the write answers (and before COMMIT, when the store
// wrote in a transaction); the test kills it there.
import Database from "better-sqlite3";
import { SqliteStore } from "fencepost/store";

const db = new Database(process.argv[2]);
const frozen = {
  exec: (sql) => db.exec(sql),
  prepare(sql) {
    const statement = db.prepare(sql);
    if (!sql.startsWith("INSERT")) return statement;
    return {
      get: (...a) => statement.get(...a),
      all: (...a) => statement.all(...a),
      run(...a) {
        const done = statement.run(...a);
        // A statement the fence rule left without a change is not the write yet.
        if (done.changes === 0) return done;
        // A pipe's writes are synchronous on Linux: the test reads this before the freeze.
        process.stdout.write("written\n");
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
      },
    };
  },
};
const [, , , token, key, op] = process.argv;
await new SqliteStore(frozen, { table: "crash" }).write(key, BigInt(token), `written by ${token}`, op === undefined ? undefined : { idempotencyKey: op });
