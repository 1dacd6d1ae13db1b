// A Worker holding a lease through fencepost/client (the package's `workerd` exports) from the
// lease service behind its LEASES service binding: one round per request (see lease-round.mjs), the
// lock named by the path; answers what it saw.
import { LeaseClient } from "fencepost/client";
import { holdRound } from "./lease-round.mjs";

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const lock = url.pathname.slice(1);
    const text = url.searchParams.get("text") ?? "";
    const fetch = (input, init) => env.LEASES.fetch(input, init);
    return Response.json(await holdRound(LeaseClient, { fetch, lock, text }));
  },
};
