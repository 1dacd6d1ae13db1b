// A Worker that holds a lease of the lease service behind its LEASES service binding for one
// request: acquires, waits for a background renewal, writes through lease.fetch, releases, and
// answers what it saw.
import { LeaseClient } from "../../npm/dist/client/workerd.js";

export default {
  async fetch(request, env) {
    const lock = new URL(request.url).pathname.slice(1);
    const client = new LeaseClient({ fetch: (input, init) => env.LEASES.fetch(input, init) });
    const lease = await client.acquire(lock, { ttlMs: 1_200 });
    const first = lease.safeUntil;
    await new Promise((r) => setTimeout(r, 600));
    const renewedBy = lease.safeUntil - first;
    const wrote = await lease.fetch(`docs/${lock}`, { method: "PUT", body: "from a Worker" });
    const body = await wrote.json();
    const released = await lease.release();
    return Response.json({
      token: lease.token.toString(),
      renewedBy,
      status: wrote.status,
      body,
      released,
      why: lease.signal.reason.why,
    });
  },
};
