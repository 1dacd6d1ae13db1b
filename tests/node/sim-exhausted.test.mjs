// fencepost/sim when its WebAssembly memory cannot grow any more: every call that needs more
// answers a RangeError (never a trap), and once objects are freed the same instance works again.
// Its own process: the memory is grown to its 4 GiB maximum from JavaScript, so that the module's
// allocator can never grow it, and it never shrinks. The module is loaded through
// fencepost/sim/slim so that the test can hold its instance (its memory is one of its exports).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as sim from "fencepost/sim/slim";
import { caughtInstance } from "./caught-instance.mjs";

const { HistoryChecker, Sweep, checkHistory, prepare, presets, run, search } = sim;

const instance = caughtInstance(() =>
  sim.initSync(readFileSync(new URL(import.meta.resolve("fencepost/sim/fencepost_sim_bg.wasm")))),
);

const NO_MEMORY =
  "fencepost/sim: the simulator's memory cannot grow as far as this call may need: free() runs, sweeps, searches and history checkers no longer needed";

function isNoMemory(e) {
  return e instanceof RangeError && e.constructor === RangeError && e.message === NO_MEMORY;
}

/** `f()`'s value, or the NO_MEMORY error it threw (any other error fails the test). */
function answer(f) {
  try {
    return f();
  } catch (e) {
    if (isNoMemory(e)) return e;
    throw e;
  }
}

test("with the memory at its maximum, runs are refused with a RangeError, every call answers, and freeing makes room again", () => {
  const prepared = prepare("paused-worker");
  const first = run("paused-worker");
  // Every kind of value handed out once before: what the module keeps for that (JavaScript names
  // of fields) is made now, below the runs to come.
  const calls = [
    () => first.trace.events.length,
    () => first.verdict.ok,
    () => first.beliefsAt(46_000).storage.writes,
    () => first.explain(0),
    () => presets().length,
    () => sim.templates().length,
    () => prepare("gc-pause").free(),
    () => search("paused-worker", { fencing: false, maxStates: 100_000 }).counterexample.invariant,
    () => {
      const checker = new HistoryChecker();
      try {
        return checker.check('{"t":1,"resource":"r","writer":"A","token":2,"result":"ok"}').findings.length;
      } finally {
        checker.free();
      }
    },
    () => checkHistory('{"t":1,"resource":"r","writer":"A","token":2,"result":"ok"}\n').summary.accepted,
    () => {
      const sweep = new Sweep("paused-worker", { seeds: 1 });
      try {
        return sweep.run().runs;
      } finally {
        sweep.free();
      }
    },
  ];
  const before = calls.map((call) => call());
  const memory = instance.exports.memory;
  const PAGES = 65_536;
  memory.grow(PAGES - memory.buffer.byteLength / 65_536);
  assert.equal(memory.buffer.byteLength, 2 ** 32);
  assert.throws(() => memory.grow(1), RangeError);

  // Runs of a scenario object, then prepared runs (which need less), kept until the module
  // cannot make room for one more.
  const kept = [];
  for (const make of [() => run("paused-worker"), () => prepared.run()]) {
    let refused = null;
    for (let k = 0; k < 100_000 && refused === null; k++) {
      try {
        kept.push(make());
      } catch (e) {
        refused = e;
      }
    }
    assert.ok(isNoMemory(refused), String(refused));
  }
  // Again and again: the same answer, nothing trapped.
  for (let k = 0; k < 1_000; k++) {
    assert.ok(isNoMemory(answer(() => run("paused-worker"))));
    assert.ok(isNoMemory(answer(() => prepared.run())));
  }
  // Every other kind of call either answers as before or refuses the same way.
  calls.forEach((call, k) => {
    const got = answer(call);
    if (!isNoMemory(got)) assert.deepEqual(got, before[k]);
  });

  // Freed, their memory serves again: the same instance runs, prepared and not.
  for (const r of kept) r.free();
  const again = run("paused-worker");
  const rejected = again.trace.events.find((e) => e.kind === "write_rejected");
  assert.deepEqual([rejected.token, rejected.detail.highest], [33n, 34n]);
  again.free();
  for (let k = 0; k < 1_000; k++) prepared.run({ fencing: false }).free();
  assert.equal(prepared.run({ fencing: false }).verdict.violations[1].invariant, "I2");
  prepared.free();
  // What a run hands out needs little room, and is answered again; a call whose bound is larger
  // than what was freed (a search of 100,000 states) is still refused the same way.
  assert.deepEqual(
    calls.slice(0, 4).map((call) => call()),
    before.slice(0, 4),
  );
  calls.forEach((call, k) => {
    const got = answer(call);
    if (!isNoMemory(got)) assert.deepEqual(got, before[k]);
  });
  first.free();
  assert.equal(memory.buffer.byteLength, 2 ** 32);
});
