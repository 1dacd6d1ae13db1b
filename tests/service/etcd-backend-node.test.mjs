// The EtcdLocks tests of etcd-backend.test.mjs again, with every backend sending through
// keepAliveFetch (fencepost/service/node), the fetch `fencepost serve` hands EtcdLocks on Node:
// the same exact answers, and the same faults survived or reported in time.

process.env.FENCEPOST_TEST_ETCD_FETCH = "node";
await import("./etcd-backend.test.mjs");

import assert from "node:assert/strict";
import { test } from "node:test";
import { keepAliveFetch } from "fencepost/service/node";
import { ENDPOINTS } from "./etcd-cluster.mjs";

test("keepAliveFetch: an answer of known length reads as a Response would; a watch streams", async () => {
  const f = keepAliveFetch();
  const init = (body) => ({ method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const status = await f(`${ENDPOINTS[0]}/v3/maintenance/status`, init({}));
  assert.deepEqual([status.status, status.ok], [200, true]);
  assert.match(status.headers.get("content-type"), /^application\/json/);
  const text = await status.text();
  assert.deepEqual(await status.json(), JSON.parse(text));
  assert.equal(new TextDecoder().decode(await status.arrayBuffer()), text);
  assert.equal(await new Response(status.body).text(), text);
  // A 404 is an answer, not a failure.
  const missing = await f(`${ENDPOINTS[0]}/v3/no-such-call`, init({}));
  assert.deepEqual([missing.status, missing.ok], [404, false]);
  // A watch has no length: a Response over the stream, whose first message comes at once.
  const stop = new AbortController();
  const watch = await f(`${ENDPOINTS[0]}/v3/watch`, { ...init({ create_request: { key: btoa("keep-alive-fetch") } }), signal: stop.signal });
  assert.ok(watch instanceof Response);
  const first = await watch.body.getReader().read();
  assert.equal(JSON.parse(new TextDecoder().decode(first.value)).result.created, true);
  stop.abort();
  // A body that is not a string is refused, and nothing is sent.
  await assert.rejects(f(`${ENDPOINTS[0]}/v3/kv/range`, { method: "POST", body: new Uint8Array(1) }), TypeError);
});
