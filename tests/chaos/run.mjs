// The fault campaign, started by `cargo xtask chaos` (which starts the etcd cluster and installs
// this fixture): `fencepost serve` instances over etcd, the workerd and Deno hosts, a fault proxy
// in front of each, Node clients and one Deno client looping acquire -> lease.fetch write ->
// direct store write -> release, and the nemeses of a seeded schedule. Writes the merged history
// to <out>/history.jsonl, prints the runner's counts and, when `fencepost check` reads the
// history, its verdict. Exits 1 when a figure that must be 0 is not.
//
//   node run.mjs --seconds N --seed S --clients N --out DIR
//
// Needs ETCD_MEMBERS and ETCD_ENDPOINTS (the cluster), CHAOS_ROOT (the repository), and for the
// hosts WORKERD_BIN and DENO_BIN (a host whose binary is not given is left out).

import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { count, report } from "./counts.mjs";
import { merge, ownLine, serviceLine } from "./history.mjs";
import { run as strike } from "./nemesis.mjs";
import { Client, Instance, freePort, killAll, sleep } from "./procs.mjs";
import { FaultProxy } from "./proxy.mjs";
import { schedule } from "./schedule.mjs";
import { finals, verdict } from "./finish.mjs";

const { values: opts } = parseArgs({
  options: {
    seconds: { type: "string", default: "60" },
    seed: { type: "string", default: "1" },
    clients: { type: "string", default: "3" },
    instances: { type: "string", default: "3" },
    out: { type: "string" },
  },
});
const SECONDS = Number(opts.seconds);
const SEED = Number(opts.seed) >>> 0;
const TTL_MS = 2_000;
const DRIFT_PPM = 1_000;
const LOCKS = 2;
const OUT = opts.out;
const ROOT = process.env.CHAOS_ROOT;

const etcd = await import(join(ROOT, "tests/service/etcd-cluster.mjs"));
const hosts = await import(join(ROOT, "tests/lease-service/host.mjs"));

rmSync(OUT, { recursive: true, force: true });
mkdirSync(join(OUT, "clients"), { recursive: true });
const own = [];
let t0 = Date.now();
const record = (fields) => own.push(ownLine(Date.now() - t0, fields, fields.kind === "fault" ? "nemesis" : "runner"));

async function services() {
  const instances = [];
  const proxies = [];
  const docs = `sqlite:${join(OUT, "documents.sqlite3")}`;
  for (let i = 0; i < Number(opts.instances); i++) {
    const inst = new Instance(`service-${i}`, await freePort(), ["--etcd", etcd.ENDPOINTS.join(","), "--documents", docs]);
    // One at a time: instances starting together race to create the documents table.
    await inst.start();
    instances.push(inst);
    proxies.push({ name: `proxy-${inst.name}`, group: "e", direct: `http://127.0.0.1:${inst.port}/`, proxy: await FaultProxy.start(inst.port) });
  }
  const started = [];
  for (const [group, name, bin] of [["w", "workerd", "WORKERD_BIN"], ["d", "deno", "DENO_BIN"]]) {
    if (!process.env[bin]) continue;
    const port = await freePort();
    const dir = join(OUT, `${name}-host`);
    mkdirSync(dir, { recursive: true });
    const host = await hosts.start(name, port, dir, { writeLog: true, maxTtlMs: 60_000 });
    started.push({ name: `${name}-host`, host });
    proxies.push({ name: `proxy-${name}-host`, group, direct: `${host.base}/`, proxy: await FaultProxy.start(port) });
  }
  return { instances, proxies, hosts: started };
}

function clientConfig(name, proxies, seed) {
  const groups = [...new Set(proxies.map((p) => p.group))];
  return {
    services: groups.map((g) => ({ group: g, bases: proxies.filter((p) => p.group === g).map((p) => p.proxy.base) })),
    locks: LOCKS,
    ttlMs: TTL_MS,
    driftPpm: DRIFT_PPM,
    requestMs: 3_000,
    seed,
    out: join(OUT, "clients", `${name}.jsonl`),
    sqlite: join(OUT, "rows.sqlite3"),
  };
}

async function launch(name, proxies, options) {
  const c = new Client(name, { ...options, config: clientConfig(name, proxies, SEED * 31 + name.length * 7 + name.charCodeAt(name.length - 1)), denoBin: process.env.DENO_BIN });
  const { offset } = await c.offset();
  return { c, offset };
}

async function main() {
  const sched = schedule(SEED, SECONDS, TTL_MS);
  const { instances, proxies, hosts: started } = await services();
  const clients = [];
  const names = [...Array(Number(opts.clients)).keys()].map((i) => `client-${i}`);
  const launched = await Promise.all(names.map((n) => launch(n, proxies, {})));
  if (process.env.DENO_BIN) launched.push(await launch("deno-0", proxies, { runtime: "deno" }));
  t0 = Date.now();
  record({ kind: "campaign", event: "start", seed: SEED, seconds: SECONDS, ttl_ms: TTL_MS, drift_ppm: DRIFT_PPM });
  for (const { c, offset } of launched) {
    c.start(offset, t0);
    clients.push(c);
  }
  const extra = [];
  let clocks = 0;
  const ctx = {
    record,
    clients,
    instances,
    proxies,
    etcd,
    delayMs: Number(process.env.CHAOS_DELAY_MS ?? 1_000),
    down: new Set(),
    skip: (entry, why) => record({ kind: "campaign", event: "skipped", nemesis: entry.nemesis, why }),
    async clockClient(nemesis, rate, beforeStart) {
      const name = `${nemesis}-${clocks++}`;
      const { c, offset } = await launch(name, proxies, { rate });
      extra.push(c);
      beforeStart(name);
      c.start(offset, t0);
      return c;
    },
  };
  const strikes = sched.map(async (entry) => {
    await sleep(Math.max(0, t0 + entry.at - Date.now()));
    await strike(ctx, entry);
  });
  await Promise.all([...strikes, sleep(SECONDS * 1000)]);
  record({ kind: "campaign", event: "stop" });
  await Promise.all(clients.map((c) => c.offset(3)));
  await Promise.all([...clients, ...extra].map((c) => c.stop()));
  const rates = [...clients, ...extra].map((c) => ({ name: c.name, rate: c.rate, measured: c.measuredRate() }));
  const finalLines = await finals(proxies, LOCKS, join(OUT, "rows.sqlite3"), t0);
  for (const i of instances) await i.kill();
  for (const { host } of started) await host.stop();
  for (const p of proxies) await p.proxy.close();
  const serviceLines = [
    ...instances.flatMap((i) => i.writes.map((l) => serviceLine(l, t0, i.name))),
    ...started.flatMap(({ name, host }) => host.writes().map((l) => serviceLine(l, t0, name))),
  ];
  const files = [...clients, ...extra].map((c) => c.out);
  const lines = merge(join(OUT, "history.jsonl"), [own, ...files, serviceLines, finalLines]);
  return { sched, lines, rates };
}

try {
  const { sched, lines, rates } = await main();
  const c = count(lines);
  console.log(`\nseed ${SEED}: ${sched.length} faults scheduled over ${SECONDS} s; history ${join(OUT, "history.jsonl")} (${lines.length} lines)`);
  for (const r of rates.filter((x) => x.rate !== null)) {
    console.log(`clock of ${r.name}: faketime rate ${r.rate}, measured ${r.measured === null ? "-" : r.measured.toFixed(5)}`);
  }
  console.log(report(c));
  const replay = `cargo xtask chaos --seconds ${SECONDS} --seed ${SEED} --clients ${opts.clients}`;
  process.exitCode = verdict(c, join(OUT, "history.jsonl"), SEED, replay) ? 0 : 1;
} catch (e) {
  console.error(e);
  process.exitCode = 1;
} finally {
  killAll();
}
