// The runner's own counts over a merged history: what happened while each nemesis was active
// (grants, acknowledged writes, refusals, answers that never came), and the two figures a history
// of beliefs cannot show on its own. Stale writes, grant order, lost writes and belief overlaps are
// `fencepost check`'s to judge, the one place those rules are written.

import { NEMESES } from "./schedule.mjs";

const parse = (line) => {
  const v = JSON.parse(line.replace(/"(token|highest)":(\d+)/g, '"$1":"$2"'));
  if (v.token !== undefined) v.token = BigInt(v.token);
  return v;
};

/** Windows of each fault, by nemesis: [{ nemesis, target, from, to }]. */
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
      out.push({ nemesis: e.nemesis, target: e.target, from: s.t, to: e.t });
    }
  }
  for (const s of open.values()) out.push({ nemesis: s.nemesis, target: s.target, from: s.t, to: end });
  return out;
}

/** Everything the runner counts for its table; `mustBeZero` what it alone holds at 0. */
export function count(lines) {
  const events = lines.map(parse);
  const end = events.at(-1)?.t ?? 0;
  const faults = windows(events, end);
  const c = { writes: {}, staleRefused: 0, lateHeld: 0, unreleased: 0, grants: 0 };
  const open = new Map();
  for (const e of events) {
    if (e.kind === "grant") {
      c.grants++;
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
  c.unreleased = open.size;
  c.table = table(events, faults);
  c.mustBeZero = {
    "grants held past their safe-until on arrival": c.lateHeld,
    "leases never released or lost": c.unreleased,
  };
  return c;
}

/** Per nemesis: how often it struck, and what happened while it was active. */
function table(events, faults) {
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
    };
  });
}

/** The counts as text: the table, then the must-be-zero figures. */
export function report(c) {
  const head = ["nemesis", "faults", "grants", "writes ok", "stale refused", "unknown"];
  const rows = c.table.map((r) => [r.nemesis, r.faults, r.grants, r.writesOk, r.staleRefused, r.unknown].map(String));
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const fmt = (r) => `| ${r.map((v, i) => (i === 0 ? v.padEnd(widths[i]) : v.padStart(widths[i]))).join(" | ")} |`;
  const out = [fmt(head), `|${widths.map((w, i) => (i === 0 ? "-".repeat(w + 2) : `${"-".repeat(w + 1)}:`)).join("|")}|`, ...rows.map(fmt)];
  out.push("", `grants: ${c.grants}; writes: ${JSON.stringify(c.writes)}; stale writes refused: ${c.staleRefused}`);
  for (const [what, n] of Object.entries(c.mustBeZero)) out.push(`${what}: ${n}`);
  return out.join("\n");
}
