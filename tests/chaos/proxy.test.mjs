// The fault proxy against a real echo server over real sockets: each mode does to bytes in flight
// what the campaign's history says it did.
import { test } from "node:test";
import assert from "node:assert/strict";
import { connect, createServer } from "node:net";
import { FaultProxy } from "./proxy.mjs";

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function echo() {
  const server = createServer((s) => s.pipe(s));
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  return server;
}

/** A client socket through `proxy` that collects what comes back, and how it ended. */
async function through(proxy) {
  const s = connect(proxy.port, "127.0.0.1");
  await new Promise((ok) => s.once("connect", ok));
  const seen = { text: "", error: null, closed: false };
  s.on("data", (d) => (seen.text += d));
  s.on("error", (e) => (seen.error = e.code));
  s.on("close", () => (seen.closed = true));
  return { s, seen };
}

test("pass, hold, delay, drop and reset", async () => {
  const server = await echo();
  const proxy = await FaultProxy.start(server.address().port);
  try {
    const a = await through(proxy);
    a.s.write("one");
    await sleep(50);
    assert.equal(a.seen.text, "one");

    proxy.set("hold");
    a.s.write("two");
    await sleep(150);
    assert.equal(a.seen.text, "one", "held bytes do not flow");
    proxy.set("pass");
    await sleep(50);
    assert.equal(a.seen.text, "onetwo", "and flow, in order, once released");

    proxy.set("delay", 200);
    const sent = performance.now();
    a.s.write("three");
    while (!a.seen.text.endsWith("three")) await sleep(5);
    assert.ok(performance.now() - sent >= 390, "delayed each way");
    proxy.set("pass");

    proxy.set("drop");
    a.s.write("four");
    await sleep(100);
    assert.equal(a.seen.text, "onetwothree", "dropped bytes never arrive");
    proxy.set("pass");
    await sleep(50);
    assert.equal(a.seen.closed, true, "a black-holed connection is cut once the drop ends");

    const b = await through(proxy);
    proxy.set("reset");
    await sleep(50);
    assert.equal(b.seen.error, "ECONNRESET");
    const c = connect(proxy.port, "127.0.0.1");
    const code = await new Promise((ok) => {
      c.on("error", (e) => ok(e.code));
      c.on("close", () => ok("closed"));
    });
    assert.equal(code, "ECONNRESET", "a new connection is reset too");
  } finally {
    proxy.set("pass");
    await proxy.close();
    server.close();
  }
});
