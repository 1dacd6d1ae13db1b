// Type-checked (tsc --noEmit --strict) use of the package's declarations: the story, narrowing of
// every result, and calls the declarations must refuse (each @ts-expect-error fails the check if
// the call were accepted).
import {
  AdmitCode,
  FencedResource,
  FenceGuard,
  GuardMap,
  HEADER_NAME,
  KeyRing,
  LeaseAuthority,
  LockTable,
  TokenSigner,
  tokenFromHeader,
  tokenToBytes,
  type AcquireResult,
  type Admission,
  type Token,
} from "fencepost";
import { init, initSync } from "fencepost/slim";

const auth = new LeaseAuthority({ ttlMs: 30_000, firstToken: 33n });
const a = auth.acquire("A", 0);
const b = auth.acquire("B", 45_000);
const guard = new FenceGuard();
if (a.ok && b.ok) {
  const first: Admission = guard.admit(b.token);
  const second = guard.admit(a.token);
  if (!second.ok && second.reason === "stale") {
    const highest: bigint = second.highest;
    const presented: Token = second.presented;
    void [first, highest, presented];
  }
}

function explain(r: AcquireResult): string {
  if (r.ok) return `token ${r.token} until ${r.expiresAt}`;
  switch (r.reason) {
    case "held":
      return `held by ${r.holder} until ${r.until}`;
    case "lockDelay":
      return `free at ${r.until}`;
    case "reentryLimit":
      return `re-entered ${r.max} times`;
    case "exhausted":
      return "no tokens left";
  }
}
explain(auth.acquire("C", 1));

const released = auth.release("B", 34n, 50_000);
const depth: number | undefined = released.ok ? released.depth : undefined;
const lease = auth.lease(50_000);
const holder: string | undefined = lease?.holder;
const next: bigint | null = auth.nextToken;
const restored: LeaseAuthority = LeaseAuthority.restore(auth.snapshotString(), { ttlMs: 30_000 });
const bytes: Uint8Array = restored.snapshot();

const table = new LockTable({ ttlMs: 1_000, lockDelayMs: 100, maxReentry: 1, reserveBlock: 16 });
for (const e of table.expireAll(5_000)) {
  const lock: string = e.lock;
  const at: number = e.at;
  void [lock, at];
}

const codes: Uint8Array = guard.admitMany(new BigUint64Array([35n, 36n]));
const firstCode = codes[0];
const accepted = firstCode !== undefined && (firstCode & 1) === 1;
const stale: 0 = AdmitCode.Stale;

const map = new GuardMap();
const entries: Array<[string, bigint | null]> = map.entries();

const resource = new FencedResource();
const w = resource.write(34n, 1, () => ({ rows: 3 }));
const rows: number | undefined = w.ok ? w.outcome.rows : undefined;

const signer = new TokenSigner(new Uint8Array(32));
const verified = signer.verify("orders", signer.sign("orders", 34n));
const token: bigint | undefined = verified.ok ? verified.token : undefined;
const signed = guard.admitSigned(signer, "orders", signer.sign("orders", 35n));
const forged: boolean = !signed.ok && signed.reason === "forged";

const ring = new KeyRing(1, new Uint8Array(32));
ring.rotate(2, new Uint8Array(32));
const current: number = ring.currentKeyId;
const keyed = ring.verify("orders", ring.sign("orders", 36n));
const gone: number | undefined = !keyed.ok && keyed.reason === "unknownKey" ? keyed.keyId : undefined;
const viaRing = guard.admitSigned(ring, "orders", ring.sign("orders", 37n));
const ringForged: boolean = !viaRing.ok && viaRing.reason === "forged";
ring.remove(1);

const header: "Fencing-Token" = HEADER_NAME;
const parsed: bigint = tokenFromHeader("34");
const eight: Uint8Array = tokenToBytes(parsed);
const loading: Promise<void> = init(new URL("file:///fencepost_bg.wasm"));
initSync(new Uint8Array(0));

void [depth, holder, next, bytes, accepted, stale, entries, rows, token, forged, header, eight, loading];
void [current, gone, ringForged];

// @ts-expect-error tokens are bigints, not numbers
guard.admit(34);
// @ts-expect-error key ids are numbers
new KeyRing(1n, new Uint8Array(32));
// @ts-expect-error ttlMs is required
new LeaseAuthority({ firstToken: 1n });
// @ts-expect-error unknown option
new LeaseAuthority({ ttlMs: 1, ttl: 5 });
// @ts-expect-error times are numbers
auth.acquire("A", 0n);
// @ts-expect-error batches are BigUint64Arrays
guard.admitMany([1n, 2n]);
// @ts-expect-error a stale refusal has no holder
if (!a.ok && a.reason === "exhausted") void a.holder;

// `using` frees at the end of the block (the declarations carry `[Symbol.dispose]`).
function scoped(): boolean {
  using g = new FenceGuard();
  using t = new LockTable({ ttlMs: 1_000 });
  return g.admit(1n).ok && t.acquire("l", "A", 0).ok;
}
void scoped;

// fencepost/client: a lease from acquire is never null unless ifAvailable asks for it.
import { LeaseClient, LeaseLostError, type Lease } from "fencepost/client";
import { LeaseKeeper, type KeeperState } from "fencepost";

export async function holdALease(): Promise<bigint> {
  const client = new LeaseClient({ url: "http://127.0.0.1:8787", marginMs: 200 });
  const maybe: Lease | null = await client.acquire("invoices", { ifAvailable: true });
  await maybe?.release();
  const lease: Lease = await client.acquire("invoices", { ttlMs: 2_000, waitMs: 5_000 });
  lease.signal.addEventListener("abort", () => {
    const why: "expired" | "refused" | "released" = (lease.signal.reason as LeaseLostError).why;
    void why;
  });
  const released: boolean = await lease.release();
  void released;
  {
    // Released when the block ends.
    await using scoped = await client.acquire("invoices", { ttlMs: 2_000 });
    scoped.assertSafe();
  }
  // @ts-expect-error ttlMs is a number of milliseconds
  await client.acquire("invoices", { ttlMs: "2000" });
  // @ts-expect-error with ifAvailable the callback may get null
  await client.request("invoices", { ifAvailable: true }, async (l: Lease) => l.token);
  return client.request("invoices", { ttlMs: 2_000 }, async (l) => {
    l.assertSafe();
    const r: Response = await l.fetch("docs/invoices", { method: "PUT", body: "x" });
    void r;
    return l.token;
  });
}

const keeper = new LeaseKeeper({ ttlMs: 30_000 }, 0);
const kept: KeeperState = keeper.granted(keeper.send(0), 33n, 30_000, 400);
const until: number | null = kept.safeUntil;
void until;
// @ts-expect-error a failure is "transient" or "refused"
keeper.failed(0, "gone", 1);
