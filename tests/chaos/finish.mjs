// The end of a campaign: the final rows (each document read from a service directly, not through
// its proxy, and each row of the fenced table read from the file), and the verdict line.

import { execFileSync } from "node:child_process";
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
 * The verdict: `fencepost check` of the history when it reads this kind of history, else the
 * runner's counts. Answers whether every must-be-zero figure is 0.
 */
export function verdict(c, history, replay) {
  const failing = Object.entries(c.mustBeZero).filter(([, n]) => n !== 0);
  const checker = process.env.FENCEPOST_CLI;
  let checked = null;
  if (checker) {
    try {
      checked = execFileSync(checker, ["check", history], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    } catch (e) {
      const said = `${e.stdout ?? ""}${e.stderr ?? ""}`.trim().split("\n").at(-1);
      console.log(`\nfencepost check: ${said || e.message}`);
    }
  }
  if (checked !== null) console.log(`\nfencepost check:\n${checked.trim()}`);
  if (failing.length === 0) console.log(`\nverdict (runner's counts): OK, every must-be-zero figure is 0 (replay: ${replay})`);
  else console.log(`\nverdict (runner's counts): FAIL: ${failing.map(([w, n]) => `${w} ${n}`).join(", ")} (replay: ${replay})`);
  return failing.length === 0;
}
