// Load on the lease service, and proof under it: 64 concurrent clients doing acquire -> signed
// PUT -> release on 16 locks for a fixed time against each host (real workerd, real Deno), then
// the host's write log checked by `fencepost check`. Prints throughput, p50/p99 latency per
// request and the number of stale writes the service accepted (0, or the run fails).
//
// Needs WORKERD_BIN, DENO_BIN and FENCEPOST_CLI (the `fencepost` CLI); BENCH_SECS sets the time
// per host (default 10), EDGE_RUNTIMES the hosts, BENCH_OUT a directory for the write logs.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, sleep, start } from "./hosts.mjs";
import { wantedHosts } from "./client.mjs";

const CLIENTS = 64;
const LOCKS = 16;
const SECS = Number(process.env.BENCH_SECS ?? "10");
/** One write in this many is sent again after its lease was released: a late writer. */
const LATE_EVERY = 4;
const OUT = process.env.BENCH_OUT ?? mkdtempSync(join(tmpdir(), "fencepost-edge-bench-"));
const hosts = wantedHosts();

/** One request, timed; answers its status and JSON. */
async function timed(latencies, base, method, path, body, headers) {
  const t0 = performance.now();
  const r = await fetch(base + path, { method, body, headers });
  const json = await r.json();
  latencies.push(performance.now() - t0);
  return { status: r.status, json };
}

/** Repeats `call` while the host answers 503 (a store busy under contention: retry), counting them. */
async function retrying(stats, call) {
  for (;;) {
    const r = await call();
    if (r.status !== 503) return r;
    stats.unavailable++;
    await sleep(Math.random() * 4);
  }
}

/** One client: acquire -> PUT -> release on a lock of its own quarter, until `until`. */
async function client(i, base, until, stats) {
  const lock = `bench-${i % LOCKS}`;
  const writer = { "content-type": "text/plain", "fencepost-writer": `client-${i}` };
  const post = (action, body) =>
    retrying(stats, () =>
      timed(stats.latencies, base, "POST", `/locks/${lock}/${action}`, JSON.stringify(body), {
        "content-type": "application/json",
      }),
    );
  const write = (headers, text) => retrying(stats, () => timed(stats.latencies, base, "PUT", `/docs/${lock}`, text, headers));
  let n = 0;
  while (performance.now() < until) {
    const a = await post("acquire", { ttlMs: 5_000 });
    if (a.status === 409) {
      stats.busy++;
      await sleep(Math.random() * 4);
      continue;
    }
    assert.equal(a.status, 200, JSON.stringify(a.json));
    const headers = { ...writer, "fencing-token": a.json.header };
    const w = await write(headers, `client ${i} write ${n}`);
    assert.equal(w.status, 200, JSON.stringify(w.json));
    const r = await post("release", { leaseId: a.json.leaseId, token: a.json.token });
    assert.equal(r.status, 200, JSON.stringify(r.json));
    stats.cycles++;
    if (++n % LATE_EVERY === 0) {
      // After release: accepted only while no newer owner has written.
      const late = await write(headers, `client ${i} late`);
      assert.ok(late.status === 200 || late.status === 409, JSON.stringify(late.json));
      stats.late[late.status]++;
    }
  }
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** `fencepost check` over a write log: its summary. */
function check(file) {
  const out = execFileSync(process.env.FENCEPOST_CLI, ["check", file, "--format", "json"], { encoding: "utf8" });
  const last = out.trim().split("\n").at(-1);
  return JSON.parse(last).summary;
}

const rows = [];
for (const name of hosts) {
  const dir = mkdtempSync(join(tmpdir(), `fencepost-bench-${name}-`));
  const server = await start(name, await freePort(), dir, { writeLog: true });
  const stats = { latencies: [], cycles: 0, busy: 0, unavailable: 0, late: { 200: 0, 409: 0 } };
  const t0 = performance.now();
  try {
    await Promise.all(Array.from({ length: CLIENTS }, (_, i) => client(i, server.base, t0 + SECS * 1000, stats)));
  } finally {
    await server.stop();
  }
  const secs = (performance.now() - t0) / 1000;
  mkdirSync(OUT, { recursive: true });
  const log = join(OUT, `${name}-writes.jsonl`);
  writeFileSync(log, server.writes().join("\n") + "\n");
  rmSync(dir, { recursive: true, force: true });
  const s = check(log);
  const sorted = stats.latencies.sort((x, y) => x - y);
  rows.push({
    name,
    requests: sorted.length,
    rps: sorted.length / secs,
    cycles: stats.cycles / secs,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    writes: s.lines,
    accepted: s.accepted,
    rejected: s.rejected,
    stale: s.stale_owners + s.token_regressions,
    unavailable: stats.unavailable,
    log,
  });
  assert.equal(s.malformed, 0, `${log}: malformed lines`);
  assert.equal(s.lines, stats.cycles + stats.late[200] + stats.late[409], `${log}: one line per write`);
}

const head = ["host", "requests/s", "cycles/s", "p50 ms", "p99 ms", "503s", "writes", "accepted", "rejected", "stale accepted"];
console.log(`${CLIENTS} clients, ${LOCKS} locks, ${SECS} s per host; a cycle is acquire -> signed PUT -> release, one in ${LATE_EVERY} followed by a late PUT`);
console.log(head.map((h, i) => (i === 0 ? h.padEnd(8) : h.padStart(i === head.length - 1 ? 15 : 10))).join(" "));
for (const r of rows) {
  const cells = [r.rps.toFixed(0), r.cycles.toFixed(0), r.p50.toFixed(1), r.p99.toFixed(1), r.unavailable, r.writes, r.accepted, r.rejected, r.stale];
  console.log([r.name.padEnd(8), ...cells.map((c, i) => String(c).padStart(i === cells.length - 1 ? 15 : 10))].join(" "));
}
for (const r of rows) console.log(`write log of ${r.name}: ${r.log}`);
const stale = rows.reduce((n, r) => n + r.stale, 0);
if (stale !== 0) {
  console.error(`fencepost check found ${stale} stale writes accepted`);
  process.exit(1);
}
