// One client process of the campaign (Node, or Deno: the same script). It loops: pick a service
// and a lock, acquire, write the lock's document with lease.fetch, write the lock's row of the
// fenced SQLite table directly, release. Everything it sees goes to its own JSON Lines file on
// the campaign's timeline, written synchronously so that a line survives a SIGKILL right after.
//
//   client.mjs <name> <config json>
//
// stdin, one command a line: `ping` (answers `{"pong": Date.now()}` on stdout: the runner
// measures this process's clock against its own), `start <offsetMs> <t0>` (begin; a timestamp
// is Date.now() + offsetMs - t0), `stop` (finish the round, release, exit).

import { closeSync, openSync, writeSync } from "node:fs";
import { createInterface } from "node:readline";
import { LeaseClient } from "fencepost/client";
import { SqliteStore } from "fencepost/store";

const [name, configText] = process.argv.slice(2);
/** { services: [{ group, bases: [url] }], locks, ttlMs, driftPpm, out, sqlite, seed } */
const config = JSON.parse(configText);
const out = openSync(config.out, "a");
let offset = 0;
let t0 = 0;
let stopping = false;

const t = () => Math.max(0, Math.round(Date.now() + offset - t0));
/** Where performance.now()'s deadline `at` falls on the campaign's timeline. */
const onTimeline = (at) => Math.round(Date.now() + offset - t0 + (at - performance.now()));
function record(line) {
  writeSync(out, `${JSON.stringify({ t: t(), ...line, process: name }, (_, v) => (typeof v === "bigint" ? `@${v}@` : v)).replace(/"@(\d+)@"/g, "$1")}\n`);
}

let seed = config.seed >>> 0;
function random() {
  seed = (seed + 0x6d2b79f5) >>> 0;
  let x = Math.imul(seed ^ (seed >>> 15), seed | 1);
  x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
  return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Every request gives up after a while: a held or dropped connection must not stall the loop. */
const timed = (input, init) => {
  const limit = AbortSignal.timeout(config.requestMs);
  return fetch(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, limit]) : limit });
};

function observe(change) {
  const line = { kind: "belief", lock: change.lock, state: change.state, token: change.token };
  if (change.safeUntil !== null && (change.state === "held" || change.state === "uncertain")) {
    line.safe_until = onTimeline(change.safeUntil);
  }
  if (change.state === "lost") line.why = change.why;
  record(line);
}

/**
 * The SQLite file every client shares: better-sqlite3 in Node; Deno loads only Node-API addons,
 * which better-sqlite3 is not, so there the runtime's own node:sqlite.
 */
async function database() {
  try {
    const { default: Database } = await import("better-sqlite3");
    return new Database(config.sqlite, { timeout: 5_000 });
  } catch (e) {
    if (typeof Deno === "undefined") throw e;
    const { DatabaseSync } = await import("node:sqlite");
    const db = new DatabaseSync(config.sqlite);
    db.exec("PRAGMA busy_timeout = 5000");
    return db;
  }
}

async function openStore() {
  if (!config.sqlite) return null;
  try {
    const db = await database();
    db.exec("PRAGMA journal_mode = WAL");
    const store = new SqliteStore(db, { table: "rows" });
    await store.createTable();
    return store;
  } catch (e) {
    process.stderr.write(`${name}: no direct store writes: ${e.message}\n`);
    return null;
  }
}

async function writeDoc(lease, lock, n) {
  const body = JSON.stringify({ writer: name, n });
  const line = { kind: "write", resource: lock, token: lease.token, via: "fetch" };
  try {
    lease.assertSafe();
  } catch {
    return; // not sent: no attempt to record
  }
  try {
    const r = await lease.fetch(`docs/${encodeURIComponent(lock)}`, { method: "PUT", body, headers: { "fencepost-writer": name } });
    const json = await r.json().catch(() => null);
    if (r.status === 200) record({ ...line, result: "ok" });
    else if (r.status === 409 && json?.highest !== undefined) record({ ...line, result: "rejected", highest: BigInt(json.highest) });
    else record({ ...line, result: "unknown", status: r.status });
  } catch (e) {
    if (e?.name === "LeaseLostError") return;
    record({ ...line, result: "unknown" });
  }
}

/**
 * Checks the lease, works a little, then commits the row: a pause during the work is the story
 * the fence exists for (the lease runs out, another holder writes, this write arrives stale).
 */
async function writeRow(store, lease, lock, n) {
  const resource = `store:${lock}`;
  try {
    lease.assertSafe();
  } catch {
    return;
  }
  await sleep(Math.floor(random() * config.ttlMs * 0.2));
  return store.write(lock, lease.token, JSON.stringify({ writer: name, n })).then((v) => {
    const result = v.ok ? "ok" : v.reason === "stale" ? "rejected" : "unknown";
    const line = { kind: "write", resource, token: lease.token, via: "store", result };
    if (v.reason === "stale" && v.highest !== undefined) line.highest = v.highest;
    record(line);
    // The store's own word on what it applied, as the service logs its document writes.
    if (result !== "unknown") record({ resource, writer: name, token: lease.token, result });
  });
}

async function round(clients, store, n) {
  const service = config.services[Math.floor(random() * config.services.length)];
  const client = clients.get(service.group)[Math.floor(random() * service.bases.length)];
  const lock = `${service.group}${Math.floor(random() * config.locks)}`;
  record({ kind: "belief", lock, state: "acquiring" });
  let lease;
  try {
    lease = await client.acquire(lock, { ttlMs: config.ttlMs, waitMs: config.ttlMs * 2 });
  } catch {
    return;
  }
  record({ kind: "grant", lock, token: lease.token, expires_at: Date.now() + config.ttlMs });
  await sleep(Math.floor(random() * config.ttlMs * 0.3));
  await writeDoc(lease, lock, n);
  if (store) await writeRow(store, lease, lock, n);
  await sleep(Math.floor(random() * config.ttlMs * 0.3));
  await lease.release().catch(() => false);
}

async function main() {
  const store = await openStore();
  const clients = new Map(
    config.services.map((s) => [
      s.group,
      s.bases.map((url) => new LeaseClient({ url, fetch: timed, driftPpm: config.driftPpm, onState: observe })),
    ]),
  );
  for (let n = 0; !stopping; n++) {
    await round(clients, store, n);
    await sleep(Math.floor(random() * 100));
  }
  closeSync(out);
  process.exit(0);
}

let started = false;
for await (const line of createInterface({ input: process.stdin })) {
  const [command, a, b] = line.trim().split(" ");
  if (command === "ping") process.stdout.write(`${JSON.stringify({ pong: Date.now() })}\n`);
  else if (command === "start" && !started) {
    started = true;
    offset = Number(a);
    t0 = Number(b);
    main();
  } else if (command === "stop") stopping = true;
}
stopping = true;
