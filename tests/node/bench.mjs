// The npm package's Node benchmark (`cargo xtask bench-npm`): figures only, no assertions on time.
//
// admit through the WebAssembly module against a plain-JS guard doing the same bigint comparison,
// in one process; admitMany per token; acquire + release. Each figure is the best of several runs.
import { FenceGuard, LeaseAuthority } from "fencepost";

/** A guard in plain JavaScript: the baseline every wasm figure is compared with. */
class PlainGuard {
  highest = 0n;
  admit(token) {
    if (token > this.highest) {
      this.highest = token;
      return true;
    }
    return token === this.highest;
  }
}

const N = 2_000_000;
const ROUNDS = 7;

/** Best ns per operation of `run(n)` over ROUNDS rounds of `n` operations. */
function best(run, n = N) {
  run(Math.min(n, 100_000)); // warm up
  let bestNs = Infinity;
  for (let r = 0; r < ROUNDS; r++) {
    globalThis.gc?.();
    const t0 = process.hrtime.bigint();
    run(n);
    const ns = Number(process.hrtime.bigint() - t0) / n;
    if (ns < bestNs) bestNs = ns;
  }
  return bestNs;
}

// Tokens as a resource sees them: mostly increasing, now and then repeated or stale.
const tokens = new BigUint64Array(N);
for (let i = 0, t = 1000n; i < N; i++) {
  if (i % 16 !== 7) t += 1n;
  tokens[i] = i % 64 === 33 ? t - 3n : t;
}
const list = Array.from(tokens);

let sink = 0;
const plain = best((n) => {
  const g = new PlainGuard();
  for (let i = 0; i < n; i++) if (g.admit(list[i])) sink++;
});
const wasm = best((n) => {
  const g = new FenceGuard();
  for (let i = 0; i < n; i++) if (g.admit(list[i]).ok) sink++;
  g.free();
});
const plainArray = best((n) => {
  const g = new PlainGuard();
  for (let i = 0; i < n; i++) if (g.admit(tokens[i])) sink++;
});
const out = new Uint8Array(N);
const many = best((n) => {
  const g = new FenceGuard();
  g.admitMany(n === N ? tokens : tokens.subarray(0, n), out);
  sink += out[n - 1];
  g.free();
});

const auth = new LeaseAuthority({ ttlMs: 30_000 });
let now = 0;
const lease = best((n) => {
  for (let i = 0; i < n; i++) {
    const g = auth.acquire("worker-1", now);
    if (g.ok) auth.release("worker-1", g.token, now);
    now++;
  }
}, 200_000);

const f = (x) => x.toFixed(1).padStart(7);
console.log(`admit, plain-JS guard (bigint compare)      ${f(plain)} ns/op`);
console.log(`admit, FenceGuard (wasm)                    ${f(wasm)} ns/op   ${(wasm / plain).toFixed(2)}x plain JS (goal <= 3x)`);
console.log(`admit, plain-JS guard over a BigUint64Array ${f(plainArray)} ns/token`);
console.log(`admitMany(BigUint64Array), FenceGuard       ${f(many)} ns/token ${(many / plainArray).toFixed(2)}x plain JS over the same array (goal <= 1x)`);
console.log(`acquire + release, LeaseAuthority (wasm)    ${f(lease)} ns/op`);
if (sink === -1) console.log(sink);
