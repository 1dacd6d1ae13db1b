// The schedule is what a seed replays: the same seed must give the same faults, and the seed of
// `cargo xtask test`'s short campaign must strike with every nemesis, clock faults within and
// beyond the drift bound, inside its 60 seconds.
import { test } from "node:test";
import assert from "node:assert/strict";
import { NEMESES, rng, schedule } from "./schedule.mjs";

test("a seed names one schedule; another seed another", () => {
  assert.deepEqual(schedule(4242, 600, 2_000), schedule(4242, 600, 2_000));
  assert.notDeepEqual(schedule(4242, 600, 2_000), schedule(4243, 600, 2_000));
  const r = rng(1);
  const draws = Array.from({ length: 1_000 }, r);
  assert.ok(draws.every((x) => x >= 0 && x < 1));
});

test("the short campaign's seed meets every nemesis, clocks within and beyond drift", () => {
  const s = schedule(Number(process.env.CHAOS_SHORT_SEED ?? 27), 60, 2_000);
  assert.deepEqual(new Set(s.map((e) => e.nemesis)), new Set(NEMESES));
  const clocks = s.filter((e) => e.nemesis.startsWith("clock-"));
  assert.ok(clocks.some((e) => e.within) && clocks.some((e) => !e.within));
  assert.ok(s.every((e) => e.at + e.ms <= 56_000), "every fault ends before the settling time");
});

test("faults never pile up beyond two at once; client pauses and held connections outlast the lease", () => {
  const s = schedule(7, 600, 2_000);
  for (const e of s) {
    const active = s.filter((o) => o.at <= e.at && e.at < o.at + o.ms).length;
    assert.ok(active <= 2, `${active} faults at ${e.at}`);
    if (e.nemesis === "pause-client" || e.nemesis === "proxy-hold") assert.ok(e.ms > 2_000, `${e.nemesis} ${e.ms}`);
  }
});
