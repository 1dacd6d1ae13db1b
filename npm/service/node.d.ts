// Types of `fencepost/service/node`: a Web `fetch` handler (a LeaseService's) on Node's HTTP server.

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
