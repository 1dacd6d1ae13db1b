// Exceptions of the program's own code at fencepost/sim's boundary with its WebAssembly module: a
// getter or proxy that throws while a scenario is read, a setter on a built-in prototype that
// throws while the module builds the objects it hands out. Each is thrown to the caller, 100,000
// times over, and the instance keeps working with its shadow-stack pointer where it was. Its own
// process: the module is loaded through fencepost/sim/slim so that the test can hold its instance
// (the stack pointer is one of its exports).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as sim from "fencepost/sim/slim";
import { caughtInstance } from "./caught-instance.mjs";

const { Sweep, checkHistory, prepare, run, search } = sim;

/** The instance fencepost/sim makes, caught as it is made. */
const instance = caughtInstance(() =>
  sim.initSync(readFileSync(new URL(import.meta.resolve("fencepost/sim/fencepost_sim_bg.wasm")))),
);
const sp = instance.exports.__stack_pointer;
const TIMES = 100_000;

const ok = () => ({ version: 1, lease_ttl_ms: 1_000, workers: [{ name: "A", job: { work_ms: 10 } }] });

/** The paused-worker story, still told right by the same instance, prepared and not. */
function storyStillHolds() {
  const rejected = run("paused-worker").trace.events.find((e) => e.kind === "write_rejected");
  assert.deepEqual([rejected.token, rejected.detail.highest], [33n, 34n]);
  const p = prepare("paused-worker");
  assert.equal(p.run({ fencing: false }).verdict.violations[1].invariant, "I2");
  p.free();
  assert.equal(search("paused-worker", { fencing: false, maxStates: 100_000 }).counterexample.invariant, "I1");
}

function throwsExactly(fn, type, message) {
  assert.throws(fn, (e) => {
    assert.equal(e.constructor, type, `${e.constructor.name}: ${e.message}`);
    assert.equal(e.message, message);
    return true;
  });
}

test("a getter or proxy that throws while a scenario is copied is a TypeError naming the field, and nothing reaches the module", () => {
  const before = sp.value;
  const getter = ok();
  Object.defineProperty(getter, "lease_ttl_ms", {
    enumerable: true,
    get() {
      throw new Error("no ttl today");
    },
  });
  const proxy = new Proxy(ok(), {
    get(target, key) {
      if (key === "workers") throw new RangeError("trapped");
      return target[key];
    },
  });
  const keys = new Proxy(ok(), {
    ownKeys() {
      throw new Error("no keys");
    },
  });
  for (let k = 0; k < TIMES; k++) {
    throwsExactly(() => run(getter), TypeError, "scenario.lease_ttl_ms could not be read: no ttl today");
    throwsExactly(() => prepare(proxy), TypeError, "scenario.workers could not be read: trapped");
  }
  throwsExactly(() => new Sweep(keys, { seeds: 1 }), TypeError, "source could not be read: no keys");
  assert.equal(sp.value, before);
  storyStillHolds();
  assert.equal(sp.value, before);
});

test("a setter on Object.prototype or Array.prototype that throws while a value is handed out reaches the caller, and the instance keeps working", () => {
  const before = sp.value;
  const r = run("paused-worker", { fencing: false });
  const expected = { trace: r.trace, verdict: r.verdict };
  r.free();
  let inside = null;
  let inner = null;
  // Calls back in, then throws: the module holds no state while it writes a value out.
  const set = () => {
    inside = sp.value;
    const nested = run("paused-worker");
    inner = nested.explain(0);
    nested.free();
    throw new Error("polluted");
  };
  for (const [proto, key] of [
    [Object.prototype, "violations"],
    [Array.prototype, "0"],
  ]) {
    Object.defineProperty(proto, key, { configurable: true, set });
    try {
      const held = run("paused-worker", { fencing: false });
      for (let k = 0; k < TIMES; k++) {
        throwsExactly(() => held.verdict, Error, "polluted");
        if (k === 0) {
          // The exception left frames of the module that had taken shadow stack.
          assert.ok(inside < before, `stack pointer ${inside} inside the call, ${before} outside`);
          assert.equal(inner, "A sends acquire to lock, due at 0.050 s");
        }
      }
      throwsExactly(() => held.trace, Error, "polluted");
      held.free();
    } finally {
      delete proto[key];
    }
    assert.equal(sp.value, before);
  }
  const again = run("paused-worker", { fencing: false });
  assert.deepEqual({ trace: again.trace, verdict: again.verdict }, expected);
  again.free();
  storyStillHolds();
  assert.equal(sp.value, before);
});

test("a sweep whose report a setter interrupted steps on afterwards; a setter cannot change it while its report is handed out", () => {
  const sweep = new Sweep("paused-worker", { seeds: 4 });
  sweep.step(2);
  let inner = null;
  Object.defineProperty(Object.prototype, "first_violating", {
    configurable: true,
    set() {
      try {
        sweep.step(1);
      } catch (e) {
        inner = e;
      }
      throw new Error("polluted");
    },
  });
  try {
    for (let k = 0; k < 1_000; k++) throwsExactly(() => sweep.report, Error, "polluted");
  } finally {
    delete Object.prototype.first_violating;
  }
  assert.equal(inner.constructor, TypeError);
  assert.equal(inner.message, "this sweep cannot change while a value of it is being handed to JavaScript");
  assert.equal(sweep.report.runs, 2);
  assert.deepEqual(sweep.step(2), { done: 4, total: 4 });
  assert.equal(sweep.report.runs, 4);
  sweep.free();
  const history = checkHistory('{"t":1,"resource":"r","writer":"A","token":2,"result":"ok"}\n');
  assert.equal(history.summary.accepted, 1);
  storyStillHolds();
});

test("a run freed by a setter while its trace is handed out stays whole until the call is over", () => {
  const before = sp.value;
  const r = run("paused-worker");
  const expected = run("paused-worker").trace;
  let freed = false;
  Object.defineProperty(Object.prototype, "document", {
    configurable: true,
    set(v) {
      if (!freed) {
        freed = true;
        r.free();
      }
      Object.defineProperty(this, "document", { value: v, enumerable: true, writable: true, configurable: true });
    },
  });
  let trace;
  try {
    trace = r.trace;
  } finally {
    delete Object.prototype.document;
  }
  assert.equal(freed, true);
  assert.deepEqual(trace, expected);
  throwsExactly(() => r.explain(0), TypeError, "this SimRun was freed");
  assert.equal(sp.value, before);
  storyStillHolds();
});
