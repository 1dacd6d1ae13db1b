// The HTTP calls the tests make to the lease service, answered as { status, json, text }. Shared
// by the edge tests and, copied beside them, the fixtures that run the service from the tarball.

export async function call(base, method, path, body, headers = {}) {
  const init = { method, headers: { ...headers } };
  if (body !== undefined) {
    const raw = typeof body === "string" || body instanceof Uint8Array;
    init.body = raw ? body : JSON.stringify(body);
    if (!raw) init.headers["content-type"] = "application/json";
  }
  const r = await fetch(base + path, init);
  const text = await r.text();
  let json = null;
  try {
    json = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: r.status, json, text };
}

/** POST /locks/:lock/acquire; `extra` adds fields such as `leaseId`. */
export const acquire = (base, lock, ttlMs, extra = {}) => call(base, "POST", `/locks/${lock}/acquire`, { ttlMs, ...extra });
/** Renews the lease a successful acquire answered (`grant` is its JSON). */
export const renew = (base, lock, grant, ttlMs) =>
  call(base, "POST", `/locks/${lock}/renew`, { leaseId: grant.leaseId, token: grant.token, ttlMs });
/** Releases the lease a successful acquire answered. */
export const release = (base, lock, grant) =>
  call(base, "POST", `/locks/${lock}/release`, { leaseId: grant.leaseId, token: grant.token });
/** PUT /docs/:key with `header` as its Fencing-Token. */
export const put = (base, key, header, data, extra = {}) =>
  call(base, "PUT", `/docs/${key}`, data, { "Fencing-Token": header, ...extra });
export const getDoc = (base, key) => call(base, "GET", `/docs/${key}`);
export const lockState = (base, lock) => call(base, "GET", `/locks/${lock}`);

/** The counters of GET /metrics, by name. */
export async function metrics(base) {
  const r = await fetch(`${base}/metrics`);
  const text = await r.text();
  const out = { status: r.status, type: r.headers.get("content-type") };
  for (const line of text.split("\n")) {
    const m = /^(fencepost_[a-z_]+_total) ([0-9]+)$/.exec(line);
    if (m) out[m[1]] = Number(m[2]);
  }
  return out;
}
