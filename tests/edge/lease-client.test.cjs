// fencepost/client through its CommonJS entry (require), against the real lease service in real
// workerd: acquire, a background renewal, a fenced write the service admits, release.
"use strict";

const { test } = require("node:test");
const assert = require("node:assert/strict");
const { mkdtempSync, rmSync } = require("node:fs");
const { tmpdir } = require("node:os");
const { join } = require("node:path");
const { LeaseClient, LeaseLostError } = require("../../npm/dist/client/node.cjs");

test("CommonJS: acquire, renew, a fenced write, release", async () => {
  const { freePort, start, sleep } = await import("./hosts.mjs");
  const { getDoc, lockState } = await import("./client.mjs");
  const dir = mkdtempSync(join(tmpdir(), "fencepost-cjs-"));
  const server = await start("workerd", await freePort(), dir);
  try {
    const client = new LeaseClient({ url: server.base });
    const lease = await client.acquire("cjs", { ttlMs: 1_200 });
    assert.equal(typeof lease.token, "bigint");
    const first = lease.safeUntil;
    // Renewed 399 ms after the acquire was sent; the next renewal not before 798 ms.
    await sleep(600);
    assert.equal(lease.state, "held");
    assert.ok(lease.safeUntil >= first + 399 && lease.safeUntil <= first + 600, `${lease.safeUntil} after ${first}`);
    const r = await lease.fetch("docs/cjs", { method: "PUT", body: "from CommonJS" });
    assert.equal(r.status, 200);
    assert.deepEqual(await r.json(), { token: lease.token.toString(), highest: lease.token.toString() });
    assert.equal(await lease.release(), true);
    assert.ok(lease.signal.reason instanceof LeaseLostError);
    assert.equal(lease.signal.reason.why, "released");
    assert.deepEqual((await lockState(server.base, "cjs")).json, { state: "free" });
    assert.deepEqual((await getDoc(server.base, "cjs")).json, { data: "from CommonJS", token: lease.token.toString() });
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
