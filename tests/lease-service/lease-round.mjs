// One lease held the same way in every runtime the packaging fixtures drive (Node ESM and
// CommonJS, Deno, a Worker, a Chromium page): acquire a short lease, hold it past its first
// safe-until so only background renewals keep it, write through `lease.fetch`, read the document
// back, release, and ask the service whether the lock is free. `holdRound` answers what it saw as
// plain JSON data (it travels out of a Worker and a page); `checkRound` holds the expectations.
//
// `LeaseClient` is passed in: each runtime imports it from the installed package its own way.
// xtask copies this file into every fixture.

/** The lease length asked: short, so the round holds it past its first deadline in a second or two. */
export const TTL_MS = 1_500;
/** How long past the first safe-until the round keeps holding before it writes. */
const PAST_MS = 200;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A fetch that passes everything to `send` and keeps, per request, what the checks need. */
function recording(send) {
  const seen = [];
  const f = async (input, init) => {
    const request = new Request(input, init);
    const entry = {
      method: request.method,
      path: new URL(request.url).pathname,
      fencingToken: request.headers.get("fencing-token"),
      status: null,
    };
    seen.push(entry);
    const response = await send(request);
    entry.status = response.status;
    return response;
  };
  return { fetch: f, seen };
}

/** `{ status, json }` of a plain request to the service (no lease, no header). */
async function read(send, url) {
  const r = await send(new Request(url));
  return { status: r.status, json: await r.json() };
}

/**
 * Holds lock `lock` of the service once. The service is `url` (reached with the global fetch) or
 * `fetch` (a service binding's, say; then `url` only names it). `text` is what the round writes.
 */
export async function holdRound(LeaseClient, { url = "http://fencepost.invalid/", fetch: send = globalThis.fetch, lock, text }) {
  const base = new URL(url);
  const at = (path) => new URL(path, base);
  const { fetch: recorded, seen } = recording(send);
  const client = new LeaseClient({ url: base, fetch: recorded });

  const lease = await client.acquire(lock, { ttlMs: TTL_MS, waitMs: 1_000 });
  const token = lease.token;
  const first = { safeUntil: lease.safeUntil, state: lease.state, aborted: lease.signal.aborted };
  const whileHeld = await read(send, at(`locks/${lock}`));

  // Sleep past the first deadline; on a runtime whose clock only moves between events (workerd),
  // sleep again until it has really passed.
  do await sleep(Math.max(1, first.safeUntil - performance.now()) + PAST_MS);
  while (performance.now() <= first.safeUntil);
  const held = {
    sameToken: lease.token === token,
    pastFirstSafeUntil: performance.now() > first.safeUntil,
    movedBy: lease.safeUntil - first.safeUntil,
    state: lease.state,
    aborted: lease.signal.aborted,
  };

  const wrote = await lease.fetch(`docs/${lock}`, { method: "PUT", body: text });
  const write = { status: wrote.status, json: await wrote.json() };
  const doc = await read(send, at(`docs/${lock}`));
  const released = await lease.release();
  const after = { state: lease.state, aborted: lease.signal.aborted, why: lease.signal.reason?.why };
  const lockAfter = await read(send, at(`locks/${lock}`));

  const count = (action) => seen.filter((s) => s.path === `/locks/${lock}/${action}`).map((s) => s.status);
  return {
    tokenType: typeof token,
    token: String(token),
    header: lease.header,
    first,
    whileHeld,
    held,
    acquires: count("acquire"),
    renewals: count("renew"),
    releases: count("release"),
    writeHeaders: seen.filter((s) => s.method === "PUT").map((s) => s.fencingToken),
    write,
    doc,
    released,
    after,
    lockAfter,
  };
}

/**
 * Checks a report of `holdRound` with `assert` (node:assert/strict's API): one acquire granted, at
 * least one renewal that kept the token and moved safe-until on, the exact signed header (key
 * `keyId` of the service) on the write, the document as written, and the lock free after release.
 */
export function checkRound(assert, report, { text, keyId = 1 }) {
  const { token } = report;
  assert.equal(report.tokenType, "bigint");
  assert.match(token, /^[1-9][0-9]*$/);
  // Signed by the service: <token>.<key id>.<HMAC-SHA256 in hex>.
  assert.match(report.header, new RegExp(`^${token}\\.${keyId}\\.[0-9a-f]{64}$`));
  assert.deepEqual(report.first, { safeUntil: report.first.safeUntil, state: "held", aborted: false });
  assert.equal(typeof report.first.safeUntil, "number");
  assert.deepEqual(report.whileHeld, { status: 200, json: { state: "held", until: report.whileHeld.json.until } });
  assert.equal(typeof report.whileHeld.json.until, "number");
  // Renewed in the background (a third of the way in, then again), every renewal granted: past the
  // first deadline the lease is still held under the same token, its safe-until moved on.
  assert.ok(report.renewals.length >= 1, "no renewal was sent");
  assert.deepEqual(report.renewals, report.renewals.map(() => 200));
  assert.deepEqual(report.held, { sameToken: true, pastFirstSafeUntil: true, movedBy: report.held.movedBy, state: "held", aborted: false });
  assert.ok(report.held.movedBy > 0, `safe-until moved by ${report.held.movedBy} ms`);
  assert.deepEqual(report.acquires, [200]);
  assert.deepEqual(report.releases, [200]);
  assert.deepEqual(report.writeHeaders, [report.header]);
  assert.deepEqual(report.write, { status: 200, json: { token, highest: token } });
  assert.deepEqual(report.doc, { status: 200, json: { data: text, token } });
  assert.equal(report.released, true);
  assert.deepEqual(report.after, { state: "lost", aborted: true, why: "released" });
  assert.deepEqual(report.lockAfter, { status: 200, json: { state: "free" } });
}
