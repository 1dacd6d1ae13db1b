// The nemeses: each takes one entry of the schedule, starts its fault on a target chosen by the
// entry's `pick`, records a `fault` line at its start and at its end, and ends it after `ms`.
// A fault that cannot run now (every service instance already down) is skipped and said so, so
// that the cluster never loses what the campaign needs to observe anything at all.

import { RATES } from "./schedule.mjs";
import { sleep } from "./procs.mjs";

const choose = (list, pick) => list[Math.min(list.length - 1, Math.floor(pick * list.length))];

/**
 * `ctx`: { record(line), clients, instances, proxies, etcd (tests/service/etcd-cluster.mjs),
 * clockClient(nemesis, rate, beforeStart(name)) -> Client, delayMs, down: Set, skip(entry, why) }.
 */
export async function run(ctx, entry) {
  const fault = (target, phase, extra = {}) => ctx.record({ kind: "fault", nemesis: entry.nemesis, target, phase, ...extra });
  switch (entry.nemesis) {
    case "pause-client":
      return pauseClient(ctx, entry, fault);
    case "kill-service":
      return killService(ctx, entry, fault);
    case "pause-engine":
    case "kill-engine":
      return engine(ctx, entry, fault);
    case "clock-fast":
    case "clock-slow":
      return clock(ctx, entry, fault);
    default:
      return proxy(ctx, entry, fault);
  }
}

async function pauseClient(ctx, entry, fault) {
  const live = ctx.clients.filter((c) => c.child.exitCode === null && !ctx.down.has(c.name));
  if (live.length === 0) return ctx.skip(entry, "no client running");
  const c = choose(live, entry.pick);
  ctx.down.add(c.name);
  c.child.kill("SIGSTOP");
  fault(c.name, "start");
  await sleep(entry.ms);
  c.child.kill("SIGCONT");
  fault(c.name, "end");
  ctx.down.delete(c.name);
}

async function killService(ctx, entry, fault) {
  const up = ctx.instances.filter((i) => !ctx.down.has(i.name));
  // One instance always stays: a campaign with no service observes nothing.
  if (up.length < 2) return ctx.skip(entry, "only one instance up");
  const i = choose(up, entry.pick);
  ctx.down.add(i.name);
  await i.kill();
  fault(i.name, "start");
  await sleep(entry.ms);
  fault(i.name, "end");
  ctx.record({ kind: "fault", nemesis: "restart-service", target: i.name, phase: "start" });
  await i.start();
  ctx.record({ kind: "fault", nemesis: "restart-service", target: i.name, phase: "end" });
  ctx.down.delete(i.name);
}

/** SIGSTOP or SIGKILL of one etcd member (the leader as often as not), one at a time. */
async function engine(ctx, entry, fault) {
  if ([...ctx.down].some((d) => d.startsWith("m"))) return ctx.skip(entry, "a member is down already");
  const leader = await ctx.etcd.leader();
  const members = ctx.etcd.members();
  const m = entry.pick < 0.5 && leader !== null ? leader : choose(members, (entry.pick * 2) % 1);
  const was = { leader: leader?.name === m.name };
  ctx.down.add(m.name);
  try {
    if (entry.nemesis === "pause-engine") {
      await ctx.etcd.pause(m);
      fault(m.name, "start", was);
      await sleep(entry.ms);
      ctx.etcd.resume(m);
    } else {
      await ctx.etcd.kill(m);
      fault(m.name, "start", was);
      await sleep(entry.ms);
      await ctx.etcd.restart(m);
    }
    fault(m.name, "end", was);
  } finally {
    ctx.down.delete(m.name);
  }
}

async function proxy(ctx, entry, fault) {
  const mode = entry.nemesis.slice("proxy-".length);
  const free = ctx.proxies.filter((p) => !ctx.down.has(p.name));
  if (free.length === 0) return ctx.skip(entry, "every proxy busy");
  // A hold is for a lock whose service other clients still reach by another way: they take the
  // lock once its lease runs out, and the held write, delivered late, meets their token. A host
  // with one way in (workerd, Deno) stays where it was until the hold ends.
  const elsewhere = free.filter((p) => ctx.proxies.some((o) => o !== p && o.group === p.group));
  const p = choose(mode === "hold" && elsewhere.length > 0 ? elsewhere : free, entry.pick);
  ctx.down.add(p.name);
  p.proxy.set(mode, ctx.delayMs);
  fault(p.name, "start", mode === "delay" ? { delay_ms: ctx.delayMs } : {});
  await sleep(entry.ms);
  p.proxy.set("pass");
  fault(p.name, "end");
  ctx.down.delete(p.name);
}

/** A client that runs under libfaketime for the fault's length, started and stopped for it. */
async function clock(ctx, entry, fault) {
  const rate = entry.within ? RATES[entry.nemesis].within : RATES[entry.nemesis].beyond;
  const c = await ctx.clockClient(entry.nemesis, rate, (name) => fault(name, "start", { within_drift: entry.within, rate }));
  await sleep(entry.ms);
  await c.offset(3);
  await c.stop();
  fault(c.name, "end", { within_drift: entry.within, rate, measured_rate: c.measuredRate() });
}
