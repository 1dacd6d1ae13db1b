// A page that holds a lease on lock `?lock=<name>` of the lease service at `?service=<url>` (another
// origin, allowed by the service's FENCEPOST_CORS_ORIGINS) through fencepost/client, and shows each step. The client
// gets a `fetch` that counts what it sends, so the page can show that renewals went out while the
// lease was held.
import { LeaseClient } from "fencepost/client";

const params = new URL(location.href).searchParams;
const service = params.get("service");
const LOCK = params.get("lock");
const TTL_MS = 1_500;
/** Held for longer than one lease: only background renewals keep it past the first safe-until. */
const HOLD_MS = 2_500;
/** How long an acquire keeps trying a service that gives no answer (or the page no answer). */
const WAIT_MS = 1_000;

const show = (id, text) => {
  document.getElementById(id).textContent = text;
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const sent = { acquire: 0, renew: 0, release: 0, puts: [] };
function countingFetch(input, init) {
  const request = new Request(input, init);
  const action = /\/locks\/[^/]+\/(acquire|renew|release)$/.exec(new URL(request.url).pathname)?.[1];
  if (action !== undefined) sent[action]++;
  if (request.method === "PUT") sent.puts.push(request.headers.get("fencing-token"));
  return fetch(request);
}

async function hold() {
  show("status", "acquiring");
  const client = new LeaseClient({ url: service, fetch: countingFetch });
  const lease = await client.acquire(LOCK, { ttlMs: TTL_MS, waitMs: WAIT_MS });
  const firstSafeUntil = lease.safeUntil;
  show("token", lease.token.toString());
  show("header", lease.header);
  show("state", lease.state);
  show("status", "holding");
  await sleep(HOLD_MS);
  show("requests", `${sent.acquire} / ${sent.renew}`);
  const past = performance.now() > firstSafeUntil;
  show("held-state", `${lease.state}${past ? "" : " (not yet past the first safe-until)"}`);
  const written = await lease.fetch(`docs/${LOCK}`, { method: "PUT", body: `written from ${location.origin}` });
  show("sent-header", sent.puts.at(-1) ?? "none");
  show("write", `${written.status} ${await written.text()}`);
  const read = await fetch(new URL(`docs/${LOCK}`, service));
  show("doc", `${read.status} ${await read.text()}`);
  show("released", String(await lease.release()));
  show("final-state", lease.state);
  show("status", "done");
}

const button = document.getElementById("start");
button.addEventListener("click", () => {
  button.disabled = true;
  hold().catch((e) => show("status", `failed: ${e.name}: ${e.message}`));
});
button.disabled = false;
show("status", "ready");
