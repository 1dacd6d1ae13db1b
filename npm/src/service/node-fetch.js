// The fetch `fencepost serve` hands EtcdLocks on Node: a POST over node:http with a keep-alive
// agent. EtcdLocks speaks fetch so that it runs unchanged on every runtime; on Node, the global
// fetch (undici) spends most of a gateway call in the machinery of the fetch standard, and most of
// the rest in the ReadableStream every Response is built around. Each lock operation over etcd is
// at least one such call, so on a busy machine the difference is the service's throughput.
// Measured on the benchmark's machine, 16 concurrent range calls to one etcd member, once warm:
// 340-410 µs of CPU per call through the global fetch, 90-120 µs through this one.
//
// Only what EtcdLocks sends is supported: http: URLs, a string body or none, headers as a plain
// object, and an AbortSignal. An answer of known length is read whole and answered as an Answer
// (the members of a Response that read a body); a stream (a watch) as a Response over it.
// Failures reject as fetch's do: the signal's reason when it aborts (a TimeoutError from
// AbortSignal.timeout), else a TypeError "fetch failed" whose cause is Node's error with its
// `code` (ECONNREFUSED for a member that is down).

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
        const meta = { status: res.statusCode, statusText: res.statusMessage, rawHeaders: res.rawHeaders };
        // A stream (a watch) has no length: its body is handed on as it comes, in a Response. An
        // answer of known length is read whole first, and answered without building a stream.
        if (res.headers["content-length"] === undefined) {
          resolve(new Response(Readable.toWeb(res), { status: meta.status, statusText: meta.statusText, headers: headersOf(meta.rawHeaders) }));
          return;
        }
        const chunks = [];
        res.on("data", (chunk) => chunks.push(chunk));
        res.once("end", () => resolve(new Answer(meta, Buffer.concat(chunks))));
        res.once("error", failed);
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

function headersOf(rawHeaders) {
  const headers = new Headers();
  for (let i = 0; i < rawHeaders.length; i += 2) headers.append(rawHeaders[i], rawHeaders[i + 1]);
  return headers;
}

/**
 * An answer read whole, with the members of a Response that read it: a Response would wrap the
 * bytes in a ReadableStream first, which profiled as the largest single cost of a call. `body` is
 * made only when asked for.
 */
class Answer {
  #meta;
  #bytes;
  #headers = null;

  constructor(meta, bytes) {
    this.#meta = meta;
    this.#bytes = bytes;
  }

  get status() {
    return this.#meta.status;
  }

  get statusText() {
    return this.#meta.statusText;
  }

  get ok() {
    return this.status >= 200 && this.status < 300;
  }

  get headers() {
    this.#headers ??= headersOf(this.#meta.rawHeaders);
    return this.#headers;
  }

  get body() {
    return new Response(this.#bytes).body;
  }

  async text() {
    return UTF8.decode(this.#bytes);
  }

  async json() {
    return JSON.parse(await this.text());
  }

  async arrayBuffer() {
    return this.#bytes.buffer.slice(this.#bytes.byteOffset, this.#bytes.byteOffset + this.#bytes.byteLength);
  }
}

/** As Response#text decodes: invalid bytes replaced, a leading byte-order mark dropped. */
const UTF8 = new TextDecoder();
