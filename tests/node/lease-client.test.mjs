// fencepost/client from the installed package (Node's ESM entry) against a real lease service,
// started around this test by tests/lease-service/with-service.mjs (FENCEPOST_SERVICE): one lease
// acquired, renewed in the background past its first deadline, written through and released.
import { test } from "node:test";
import assert from "node:assert/strict";
import { LeaseClient } from "fencepost/client";
import { checkRound, holdRound } from "./lease-round.mjs";

const service = process.env.FENCEPOST_SERVICE;

test("the ESM entry is the installed package's", () => {
  assert.match(import.meta.resolve("fencepost/client"), /\/node_modules\/fencepost\/dist\/client\/node\.mjs$/);
});

test("Node ESM: acquire, renew, write through lease.fetch, release", { timeout: 20_000 }, async () => {
  assert.ok(service, "FENCEPOST_SERVICE is not set: run this under with-service.mjs");
  const text = "written from Node (ESM)";
  const report = await holdRound(LeaseClient, { url: service, lock: "node-esm", text });
  checkRound(assert, report, { text });
});
