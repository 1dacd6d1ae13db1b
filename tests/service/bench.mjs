// The lease service under load beside the locks teams pick instead, one after another on the same
// machine with the same client loop: 64 clients on 16 locks (four per lock), each repeating
// acquire -> write -> release for BENCH_SECS (default 10) after a second of warm-up. fencepost's
// hosts (bench-fencepost.mjs) write a signed PUT the store fences; the peers (bench-peers.mjs)
// write plainly. Printed: cycles/s, p50 and p99 of a cycle (from the acquire's send to the
// release's answer, waiting for the lock included), and the ratio to etcd's own lock.
//
// Then a second phase of BENCH_PAUSE_SECS (default 10): one cycle in eight, the holder really
// waits past its lease's TTL after acquiring (its lease runs out, another client takes the lock)
// and only then writes. Counted: the late writes (another client acquired the lock before the
// write was answered), how many of them the storage accepted, and the stale writes accepted:
// those that landed after a newer holder's write, found by `fencepost check` in each contender's
// write log (for fencepost, what the instances logged; for the peers, what they acknowledged).
// fencepost must accept none, or the run fails.
//
// Needs ETCD_ENDPOINTS, PGHOST, REDIS_URL, WORKERD_BIN, DENO_BIN, EDGE_HOSTS (the edge hosts'
// starter, tests/lease-service/host.mjs) and FENCEPOST_CLI; `cargo xtask bench-service` sets them.
// BENCH_CONTENDERS (keys, comma-separated) runs only some; BENCH_OUT keeps the write logs.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FENCEPOST } from "./bench-fencepost.mjs";
import { PEERS } from "./bench-peers.mjs";
import { sleep } from "./instances.mjs";

const CLIENTS = 64;
const LOCKS = 16;
const SECS = Number(process.env.BENCH_SECS ?? "10");
const PAUSE_SECS = Number(process.env.BENCH_PAUSE_SECS ?? "10");
const WARMUP_SECS = 1;
/** Every lease's TTL: etcd's shortest (with its default election timeout, 2 s). */
const TTL_MS = 2000;
/** One cycle in this many pauses its holder in the second phase... */
const PAUSE_EVERY = 8;
/** ...for this long: past the TTL, and past etcd's check for expired leases (every 500 ms). */
const PAUSE_MS = TTL_MS + 1000;
/**
 * The wait before a fencepost client asks again for a held lock when the service answered
 * "held" without waiting (it waits up to a quarter of the TTL when asked, within its bounds): the
 * backoff of the package's own LeaseClient, exponential from 25 ms, capped at a second, each
 * jittered down to half.
 */
function retryMs(attempt) {
  const full = Math.min(1000, 25 * 2 ** Math.min(attempt, 16));
  return Math.ceil(full / 2 + Math.random() * (full / 2));
}
const OUT = process.env.BENCH_OUT ?? mkdtempSync(join(tmpdir(), "fencepost-service-bench-"));
/** The goal's pair first, back to back, so that the machine's load changes least between them. */
const ORDER = ["etcd-lock", "node-etcd", "node-postgres", "workerd", "deno", "redlock"];
const BASELINE = "etcd-lock";
const GOAL = { key: "node-etcd", ratio: 0.8 };

/** Per lock, how many grants came back so far: a holder is the latest while its number is the count. */
class GrantOrder {
  #count = new Map();
  take(lock) {
    const n = (this.#count.get(lock) ?? 0) + 1;
    this.#count.set(lock, n);
    return n;
  }
  latest(lock) {
    return this.#count.get(lock);
  }
  total() {
    return [...this.#count.values()].reduce((a, b) => a + b, 0);
  }
}

/** One client's loop on its lock until the phase ends; a cycle that started finishes. */
async function client(c, i, phase, order, stats) {
  const lock = `${phase.key}-${i % LOCKS}`;
  for (let n = 0; performance.now() < phase.until; n++) {
    const t0 = performance.now();
    const held = await c.acquire(lock, i);
    const mine = order.take(lock);
    if (phase.pauses && Math.random() < 1 / PAUSE_EVERY) {
      stats.paused++;
      await sleep(PAUSE_MS);
    }
    const accepted = await c.write(lock, held, i, mine, `client ${i} write ${n}`);
    // Late: another client acquired the lock before this write was answered.
    const late = order.latest(lock) !== mine;
    if (late) stats.late[accepted ? "accepted" : "refused"]++;
    // The latest holder's token is the highest ever granted for its lock: never refused.
    else assert.ok(accepted, `${lock}: the write of its latest holder (grant ${mine}) was refused`);
    await c.release(lock, held, i);
    stats.latencies.push(performance.now() - t0);
  }
}

async function phase(c, key, order, secs, pauses) {
  const stats = { latencies: [], paused: 0, late: { accepted: 0, refused: 0 } };
  const t0 = performance.now();
  const p = { key, until: t0 + secs * 1000, pauses };
  await Promise.all(Array.from({ length: CLIENTS }, (_, i) => client(c, i, p, order, stats)));
  stats.secs = (performance.now() - t0) / 1000;
  return stats;
}

/** `fencepost check` of a write log: its summary, and the lines with a finding (each once). */
function check(file) {
  const r = spawnSync(process.env.FENCEPOST_CLI, ["check", file, "--format", "json"], { encoding: "utf8", maxBuffer: 1 << 28 });
  // 1: it found stale writes, which is what it is asked to count here.
  if (r.status !== 0 && r.status !== 1) throw new Error(`fencepost check ${file}: exit ${r.status}: ${r.stderr}`);
  const out = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
  const lines = new Set(out.filter((o) => o.finding).map((o) => o.finding.line));
  return { summary: out.at(-1).summary, stale: lines.size };
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function run(spec) {
  console.log(`${spec.name}: starting`);
  const c = await spec.start(TTL_MS, retryMs, CLIENTS);
  let load;
  let paused;
  const order = new GrantOrder();
  try {
    await phase(c, spec.key, order, WARMUP_SECS, false);
    load = await phase(c, spec.key, order, SECS, false);
    paused = await phase(c, spec.key, order, PAUSE_SECS, true);
  } finally {
    await c.stop();
  }
  const log = join(OUT, `${spec.key}-writes.jsonl`);
  writeFileSync(log, c.writeLog().join("\n") + "\n");
  const { summary, stale } = check(log);
  assert.equal(summary.malformed, 0, `${log}: malformed lines`);
  const sorted = load.latencies.sort((x, y) => x - y);
  const row = { ...spec, cycles: sorted.length / load.secs, p50: percentile(sorted, 50), p99: percentile(sorted, 99), paused, stale, log };
  row.polls = c.polls === undefined ? "-" : (c.polls / order.total()).toFixed(1);
  console.log(`${spec.name}: ${row.cycles.toFixed(0)} cycles/s; ${paused.paused} pauses, ${stale} stale writes accepted`);
  return row;
}

function table(rows) {
  const base = rows.find((r) => r.key === BASELINE);
  const head = ["contender", "cycles/s", "p50 ms", "p99 ms", "x etcd lock", "polls/cycle", "pauses", "late writes", "late accepted", "stale accepted"];
  const widths = [42, 9, 8, 8, 12, 12, 7, 12, 14, 15];
  const line = (cells) => cells.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join(" ");
  console.log(`\n${CLIENTS} clients on ${LOCKS} locks, ${SECS} s each: acquire -> write -> release (fencepost: a signed PUT, fenced; the peers: a plain write)`);
  console.log(`then ${PAUSE_SECS} s where one holder in ${PAUSE_EVERY} waits ${PAUSE_MS} ms (TTL ${TTL_MS} ms) before it writes`);
  console.log("polls/cycle: acquires answered \"held\" (after waiting in the service, or at once) and asked again");
  console.log(line(head));
  for (const r of rows) {
    const ratio = base ? (r.cycles / base.cycles).toFixed(2) : "-";
    const late = r.paused.late.accepted + r.paused.late.refused;
    console.log(line([r.name, r.cycles.toFixed(0), r.p50.toFixed(1), r.p99.toFixed(1), ratio, r.polls, r.paused.paused, late, r.paused.late.accepted, r.stale]));
  }
  const goal = rows.find((r) => r.key === GOAL.key);
  if (base && goal) {
    const ratio = goal.cycles / base.cycles;
    console.log(`\nfencepost over etcd / etcd lock: ${ratio.toFixed(2)} (goal >= ${GOAL.ratio}: ${ratio >= GOAL.ratio ? "met" : "NOT met"})`);
  }
  for (const r of rows) console.log(`write log of ${r.key}: ${r.log}`);
}

const wanted = process.env.BENCH_CONTENDERS?.split(",") ?? ORDER;
const all = [...FENCEPOST, ...PEERS];
const specs = ORDER.filter((k) => wanted.includes(k)).map((k) => all.find((s) => s.key === k));
mkdirSync(OUT, { recursive: true });
const rows = [];
for (const spec of specs) rows.push(await run(spec));
table(rows);
const stale = rows.filter((r) => r.fencepost).reduce((n, r) => n + r.stale, 0);
if (stale !== 0) {
  console.error(`fencepost accepted ${stale} stale writes`);
  process.exit(1);
}
