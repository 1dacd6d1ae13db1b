// The etcd cluster `cargo xtask test-etcd` started, as the tests see it: its members from
// ETCD_MEMBERS (name, clientUrl, pid, program, args, dataDir, log), and the faults a test puts on
// them. A member a test starts again is written back to that file with its new pid, so that xtask
// kills it with the others when it stops the cluster.

import { spawn } from "node:child_process";
import { closeSync, openSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";

const FILE = process.env.ETCD_MEMBERS;
export const ENDPOINTS = (process.env.ETCD_ENDPOINTS ?? "").split(",").filter(Boolean);

if (!FILE || ENDPOINTS.length === 0) {
  throw new Error("ETCD_MEMBERS and ETCD_ENDPOINTS are unset: run these tests with `cargo xtask test-etcd`");
}

/** The members as the file describes them now. */
export function members() {
  return JSON.parse(readFileSync(FILE, "utf8"));
}

function save(list) {
  writeFileSync(`${FILE}.tmp`, JSON.stringify(list, null, 2));
  renameSync(`${FILE}.tmp`, FILE);
}

/** POSTs JSON to a member's gateway; the parsed answer, or null if it did not answer 200. */
export async function post(url, path, body, timeoutMs = 1000) {
  try {
    const r = await fetch(`${url}${path}`, {
      method: "POST",
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await r.text();
    return r.status === 200 ? JSON.parse(text) : null;
  } catch {
    return null;
  }
}

/** The member that is the leader now, by every member's own status; null while there is none. */
export async function leader() {
  for (const m of members()) {
    const s = await post(m.clientUrl, "/v3/maintenance/status", {});
    if (s && s.leader !== undefined && s.leader === s.header.member_id) return m;
  }
  return null;
}

/** The state letter of a process or thread from its /proc stat file (after "(comm) "), or null. */
function state(statFile) {
  try {
    const stat = readFileSync(statFile, "utf8");
    return stat[stat.lastIndexOf(") ") + 2] ?? null;
  } catch {
    return null;
  }
}

/** Whether the process `pid` is gone (or a zombie: dead, its parent not yet told). */
function dead(pid) {
  const s = state(`/proc/${pid}/stat`);
  return s === null || s === "Z";
}

/** Whether every thread of `pid` is stopped. */
function stopped(pid) {
  try {
    // A thread that exited meanwhile (null) runs no more either.
    return readdirSync(`/proc/${pid}/task`).every((t) => [null, "T"].includes(state(`/proc/${pid}/task/${t}/stat`)));
  } catch {
    return false;
  }
}

/** SIGKILLs a member and waits until it is dead. */
export async function kill(member) {
  process.kill(member.pid, "SIGKILL");
  for (let i = 0; i < 500 && !dead(member.pid); i++) await sleep(10);
  if (!dead(member.pid)) throw new Error(`etcd member ${member.name} (${member.pid}) survived SIGKILL`);
}

/**
 * SIGSTOPs a member and waits until every thread of it has stopped: the kernel stops a process's
 * threads one by one, and until the last has, the member can still answer a request.
 */
export async function pause(member) {
  process.kill(member.pid, "SIGSTOP");
  for (let i = 0; i < 500 && !stopped(member.pid); i++) await sleep(2);
  if (!stopped(member.pid)) throw new Error(`etcd member ${member.name} (${member.pid}) did not stop on SIGSTOP`);
}

export function resume(member) {
  process.kill(member.pid, "SIGCONT");
}

/** Whether a member answers a linearizable read (it has a leader and caught up with it). */
export async function answers(member) {
  return (await post(member.clientUrl, "/v3/kv/range", { key: "AA==" })) !== null;
}

/** Waits until every member (or those given) answers a linearizable read, at most `withinMs`. */
export async function healthy(withinMs = 20_000, which = members()) {
  const until = Date.now() + withinMs;
  for (const m of which) {
    while (!(await answers(m))) {
      if (Date.now() > until) throw new Error(`etcd member ${m.name} does not answer after ${withinMs} ms`);
      await sleep(100);
    }
  }
}

/**
 * Starts a killed member again on its data directory (its flags for a new cluster are ignored
 * there), records its new pid, and waits until it answers (unless told not to: a member alone
 * cannot answer until enough others are back for a quorum).
 */
export async function restart(member, { wait = true } = {}) {
  const log = openSync(member.log, "a");
  // In our process group, so that an interrupt from the terminal ends it with the others.
  const child = spawn(member.program, member.args, { stdio: ["ignore", log, log] });
  closeSync(log);
  child.unref();
  save(members().map((m) => (m.name === member.name ? { ...m, pid: child.pid } : m)));
  const restarted = members().find((m) => m.name === member.name);
  if (wait) await healthy(20_000, [restarted]);
  return restarted;
}
