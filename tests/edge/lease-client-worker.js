// A Worker that holds one lease (see hold-once.js) of the lease service behind its LEASES service
// binding per request, the lock named by the path, and answers what it saw.
import { LeaseClient } from "../../npm/dist/client/workerd.js";
import { holdOnce } from "./hold-once.js";

export default {
  async fetch(request, env) {
    const lock = new URL(request.url).pathname.slice(1);
    const client = new LeaseClient({ fetch: (input, init) => env.LEASES.fetch(input, init) });
    return Response.json(await holdOnce(client, lock));
  },
};
