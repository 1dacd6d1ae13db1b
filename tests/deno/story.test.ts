// The story in Deno, through the package's `deno` export (and type-checked against its .d.ts).
import { FenceGuard, LeaseAuthority } from "fencepost";

/** Equality of plain data, bigints included (Deno's own assertions would need a registry). */
function assertEquals(actual: unknown, expected: unknown): void {
  const show = (v: unknown) => JSON.stringify(v, (_, x) => (typeof x === "bigint" ? `${x}n` : x));
  if (show(actual) !== show(expected)) {
    throw new Error(`expected ${show(expected)}, got ${show(actual)}`);
  }
}

Deno.test("the deno condition picks the Deno entry", () => {
  const resolved = import.meta.resolve("fencepost");
  if (!/\/dist\/deno\.js$/.test(resolved)) throw new Error(`resolved to ${resolved}`);
});

Deno.test("a paused owner's write with 33 is refused once 34 was accepted (Deno)", () => {
  const auth = new LeaseAuthority({ ttlMs: 30_000, firstToken: 33n });
  const a = auth.acquire("A", 0);
  assertEquals(a, { ok: true, token: 33n, expiresAt: 30000 });
  const b = auth.acquire("B", 45_000);
  assertEquals(b, { ok: true, token: 34n, expiresAt: 75000 });
  if (!a.ok || !b.ok) throw new Error("both acquires must grant");
  const guard = new FenceGuard();
  assertEquals(guard.admit(b.token), { ok: true });
  assertEquals(guard.admit(a.token), { ok: false, reason: "stale", presented: 33n, highest: 34n });
});
