// The simulator's WebAssembly memory ends at 4 GiB, and an allocation that fails there aborts the
// instance for good. fencepost/sim refuses, before it starts, a run, sweep or search that could
// need more than is left (a RangeError naming the option and saying to free() objects), and the
// instance keeps working afterwards. Its own process: the module's memory only ever grows.
import { test } from "node:test";
import assert from "node:assert/strict";
import { HistoryChecker, Search, Sweep, checkHistory, run, search } from "fencepost/sim";

const T40 = 2 ** 40;
/** 64 workers renewing every millisecond: a run that reaches the 1,000,000-event limit. */
const busy = {
  version: 1,
  lease_ttl_ms: T40,
  workers: Array.from({ length: 64 }, (_, i) => ({ name: `w${i}`, job: { work_ms: T40, writes: 1000, renew_every_ms: 1 } })),
};
/** Four workers with many writes: a search that fills millions of states. */
const wide = {
  version: 1,
  lease_ttl_ms: 1000,
  latency_ms: { min: 0, max: 5 },
  workers: [0, 1, 2, 3].map((i) => ({ name: `w${i}`, start_ms: i * 100, job: { work_ms: 300, writes: 1000 } })),
};
const wideOptions = { maxFaults: 16, stopAtFirst: false, fencing: true };

function refused(fn, pattern) {
  assert.throws(fn, (e) => {
    assert.equal(e.constructor, RangeError, `${e.constructor.name}: ${e.message}`);
    assert.match(e.message, pattern);
    return true;
  });
}

/** The paused-worker story, still told right by the same instance. */
function storyStillHolds() {
  const rejected = run("paused-worker").trace.events.find((e) => e.kind === "write_rejected");
  assert.deepEqual([rejected.token, rejected.detail.highest], [33n, 34n]);
  assert.equal(search("paused-worker", { fencing: false, maxStates: 100_000 }).counterexample.invariant, "I1");
}

test("history checks are counted and refused, not trapped, when the memory they may take is not left", () => {
  // First in this file, while the memory has not grown: a sweep near the limit then leaves
  // 26 MiB, and a 2-million-character line may need more.
  const sweep = new Sweep("paused-worker", { seeds: 1, maxEvents: 2_800_000 });
  const long = `{"t":1,"resource":"r","writer":"w","token":"${"x".repeat(2_000_000)}","result":"ok"}`;
  refused(
    () => checkHistory(`${long}\n`),
    /^lines: checking a line of 2000061 characters could need up to \d+ MiB of the simulator's memory and \d+ MiB are left \(.*\): free\(\) those no longer needed$/,
  );
  const checker = new HistoryChecker();
  refused(() => checker.check(long.slice(0, 1_000_000)), /^line: checking a line of 1000000 characters could need up to \d+ MiB/);
  sweep.free();
  // With the sweep gone both run. The 2-million-byte line is too long to read; in a line under
  // 1 MiB, a long value is quoted short.
  const under = long.replace("x".repeat(2_000_000), "x".repeat(1_000_000));
  const report = checkHistory(`${long}\n${under}`);
  assert.deepEqual(report.summary, { lines: 2, accepted: 0, rejected: 0, malformed: 2, token_regressions: 0, stale_owners: 0, resources: 0 });
  assert.deepEqual(report.malformed[0], { line: 1, message: "longer than 1048576 bytes" });
  assert.equal(report.malformed[1].line, 2);
  assert.match(report.malformed[1].message, /^invalid type: string "x+…x+", expected u64 \(column 1000045\)$/);
  assert.equal(checker.check(long.slice(0, 1_000_000)).malformed.line, 1);
  // A checker's resources count as held (496 bytes each here): the largest sweep no longer fits
  // beside 50,000 of them, and fits again once the checker is freed.
  for (let k = 0; k < 50_000; k++) checker.check(`{"t":${k},"resource":"r${k}","writer":"w","token":1,"result":"ok"}`);
  assert.equal(checker.summary.resources, 50_000);
  refused(
    () => new Sweep("paused-worker", { seeds: 1, maxEvents: 2_872_179 }),
    /^options\.maxEvents: a sweep of runs of up to 2872179 events could need up to 3072 MiB .* \(live runs, sweeps, searches and history checkers hold up to 24 MiB of the 3072 MiB/,
  );
  checker.free();
  new Sweep("paused-worker", { seeds: 1, maxEvents: 2_872_179 }).free();
  storyStillHolds();
});

test("a search whose maxStates could need more than 2 GiB is refused, saying how many states fit", () => {
  for (const maxStates of [2_000_000, 1_483_150, 5_000_000, 6_000_000]) {
    refused(
      () => new Search(wide, { ...wideOptions, maxStates }),
      new RegExp(
        `^options\\.maxStates must be a whole number from 1 to 1483149 \\(the most the simulator's memory can hold\\), got ${maxStates}$`,
      ),
    );
  }
  // The most that fit is taken (made, not run: that takes seconds).
  new Search(wide, { ...wideOptions, maxStates: 1_483_149 }).free();
  storyStillHolds();
});

test("a sweep whose runs could never fit is refused with the most events per run that do", () => {
  for (const maxEvents of [10_000_000, 2_872_180, 20_000_000]) {
    refused(
      () => new Sweep("paused-worker", { seeds: 1, maxEvents }),
      new RegExp(
        `^options\\.maxEvents must be a whole number from 1 to 2872179 \\(the most the simulator's memory can hold\\), got ${maxEvents}$`,
      ),
    );
  }
  // Near that limit, with little else alive, a sweep is taken.
  new Sweep("paused-worker", { seeds: 1, maxEvents: 2_800_000 }).free();
  storyStillHolds();
});

test("live objects hold at most 3 GiB between them: a new one that could pass that is refused until others are freed", () => {
  const sweep = new Sweep("paused-worker", { seeds: 1, maxEvents: 2_500_000 });
  refused(
    () => run(busy),
    /^options\.maxEvents: a run of up to 1000000 events could need up to 1127 MiB of the simulator's memory and \d+ MiB are left \(live runs, sweeps, searches and history checkers hold up to 2936 MiB of the 3072 MiB they may have, and the memory has grown to \d+ MiB\): free\(\) those no longer needed, or lower options\.maxEvents$/,
  );
  refused(() => new Search(wide, wideOptions), /^options\.maxStates: a search of up to 1000000 states could need up to 1349 MiB .* free\(\) those no longer needed, or lower options\.maxStates$/);
  refused(() => new Sweep("paused-worker", { seeds: 1, maxEvents: 500_000 }), /^options\.maxEvents: a sweep of runs of up to 500000 events could need up to \d+ MiB/);
  // What fits still runs.
  assert.equal(run("paused-worker", { maxEvents: 1000 }).verdict.ok, true);
  assert.equal(sweep.run().runs, 1);
  sweep.free();
  new Search(wide, wideOptions).free();
  storyStillHolds();
});

test("runs at the event limit kept alive: the next one is refused, not a trap, and freeing them makes room again", () => {
  const kept = [];
  let error = null;
  for (let i = 0; i < 40 && error === null; i++) {
    try {
      kept.push(run(busy));
    } catch (e) {
      error = e;
    }
  }
  assert.ok(error instanceof RangeError, String(error));
  assert.match(error.message, /^options\.maxEvents: a run of up to 1000000 events could need up to 1127 MiB .*free\(\) those no longer needed/);
  assert.ok(kept.length >= 4, `${kept.length} runs kept`);
  assert.equal(typeof kept[0].explain(999_999), "string");
  assert.throws(() => kept[0].explain(1_000_000), RangeError);
  storyStillHolds();
  for (const r of kept) r.free();
  const again = run(busy);
  assert.equal(typeof again.explain(999_999), "string");
  again.free();
  storyStillHolds();
});

test("a finished run is counted at what its trace keeps, not at what a run of its length may take", () => {
  // 40,000 short runs alive at once: counted at their bound while running (about 86 KB each),
  // they would pass 3 GiB; their traces keep a few kilobytes each.
  const kept = [];
  for (let k = 0; k < 40_000; k++) kept.push(run("paused-worker"));
  assert.equal(kept[39_999].trace.events.find((e) => e.kind === "write_rejected").token, 33n);
  for (const r of kept) r.free();
  storyStillHolds();
});
