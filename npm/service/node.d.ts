// Types of `fencepost/service/node`: a Web `fetch` handler (a LeaseService's) on Node's HTTP server,
// and a fetch for EtcdLocks that costs Node less than the global one.

import type { IncomingMessage, Server, ServerResponse } from "node:http";

/** A `node:http` request listener that answers with `handler(request)`. */
export function nodeListener(handler: (request: Request) => Promise<Response>, closing?: () => boolean): (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Serves `handler` on `port` (default 0: any free port) of `hostname` (default 127.0.0.1).
 * `close()` stops taking connections and resolves once the requests in flight are answered.
 */
export function serveNode(
  handler: (request: Request) => Promise<Response>,
  options?: { port?: number; hostname?: string },
): Promise<{ server: Server; url: string; close(): Promise<void> }>;

/**
 * A fetch over `node:http` with a keep-alive agent, for `new EtcdLocks({ fetch })` on Node: a
 * gateway call costs a fraction of the CPU of the global fetch. It sends what EtcdLocks sends (a
 * string body, headers as an object, a signal). An answer of known length comes back read whole,
 * with the members of a Response that read it; a streamed one (a watch) as a Response.
 */
export function keepAliveFetch(): (
  url: string,
  init?: { method?: string; headers?: Record<string, string>; body?: string; signal?: AbortSignal },
) => Promise<Pick<Response, "status" | "statusText" | "ok" | "headers" | "body" | "text" | "json" | "arrayBuffer">>;
