// The service on Node's own HTTP server: Node speaks IncomingMessage / ServerResponse, the service
// speaks Web Request / Response, and this file translates (streaming long bodies both ways). Bun
// and Deno need none of it: they serve `service.fetch` as it is.

import { createServer } from "node:http";
import { Readable } from "node:stream";

export { keepAliveFetch } from "./node-fetch.js";

/**
 * The largest body read whole before the Request is made: bodies of a declared length up to this
 * are; longer or unframed ones are streamed, so that the service's own limits bound what a client
 * can make the process hold.
 */
const WHOLE_BODY_BYTES = 64 * 1024;

/** The Web Request of a Node request: its method, URL, headers, and its body. */
async function toRequest(req, signal) {
  const url = new URL(req.url ?? "/", `http://${req.headers.host ?? "localhost"}`);
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i], req.rawHeaders[i + 1]);
  const init = { method: req.method, headers, signal };
  if (req.method !== "GET" && req.method !== "HEAD") {
    const length = Number(req.headers["content-length"] ?? NaN);
    if (length <= WHOLE_BODY_BYTES) {
      // A body of a few hundred bytes (every lock call) costs less as bytes than as a stream
      // adapted from Node's to the Web's. Node's parser ends it at the declared length.
      init.body = await wholeBody(req);
    } else {
      init.body = Readable.toWeb(req);
      init.duplex = "half";
    }
  }
  return new Request(url, init);
}

/** The body of `req`, whole (its declared length is small). */
function wholeBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.once("end", () => resolve(Buffer.concat(chunks)));
    req.once("error", reject);
    req.once("close", () => {
      if (!req.complete) reject(new Error("the client went away before its body ended"));
    });
  });
}

/**
 * Writes a Web Response to a Node response, streaming its body. A server that is closing says
 * so (Connection: close), so the client's connection ends with this answer instead of idling.
 */
async function send(response, res, closing) {
  const headers = {};
  for (const [k, v] of response.headers) headers[k] = k in headers ? `${headers[k]}, ${v}` : v;
  if (closing()) headers.connection = "close";
  res.writeHead(response.status, headers);
  if (response.body === null) {
    res.end();
    return;
  }
  for await (const chunk of response.body) {
    if (!res.write(chunk)) await new Promise((r) => res.once("drain", r));
  }
  res.end();
}

/**
 * A `(req, res)` listener for `node:http` that answers with `handler(request)` (a LeaseService's
 * `fetch`). A handler that throws is answered 500 and logged; a client that went away aborts the
 * request's signal. `closing()`: whether the server is shutting down.
 */
export function nodeListener(handler, closing = () => false) {
  return (req, res) => {
    const gone = new AbortController();
    res.once("close", () => {
      if (!res.writableFinished) gone.abort();
    });
    Promise.resolve()
      .then(() => toRequest(req, gone.signal))
      .then((request) => handler(request))
      .then((response) => send(response, res, closing))
      .catch((e) => {
        if (gone.signal.aborted) return;
        console.error("fencepost service:", e);
        if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
        res.end(res.headersSent ? undefined : JSON.stringify({ error: "internal error" }));
      });
  };
}

/**
 * Serves `handler` on `port` of `hostname` (default 127.0.0.1). Resolves to `{ server, url,
 * close() }` once listening; `close()` stops taking connections and resolves once the requests in
 * flight are answered.
 */
export function serveNode(handler, { port = 0, hostname = "127.0.0.1" } = {}) {
  let closing = false;
  const server = createServer(nodeListener(handler, () => closing));
  return new Promise((ok, fail) => {
    server.once("error", fail);
    server.listen(port, hostname, () => {
      server.off("error", fail);
      const { port: bound } = server.address();
      // Idle keep-alive connections would hold close() open: they are closed now, and those
      // busy with a request are closed by its answer (see send).
      const close = () =>
        new Promise((done) => {
          closing = true;
          server.close(() => done());
          server.closeIdleConnections();
        });
      ok({ server, url: `http://${hostname}:${bound}`, close });
    });
  });
}
