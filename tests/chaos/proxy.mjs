// The fault proxy: a TCP hop between clients and one service (an instance or a host), whose mode
// the runner switches while connections are open. Plain TCP rather than HTTP, so that a fault
// meets requests the way a network does: in the middle of a kept-alive connection.
//
//   pass   bytes flow both ways
//   hold   bytes are kept in both directions and flow again, in order, when the mode changes
//   delay  every chunk is passed on `delayMs` later (order kept)
//
// In hold and delay, a client that gives up on its connection does not take back what it sent:
// like a delayed packet, the bytes the proxy accepted from it still reach the service, in order,
// when they would have, and only then is the service's side closed (once it answers, or after
// `LINGER_MS`); the answer has nowhere to go and is dropped. This is how a request from a client
// that stopped believing in its lease arrives late at the fence.
//   drop   bytes are discarded and the connection never hears back (a black hole); those
//          connections are cut when the mode changes, as a peer's timeout would
//   reset  every connection, open or new, is reset (RST)

import { createConnection, createServer } from "node:net";

/** How long the service's side of a connection the client left stays open for its answer. */
export const LINGER_MS = 5_000;

/** One direction of one connection: chunks pass through a queue so that hold and delay keep order. */
class Pipe {
  constructor(proxy, from, to) {
    this.proxy = proxy;
    this.to = to;
    this.queue = [];
    this.busy = false;
    /** Called once, the next time the queue has been written out. */
    this.onEmpty = null;
    from.on("data", (chunk) => this.push(chunk));
  }

  push(chunk) {
    if (this.proxy.mode === "drop") return;
    this.queue.push(chunk);
    this.flush();
  }

  async flush() {
    if (this.busy) return;
    this.busy = true;
    while (this.queue.length > 0 && this.proxy.mode !== "hold") {
      if (this.proxy.mode === "delay") await new Promise((r) => setTimeout(r, this.proxy.delayMs));
      if (this.proxy.mode === "hold") break;
      const chunk = this.queue.shift();
      if (!this.to.destroyed) this.to.write(chunk);
    }
    this.busy = false;
    if (this.queue.length > 0 || !this.onEmpty) return;
    const then = this.onEmpty;
    this.onEmpty = null;
    then();
  }
}

export class FaultProxy {
  mode = "pass";
  delayMs = 0;
  #server;
  #pairs = new Set();
  #dropped = new Set();

  /** Listens on a free port of 127.0.0.1 and forwards to `targetPort` there. */
  static async start(targetPort) {
    const p = new FaultProxy();
    p.targetPort = targetPort;
    p.#server = createServer((client) => p.#accept(client));
    await new Promise((ok) => p.#server.listen(0, "127.0.0.1", ok));
    p.port = p.#server.address().port;
    return p;
  }

  get base() {
    return `http://127.0.0.1:${this.port}/`;
  }

  #accept(client) {
    if (this.mode === "reset") return client.resetAndDestroy();
    const upstream = createConnection(this.targetPort, "127.0.0.1");
    const pair = { client, upstream, pipes: [] };
    this.#pairs.add(pair);
    if (this.mode === "drop") this.#dropped.add(pair);
    const toUpstream = new Pipe(this, client, upstream);
    pair.pipes.push(toUpstream, new Pipe(this, upstream, client));
    const end = () => {
      this.#pairs.delete(pair);
      this.#dropped.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    upstream.on("error", end);
    upstream.on("close", end);
    let lingering = false;
    const gone = () => {
      if (lingering) return;
      if (toUpstream.queue.length === 0 || this.mode === "drop") return end();
      lingering = true;
      client.destroy();
      toUpstream.onEmpty = () => {
        upstream.once("data", end);
        setTimeout(end, LINGER_MS).unref();
      };
    };
    client.on("error", gone);
    client.on("close", gone);
  }

  /** Switches the mode; `delayMs` for "delay". */
  set(mode, delayMs = 0) {
    const before = this.mode;
    this.mode = mode;
    this.delayMs = delayMs;
    if (mode === "drop") for (const pair of this.#pairs) this.#dropped.add(pair);
    if (mode === "reset") {
      for (const { client, upstream } of this.#pairs) {
        client.resetAndDestroy();
        upstream.destroy();
      }
    }
    if (before === "drop" && mode !== "drop") {
      for (const { client, upstream } of this.#dropped) {
        client.destroy();
        upstream.destroy();
      }
      this.#dropped.clear();
    }
    for (const pair of this.#pairs) for (const pipe of pair.pipes) pipe.flush();
  }

  close() {
    for (const { client, upstream } of this.#pairs) {
      client.destroy();
      upstream.destroy();
    }
    return new Promise((ok) => this.#server.close(ok));
  }
}
