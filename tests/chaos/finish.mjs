// The end of a campaign: the final rows (each document read from a service directly, not through
// its proxy, and each row of the fenced table read from the file), and the verdict line.

import { spawnSync } from "node:child_process";
import Database from "better-sqlite3";
import { SqliteStore } from "fencepost/store";
import { ownLine } from "./history.mjs";

const writerOf = (text) => {
  try {
    return JSON.parse(text).writer ?? "-";
  } catch {
    return "-";
  }
};

/** `final` lines for every lock's document and row, timed at the end of the history. */
export async function finals(proxies, locks, sqlite, t0) {
  const out = [];
  const t = () => Date.now() - t0;
  const groups = new Map(proxies.map((p) => [p.group, p.direct]));
  for (const [group, base] of groups) {
    for (let i = 0; i < locks; i++) {
      const lock = `${group}${i}`;
      const r = await fetch(new URL(`docs/${lock}`, base), { signal: AbortSignal.timeout(10_000) });
      if (r.status !== 200) continue;
      const { data, token } = await r.json();
      out.push(ownLine(t(), { kind: "final", resource: lock, token: BigInt(token), writer: writerOf(data) }));
    }
  }
  const store = new SqliteStore(new Database(sqlite, { readonly: true }), { table: "rows" });
  for (const group of groups.keys()) {
    for (let i = 0; i < locks; i++) {
      const row = await store.read(`${group}${i}`);
      if (row === null) continue;
      out.push(ownLine(t(), { kind: "final", resource: `store:${group}${i}`, token: row.token, writer: writerOf(row.value) }));
    }
  }
  return out;
}

/**
 * The verdict: `fencepost check` over the history (its table per nemesis and its verdict line,
 * exit 1 when a must-be-zero figure is not 0), and the runner's own counts of what the checker
 * cannot see from the history alone (a grant held past its safe-until on arrival, a lease never
 * released). The last line printed is the campaign's verdict. Answers whether both found nothing.
 */
export function verdict(c, history, seed, replay) {
  const failing = Object.entries(c.mustBeZero).filter(([, n]) => n !== 0);
  const checker = process.env.FENCEPOST_CLI;
  if (!checker) throw new Error("FENCEPOST_CLI (the fencepost CLI) is not set: the history has no verdict without it");
  const r = spawnSync(checker, ["check", history], { encoding: "utf8" });
  const said = `${r.stdout ?? ""}`.trim();
  console.log(`\nfencepost check:\n${said}${r.stderr ? `\n${r.stderr.trim()}` : ""}`);
  const line = said.split("\n").at(-1) ?? "";
  const checked = line.startsWith("verdict: ") ? line.slice("verdict: ".length) : `fencepost check said: ${line}`;
  const ok = r.status === 0 && failing.length === 0;
  const runner = failing.length === 0 ? "" : `; runner's counts: ${failing.map(([w, n]) => `${w} ${n}`).join(", ")}`;
  console.log(`chaos seed ${seed}: ${checked}${runner}${ok ? "" : " (FAIL)"}; replay: ${replay}`);
  return ok;
}
