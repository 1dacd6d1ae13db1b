// EDGE_RUNTIMES picks the hosts the edge tests run on; a value that picks none must fail the run
// rather than pass it with nothing tested.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";
import { wantedHosts } from "./client.mjs";

test("EDGE_RUNTIMES names the hosts; empty, blank or unknown is an error", () => {
  assert.deepEqual(wantedHosts(undefined), ["workerd", "deno"]);
  assert.deepEqual(wantedHosts("deno"), ["deno"]);
  assert.deepEqual(wantedHosts("deno,workerd"), ["deno", "workerd"]);
  for (const bad of ["", ",", "deno,", "bun", "workerd,node"]) {
    assert.throws(() => wantedHosts(bad), { message: `EDGE_RUNTIMES must list hosts among workerd, deno separated by commas, got ${JSON.stringify(bad)}` });
  }
});

test("a test file run with EDGE_RUNTIMES=\"\" exits non-zero, naming the variable", () => {
  // Without the runner's own NODE_TEST_CONTEXT, which would make the child report to this run
  // instead of exiting with its own status.
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  const r = spawnSync(process.execPath, ["--test", "cors.test.mjs"], {
    cwd: import.meta.dirname,
    env: { ...env, EDGE_RUNTIMES: "" },
    encoding: "utf8",
  });
  assert.notEqual(r.status, 0);
  assert.match(r.stdout + r.stderr, /EDGE_RUNTIMES must list hosts among workerd, deno/);
});
