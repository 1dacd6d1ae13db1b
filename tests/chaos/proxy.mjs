// The fault proxy: a TCP hop between clients and one service (an instance or a host), whose mode
// the runner switches while connections are open. Plain TCP rather than HTTP, so that a fault
// meets requests the way a network does: in the middle of a kept-alive connection.
//
//   pass   bytes flow both ways
//   hold   bytes are kept in both directions and flow again, in order, when the mode changes
//   delay  every chunk is passed on `delayMs` later (order kept)
//   drop   bytes are discarded and the connection never hears back (a black hole); those
//          connections are cut when the mode changes, as a peer's timeout would
//   reset  every connection, open or new, is reset (RST)

import { createConnection, createServer } from "node:net";

/** One direction of one connection: chunks pass through a queue so that hold and delay keep order. */
class Pipe {
  constructor(proxy, from, to) {
    this.proxy = proxy;
    this.to = to;
    this.queue = [];
    this.busy = false;
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
    pair.pipes.push(new Pipe(this, client, upstream), new Pipe(this, upstream, client));
    const end = () => {
      this.#pairs.delete(pair);
      this.#dropped.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    for (const s of [client, upstream]) {
      s.on("error", end);
      s.on("close", end);
    }
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
