// A Worker using the package through its `workerd` exports (each .wasm imported as a module).
import { FenceGuard, LeaseAuthority } from "fencepost";
import { run } from "fencepost/sim";

const json = (value) => JSON.stringify(value, (_, v) => (typeof v === "bigint" ? `${v}n` : v));
const reply = (value) => new Response(json(value), { headers: { "content-type": "application/json" } });

export default {
  async fetch(request) {
    const path = new URL(request.url).pathname;
    if (path === "/story") {
      const auth = new LeaseAuthority({ ttlMs: 30_000, firstToken: 33n });
      const a = auth.acquire("A", 0);
      const b = auth.acquire("B", 45_000);
      const guard = new FenceGuard();
      return reply([a, b, guard.admit(b.token), guard.admit(a.token)]);
    }
    if (path === "/sim") {
      const fenced = run("paused-worker");
      const rejected = fenced.trace.events
        .filter((e) => e.kind === "write_rejected")
        .map((e) => ({ actor: e.actor, token: e.token, highest: e.detail.highest, reason: e.detail.reason, because: fenced.explain(e.seq) }));
      const fencingOff = run("paused-worker", { fencing: false }).verdict.violations.map((v) => [v.invariant, v.seq]);
      return reply({ rejected, fencingOff });
    }
    return new Response("not found", { status: 404 });
  },
};
