// fencepost/store: fenced writes where the data lives. Each store keeps a key's high-water mark
// and its recent idempotency keys beside its value, lets the core decide every write from what it
// read, and writes value and mark in one atomic step.
export { StoreContentionError, StoreDamageError } from "./fence.js";
export { PostgresStore } from "./postgres.js";
export { SqliteStore } from "./sqlite.js";
export { DurableObjectSqlStore } from "./durable-object.js";
export { DenoKvStore } from "./deno-kv.js";
