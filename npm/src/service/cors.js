// Cross-origin access to the service, for pages served from other origins (a browser app holding
// a lease through `fencepost/client`). Off unless the deployer lists the exact origins allowed
// (the service's `corsOrigins`, FENCEPOST_CORS_ORIGINS for a host): a browser then lets those pages, and only those, read
// the service's answers. Never `*` and never credentials: a lease's secret travels in the request
// body, not in cookies, so there is nothing ambient a page could borrow.

/** Methods the service answers (see routes.js). */
const METHODS = "POST, PUT, GET";
/** Request headers a page may send: JSON bodies, the token, a writer's name for the write log. */
const HEADERS = "content-type, fencing-token, fencepost-writer";
/** How long a browser may reuse a preflight's answer, in seconds. */
const MAX_AGE = "600";

/**
 * The allowed origins among `entries` (strings): a Set. Each must be an origin exactly as a browser
 * sends it: http or https, host, optional port, nothing after; anything else is refused (a
 * TypeError naming `what` and the entry) so that a typo cannot open the service wider than meant.
 */
export function corsOrigins(entries, what = "corsOrigins") {
  const origins = new Set();
  entries.forEach((entry, i) => {
    const origin = typeof entry === "string" ? entry.trim() : "";
    let parsed = null;
    try {
      parsed = new URL(origin);
    } catch {
      // refused below
    }
    if (parsed === null || !["http:", "https:"].includes(parsed.protocol) || parsed.origin !== origin) {
      throw new TypeError(`${what} entry ${i + 1} must be an origin like https://app.example.com (scheme, host, optional port, no path or trailing slash)`);
    }
    origins.add(origin);
  });
  return origins;
}

/** The request's Origin when it is allowed, else null. */
function allowedOrigin(origins, request) {
  const origin = request.headers.get("origin");
  return origin !== null && origins.has(origin) ? origin : null;
}

/**
 * Answers `request` with `serve(request)`, made readable to the allowed origins, or answers an
 * allowed origin's preflight itself. `origins` is undefined when the settings were refused: the
 * service's 503 then goes out as it is.
 */
export async function withCors(origins, request, serve) {
  return preflight(origins, request) ?? readableBy(origins, request, await serve(request));
}

/** The preflight answer for an allowed origin, or null when `request` is not one. */
function preflight(origins, request) {
  if (request.method !== "OPTIONS" || origins === undefined) return null;
  const origin = allowedOrigin(origins, request);
  if (origin === null) return null;
  return new Response(null, {
    status: 204,
    headers: {
      "access-control-allow-origin": origin,
      "access-control-allow-methods": METHODS,
      "access-control-allow-headers": HEADERS,
      "access-control-max-age": MAX_AGE,
      vary: "Origin",
    },
  });
}

/**
 * `response` as the browser of `request` may read it: with the allow-origin header when the
 * request's origin is allowed. Once any origin is allowed, answers depend on Origin, so caches
 * are told (Vary) even when this one carries no grant. Returns a new response: one that came from
 * another fetch (a Durable Object's) has headers that cannot be changed.
 */
function readableBy(origins, request, response) {
  if (origins === undefined || origins.size === 0) return response;
  const cors = new Response(response.body, response);
  cors.headers.append("vary", "Origin");
  const origin = allowedOrigin(origins, request);
  if (origin !== null) cors.headers.set("access-control-allow-origin", origin);
  return cors;
}
