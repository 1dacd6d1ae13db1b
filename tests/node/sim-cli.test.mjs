// fencepost/sim returns the same trace JSON as the Rust CLI, byte for byte: every preset with
// fencing forced on and off, and scenario files with huge seeds and tokens; and its history
// checks report what `fencepost check` does. `cargo xtask test` builds the CLI and names it in
// FENCEPOST_CLI.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { presets, run, toJson } from "fencepost/sim";

const cli = process.env.FENCEPOST_CLI;

/** `fencepost sim ...` with its exit status (0 all held, 1 a violation). */
function fencepost(...args) {
  const r = spawnSync(cli, ["sim", ...args, "--format", "json"], { encoding: "utf8", maxBuffer: 64 << 20 });
  assert.equal(r.error, undefined, `running ${cli}: ${r.error}`);
  assert.ok(r.status === 0 || r.status === 1, `fencepost sim ${args.join(" ")}: exit ${r.status}: ${r.stderr}`);
  assert.ok(r.stdout.endsWith("}\n"));
  return { json: r.stdout.slice(0, -1), status: r.status };
}

/** Runs `f` with the path of a file named `name` holding `text`, removed afterwards. */
function withFile(name, text, f) {
  const dir = mkdtempSync(join(tmpdir(), "fencepost-sim-cli-"));
  try {
    const file = join(dir, name);
    writeFileSync(file, text);
    f(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs `f` with the path of a file holding `scenario` as JSON, removed afterwards. */
function withScenarioFile(name, scenario, f) {
  withFile(name, toJson(scenario), f);
}

test("the CLI to compare with is named in FENCEPOST_CLI", () => {
  assert.ok(cli, "FENCEPOST_CLI must name the fencepost binary (cargo xtask test sets it)");
});

test("every preset, fencing on and off: the same trace JSON as `fencepost sim <preset> --format json`", () => {
  const names = presets().map((p) => p.name);
  assert.equal(names.length, 14);
  for (const name of names) {
    for (const fencing of [true, false]) {
      const { json, status } = fencepost(name, fencing ? "--fencing" : "--no-fencing");
      const r = run(name, { fencing });
      assert.equal(toJson(r.trace), json, `${name}, fencing ${fencing ? "on" : "off"}`);
      assert.equal(r.toJson(), json);
      assert.equal(status, r.verdict.ok ? 0 : 1);
      r.free();
    }
  }
});

test("scenario files with seeds and tokens past 2^53 give the same JSON too", () => {
  const scenario = {
    version: 1,
    name: "big numbers",
    seed: 18_446_744_073_709_551_615n,
    lease_ttl_ms: 10_000,
    first_token: 9_007_199_254_740_993n,
    latency_ms: { min: 1, max: 400 },
    workers: [
      { name: "Zoë", job: { work_ms: 1_500, writes: 2, renew_every_ms: 3_000 } },
      { name: "B", start_ms: 500, job: { work_ms: 700, retry_after_ms: 900 } },
    ],
    faults: [
      { kind: "pause", worker: "Zoë", at: 1_200, for: 25_000 },
      { kind: "clock", worker: "B", skew_ms: -40, drift_ppm: 20_000 },
    ],
  };
  withScenarioFile("big.json", scenario, (file) => {
    for (const fencing of [true, false]) {
      const { json } = fencepost(file, fencing ? "--fencing" : "--no-fencing");
      const r = run(scenario, { fencing });
      assert.equal(r.trace.seed, 18_446_744_073_709_551_615n);
      assert.equal(toJson(r.trace), json);
    }
    const { json } = fencepost(file, "--seed", "12345");
    assert.equal(run(scenario, { seed: 12_345 }).toJson(), json);
  });
});

test("a long run, whose trace the module writes in pieces: the same JSON as the CLI", () => {
  // Ten workers taking turns for a thousand writes each: more than two pieces of events and
  // more than one piece of applied writes (8,192 each).
  const scenario = {
    version: 1,
    name: "long",
    lease_ttl_ms: 3_600_000,
    workers: Array.from({ length: 10 }, (_, k) => ({ name: `W${k}`, start_ms: k, job: { work_ms: 2, writes: 1_000 } })),
  };
  withScenarioFile("long.json", scenario, (file) => {
    const { json } = fencepost(file);
    const r = run(scenario);
    const { events, document } = r.trace;
    assert.ok(events.length > 2 * 8192, `${events.length} events`);
    assert.equal(document.length, 10_000);
    assert.deepEqual(
      events.map((e) => e.seq),
      events.map((_, k) => k),
    );
    assert.equal(toJson(r.trace), json);
    r.free();
  });
});

test("a line over 1 MiB is malformed for `fencepost check`, checkHistory and HistoryChecker alike", async () => {
  const { checkHistory, HistoryChecker } = await import("fencepost/sim");
  const MIB = 1 << 20;
  const write = (t, writer, token, extra = "") =>
    `{"t":${t},"resource":"r","writer":"${writer}","token":${token},"result":"ok"${extra}}`;
  const padded = (line, bytes) => line + " ".repeat(bytes - line.length);
  const lines = [
    padded(write(1, "A", 33), MIB), // exactly 1 MiB: read
    padded(write(2, "B", 34), MIB + 1), // one byte over
    write(3, "B", 34, `,"note":"${"é".repeat(600_000)}"`), // fewer than 1 Mi characters, 1.2 MB of UTF-8
    write(4, "B", 34),
    write(5, "A", 33), // a stale write, after the long lines
  ];
  const text = `${lines.join("\n")}\n`;
  let cliOut;
  withFile("history.jsonl", text, (file) => {
    const r = spawnSync(cli, ["check", file, "--format", "json"], { encoding: "utf8", maxBuffer: 64 << 20 });
    assert.equal(r.status, 1, r.stderr);
    cliOut = r.stdout.trimEnd().split("\n").map((l) => JSON.parse(l));
  });
  const cliMalformed = cliOut.filter((o) => o.malformed).map((o) => [o.malformed.line, o.malformed.message]);
  const cliFindings = cliOut.filter((o) => o.finding).map((o) => [o.finding.line, o.finding.kind]);
  const cliSummary = cliOut.find((o) => o.summary).summary;
  const long = "longer than 1048576 bytes";
  assert.deepEqual(cliMalformed, [
    [2, long],
    [3, long],
  ]);
  assert.deepEqual(cliFindings, [
    [5, "token_regression"],
    [5, "stale_owner"],
  ]);
  const c = new HistoryChecker();
  const oneByOne = lines.map((l) => c.check(l));
  const lineByLine = {
    malformed: oneByOne.map((r) => r.malformed).filter((m) => m !== null),
    findings: oneByOne.flatMap((r) => r.findings),
    summary: c.summary,
  };
  for (const report of [checkHistory(text), checkHistory(lines), lineByLine]) {
    assert.deepEqual(report.malformed.map((m) => [m.line, m.message]), cliMalformed);
    assert.deepEqual(report.findings.map((f) => [f.line, f.kind]), cliFindings);
    assert.deepEqual(report.summary, cliSummary);
  }
  c.free();
});
