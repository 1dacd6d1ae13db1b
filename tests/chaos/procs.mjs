// The campaign's processes: `fencepost serve` instances (from this fixture's installed package)
// that can be killed and started again on the same port, and client processes whose clocks are
// measured against the runner's. Every child is killed when the runner exits, however it exits.

import { spawn } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { freePort } from "./ports.mjs";

export { freePort };

const BIN = join(import.meta.dirname, "node_modules/.bin/fencepost");
export const KEYS = "1:dev-only-key-never-deploy-this-0000";
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const running = new Set();
export function killAll() {
  for (const child of running) {
    try {
      child.kill("SIGKILL");
    } catch {
      // gone already
    }
  }
}
process.on("exit", killAll);

/** Collects a child's stdout lines that start with `prefix` (the write log), and all its output. */
function watch(child, prefix, lines) {
  let partial = "";
  let all = "";
  child.stdout.on("data", (d) => {
    all += d;
    partial += d;
    const parts = partial.split("\n");
    partial = parts.pop();
    for (const l of parts) if (l.startsWith(prefix)) lines.push(l.slice(prefix.length));
  });
  child.stderr.on("data", (d) => (all += d));
  return () => all;
}

/**
 * One `fencepost serve --etcd` instance on a fixed port. `start()` again after a kill puts a new
 * process on the same port (the proxy in front of it keeps its address); the write log of every
 * incarnation goes to one list.
 */
export class Instance {
  constructor(name, port, args) {
    this.name = name;
    this.port = port;
    this.args = args;
    this.writes = [];
    this.child = null;
  }

  async start() {
    const child = spawn(BIN, ["serve", ...this.args, "--port", String(this.port)], {
      env: { PATH: process.env.PATH, FENCEPOST_KEYS: KEYS, FENCEPOST_WRITE_LOG: "1", FENCEPOST_MAX_TTL_MS: "60000" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    running.add(child);
    child.once("exit", () => running.delete(child));
    this.child = child;
    const log = watch(child, "fencepost-write ", this.writes);
    const deadline = Date.now() + 20_000;
    while (!log().includes("fencepost service listening on")) {
      if (child.exitCode !== null) throw new Error(`${this.name} exited early:\n${log()}`);
      if (Date.now() > deadline) throw new Error(`${this.name} did not listen within 20 s:\n${log()}`);
      await sleep(25);
    }
  }

  async kill() {
    const child = this.child;
    if (child === null || child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise((r) => child.once("exit", r));
    child.kill("SIGKILL");
    await gone;
  }
}

/**
 * A client process: `node client.mjs`, or `deno run` of it, or node under libfaketime at `rate`.
 * Resolves once it answered a ping; `offset()` then measures its clock against ours.
 */
export class Client {
  constructor(name, { runtime = "node", rate = null, config, denoBin }) {
    const script = join(import.meta.dirname, "client.mjs");
    const argv = [script, name, JSON.stringify(config)];
    let cmd = "node";
    let args = argv;
    if (runtime === "deno") {
      cmd = denoBin;
      args = ["run", "--quiet", "-A", ...argv];
    } else if (rate !== null) {
      cmd = "faketime";
      args = ["-f", `+0 x${rate}`, "node", ...argv];
    }
    this.name = name;
    this.rate = rate;
    this.out = config.out;
    this.child = spawn(cmd, args, { stdio: ["pipe", "pipe", "inherit"], env: { ...process.env, DENO_NO_UPDATE_CHECK: "1" } });
    running.add(this.child);
    this.exited = new Promise((r) => this.child.once("exit", (code, signal) => r({ code, signal })));
    this.exited.then(() => running.delete(this.child));
    this.pongs = [];
    this.waiting = null;
    createInterface({ input: this.child.stdout }).on("line", (l) => {
      if (!l.startsWith('{"pong"')) return;
      this.waiting?.(JSON.parse(l).pong);
    });
  }

  get pid() {
    return this.child.pid;
  }

  /** Runner time minus this process's time at the midpoint of a ping (several: the closest wins). */
  async offset(tries = 5) {
    let best = null;
    for (let i = 0; i < tries; i++) {
      const sent = performance.timeOrigin + performance.now();
      const pong = await new Promise((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`${this.name} did not answer a ping`)), 30_000);
        this.waiting = (v) => {
          clearTimeout(t);
          resolve(v);
        };
        this.child.stdin.write("ping\n");
      });
      const back = performance.timeOrigin + performance.now();
      if (best === null || back - sent < best.rtt) best = { rtt: back - sent, offset: (sent + back) / 2 - pong, at: back };
    }
    this.pongs.push(best);
    return best;
  }

  start(offset, t0) {
    this.child.stdin.write(`start ${Math.round(offset)} ${t0}\n`);
  }

  /** Asks it to finish its round and exit; SIGKILL after `graceMs`. */
  async stop(graceMs = 8_000) {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return this.exited;
    this.child.kill("SIGCONT");
    this.child.stdin.write("stop\n");
    const t = setTimeout(() => this.child.kill("SIGKILL"), graceMs);
    const how = await this.exited;
    clearTimeout(t);
    return how;
  }

  /** The rate its clock ran at, from the first and last ping (1 = true time). */
  measuredRate() {
    if (this.pongs.length < 2) return null;
    const [a, b] = [this.pongs[0], this.pongs.at(-1)];
    const runner = b.at - a.at;
    const own = runner - (b.offset - a.offset);
    return own / runner;
  }
}
