// fencepost/sim through its CommonJS entry for Node.
const { test } = require("node:test");
const assert = require("node:assert/strict");
const { run } = require("fencepost/sim");

test("paused worker through require: 33 refused with highest 34; without fencing I2 breaks (CommonJS)", () => {
  assert.match(require.resolve("fencepost/sim"), /dist[\\/]sim[\\/]node\.cjs$/);
  const rejected = run("paused-worker").trace.events.filter((e) => e.kind === "write_rejected");
  assert.deepEqual(
    rejected.map((e) => [e.actor, e.token, e.detail.writer, e.detail.highest, e.detail.reason]),
    [["storage", 33n, "A", 34n, "stale"]],
  );
  const off = run("paused-worker", { fencing: false }).verdict;
  assert.deepEqual(
    off.violations.map((v) => [v.invariant, v.seq]),
    [
      ["I1", 30],
      ["I2", 30],
      ["I4", 30],
    ],
  );
});
