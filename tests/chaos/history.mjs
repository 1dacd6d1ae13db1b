// The campaign's history: one JSON Lines file ordered by `t` (ms since the campaign started),
// merged from the runner's own lines (faults), each client's file (grants, beliefs, writes and
// the store's word on its direct writes), every service's write log (re-timed: the services run
// on the runner's clock, so their unix-ms `t` less the campaign's start), and the final rows read
// after everything stopped. Lines are carried as text, never re-serialised, so that tokens stay
// exact integers; each gets a `process` naming who recorded it. Equal `t` keep the order of their
// source.

import { readFileSync, writeFileSync } from "node:fs";

const tOf = (line) => Number(/"t":(-?\d+)/.exec(line)?.[1] ?? 0);

/** A service's write-log line on the campaign's timeline, with the service named. */
export function serviceLine(line, t0, process) {
  const t = Math.max(0, tOf(line) - t0);
  return line.replace(/"t":-?\d+/, `"t":${t}`).replace(/}$/, `,"process":${JSON.stringify(process)}}`);
}

/** A line of our own (the runner's): `t` first, tokens as bare integers. */
export function ownLine(t, fields, process = "runner") {
  const text = JSON.stringify({ t, ...fields, process }, (_, v) => (typeof v === "bigint" ? `@${v}@` : v));
  return text.replace(/"@(\d+)@"/g, "$1");
}

/** Merges `sources` (arrays of lines, or file paths) into `path`, stable by `t`. */
export function merge(path, sources) {
  const all = [];
  for (const source of sources) {
    const lines = typeof source === "string" ? readLines(source) : source;
    for (const line of lines) all.push({ t: tOf(line), i: all.length, line });
  }
  all.sort((a, b) => a.t - b.t || a.i - b.i);
  writeFileSync(path, all.map((e) => `${e.line}\n`).join(""));
  return all.map((e) => e.line);
}

function readLines(path) {
  try {
    return readFileSync(path, "utf8").split("\n").filter((l) => l.trim() !== "");
  } catch {
    return [];
  }
}
