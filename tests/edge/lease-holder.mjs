// A worker script holding one lease through fencepost/client, driven line by line from stdin, for
// the pause test: the test freezes this whole process with SIGSTOP, then asks it to write.
//
//   node lease-holder.mjs <service url> <lock> <ttl ms>
//
// Prints one JSON line per event: acquired, wrote, refused (lease.fetch rejected without sending),
// forced (a PUT sent anyway with the old header), aborted (the lease's signal, as it happens).
// Commands: `write <data>`, `force <data>`, `exit`.

import { createInterface } from "node:readline";
import { LeaseClient } from "../../npm/dist/client/node.mjs";

const [base, lock, ttl] = process.argv.slice(2);
const say = (event) => process.stdout.write(`${JSON.stringify(event)}\n`);

const client = new LeaseClient({ url: base });
const lease = await client.acquire(lock, { ttlMs: Number(ttl) });
lease.signal.addEventListener("abort", () => {
  const r = lease.signal.reason;
  say({ event: "aborted", name: r.name, why: r.why, at: performance.now(), safeUntil: lease.safeUntil });
});
say({ event: "acquired", token: lease.token.toString(), header: lease.header, safeUntil: lease.safeUntil });

for await (const line of createInterface({ input: process.stdin })) {
  const [command, data = ""] = line.split(" ");
  if (command === "exit") break;
  if (command === "write") {
    try {
      const r = await lease.fetch(`docs/${lock}`, { method: "PUT", body: data });
      say({ event: "wrote", status: r.status, body: await r.json() });
    } catch (e) {
      say({ event: "refused", name: e.name, why: e.why, aborted: lease.signal.aborted, state: lease.state });
    }
  } else if (command === "force") {
    const r = await fetch(new URL(`docs/${lock}`, base), { method: "PUT", body: data, headers: { "Fencing-Token": lease.header } });
    say({ event: "forced", status: r.status, body: await r.json() });
  }
}
await lease.release();
