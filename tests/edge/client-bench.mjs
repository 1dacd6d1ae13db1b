// What holding a lease with fencepost/client costs, each figure beside a baseline measured in the
// same run:
// - `lease.fetch` against plain `fetch` to a local HTTP server in this process (the lease's check
//   and its header are the difference);
// - one renewal round of the keeper (send, answer, state) against a plain-JS max of deadlines;
// - one process holding many leases of the real service (Deno host) for several lease lengths:
//   renewals sent and how many leases were lost (0 expected on an idle machine: every renewal
//   answered in time).
//
// Needs DENO_BIN. CLIENT_BENCH_LEASES sets the number of leases (default 1000).

import { createServer } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LeaseKeeper } from "../../npm/dist/node.mjs";
import { LeaseClient } from "../../npm/dist/client/node.mjs";
import { freePort, sleep, start } from "./hosts.mjs";

const LEASES = Number(process.env.CLIENT_BENCH_LEASES ?? "1000");
const TTL_MS = 6_000;
const HOLD_MS = 3 * TTL_MS;

/** Best of five rounds of `n` awaited calls of `f`, in µs per call. */
async function bestAsync(n, f) {
  let best = Infinity;
  for (let r = 0; r < 5; r++) {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) await f();
    best = Math.min(best, ((performance.now() - t0) * 1000) / n);
  }
  return best;
}

/** Best of five rounds of `n` calls of `f`, in ns per call. */
function best(n, f) {
  let least = Infinity;
  for (let r = 0; r < 5; r++) {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) f(i);
    least = Math.min(least, ((performance.now() - t0) * 1e6) / n);
  }
  return least;
}

async function fetchOverhead() {
  const server = createServer((req, res) => {
    res.writeHead(204);
    res.end();
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  const base = `http://127.0.0.1:${server.address().port}`;
  const dir = mkdtempSync(join(tmpdir(), "fencepost-client-bench-"));
  const service = await start("deno", await freePort(), dir);
  try {
    const client = new LeaseClient({ url: service.base });
    const lease = await client.acquire("bench-fetch", { ttlMs: 60_000 });
    const url = `${base}/resource`;
    const plain = async () => (await fetch(url, { method: "PUT", body: "x" })).arrayBuffer();
    const fenced = async () => (await lease.fetch(url, { method: "PUT", body: "x" })).arrayBuffer();
    await bestAsync(200, plain);
    await bestAsync(200, fenced);
    const p = await bestAsync(1000, plain);
    const f = await bestAsync(1000, fenced);
    await lease.release();
    return { p, f };
  } finally {
    await service.stop();
    rmSync(dir, { recursive: true, force: true });
    server.close();
  }
}

function keeperRound() {
  const keeper = new LeaseKeeper({ ttlMs: 30_000 }, 0);
  const token = 7n;
  const k = best(200_000, (i) => {
    const t = keeper.send(i);
    keeper.granted(t, token, 30_000, i);
    return keeper.state(i).state;
  });
  keeper.free();
  let deadline = 0;
  const b = best(200_000, (i) => {
    deadline = Math.max(deadline, i + 30_000 - 30 - 100);
    return i < deadline;
  });
  return { k, b };
}

async function manyLeases() {
  const dir = mkdtempSync(join(tmpdir(), "fencepost-client-bench-"));
  const service = await start("deno", await freePort(), dir);
  let renewals = 0;
  const counting = async (input, init) => {
    if (String(input instanceof Request ? input.url : input).endsWith("/renew")) renewals++;
    return fetch(input, init);
  };
  try {
    const client = new LeaseClient({ url: service.base, fetch: counting });
    const leases = [];
    for (let i = 0; i < LEASES; i += 50) {
      const batch = Array.from({ length: Math.min(50, LEASES - i) }, (_, j) =>
        client.acquire(`many-${i + j}`, { ttlMs: TTL_MS }),
      );
      leases.push(...(await Promise.all(batch)));
    }
    const t0 = performance.now();
    await sleep(HOLD_MS);
    const held = (performance.now() - t0) / 1000;
    const lost = leases.filter((l) => l.signal.aborted).length;
    const released = await Promise.all(leases.map((l) => l.release()));
    return { held, lost, renewals, released: released.filter(Boolean).length };
  } finally {
    await service.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const fo = await fetchOverhead();
const kr = keeperRound();
console.log(`${"lease.fetch, local server".padEnd(32)} ${fo.f.toFixed(1).padStart(8)} µs   plain fetch ${fo.p.toFixed(1).padStart(7)} µs   ${(fo.f / fo.p).toFixed(2)}x`);
console.log(`${"keeper renewal round (wasm)".padEnd(32)} ${kr.k.toFixed(0).padStart(8)} ns   plain-JS max ${kr.b.toFixed(1).padStart(6)} ns`);
const m = await manyLeases();
console.log(
  `${`${LEASES} leases held ${m.held.toFixed(1)} s`.padEnd(32)} ${String(m.renewals).padStart(8)} renewals, ${m.lost} lost (0 expected), ${m.released} released`,
);
if (m.lost > 0) {
  // Not a failure of the bench: on a machine too busy to answer renewals in time, losing the
  // lease (and saying so) is what the client must do. The figure says the machine was too busy.
  console.log(`${m.lost} of ${LEASES} leases were lost: the service's answers came too late for their renewals`);
}
