// fencepost/client in Deno (its `deno` entry): holds a lease of the service at the URL given,
// renews it in the background, writes through lease.fetch and releases it; prints what it saw as
// one JSON line.
//
//   deno run --allow-net=<host> --allow-read=<npm/dist> lease-holder-deno.ts <service url> <lock>

import { LeaseClient } from "../../npm/dist/client/deno.js";

const [base, lock] = Deno.args;
const lease = await new LeaseClient({ url: base }).acquire(lock, { ttlMs: 1_200 });
const first = lease.safeUntil;
await new Promise((r) => setTimeout(r, 600));
const renewedBy = lease.safeUntil - first;
const wrote = await lease.fetch(`docs/${lock}`, { method: "PUT", body: "from Deno" });
const body = await wrote.json();
const released = await lease.release();
console.log(JSON.stringify({
  token: lease.token.toString(),
  renewedBy,
  status: wrote.status,
  body,
  released,
  why: lease.signal.reason.why,
}));
