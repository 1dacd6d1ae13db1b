// fencepost/client from the installed package (its `deno` entry, type-checked against
// client.d.ts by `deno test`) against a real lease service, started around this test by
// tests/lease-service/with-service.mjs (FENCEPOST_SERVICE): one lease acquired, renewed in the
// background past its first deadline, written through and released.
import assert from "node:assert/strict";
import { LeaseClient, LeaseLostError, type Lease, type LeaseStateName } from "fencepost/client";
import { checkRound, holdRound } from "./lease-round.mjs";

Deno.test("the deno condition picks the client's Deno entry", () => {
  const resolved = import.meta.resolve("fencepost/client");
  if (!/\/node_modules\/fencepost\/dist\/client\/deno\.js$/.test(resolved)) throw new Error(`resolved to ${resolved}`);
});

Deno.test("Deno: acquire, renew, write through lease.fetch, release", async () => {
  const service = Deno.env.get("FENCEPOST_SERVICE");
  if (service === undefined) throw new Error("FENCEPOST_SERVICE is not set: run this under with-service.mjs");
  const text = "written from Deno";
  const report = await holdRound(LeaseClient, { url: service, lock: "deno", text });
  checkRound(assert, report, { text });
});

// The declarations as a strict TypeScript caller sees them (checked, not run): a lease's token is a
// bigint, acquire is only nullable with ifAvailable, and the loss reason is typed.
export async function typedUse(client: LeaseClient): Promise<bigint> {
  const lease: Lease = await client.acquire("typed", { ttlMs: 1_500 });
  const state: LeaseStateName = lease.state;
  const header: string = lease.header;
  const maybe: Lease | null = await client.acquire("typed", { ifAvailable: true });
  // @ts-expect-error without ifAvailable the lease is never null, and with it, it may be
  const sure: Lease = await client.acquire("typed", { ifAvailable: true });
  // @ts-expect-error a token is a bigint, not a number
  const wrong: number = lease.token;
  lease.signal.addEventListener("abort", () => {
    const why: "expired" | "refused" | "released" = (lease.signal.reason as LeaseLostError).why;
    void why;
  });
  void [state, header, maybe, sure, wrong];
  await using held = await client.acquire("typed");
  return held.token + lease.token;
}
