// The fetch `fencepost serve` hands EtcdLocks on Node: a POST over node:http with a keep-alive
// agent, answered with a Web Response. EtcdLocks speaks fetch so that it runs unchanged on every
// runtime; on Node, the global fetch (undici) spends most of a gateway call in the machinery of the
// fetch standard. Measured on the benchmark's machine, 16 concurrent range calls to one etcd
// member: about 340 µs of CPU per call through the global fetch, about 85 µs through node:http
// with the Response made here. Each lock operation over etcd is at least one such call, so on a busy
// machine the difference is the service's throughput.
//
// Only what EtcdLocks sends is supported: http: URLs, a string body or none, headers as a plain
// object, and an AbortSignal. Failures reject as fetch's do: the signal's reason when it aborts (a
// TimeoutError from AbortSignal.timeout), else a TypeError "fetch failed" whose cause is Node's
// error with its `code` (ECONNREFUSED for a member that is down).

import { Agent, request } from "node:http";
import { Readable } from "node:stream";

/** `fetch(url, init)` over a keep-alive agent of its own: the sockets to each member are reused. */
export function keepAliveFetch() {
  const agent = new Agent({ keepAlive: true });
  return (url, init = {}) =>
    new Promise((resolve, reject) => {
      const signal = init.signal;
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const body = init.body ?? "";
      if (typeof body !== "string") throw new TypeError("keepAliveFetch sends string bodies only");
      const headers = { ...init.headers, "content-length": Buffer.byteLength(body) };
      const req = request(url, { method: init.method ?? "GET", headers, agent }, (res) => {
        const meta = { status: res.statusCode, statusText: res.statusMessage, headers: responseHeaders(res) };
        // A stream (a watch) has no length: its body is handed on as it comes. An answer of known
        // length is read whole first, which costs far less than a stream of one chunk.
        if (res.headers["content-length"] === undefined) {
          resolve(new Response(Readable.toWeb(res), meta));
          return;
        }
        const chunks = [];
        res.on("data", (chunk) => chunks.push(chunk));
        res.once("end", () => resolve(new Response(Buffer.concat(chunks), meta)));
        res.once("close", () => {
          if (!res.complete) failed(new Error("the connection closed before the answer ended"));
        });
      });
      // As fetch: the signal's reason when it aborted, else "fetch failed" caused by what failed.
      const failed = (e) => reject(signal?.aborted ? signal.reason : new TypeError("fetch failed", { cause: e }));
      const aborted = () => req.destroy(signal.reason);
      signal?.addEventListener("abort", aborted, { once: true });
      req.once("close", () => signal?.removeEventListener("abort", aborted));
      req.once("error", failed);
      req.end(body);
    });
}

function responseHeaders(res) {
  const headers = new Headers();
  for (let i = 0; i < res.rawHeaders.length; i += 2) headers.append(res.rawHeaders[i], res.rawHeaders[i + 1]);
  return headers;
}
