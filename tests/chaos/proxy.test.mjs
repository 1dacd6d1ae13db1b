// The fault proxy against a real echo server over real sockets: each mode does to bytes in flight
// what the campaign's history says it did.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer as createHttpServer } from "node:http";
import { connect, createServer } from "node:net";
import { FaultProxy, LINGER_MS } from "./proxy.mjs";

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

/** An HTTP server that records each request it receives and each of its connections that closed. */
async function recorder() {
  const seen = { requests: [], closed: 0 };
  const server = createHttpServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      seen.requests.push(`${req.method} ${req.url} ${body}`);
      res.end("ok");
    });
  });
  server.on("connection", (s) => s.on("close", () => seen.closed++));
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  return { server, seen };
}

const put = (path, body) =>
  `PUT ${path} HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\n\r\n${body}`;

test("a request its client gave up on still arrives after a hold or a delay, not after a drop", async () => {
  const { server, seen } = await recorder();
  const proxy = await FaultProxy.start(server.address().port);
  try {
    proxy.set("hold");
    const a = await through(proxy);
    a.s.write(put("/r", "token=7"));
    await sleep(50);
    a.s.destroy();
    await sleep(150);
    assert.deepEqual(seen.requests, [], "held while the hold lasts");
    assert.equal(seen.closed, 0, "and the service's side stays open");
    proxy.set("pass");
    await sleep(100);
    assert.deepEqual(seen.requests, ["PUT /r token=7"], "delivered once the hold ends");
    assert.equal(seen.closed, 1, "then closed once the service answered");
    assert.equal(a.seen.text, "", "the answer is dropped");

    proxy.set("delay", 200);
    const b = await through(proxy);
    const sent = performance.now();
    b.s.write(put("/r", "token=8"));
    await sleep(20);
    b.s.write(put("/s", "token=9"));
    await sleep(20);
    b.s.destroy();
    await sleep(60);
    assert.deepEqual(seen.requests, ["PUT /r token=7"], "still on its way");
    while (seen.requests.length < 3) await sleep(5);
    assert.ok(performance.now() - sent >= 390, "two chunks, each delayed in turn");
    assert.deepEqual(seen.requests, ["PUT /r token=7", "PUT /r token=8", "PUT /s token=9"]);
    while (seen.closed < 2) await sleep(5);
    proxy.set("pass");

    proxy.set("drop");
    const c = await through(proxy);
    c.s.write(put("/r", "token=10"));
    await sleep(50);
    c.s.destroy();
    await sleep(50);
    proxy.set("pass");
    await sleep(100);
    assert.equal(seen.requests.length, 3, "dropped bytes never arrive");
    assert.equal(seen.closed, 3, "and the connection is cut with its client");
  } finally {
    proxy.set("pass");
    await proxy.close();
    server.close();
  }
});

test("a service that never answers a late request is cut after the linger", { timeout: LINGER_MS + 5_000 }, async () => {
  const seen = { text: "", closedAt: null };
  const server = createServer((s) => {
    s.on("data", (d) => (seen.text += d));
    s.on("close", () => (seen.closedAt = performance.now()));
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  const proxy = await FaultProxy.start(server.address().port);
  try {
    proxy.set("hold");
    const a = await through(proxy);
    a.s.write("late");
    await sleep(50);
    a.s.destroy();
    await sleep(50);
    const released = performance.now();
    proxy.set("pass");
    while (seen.closedAt === null) await sleep(20);
    assert.equal(seen.text, "late");
    const after = seen.closedAt - released;
    assert.ok(after >= LINGER_MS - 50 && after < LINGER_MS + 1_000, `closed ${after} ms after`);
  } finally {
    await proxy.close();
    server.close();
  }
});
