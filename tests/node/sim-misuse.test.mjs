// Misuse of every function, constructor and method of fencepost/sim: each call throws a TypeError
// or RangeError whose message starts with the argument (and for a scenario, the field), and
// afterwards the one WebAssembly instance behind them keeps working.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as sim from "fencepost/sim";

const { HistoryChecker, Search, SimRun, Sweep, checkHistory, presets, run, search, toJson } = sim;

const ok = () => ({ version: 1, lease_ttl_ms: 1_000, workers: [{ name: "A", job: { work_ms: 10 } }] });
const HUGE = "x".repeat(2_000_000);

function throwsExactly(fn, type, message) {
  assert.throws(fn, (e) => {
    assert.equal(e.constructor, type, `${e.constructor.name}: ${e.message}`);
    assert.equal(e.message, message);
    return true;
  });
}

/** The paused-worker story, still told right by the same instance. */
function storyStillHolds() {
  const rejected = run("paused-worker").trace.events.find((e) => e.kind === "write_rejected");
  assert.deepEqual([rejected.token, rejected.detail.highest], [33n, 34n]);
  assert.equal(run("paused-worker", { fencing: false }).verdict.violations[1].invariant, "I2");
}

test("scenarios: every error names the field, whether JavaScript, the reader or the validator finds it", () => {
  const cases = [
    [undefined, TypeError, "scenario must be an object, got undefined"],
    [null, TypeError, "scenario must be an object, got null"],
    [[], TypeError, "scenario must be an object, got an array"],
    [new Map(), TypeError, "scenario must be an object, got an object (Map)"],
    [42, TypeError, "scenario must be an object, got 42"],
    ["nope", RangeError, `scenario: no preset is named "nope"; presets: ${presets().map((p) => p.name).join(", ")}`],
    [{ ...ok(), name: new Date(0) }, TypeError, "scenario.name must be a plain object, got an object (Date)"],
    [{ ...ok(), name: Symbol("n") }, TypeError, "scenario.name must be plain data, got a symbol"],
    [{ ...ok(), lease_ttl_ms: NaN }, RangeError, "scenario.lease_ttl_ms must be a finite number, got NaN"],
    [{ ...ok(), seed: 2n ** 64n }, RangeError, "scenario.seed must be between 0n and 18446744073709551615n, got 18446744073709551616n"],
    [{ ...ok(), seed: -1n }, RangeError, "scenario.seed must be between 0n and 18446744073709551615n, got -1n"],
    [
      { ...ok(), faults: [{ kind: "clock", worker: "A", skew_ms: -(2n ** 64n) }] },
      RangeError,
      "scenario.faults[0].skew_ms must be between -2n ** 63n and 18446744073709551615n, got -18446744073709551616n",
    ],
    [{ ...ok(), workers: [{ name: "\ud800", job: { work_ms: 1 } }] }, RangeError, "scenario.workers[0].name must be well-formed Unicode, but has a lone surrogate"],
    [{ ...ok(), workers: [{ name: "a\udc00", job: { work_ms: 1 } }] }, RangeError, "scenario.workers[0].name must be well-formed Unicode, but has a lone surrogate"],
    [{ ...ok(), protections: { token_kind: 5 } }, TypeError, "scenario.protections.token_kind: invalid type: integer `5`, expected `ordered` or `uuid`"],
    [{ ...ok(), faults: [{ kind: 5, worker: "A", at: 1, for: 1 }] }, TypeError, "scenario.faults[0].kind: invalid type: integer `5`, expected one of `pause`, `pause_at`, `hold`, `partition`, `clock`, `crash`, `authority_restart`"],
    [
      { ...ok(), faults: [{ kind: "pause_at", worker: "A", point: true, for: 1 }] },
      TypeError,
      "scenario.faults[0].point: invalid type: boolean `true`, expected one of `after_acquire`, `after_renew_check`, `before_write`",
    ],
    [{ ...ok(), workers: [undefined] }, TypeError, "scenario.workers[0] must not be undefined"],
    [{ version: 1 }, TypeError, "scenario: missing field `lease_ttl_ms`"],
    [{ ...ok(), lease_ttl_ms: "1000" }, TypeError, 'scenario.lease_ttl_ms: invalid type: string "1000", expected u64'],
    [{ ...ok(), lease_ttl_ms: 1.5 }, TypeError, "scenario.lease_ttl_ms: invalid type: floating point `1.5`, expected u64"],
    [{ ...ok(), seed: -1 }, RangeError, "scenario.seed: invalid value: integer `-1`, expected u64"],
    [{ ...ok(), workers: {} }, TypeError, "scenario.workers: invalid type: map, expected a sequence"],
    [{ ...ok(), latency_ms: [50, 60] }, TypeError, "scenario.latency_ms: invalid type: sequence, expected struct Latency"],
    [{ ...ok(), workers: [{ name: "A", job: [10] }] }, TypeError, "scenario.workers[0].job: invalid type: sequence, expected struct Job"],
    [
      { ...ok(), workers: [{ name: "A", job: { work_ms: 10, wrk: 1 } }] },
      TypeError,
      "scenario.workers[0].job.wrk: unknown field `wrk`, expected one of `work_ms`, `writes`, `renew_every_ms`, `retry_after_ms`",
    ],
    [{ ...ok(), workers: [{ name: "A" }] }, TypeError, "scenario.workers[0]: missing field `job`"],
    [
      { ...ok(), faults: [{ kind: "pause", worker: "A", at: 1, for: 1 }, { kind: "melt" }] },
      RangeError,
      "scenario.faults[1].kind: unknown variant `melt`, expected one of `pause`, `pause_at`, `hold`, `partition`, `clock`, `crash`, `authority_restart`",
    ],
    [{ ...ok(), faults: [{ kind: "pause", worker: "A", at: 1 }] }, TypeError, "scenario.faults[0]: missing field `for`"],
    [{ ...ok(), version: 2 }, RangeError, "scenario.version: must be 1, got 2"],
    [{ ...ok(), lease_ttl_ms: 0 }, RangeError, "scenario.lease_ttl_ms: must be greater than 0"],
    [{ ...ok(), workers: [{ name: "lock", job: { work_ms: 1 } }] }, RangeError, "scenario.workers[0].name: `lock` is reserved"],
    [{ ...ok(), workers: [{ name: "é".repeat(20), job: { work_ms: 1 } }] }, RangeError, "scenario.workers[0].name: must be 1 to 32 bytes"],
    [{ ...ok(), faults: [{ kind: "pause", worker: "Z", at: 1, for: 2 }] }, RangeError, "scenario.faults[0].worker: no worker is named `Z`"],
    [{ ...ok(), end_ms: 2 ** 41 }, RangeError, "scenario.end_ms: must be at most 1099511627776 ms"],
  ];
  for (const [value, type, message] of cases) throwsExactly(() => run(value), type, message);
  const cyclic = ok();
  cyclic.self = cyclic;
  assert.throws(() => run(cyclic), { name: "RangeError", message: /^scenario\.self\.self\..* is nested deeper than 16 levels$/ });
  const getter = ok();
  Object.defineProperty(getter, "name", { enumerable: true, get: () => "from a getter" });
  assert.equal(run(getter).trace.scenario, "from a getter");
  throwsExactly(() => run({ ...ok(), name: HUGE }), RangeError, "scenario.name must be at most 1048576 characters long");
  storyStillHolds();
});

test("run options, SimRun methods and a freed run", () => {
  throwsExactly(() => run("paused-worker", 5), TypeError, "options must be an object, got 5");
  throwsExactly(() => run("paused-worker", { fence: true }), TypeError, 'options has an unknown key "fence"; known keys: fencing, seed, maxEvents');
  throwsExactly(() => run("paused-worker", { fencing: 1 }), TypeError, "options.fencing must be a boolean, got 1");
  throwsExactly(() => run("paused-worker", { seed: "1" }), TypeError, 'options.seed must be a number or a bigint, got "1"');
  throwsExactly(() => run("paused-worker", { seed: -1 }), RangeError, "options.seed must be a whole number from 0 to 2^53 - 1 or a bigint, got -1");
  throwsExactly(() => run("paused-worker", { seed: 2n ** 64n }), RangeError, "options.seed must be between 0n and 18446744073709551615n, got 18446744073709551616n");
  throwsExactly(() => run("paused-worker", { maxEvents: 0 }), RangeError, "options.maxEvents must be a whole number from 1 to 1000000, got 0");
  assert.equal(run("paused-worker", { maxEvents: 5 }).trace.truncated, true);
  throwsExactly(() => new SimRun(0), TypeError, "SimRun objects are made by run()");
  const r = run("paused-worker");
  // 34 events: the story shows A's keeper telling it, at 46 s, that its lease is lost.
  throwsExactly(() => r.explain(34), RangeError, "seq must be a whole number from 0 to 33, got 34");
  throwsExactly(() => r.explain(-1), RangeError, "seq must be a whole number from 0 to 33, got -1");
  throwsExactly(() => r.explain("1"), TypeError, 'seq must be a number, got "1"');
  throwsExactly(() => r.beliefsAt(-1), RangeError, "tMs must be a whole number of milliseconds from 0 to 2^53 - 1, got -1");
  throwsExactly(() => r.beliefsAt(1n), TypeError, "tMs must be a number of milliseconds, got 1n");
  r.free();
  r.free();
  for (const f of [() => r.trace, () => r.verdict, () => r.explain(0), () => r.beliefsAt(0), () => r.toJson()]) {
    throwsExactly(f, TypeError, "this SimRun was freed");
  }
  storyStillHolds();
});

test("a setter on a built-in prototype that throws while fencepost/sim hands out a value reaches the caller; values are whole once it is gone", () => {
  // Every kind of value the simulator writes out: a trace, a verdict, beliefs, presets and
  // templates, sweep and search reports, history findings. The module builds objects by setting
  // their properties (serde-wasm-bindgen), so a setter a program put on Object.prototype or
  // Array.prototype runs then; presets and templates are read once and copied afterwards.
  const line = '{"t":45000,"resource":"r","writer":"B","token":34,"result":"ok"}';
  const stale = '{"t":9007199254740993,"resource":"r","writer":"A","token":33,"result":"ok"}';
  /** `f(object)`, with `object` freed afterwards whatever happens. */
  const using = (object, f) => {
    try {
      return f(object);
    } finally {
      object.free();
    }
  };
  const producers = {
    trace: () => using(run("paused-worker"), (r) => r.trace),
    verdict: () => using(run("gc-pause", { fencing: false }), (r) => r.verdict),
    beliefs: () => using(run("paused-worker"), (r) => r.beliefsAt(46_000)),
    presets: () => presets(),
    templates: () => sim.templates(),
    sweep: () => using(new Sweep("paused-worker", { seeds: 3, firstSeed: 2n ** 64n - 3n }), (s) => s.run()),
    search: () => search("paused-worker", { fencing: false }),
    lines: () => using(new HistoryChecker(), (checker) => [checker.check(line), checker.check(stale)]),
    summary: () =>
      using(new HistoryChecker(), (checker) => {
        checker.check(line);
        return checker.summary;
      }),
    history: () => checkHistory(`${line}\n${stale}\n`),
  };
  const everything = () => Object.fromEntries(Object.entries(producers).map(([k, f]) => [k, f()]));
  const expected = everything();
  // Every key and index those values use, each with a setter that throws (after calling back in),
  // on Object.prototype and Array.prototype.
  const keys = new Set();
  const walk = (v) => {
    if (v === null || typeof v !== "object") return;
    for (const k of Object.keys(v)) {
      keys.add(k);
      walk(v[k]);
    }
  };
  walk(expected);
  assert.ok(keys.has("kind") && keys.has("token") && keys.has("0") && keys.has("first_violating"));
  let calls = 0;
  const set = () => {
    calls++;
    run("paused-worker").free();
    throw new Error("a setter on a built-in prototype ran");
  };
  const defined = [];
  for (const proto of [Object.prototype, Array.prototype]) {
    for (const key of keys) {
      if (!Object.hasOwn(proto, key)) {
        Object.defineProperty(proto, key, { configurable: true, set });
        defined.push([proto, key]);
      }
    }
  }
  const copiedInJs = new Set(["presets", "templates"]);
  const entries = Object.entries(producers);
  // What each call gave, kept in a Map and asserted once the setters are gone: node:assert itself
  // writes array elements, which the setters on Array.prototype would answer.
  const got = new Map();
  const thrown = new Map();
  try {
    // Many times over: each exception leaves the module's frames without their epilogue.
    for (let k = 0; k < 2_000; k++) {
      for (const [name, f] of entries) {
        try {
          got.set(name, f());
        } catch (e) {
          thrown.set(name, e);
        }
      }
    }
  } finally {
    for (const [proto, key] of defined) delete proto[key];
  }
  for (const [name] of entries) {
    if (copiedInJs.has(name)) {
      assert.equal(thrown.has(name), false, name);
      assert.deepEqual(got.get(name), expected[name]);
    } else {
      assert.equal(got.has(name), false, name);
      assert.equal(thrown.get(name).constructor, Error, name);
      assert.equal(thrown.get(name).message, "a setter on a built-in prototype ran", name);
    }
  }
  assert.equal(calls, 2_000 * (entries.length - copiedInJs.size));
  const after = everything();
  assert.deepEqual(after, expected);
  assert.equal(after.trace.events.find((e) => e.kind === "write_rejected").token, 33n);
  assert.equal(after.sweep.first_seed, 2n ** 64n - 3n);
  assert.equal(after.lines[1].findings[0].t, 9_007_199_254_740_993n);
  storyStillHolds();
});

test("sweeps: sources, templates and options", () => {
  throwsExactly(() => new Sweep("paused-worker"), TypeError, "options must be an object with seeds, got undefined");
  throwsExactly(() => new Sweep("paused-worker", {}), TypeError, "options.seeds is required (how many seeds to run)");
  throwsExactly(() => new Sweep(5, { seeds: 1 }), TypeError, "source must be a preset or template name, a scenario or a template, got 5");
  throwsExactly(() => new Sweep(null, { seeds: 1 }), TypeError, "source must be a preset or template name, a scenario or a template, got null");
  assert.throws(() => new Sweep("nope", { seeds: 1 }), { name: "RangeError", message: /^source: no preset or template is named "nope"; templates: pauses-holds-skew; presets: paused-worker, / });
  throwsExactly(() => new Sweep("paused-worker", { seeds: -1 }), RangeError, "options.seeds must be a whole number from 0 to 9007199254740991, got -1");
  throwsExactly(() => new Sweep("paused-worker", { seeds: 1, modes: "all" }), RangeError, 'options.modes must be "both", "fencingOn" or "fencingOff", got "all"');
  throwsExactly(() => new Sweep("paused-worker", { seeds: 1, modes: 1 }), TypeError, "options.modes must be a string, got 1");
  throwsExactly(() => new Sweep("paused-worker", { seeds: 1, firstSeed: -1n }), RangeError, "options.firstSeed must be between 0n and 18446744073709551615n, got -1n");
  // The last seed can be swept; seeds past it are refused, not silently left out.
  const MAX = 2n ** 64n - 1n;
  const last = new Sweep("paused-worker", { seeds: 1, firstSeed: MAX });
  assert.equal(last.total, 1);
  assert.deepEqual(last.run().fencing_off.first_violating.map((h) => h.seed), [MAX]);
  last.free();
  assert.equal(new Sweep("paused-worker", { seeds: 5, firstSeed: MAX - 4n }).total, 5);
  throwsExactly(
    () => new Sweep("paused-worker", { seeds: 10, firstSeed: MAX - 4n }),
    RangeError,
    "options.seeds: only 5 seeds from options.firstSeed 18446744073709551611n to 18446744073709551615n, got 10",
  );
  throwsExactly(() => new Sweep("paused-worker", { seeds: 1, maxEvents: 0 }), RangeError, "options.maxEvents must be a whole number from 1 to 2872179 (the most the simulator's memory can hold), got 0");
  const template = { version: 1, lease_ttl_ms: 5_000, workers: { count: 2, work_ms: 10 } };
  throwsExactly(() => new Sweep({ ...template, lease_ttl_ms: { min: 5, max: 1 } }, { seeds: 1 }), RangeError, "source.lease_ttl_ms.min: must not be greater than max (5 > 1)");
  throwsExactly(() => new Sweep({ ...template, lease_ttl_ms: 0 }, { seeds: 1 }), RangeError, "source.lease_ttl_ms: must be greater than 0");
  throwsExactly(() => new Sweep({ ...template, lease_ttl_ms: { min: 0, max: 1 } }, { seeds: 1 }), RangeError, "source.lease_ttl_ms.min: must be greater than 0");
  throwsExactly(
    () => new Sweep({ ...template, faults: [{ kind: "pause", probability: 2, at: 1, for: 1 }] }, { seeds: 1 }),
    RangeError,
    "source.faults[0].probability: must be between 0 and 1",
  );
  throwsExactly(
    () => new Sweep({ ...template, workers: { count: 2, work_ms: 10, wrk: 1 } }, { seeds: 1 }),
    TypeError,
    "source.workers.wrk: unknown field `wrk`, expected one of `count`, `start_ms`, `work_ms`, `writes`, `renew`, `retry`",
  );
  const sweep = new Sweep(template, { seeds: 3 });
  throwsExactly(() => sweep.step(-1), RangeError, "n must be a whole number from 0 to 4294967295, got -1");
  throwsExactly(() => sweep.step("1"), TypeError, 'n must be a number, got "1"');
  assert.deepEqual(sweep.step(0), { done: 0, total: 3 });
  assert.equal(sweep.run().runs, 3);
  storyStillHolds();
});

test("searches: scenarios the model cannot hold, scopes and options", () => {
  throwsExactly(() => new Search("paused-worker", { maxFaults: 17 }), RangeError, "options.maxFaults must be a whole number from 0 to 16, got 17");
  throwsExactly(() => new Search("paused-worker", { maxStates: 0 }), RangeError, "options.maxStates must be a whole number from 1 to 1483149 (the most the simulator's memory can hold), got 0");
  throwsExactly(() => new Search("paused-worker", { stopAtFirst: "yes" }), TypeError, 'options.stopAtFirst must be a boolean, got "yes"');
  throwsExactly(() => new Search("paused-worker", { scope: [] }), TypeError, "options.scope must be an object, got an array");
  throwsExactly(
    () => new Search("paused-worker", { scope: { max_faults: 1, pause: [1] } }),
    TypeError,
    "options.scope.pause: unknown field `pause`, expected one of `max_faults`, `points`, `pause_ms`, `hold_ms`, `jump_ms`, `workers`",
  );
  throwsExactly(() => new Search("paused-worker", { scope: { max_faults: 20 } }), RangeError, "options.scope.max_faults: must be at most 16");
  throwsExactly(
    () => new Search("paused-worker", { scope: { max_faults: 1, pause_ms: [5], hold_ms: [1, 2 ** 41] } }),
    RangeError,
    "options.scope.hold_ms[1]: must be at most 1099511627776 ms",
  );
  throwsExactly(() => new Search("paused-worker", { scope: { max_faults: 1, workers: ["Z"] } }), RangeError, "options.scope.workers[0]: no worker is named `Z`");
  throwsExactly(
    () => new Search("paused-worker", { scope: { max_faults: 1, points: ["after_acquire", "never"] } }),
    RangeError,
    "options.scope.points[1]: unknown variant `never`, expected one of `after_acquire`, `after_renew_check`, `before_write`",
  );
  const five = { ...ok(), workers: ["A", "B", "C", "D", "E"].map((name) => ({ name, job: { work_ms: 1 } })) };
  throwsExactly(() => search(five), RangeError, "scenario.workers: the exhaustive search models at most 4 workers");
  throwsExactly(() => search("gc-pause"), RangeError, "scenario.workers[0].job.renew_every_ms: the exhaustive search does not model periodic renewal");
  const s = new Search("paused-worker");
  throwsExactly(() => s.step(1.5), RangeError, "budget must be a whole number from 0 to 4294967295, got 1.5");
  s.free();
  throwsExactly(() => s.report, TypeError, "this Search was freed");
  storyStillHolds();
});

test("the history checker and checkHistory", () => {
  const c = new HistoryChecker();
  throwsExactly(() => c.check(5), TypeError, "line must be a string, got 5");
  throwsExactly(() => c.check("a\nb"), RangeError, "line must be one line, without a newline");
  // A line is held to a whole history's length; one over 1 MiB is malformed, not refused.
  const longest = "x".repeat(1 << 20);
  throwsExactly(() => c.check(Array(257).fill(longest).join("")), RangeError, "line must be at most 268435456 characters, got 269484032");
  assert.deepEqual(c.check(HUGE).malformed, { line: 1, message: "longer than 1048576 bytes" });
  throwsExactly(() => checkHistory([1]), TypeError, "lines[0] must be a string, got 1");
  throwsExactly(() => checkHistory(["ok", "a\nb"]), RangeError, "lines[1] must be one line, without a newline");
  // An array of lines is held to the same length as the text they make, before they are joined
  // (past what one string can hold, joining them would throw an error that names nothing).
  throwsExactly(() => checkHistory(Array(257).fill(longest).join("\n")), RangeError, "lines must be at most 268435456 characters, got 269484288");
  throwsExactly(() => checkHistory(Array(257).fill(longest)), RangeError, "lines must be at most 268435456 characters joined by newlines, got 269484289");
  throwsExactly(() => checkHistory(Array(520).fill(longest)), RangeError, "lines must be at most 268435456 characters joined by newlines, got 545260040");
  // A lone surrogate would reach the module as U+FFFD: "r\ud800" and "r\udbff" would be one
  // resource, and A's write would be a stale write after B's. Such text is refused, as in a
  // scenario.
  const w = (resource, writer, token) => `{"t":1,"resource":"${resource}","writer":"${writer}","token":${token},"result":"ok"}`;
  const surrogates = [w("r\ud800", "B", 34), w("r\udbff", "A", 33)];
  throwsExactly(() => c.check(surrogates[0]), RangeError, "line must be well-formed Unicode, but has a lone surrogate");
  throwsExactly(() => checkHistory(surrogates), RangeError, "lines[0] must be well-formed Unicode, but has a lone surrogate");
  throwsExactly(() => checkHistory(`${w("s", "A", 1)}\n${surrogates.join("\r\n")}`), RangeError, "lines: line 2 must be well-formed Unicode, but has a lone surrogate");
  assert.deepEqual(checkHistory([w("r\ud83d\ude00", "B", 34), w("r\ud83d\ude01", "A", 33)]).findings, []);
  // A line of 40 million characters is malformed like any line over 1 MiB, and the next line is
  // still checked: the module copies it in but never parses it, so its memory bound stays small.
  const endless = `{"t":1,"resource":"r","writer":"w","token":1,"result":"ok","x":"${"y".repeat(40_000_000)}"}`;
  const afterEndless = checkHistory(`${endless}\n${w("s", "A", 1)}\n`);
  assert.deepEqual(afterEndless.malformed, [{ line: 1, message: "longer than 1048576 bytes" }]);
  assert.deepEqual([afterEndless.summary.lines, afterEndless.summary.accepted], [2, 1]);
  throwsExactly(() => checkHistory(5), TypeError, "lines must be a string, got 5");
  throwsExactly(() => checkHistory("", { keep: -1 }), RangeError, "options.keep must be a whole number from 0 to 1000000, got -1");
  throwsExactly(() => checkHistory("", { kept: 1 }), TypeError, 'options has an unknown key "kept"; known keys: keep');
  assert.equal(c.check('{"t":1,"resource":"r","writer":"A","token":0,"result":"ok"}').malformed.message, "token: must be at least 1 (token 0 is never granted)");
  // The long line and this one: nothing refused above was counted.
  assert.deepEqual([c.summary.lines, c.summary.malformed], [2, 2]);
  throwsExactly(() => sim.initSync("x"), TypeError, 'module must be a WebAssembly.Module, an ArrayBuffer or a typed array, got "x"');
  storyStillHolds();
});

test("thousands of random calls with mutated scenarios only ever return or throw TypeError / RangeError", () => {
  // xorshift32, seeded: the same calls every run.
  let seed = 0x2545f491;
  const rand = (n) => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) % n;
  };
  const odd = [
    undefined, null, true, 0, -1, 1.5, 2 ** 53, 2 ** 64, 7, 1_000, 45_000, -(2 ** 40), NaN, Infinity,
    0n, 1n, -1n, 2n ** 63n, 2n ** 64n - 1n, "", "A", "B", "lock", "pause", "hold", "x".repeat(40),
    {}, [], [1], { min: 5, max: 1 }, { kind: "pause" }, Symbol("s"), () => 1, new Date(0),
  ];
  const pick = () => odd[rand(odd.length)];
  /** A copy of `value` with one leaf or key somewhere replaced, added or removed. */
  const mutate = (value) => {
    const copy = structuredClone(value);
    let node = copy;
    for (let depth = 0; depth < 6; depth++) {
      const keys = Object.keys(node);
      if (keys.length === 0) break;
      const k = keys[rand(keys.length)];
      const child = node[k];
      const r = rand(4);
      if (r === 0 || child === null || typeof child !== "object") {
        if (r === 1) delete node[k];
        else if (r === 2 && !Array.isArray(node)) node[`extra${rand(3)}`] = pick();
        else node[k] = pick();
        return copy;
      }
      node = child;
    }
    return copy;
  };
  const bases = [...presets().map((p) => p.scenario), ok()];
  const template = sim.templates()[0].template;
  const seen = { returned: 0, TypeError: 0, RangeError: 0 };
  for (let n = 0; n < 3_000; n++) {
    const base = bases[rand(bases.length)];
    const target = rand(6);
    try {
      if (target === 0) run(mutate(base), { maxEvents: 20_000 }).trace;
      else if (target === 1) new Sweep(mutate(template), { seeds: 2, maxEvents: 20_000 }).run();
      else if (target === 2) new Search(mutate(base), { maxStates: 2_000 }).run();
      else if (target === 3) search("paused-worker", { scope: mutate({ max_faults: 1, pause_ms: [45_000], points: ["after_acquire"] }), maxStates: 2_000 });
      else if (target === 4) run(base, mutate({ fencing: false, seed: 3, maxEvents: 20_000 }));
      else checkHistory([toJson(mutate({ t: 1, resource: "r", writer: "A", token: 33, result: "ok" }))]);
      seen.returned++;
    } catch (e) {
      assert.ok(e instanceof TypeError || e instanceof RangeError, `call ${n}: ${e?.constructor?.name}: ${e?.message}`);
      seen[e.constructor.name]++;
    }
  }
  assert.ok(seen.returned > 500 && seen.TypeError > 300 && seen.RangeError > 300, JSON.stringify(seen));
  storyStillHolds();
});
