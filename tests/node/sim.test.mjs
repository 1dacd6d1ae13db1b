// fencepost/sim through its ESM entry for Node: the paused-worker story with fencing on and off,
// every preset's expected verdicts, explanations, beliefs, seed sweeps in slices, the exhaustive
// search and the history checker.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  HistoryChecker,
  PreparedScenario,
  Search,
  SimRun,
  Sweep,
  checkHistory,
  prepare,
  presets,
  run,
  search,
  templates,
  toJson,
} from "fencepost/sim";

const broken = (verdict) => [...new Set(verdict.violations.map((v) => v.invariant))].sort();

test("paused worker, fencing on: the storage refuses A's write with 33 because it accepted 34", () => {
  const r = run("paused-worker");
  assert.ok(r instanceof SimRun);
  const t = r.trace;
  assert.equal(t.scenario, "paused-worker");
  assert.equal(t.seed, 1n);
  assert.equal(t.fencing, true);
  assert.deepEqual(t.workers, ["A", "B"]);
  // 34 events: A's keeper tells it at 46 s that its lease is lost (event 28), and the storage
  // refuses its write (event 30).
  assert.equal(t.events.length, 34);
  assert.deepEqual(t.verdict, { ok: true, violations: [] });
  assert.equal(r.verdict.ok, true);
  assert.deepEqual(
    t.events.filter((e) => e.kind === "grant").map((e) => [e.t_ms, e.detail.holder, e.token]),
    [
      [50, "A", 33n],
      [30100, "B", 34n],
    ],
  );
  const rejected = t.events.filter((e) => e.kind === "write_rejected");
  assert.deepEqual(rejected, [
    {
      seq: 30,
      t_ms: 46050,
      actor: "storage",
      kind: "write_rejected",
      token: 33n,
      detail: { writer: "A", op: 1, highest: 34n, reason: "stale" },
    },
  ]);
  assert.equal(r.explain(30), "the storage refuses A's write with token 33: it has already accepted 34 from B");
  assert.equal(r.explain(0), "A sends acquire to lock, due at 0.050 s");
  assert.deepEqual(t.document, [{ writer: "B", token: 34n, op: 1, t_ms: 31200, seq: 19 }]);
  assert.deepEqual(t.events[4], {
    seq: 4,
    t_ms: 100,
    actor: "A",
    kind: "deliver",
    token: 33n,
    detail: { msg: 1, what: "granted", from: "lock", sent_at: 50, believed_until: 30000, expires_at: 30050 },
  });
  assert.equal(t.events.at(-1).kind, "job_done");
  assert.deepEqual(t.events.at(-1).detail, { end: "fenced_out" });
  assert.strictEqual(r.trace, t, "the trace is built once");
});

test("paused worker, fencing off: A's stale write lands on top of B's (I1, I2, I4)", () => {
  const r = run("paused-worker", { fencing: false });
  const v = r.verdict;
  assert.equal(v.ok, false);
  assert.deepEqual(v.violations, [
    { invariant: "I1", seq: 30, t_ms: 46050, because: "the storage accepted A's token 33 after it had accepted 34" },
    {
      invariant: "I2",
      seq: 30,
      t_ms: 46050,
      because: "A's write (token 33) landed after B (a newer owner, token 34) had written: stale data now sits on top",
    },
    {
      invariant: "I4",
      seq: 30,
      t_ms: 46050,
      because: "B's write (token 34), acknowledged by the storage, was overwritten by A's older one (token 33)",
    },
  ]);
  assert.deepEqual(
    r.trace.document.map((w) => [w.writer, w.token]),
    [
      ["B", 34n],
      ["A", 33n],
    ],
  );
});

test("what each actor believes: A is a zombie while it is paused past its lease", () => {
  const r = run("paused-worker");
  assert.deepEqual(r.beliefsAt(20_000), {
    t_ms: 20_000,
    workers: [
      { name: "A", holds: 33n, until: 30_000, paused_until: 46_000, crashed: false, zombie: false },
      { name: "B", holds: null, until: null, paused_until: null, crashed: false, zombie: false },
    ],
    authority: { worker: "A", token: 33n, until: 30_050 },
    storage: { highest: null, writes: 0, last_writer: null },
  });
  assert.deepEqual(r.beliefsAt(40_000), {
    t_ms: 40_000,
    workers: [
      { name: "A", holds: 33n, until: 30_000, paused_until: 46_000, crashed: false, zombie: true },
      { name: "B", holds: null, until: null, paused_until: null, crashed: false, zombie: false },
    ],
    authority: null,
    storage: { highest: 34n, writes: 1, last_writer: "B" },
  });
  // At 46 s A wakes, its write leaves, and its keeper tells it the lease is lost: it no longer
  // believes it holds anything (its write is on its way all the same).
  assert.deepEqual(r.beliefsAt(46_000), {
    t_ms: 46_000,
    workers: [
      { name: "A", holds: null, until: null, paused_until: null, crashed: false, zombie: false },
      { name: "B", holds: null, until: null, paused_until: null, crashed: false, zombie: false },
    ],
    authority: null,
    storage: { highest: 34n, writes: 1, last_writer: "B" },
  });
});

test("renewal in the trace: what A's keeper counts, and the moment it knows its lease is lost", () => {
  const r = run("renewal-long-pause");
  const t = r.trace;
  const mine = (e) => e.actor === "A" && (e.kind === "lease_lost" || ["renew", "renewed", "lost"].includes(e.detail.what));
  assert.deepEqual(
    t.events.filter(mine).map((e) => [e.seq, e.t_ms, e.kind, e.detail.what ?? e.detail.why, e.detail.asked_at, e.detail.believed_until]),
    [
      [10, 3100, "send", "renew", undefined, 10000],
      [14, 3200, "deliver", "renewed", 3100, 13100],
      [15, 6100, "send", "renew", undefined, 13100],
      [19, 6200, "deliver", "renewed", 6100, 16100],
      [43, 22100, "lease_lost", "expired", undefined, 16100],
      [44, 22100, "send", "renew", undefined, undefined],
      [53, 22200, "deliver", "lost", undefined, undefined],
    ],
  );
  assert.deepEqual(t.events[43], {
    seq: 43,
    t_ms: 22100,
    actor: "A",
    kind: "lease_lost",
    token: 33n,
    detail: { why: "expired", believed_until: 16100 },
  });
  assert.equal(
    r.explain(43),
    "A's keeper says its lease (token 33) is lost: its safe-until, 16.1 s, has passed with no renewal answered",
  );
  // Its write had already left (event 42); the fence refuses it (event 46).
  assert.deepEqual([t.events[42].detail.what, t.events[46].kind, t.events[46].detail.highest], ["write", "write_rejected", 34n]);
  const off = run("renewal-long-pause", { fencing: false });
  assert.deepEqual(broken(off.verdict), ["I1", "I2", "I4"]);
  assert.deepEqual(off.trace.document.map((w) => [w.writer, w.token]), [["B", 34n], ["A", 33n]]);
  const slow = run("renewal-slow-network", { fencing: false });
  assert.equal(slow.verdict.ok, true);
  assert.equal(slow.trace.events.filter((e) => e.kind === "lease_lost").length, 0);
  r.free();
  off.free();
  slow.free();
});

test("every preset reaches the verdicts it promises with fencing on and off", () => {
  const list = presets();
  assert.equal(list.length, 14);
  assert.deepEqual(
    list.slice(-2).map((p) => [p.name, p.with_fencing, p.without_fencing]),
    [
      ["renewal-slow-network", [], []],
      ["renewal-long-pause", [], ["I1", "I2", "I4"]],
    ],
  );
  assert.equal(list[0].name, "paused-worker");
  assert.equal(list[0].title, "The paused worker");
  assert.equal(list[0].scenario.first_token, 33n);
  assert.equal(list[0].scenario.lease_ttl_ms, 30_000);
  for (const p of list) {
    assert.deepEqual(broken(run(p.name, { fencing: true }).verdict), [...p.with_fencing].sort(), `${p.name}, fencing on`);
    assert.deepEqual(broken(run(p.scenario, { fencing: false }).verdict), [...p.without_fencing].sort(), `${p.name}, fencing off`);
  }
  list[0].scenario.lease_ttl_ms = 1;
  assert.equal(presets()[0].scenario.lease_ttl_ms, 30_000, "each call returns fresh objects");
});

test("a prepared scenario runs as its object does, and changes to the object do not reach it", () => {
  const scenario = structuredClone(presets()[0].scenario);
  const p = prepare(scenario);
  assert.ok(p instanceof PreparedScenario);
  for (const options of [undefined, { fencing: false }, { seed: 7n, maxEvents: 20 }]) {
    assert.equal(p.run(options).toJson(), run(scenario, options).toJson());
    assert.equal(run(p, options).toJson(), run(scenario, options).toJson());
  }
  const byName = prepare("paused-worker");
  assert.equal(byName.run().toJson(), run("paused-worker").toJson());
  // A longer pause in the object now: the prepared scenario keeps the pause it was made with.
  scenario.faults[0].for = 1;
  assert.deepEqual(broken(p.run({ fencing: false }).verdict), ["I1", "I2", "I4"]);
  assert.deepEqual(run(scenario, { fencing: false }).verdict, { ok: true, violations: [] });
  p.free();
  p.free();
  assert.throws(() => p.run(), { name: "TypeError", message: "this PreparedScenario was freed" });
  byName.free();
  assert.throws(() => new PreparedScenario(), { name: "TypeError", message: "PreparedScenario objects are made by prepare()" });
});

test("prepare refuses a bad scenario with the message run gives, naming the field", () => {
  const bad = { version: 1, lease_ttl_ms: 1000, workers: [{ name: "A", job: { work_ms: "soon" } }] };
  const message = (f) => {
    try {
      f();
    } catch (e) {
      return `${e.name}: ${e.message}`;
    }
    return "no error";
  };
  const fromRun = message(() => run(bad));
  assert.match(fromRun, /^TypeError: scenario\.workers\[0\]\.job\.work_ms: /);
  assert.equal(message(() => prepare(bad)), fromRun);
  assert.match(message(() => run("no-such-preset")), /^(TypeError|RangeError): /);
  assert.match(message(() => run({ version: 1, lease_ttl_ms: 0, workers: [] })), /^(TypeError|RangeError): /);
  assert.equal(message(() => prepare("no-such-preset")), message(() => run("no-such-preset")));
  assert.equal(message(() => prepare({ version: 1, lease_ttl_ms: 0, workers: [] })), message(() => run({ version: 1, lease_ttl_ms: 0, workers: [] })));
});

test("truncated says whether the event limit or end_ms cut events off, not merely that something was left queued", () => {
  const full = run("paused-worker").trace;
  const n = full.events.length;
  assert.equal(full.truncated, false);
  for (const [maxEvents, truncated] of [[10, true], [n, false], [n + 1, false]]) {
    const t = run("paused-worker", { maxEvents }).trace;
    assert.equal(t.truncated, truncated, `maxEvents ${maxEvents}`);
    assert.equal(t.events.length < n, truncated);
  }
  // One worker done at 10 ms; its lease's expiry check (at 1000 ms) finds nothing to expire.
  const one = { version: 1, lease_ttl_ms: 1000, workers: [{ name: "A", job: { work_ms: 10 } }] };
  const all = run(one).trace;
  const last = all.events.at(-1).t_ms;
  for (const [endMs, truncated] of [[last - 1, true], [last, false], [999, false], [1000, false], [5000, false]]) {
    const t = run({ ...one, end_ms: endMs }).trace;
    assert.equal(t.truncated, truncated, `end_ms ${endMs}`);
    assert.equal(t.events.length < all.events.length, truncated);
  }
});

test("a scenario object with huge tokens and seed keeps them exact", () => {
  const scenario = {
    version: 1,
    name: "big",
    seed: 2n ** 63n + 5n,
    lease_ttl_ms: 30_000,
    first_token: 2n ** 60n + 1n,
    latency_ms: { min: 10, max: 90 },
    workers: [
      { name: "A", job: { work_ms: 2_000 } },
      { name: "B", start_ms: 10_000, job: { work_ms: 1_000 } },
    ],
    faults: [{ kind: "pause", worker: "A", at: 1_000, for: 45_000 }],
  };
  const t = run(scenario).trace;
  assert.equal(t.seed, 2n ** 63n + 5n);
  const rejected = t.events.find((e) => e.kind === "write_rejected");
  assert.equal(rejected.token, 2n ** 60n + 1n);
  assert.equal(rejected.detail.highest, 2n ** 60n + 2n);
  assert.match(toJson(t), /"token":1152921504606846977,/);
  assert.equal(run(scenario, { seed: 7 }).trace.seed, 7n);
});

test("toJson writes traces, scenarios and reports as the simulator's JSON", () => {
  const r = run("paused-worker");
  const json = r.toJson();
  assert.equal(toJson(r.trace), json);
  assert.ok(json.startsWith('{"scenario":"paused-worker","seed":1,"fencing":true,"workers":["A","B"],"events":[{"seq":0,'));
  assert.ok(json.endsWith('"document":[{"writer":"B","token":34,"op":1,"t_ms":31200,"seq":19}]}'));
  assert.deepEqual(JSON.parse(json).verdict, { ok: true, violations: [] });
  assert.equal(toJson({ a: 1n, b: [undefined, 2], c: undefined, d: "é" }), '{"a":1,"b":[null,2],"d":"é"}');
});

test("a seed sweep advances in slices and counts what broke", () => {
  const sweep = new Sweep("pauses-holds-skew", { seeds: 200 });
  assert.deepEqual([sweep.done, sweep.total, sweep.finished], [0, 200, false]);
  const seen = [];
  while (!sweep.finished) seen.push(sweep.step(64).done);
  assert.deepEqual(seen, [64, 128, 192, 200]);
  const report = sweep.report;
  assert.deepEqual(report, {
    name: "pauses-holds-skew",
    first_seed: 0n,
    seeds: 200,
    runs: 200,
    fencing_on: {
      violating_runs: 0,
      by_invariant: { I1: 0, I2: 0, I3: 0, I4: 0, I5: 0 },
      truncated_runs: 0,
      first_violating: [],
    },
    fencing_off: {
      violating_runs: 75,
      by_invariant: { I1: 75, I2: 75, I3: 0, I4: 75, I5: 0 },
      truncated_runs: 0,
      first_violating: [1n, 3n, 6n, 7n, 8n].map((seed) => ({ seed, broken: ["I1", "I2", "I4"] })),
    },
  });
  sweep.free();
  assert.throws(() => sweep.step(), { name: "TypeError", message: "this Sweep was freed" });

  const template = templates()[0].template;
  assert.equal(templates()[0].name, "pauses-holds-skew");
  const off = new Sweep(template, { seeds: 50, firstSeed: 150n, modes: "fencingOff", keepSeeds: 2 }).run();
  assert.equal(off.fencing_on, null);
  assert.equal(off.first_seed, 150n);
  assert.equal(off.fencing_off.first_violating.length, 2);
  const fixed = new Sweep("paused-worker", { seeds: 10, modes: "fencingOn" }).run();
  assert.equal(fixed.name, "paused-worker");
  assert.equal(fixed.fencing_on.violating_runs, 0);
});

test("the exhaustive search finds the shortest counterexample without fencing and none with it", () => {
  const on = search("paused-worker", { fencing: true });
  assert.deepEqual(on, {
    fencing: true,
    states_explored: 1190,
    states_generated: 1442,
    distinct_states: 1266,
    depth: 20,
    violating_states: 0,
    complete: true,
    depth_limited: false,
    counterexample: null,
  });
  const s = new Search("paused-worker", { fencing: false });
  let slices = 0;
  while (!s.step(100)) slices++;
  assert.equal(slices, 7);
  const off = s.report;
  assert.equal(off.distinct_states, 920);
  const cx = off.counterexample;
  assert.deepEqual([cx.depth, cx.invariant, cx.broken, cx.t_ms], [16, "I1", ["I1", "I2", "I4"], 32_150]);
  assert.deepEqual(cx.faults, [{ kind: "hold", worker: "A", nth_write: 1, for: 30_000 }]);
  assert.equal(cx.scenario.name, "paused-worker-counterexample");
  const replay = run(cx.scenario);
  assert.deepEqual(broken(replay.verdict), ["I1", "I2", "I4"]);
  assert.equal(replay.verdict.violations[0].t_ms, 32_150);
  const narrow = search("paused-worker", { fencing: false, scope: { max_faults: 1, pause_ms: [45_000], points: ["after_acquire"] } });
  assert.deepEqual(narrow.counterexample.faults, [
    { kind: "pause_at", worker: "A", point: "after_acquire", nth: 1, for: 45_000 },
  ]);
});

test("a counterexample made of clock jumps near the edge of time (2^40 ms) is a scenario run replays", () => {
  // Fine without faults; the search may jump clocks by up to 2^40 ms, and only jumps that a
  // scenario can name (jump_at at most 2^40 ms) are offered (the Rust tests pin the case where a
  // later jump would have been the shortest).
  const T = 2 ** 40;
  const world = {
    version: 1,
    lease_ttl_ms: 1000,
    latency_ms: { min: 50, max: 50 },
    workers: [
      { name: "A", start_ms: T - 5000, job: { work_ms: 500, writes: 1 } },
      { name: "B", start_ms: T - 3000, job: { work_ms: 500, writes: 1 } },
    ],
  };
  assert.equal(run(world, { fencing: false }).verdict.ok, true);
  const scope = { max_faults: 2, pause_ms: [], hold_ms: [], jump_ms: [2000, -2000, T, -T] };
  const ce = search(world, { fencing: false, scope, maxStates: 200_000 }).counterexample;
  assert.deepEqual(ce.faults, [
    { kind: "clock", worker: "A", jump_at: T - 4899, jump_ms: -2000 },
    { kind: "clock", worker: "B", jump_at: T - 2899, jump_ms: 2000 },
  ]);
  assert.deepEqual([ce.broken, ce.t_ms], [["I1", "I2", "I4"], T - 2350]);
  const replay = run(ce.scenario).verdict;
  assert.deepEqual([...new Set(replay.violations.map((v) => v.invariant))].sort(), ["I1", "I2", "I4"]);
  assert.equal(replay.violations[0].t_ms, ce.t_ms);
});

test("the history checker finds a stale write line by line and in a whole log", () => {
  const lines = [
    '{"t":1000,"resource":"orders/42","writer":"A","token":33,"result":"ok"}',
    '{"t":2500,"resource":"orders/42","writer":"B","token":34,"result":"ok"}',
    '{"t":4000,"resource":"orders/42","writer":"A","token":33,"result":"ok"}',
    "not json",
  ];
  const c = new HistoryChecker();
  assert.deepEqual(c.check(lines[0]), { malformed: null, findings: [] });
  assert.deepEqual(c.check(lines[1]), { malformed: null, findings: [] });
  const third = c.check(lines[2]);
  assert.deepEqual(
    third.findings.map((f) => [f.line, f.kind, f.writer, f.token, f.newer_writer, f.newer_token, f.newer_line]),
    [
      [3, "token_regression", "A", 33n, "B", 34n, 2],
      [3, "stale_owner", "A", 33n, "B", 34n, 2],
    ],
  );
  assert.deepEqual(c.check(lines[3]).malformed, { line: 4, message: "expected a JSON object" });
  assert.deepEqual(c.summary, {
    lines: 4,
    accepted: 3,
    rejected: 0,
    malformed: 1,
    token_regressions: 1,
    stale_owners: 1,
    resources: 1,
  });
  const whole = checkHistory(lines);
  assert.deepEqual(whole.summary, c.summary);
  assert.deepEqual(whole.findings, third.findings);
  assert.deepEqual(checkHistory(`${lines.join("\n")}\n`, { keep: 1 }).findings, [third.findings[0]]);
  assert.equal(checkHistory([]).summary.lines, 0);
  // A log's times are whatever the storage wrote (nanoseconds, say): they come back exact.
  const late = checkHistory([
    '{"t":1,"resource":"r","writer":"A","token":9,"result":"ok"}',
    '{"t":18446744073709551615,"resource":"r","writer":"B","token":5,"result":"ok"}',
    '{"t":9007199254740993,"resource":"r","writer":"C","token":4,"result":"ok"}',
  ]).findings;
  assert.deepEqual(
    late.map((f) => [f.line, f.t]),
    [
      [2, 18446744073709551615n],
      [2, 18446744073709551615n],
      [3, 9007199254740993n],
      [3, 9007199254740993n],
    ],
  );
});

test("a whole log with more findings and malformed lines than the module writes at once", () => {
  // B takes over with 34, then A's stale writes keep being accepted (two findings each), with
  // a malformed line after each: 9,000 of each line, the report read in pieces of 8,192.
  const lines = ['{"t":1,"resource":"r","writer":"B","token":34,"result":"ok"}'];
  for (let k = 0; k < 9_000; k++) {
    lines.push(`{"t":${2 + k},"resource":"r","writer":"A","token":33,"result":"ok"}`, `broken ${k}`);
  }
  const c = new HistoryChecker();
  const one = lines.map((l) => c.check(l));
  const findings = one.flatMap((r) => r.findings);
  const malformed = one.flatMap((r) => (r.malformed === null ? [] : [r.malformed]));
  assert.equal(findings.length, 18_000);
  assert.equal(malformed.length, 9_000);
  const whole = checkHistory(lines, { keep: 1_000_000 });
  assert.deepEqual(whole, { summary: c.summary, findings, malformed });
  assert.deepEqual(
    [whole.findings[8192].line, whole.findings[17_999].line, whole.malformed[8191].line, whole.malformed[8999].message],
    [8_194, 18_000, 16_385, "expected a JSON object"],
  );
  const kept = checkHistory(`${lines.join("\n")}\n`, { keep: 8_193 });
  assert.deepEqual([kept.findings, kept.malformed], [findings.slice(0, 8_193), malformed.slice(0, 8_193)]);
  c.free();
});

test("sim/index.d.ts declares exactly what every entry exports, without any", async () => {
  const { createRequire } = await import("node:module");
  const { readFileSync } = await import("node:fs");
  const require = createRequire(import.meta.url);
  const sim = await import("fencepost/sim");
  const slim = await import("fencepost/sim/slim");
  const dts = readFileSync(require.resolve("fencepost/package.json").replace(/package\.json$/, "sim/index.d.ts"), "utf8");
  const declared = [...dts.matchAll(/^export (?:declare )?(?:class|function|const) (\w+)/gm)].map((m) => m[1]);
  assert.deepEqual([...new Set(declared)].sort(), Object.keys(sim).sort());
  assert.deepEqual(Object.keys(require("fencepost/sim")).sort(), Object.keys(sim).sort());
  assert.deepEqual(Object.keys(slim).sort(), Object.keys(sim).sort());
  assert.doesNotMatch(dts.replace(/\/\/.*$|\/\*[\s\S]*?\*\//gm, ""), /\bany\b/);
});

test("fencepost/sim/slim loads nothing until initSync is handed the exported .wasm", async () => {
  const { execFileSync } = await import("node:child_process");
  const script = `
    import { readFileSync } from "node:fs";
    import * as slim from "fencepost/sim/slim";
    const before = [];
    // A preset's name and a scenario object alike.
    for (const source of ["paused-worker", { version: 1 }]) {
      try { slim.run(source); } catch (e) { before.push(e.message); }
    }
    slim.initSync(readFileSync(new URL(import.meta.resolve("fencepost/sim/fencepost_sim_bg.wasm"))));
    console.log(JSON.stringify({ before, ok: slim.run("paused-worker", { fencing: false }).verdict.ok }));
  `;
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
  const notLoaded =
    "fencepost/sim: the WebAssembly module is not loaded; with fencepost/sim/slim, call init() or initSync() first";
  assert.deepEqual(JSON.parse(out), { before: [notLoaded, notLoaded], ok: false });
});
