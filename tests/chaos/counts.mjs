// The runner's own sanity counts over a merged history, for a quick look while the campaign runs
// and for its exit status while `fencepost check` cannot read such a history: the verdict that
// counts is the checker's. Counted the simple way (everything in memory), by the same rules.

import { NEMESES } from "./schedule.mjs";

const parse = (line) => {
  const v = JSON.parse(line.replace(/"(token|highest)":(\d+)/g, '"$1":"$2"'));
  if (v.token !== undefined) v.token = BigInt(v.token);
  return v;
};

/** Windows of each fault, by nemesis: [{ nemesis, target, from, to, within }]. */
function windows(events, end) {
  const open = new Map();
  const out = [];
  for (const e of events) {
    if (e.kind !== "fault") continue;
    const key = `${e.nemesis}|${e.target}`;
    if (e.phase === "start") open.set(key, e);
    else if (open.has(key)) {
      const s = open.get(key);
      open.delete(key);
      out.push({ nemesis: e.nemesis, target: e.target, from: s.t, to: e.t, within: s.within_drift });
    }
  }
  for (const s of open.values()) out.push({ nemesis: s.nemesis, target: s.target, from: s.t, to: end, within: s.within_drift });
  return out;
}

/** Each process's belief intervals per lock: [{ process, lock, from, to }]. */
function beliefs(events, end) {
  const open = new Map();
  const out = [];
  const close = (key, t) => {
    const b = open.get(key);
    if (b === undefined) return;
    open.delete(key);
    const to = Math.min(t, b.safeUntil);
    if (to > b.from) out.push({ process: b.process, lock: b.lock, from: b.from, to, line: b.line });
  };
  events.forEach((e, line) => {
    if (e.kind !== "belief") return;
    const key = `${e.process}|${e.lock}`;
    close(key, e.t);
    if (e.state === "held" || e.state === "uncertain") {
      open.set(key, { process: e.process, lock: e.lock, from: e.t, safeUntil: e.safe_until ?? e.t, line: line + 1 });
    }
  });
  for (const key of [...open.keys()]) close(key, end);
  return out;
}

function overlaps(intervals, faults) {
  const byLock = new Map();
  for (const b of intervals) byLock.set(b.lock, [...(byLock.get(b.lock) ?? []), b]);
  const found = [];
  for (const list of byLock.values()) {
    list.sort((a, b) => a.from - b.from);
    for (let i = 0; i < list.length; i++) {
      for (let j = i + 1; j < list.length && list[j].from < list[i].to; j++) {
        const [a, b] = [list[i], list[j]];
        if (a.process === b.process) continue;
        const from = b.from;
        const to = Math.min(a.to, b.to);
        const beyond = faults.some((f) => f.within === false && [a.process, b.process].includes(f.target) && f.from < to && f.to > from);
        found.push({ lock: a.lock, processes: [a.process, b.process], from, to, beyond, lines: [a.line, b.line] });
      }
    }
  }
  return found;
}

/** Everything the runner counts; `mustBeZero` the figures the checker will also hold at 0. */
export function count(lines) {
  const events = lines.map(parse);
  const end = events.at(-1)?.t ?? 0;
  const faults = windows(events, end);
  const c = { writes: {}, staleRefused: 0, staleAccepted: 0, tokenOrder: 0, ackLost: 0, lateHeld: 0, unreleased: 0, grants: 0 };
  const highest = new Map();
  const lastGrant = new Map();
  const finals = new Map();
  const open = new Map();
  for (const e of events) {
    if (e.kind === "final") finals.set(e.resource, e.token);
    if (e.kind === undefined) {
      const h = highest.get(e.resource) ?? 0n;
      if (e.result === "ok" && e.token < h) c.staleAccepted++;
      if (e.result === "ok" && e.token > h) highest.set(e.resource, e.token);
    }
    if (e.kind === "grant") {
      c.grants++;
      if (lastGrant.has(e.lock) && e.token <= lastGrant.get(e.lock)) c.tokenOrder++;
      lastGrant.set(e.lock, e.token);
      open.set(`${e.process}|${e.lock}|${e.token}`, e);
    }
    if (e.kind === "belief" && (e.state === "lost" || e.state === "released")) open.delete(`${e.process}|${e.lock}|${e.token}`);
    if (e.kind === "belief" && e.state === "held" && e.safe_until !== undefined && e.safe_until <= e.t) c.lateHeld++;
    if (e.kind === "write") {
      const w = (c.writes[e.via] ??= { ok: 0, rejected: 0, unknown: 0 });
      w[e.result]++;
      if (e.result === "rejected") c.staleRefused++;
    }
  }
  for (const e of events) if (e.kind === "write" && e.result === "ok" && (finals.get(e.resource) ?? 0n) < e.token) c.ackLost++;
  c.unreleased = open.size;
  c.overlaps = overlaps(beliefs(events, end), faults);
  c.table = table(events, faults, c.overlaps);
  c.mustBeZero = {
    "stale writes accepted": c.staleAccepted,
    "grant token order violations": c.tokenOrder,
    "acknowledged writes lost": c.ackLost,
    "belief overlaps within drift": c.overlaps.filter((o) => !o.beyond).length,
    "grants held past their safe-until on arrival": c.lateHeld,
    "leases never released or lost": c.unreleased,
  };
  return c;
}

/** Per nemesis: how often it struck, and what happened while it was active. */
function table(events, faults, found) {
  const during = (n, t) => faults.some((f) => f.nemesis === n && f.from <= t && t <= f.to);
  return [...NEMESES, "restart-service"].map((n) => {
    const active = (t) => during(n, t);
    const mine = events.filter((e) => active(e.t));
    return {
      nemesis: n,
      faults: faults.filter((f) => f.nemesis === n).length,
      grants: mine.filter((e) => e.kind === "grant").length,
      writesOk: mine.filter((e) => e.kind === "write" && e.result === "ok").length,
      staleRefused: mine.filter((e) => e.kind === "write" && e.result === "rejected").length,
      unknown: mine.filter((e) => e.kind === "write" && e.result === "unknown").length,
      overlaps: found.filter((o) => active(o.from)).length,
    };
  });
}

/** The counts as text: the table, then the must-be-zero figures. */
export function report(c) {
  const head = ["nemesis", "faults", "grants", "writes ok", "stale refused", "unknown", "overlaps"];
  const rows = c.table.map((r) => [r.nemesis, r.faults, r.grants, r.writesOk, r.staleRefused, r.unknown, r.overlaps].map(String));
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const fmt = (r) => `| ${r.map((v, i) => (i === 0 ? v.padEnd(widths[i]) : v.padStart(widths[i]))).join(" | ")} |`;
  const out = [fmt(head), `|${widths.map((w, i) => (i === 0 ? "-".repeat(w + 2) : `${"-".repeat(w + 1)}:`)).join("|")}|`, ...rows.map(fmt)];
  out.push("", `grants: ${c.grants}; writes: ${JSON.stringify(c.writes)}; stale writes refused: ${c.staleRefused}`);
  out.push(`belief overlaps beyond drift (allowed): ${c.overlaps.filter((o) => o.beyond).length}`);
  for (const [what, n] of Object.entries(c.mustBeZero)) out.push(`${what}: ${n}`);
  for (const o of c.overlaps.filter((x) => !x.beyond).slice(0, 5)) {
    out.push(`  overlap on ${o.lock}: ${o.processes.join(" and ")} from t=${o.from} to t=${o.to} (lines ${o.lines.join(", ")})`);
  }
  return out.join("\n");
}
