// Type-checked (`deno check`) use of fencepost/store's declarations: every store has the same
// shape, results narrow on `ok` and `reason`, and calls the declarations must refuse (each
// expected error below fails the check if the call were accepted).
import { KeyRing, TokenSigner, type Token } from "fencepost";
import {
  DenoKvStore,
  DurableObjectSqlStore,
  PostgresStore,
  SqliteStore,
  StoreContentionError,
  StoreDamageError,
  type StoreWriteResult,
} from "fencepost/store";

const kv = await Deno.openKv(":memory:");
const store = new DenoKvStore(kv, { prefix: ["docs"], signer: new TokenSigner(new Uint8Array(16)) });
await store.createTable();
const r: StoreWriteResult = await store.write("k", "34.00", { any: "json" }, { idempotencyKey: "op-1" });
if (!r.ok) {
  switch (r.reason) {
    case "stale": {
      const highest: Token = r.highest;
      const presented: Token = r.presented;
      console.log(highest, presented);
      break;
    }
    case "duplicate":
    case "invalid": {
      const presented: Token = r.presented;
      console.log(presented);
      break;
    }
    case "forged":
      break;
    case "unknownKey": {
      const keyId: number = r.keyId;
      console.log(keyId);
      break;
    }
    default: {
      const none: never = r;
      console.log(none);
    }
  }
}
// A KeyRing verifies too.
new DenoKvStore(kv, { prefix: ["ring"], signer: new KeyRing(1, new Uint8Array(16)) });
const entry = await store.read<{ any: string }>("k");
if (entry !== null) {
  const token: Token = entry.token;
  const value: string = entry.value.any;
  console.log(token, value);
}
const retries: number = store.retries;
const e = new Error() as unknown;
if (e instanceof StoreContentionError) console.log(e.key, e.attempts);
if (e instanceof StoreDamageError) console.log(e.where, e.found);
// @ts-expect-error a token is a bigint or a header string
await store.write("k", 34, "x");
// @ts-expect-error unknown write option
await store.write("k", 34n, "x", { idem: "a" });
// The SQL stores take the same calls; a table is required.
const tables = [
  new PostgresStore({ query: async () => ({ rows: [] }) }, { table: "t", keyColumn: "id" }),
  new SqliteStore({ prepare: () => ({ get: () => undefined, run: () => undefined, all: () => [] }), exec: () => undefined }, { table: "t" }),
  new DurableObjectSqlStore({ sql: { exec: () => ({ toArray: () => [] }) }, transactionSync: (f) => f() }, { table: "t" }),
];
for (const t of tables) await t.write("k", 1n, null);
// @ts-expect-error the table is required
new PostgresStore({ query: async () => ({ rows: [] }) }, {});
// @ts-expect-error a KV store takes a prefix, not a table
new DenoKvStore(kv, { table: "docs" });
console.log(retries);
kv.close();
