// The story, exactly as the README tells it, through the package's ESM entry for Node.
import { test } from "node:test";
import assert from "node:assert/strict";
import { LeaseAuthority, FenceGuard } from "fencepost";

test("a paused owner's write with 33 is refused once 34 was accepted (ESM)", () => {
  const auth = new LeaseAuthority({ ttlMs: 30_000, firstToken: 33n });
  const a = auth.acquire("A", 0);
  assert.deepEqual(a, { ok: true, token: 33n, expiresAt: 30000 });
  const b = auth.acquire("B", 45_000);
  assert.deepEqual(b, { ok: true, token: 34n, expiresAt: 75000 });
  const guard = new FenceGuard();
  assert.deepEqual(guard.admit(b.token), { ok: true });
  assert.deepEqual(guard.admit(a.token), { ok: false, reason: "stale", presented: 33n, highest: 34n });
  assert.equal(guard.highest, 34n);
});
