// fencepost/sim in Deno, through the package's `deno` export (and type-checked against
// sim/index.d.ts).
import { run, type TraceEvent } from "fencepost/sim";

function assertEquals(actual: unknown, expected: unknown): void {
  const show = (v: unknown) => JSON.stringify(v, (_, x) => (typeof x === "bigint" ? `${x}n` : x));
  if (show(actual) !== show(expected)) {
    throw new Error(`expected ${show(expected)}, got ${show(actual)}`);
  }
}

Deno.test("the deno condition picks the simulator's Deno entry", () => {
  const resolved = import.meta.resolve("fencepost/sim");
  if (!/\/dist\/sim\/deno\.js$/.test(resolved)) throw new Error(`resolved to ${resolved}`);
});

Deno.test("paused worker: 33 refused with highest 34; without fencing, I2 breaks (Deno)", () => {
  const rejected = run("paused-worker").trace.events.filter(
    (e): e is Extract<TraceEvent, { kind: "write_rejected" }> => e.kind === "write_rejected",
  );
  assertEquals(
    rejected.map((e) => [e.actor, e.token, e.detail.writer, e.detail.highest, e.detail.reason]),
    [["storage", 33n, "A", 34n, "stale"]],
  );
  const off = run("paused-worker", { fencing: false }).verdict;
  assertEquals(off.violations.map((v) => [v.invariant, v.seq]), [["I1", 30], ["I2", 30], ["I4", 30]]);
});
