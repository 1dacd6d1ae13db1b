// A Worker using the package through its `workerd` export (the .wasm imported as a module).
import { FenceGuard, LeaseAuthority } from "fencepost";

const json = (value) => JSON.stringify(value, (_, v) => (typeof v === "bigint" ? `${v}n` : v));

export default {
  async fetch(request) {
    if (new URL(request.url).pathname !== "/story") return new Response("not found", { status: 404 });
    const auth = new LeaseAuthority({ ttlMs: 30_000, firstToken: 33n });
    const a = auth.acquire("A", 0);
    const b = auth.acquire("B", 45_000);
    const guard = new FenceGuard();
    const steps = [a, b, guard.admit(b.token), guard.admit(a.token)];
    return new Response(json(steps), { headers: { "content-type": "application/json" } });
  },
};
