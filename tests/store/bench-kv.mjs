// The Deno KV part of the store benchmark (run with `deno run`, part of `cargo xtask bench`): a
// fenced write through DenoKvStore against the same plain `kv.set` of the value, one writer, best
// of ROUNDS interleaved rounds; then 16 concurrent writers to one key on four handles of the same
// local KV, each write with the next token of a shared counter, conflict retries counted.
// Figures only; nothing here asserts a time.
import { DenoKvStore } from "fencepost/store";

const ROUNDS = 5;
const N = 1000;
const WRITERS = 16;

const dir = await Deno.makeTempDir({ prefix: "fencepost-kv-bench-" });
try {
  const path = `${dir}/kv.sqlite3`;
  const kv = await Deno.openKv(path);
  const store = new DenoKvStore(kv, { prefix: ["bench"] });
  let next = 0n;
  let plain = Infinity;
  let fenced = Infinity;
  for (let r = 0; r < ROUNDS; r++) {
    let t = performance.now();
    for (let i = 0; i < N; i++) await kv.set(["plain", "k"], JSON.stringify(`v${i}`));
    plain = Math.min(plain, ((performance.now() - t) * 1000) / N);
    t = performance.now();
    for (let i = 0; i < N; i++) await store.write("k", ++next, `v${i}`);
    fenced = Math.min(fenced, ((performance.now() - t) * 1000) / N);
  }
  console.log(`  ${"Deno KV (local)".padEnd(30)} plain ${plain.toFixed(1).padStart(8)} µs   fenced ${fenced.toFixed(1).padStart(8)} µs   ratio ${(fenced / plain).toFixed(2)}x`);

  const handles = [kv, ...(await Promise.all([1, 2, 3].map(() => Deno.openKv(path))))];
  const stores = handles.map((h) => new DenoKvStore(h, { prefix: ["crowd"] }));
  let shared = 0n;
  let accepted = 0;
  let stale = 0;
  const per = 100;
  const t = performance.now();
  await Promise.all(
    Array.from({ length: WRITERS }, async (_, w) => {
      for (let i = 0; i < per; i++) {
        const r = await stores[w % 4].write("one", ++shared, `v${i}`);
        if (r.ok) accepted++;
        else stale++;
      }
    }),
  );
  const ms = performance.now() - t;
  const retries = stores.reduce((n, s) => n + s.retries, 0);
  console.log(
    `  ${"Deno KV (16 writers, 4 handles)".padEnd(34)} ${String(Math.round((WRITERS * per * 1000) / ms)).padStart(7)} writes/s   accepted ${accepted}, stale ${stale}, conflict retries ${retries}`,
  );
  for (const h of handles) h.close();
} finally {
  await Deno.remove(dir, { recursive: true });
}
