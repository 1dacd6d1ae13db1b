// fencepost/client from the installed package through require() (Node's CommonJS entry) against a
// real lease service, started around this test by tests/lease-service/with-service.mjs
// (FENCEPOST_SERVICE): one lease acquired, renewed in the background past its first deadline,
// written through and released.
const { test } = require("node:test");
const assert = require("node:assert/strict");
const { LeaseClient } = require("fencepost/client");

const service = process.env.FENCEPOST_SERVICE;

test("the CommonJS entry is the installed package's", () => {
  assert.match(require.resolve("fencepost/client"), /\/node_modules\/fencepost\/dist\/client\/node\.cjs$/);
});

test("Node CommonJS: acquire, renew, write through lease.fetch, release", { timeout: 20_000 }, async () => {
  assert.ok(service, "FENCEPOST_SERVICE is not set: run this under with-service.mjs");
  // The round itself is shared with the ES module runtimes; the client is the require()d one.
  const { checkRound, holdRound } = await import("./lease-round.mjs");
  const text = "written from Node (CommonJS)";
  const report = await holdRound(LeaseClient, { url: service, lock: "node-cjs", text });
  checkRound(assert, report, { text });
});
