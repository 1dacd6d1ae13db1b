// The story through the package's CommonJS entry for Node.
const { test } = require("node:test");
const assert = require("node:assert/strict");
const { LeaseAuthority, FenceGuard } = require("fencepost");

test("a paused owner's write with 33 is refused once 34 was accepted (CommonJS)", () => {
  assert.match(require.resolve("fencepost"), /dist[\\/]node\.cjs$/);
  const auth = new LeaseAuthority({ ttlMs: 30_000, firstToken: 33n });
  const a = auth.acquire("A", 0);
  assert.deepEqual(a, { ok: true, token: 33n, expiresAt: 30000 });
  const b = auth.acquire("B", 45_000);
  assert.deepEqual(b, { ok: true, token: 34n, expiresAt: 75000 });
  const guard = new FenceGuard();
  assert.deepEqual(guard.admit(b.token), { ok: true });
  assert.deepEqual(guard.admit(a.token), { ok: false, reason: "stale", presented: 33n, highest: 34n });
});
