// Same-run comparison: today's numeric ABI (the package's FenceGuard / LockTable / LeaseAuthority)
// against a prototype of #[wasm_bindgen] classes with named methods (ProtoGuard / ProtoTable), each
// behind the same argument checks the package does.
import { FenceGuard, LeaseAuthority, LockTable } from "fencepost";
const raw = await import(new URL("./node_modules/fencepost/dist/fencepost_bg.js", import.meta.url));

const ACCEPTED = Object.freeze({ ok: true });
function checkToken(t) {
  if (typeof t !== "bigint" || BigInt.asUintN(64, t) !== t) throw new TypeError("token");
}
function name(v) {
  if (typeof v !== "string") throw new TypeError("name");
  if (v.length > 341 && v.length > 1024) throw new RangeError("name");
  if (!v.isWellFormed()) throw new RangeError("name");
  return v;
}
class IdiomGuard {
  #g;
  constructor() { this.#g = new raw.ProtoGuard(0n); }
  admit(token) {
    checkToken(token);
    const c = this.#g.admit(token);
    if ((c & 1) === 1) return ACCEPTED;
    return { ok: false, reason: c === 0 ? "stale" : "invalid", presented: token, highest: this.#g.highest() };
  }
  admitMany(tokens, out) {
    if (!(tokens instanceof BigUint64Array)) throw new TypeError("tokens");
    if (out === undefined) out = new Uint8Array(tokens.length);
    this.#g.admitMany(tokens, out);
    return out;
  }
  free() { this.#g.free(); }
}
class IdiomTable {
  #t;
  constructor(ttl) { this.#t = new raw.ProtoTable(ttl); }
  acquire(lock, holder, now) {
    name(lock); name(holder);
    try {
      const g = this.#t.acquire(lock, holder, now);
      const r = { ok: true, token: g.token, expiresAt: g.expiresAt };
      g.free();
      return r;
    } catch (e) {
      return { ok: false, reason: e.message };
    }
  }
  release(lock, holder, tok, now) {
    name(lock); name(holder); checkToken(tok);
    try {
      return { ok: true, depth: this.#t.release(lock, holder, tok, now) };
    } catch (e) {
      return { ok: false, reason: "lost" };
    }
  }
}

class PlainGuard {
  highest = 0n;
  admit(token) {
    if (token > this.highest) { this.highest = token; return true; }
    return token === this.highest;
  }
}

const ROUNDS = 9, PASS = 4096, PASSES = 400;
const tokens = new BigUint64Array(PASS);
for (let i = 0, t = 1_000n; i < PASS; i++) { if (i % 16 !== 7) t += 1n; tokens[i] = t; }
const list = Array.from(tokens);
let sink = 0;
const out = new Uint8Array(PASS);

const cases = [
  ["plain", () => { const g = new PlainGuard(); for (let i = 0; i < PASS; i++) if (g.admit(list[i])) sink++; }, PASS],
  ["abiAdmit", () => { const g = new FenceGuard(); for (let i = 0; i < PASS; i++) if (g.admit(list[i]).ok) sink++; g.free(); }, PASS],
  ["idiomAdmit", () => { const g = new IdiomGuard(); for (let i = 0; i < PASS; i++) if (g.admit(list[i]).ok) sink++; g.free(); }, PASS],
  ["plainArray", () => { const g = new PlainGuard(); for (let i = 0; i < PASS; i++) if (g.admit(tokens[i])) sink++; }, PASS],
  ["abiMany", () => { const g = new FenceGuard(); g.admitMany(tokens, out); sink += out[PASS - 1]; g.free(); }, PASS],
  ["idiomMany", () => { const g = new IdiomGuard(); g.admitMany(tokens, out); sink += out[PASS - 1]; g.free(); }, PASS],
];
const auth = new LeaseAuthority({ ttlMs: 30_000 });
const table = new LockTable({ ttlMs: 30_000 });
const idt = new IdiomTable(30_000);
let now = 0;
cases.push(
  ["abiAuthority", () => { for (let i = 0; i < PASS / 8; i++) { const g = auth.acquire("worker-1", now); if (g.ok) auth.release("worker-1", g.token, now); now++; } }, PASS / 8],
  ["abiTable", () => { for (let i = 0; i < PASS / 8; i++) { const g = table.acquire("orders", "worker-1", now); if (g.ok) table.release("orders", "worker-1", g.token, now); now++; } }, PASS / 8],
  ["idiomTable", () => { for (let i = 0; i < PASS / 8; i++) { const g = idt.acquire("orders", "worker-1", now); if (g.ok) idt.release("orders", "worker-1", g.token, now); now++; } }, PASS / 8],
  ["abiHeld", () => { for (let i = 0; i < PASS / 8; i++) { if (!table.acquire("busy", "other", now).ok) sink++; } }, PASS / 8],
  ["idiomHeld", () => { for (let i = 0; i < PASS / 8; i++) { if (!idt.acquire("busy", "other", now).ok) sink++; } }, PASS / 8],
);
table.acquire("busy", "owner", 0, { ttlMs: 1e12 });
new raw.ProtoTable(1e12).acquire("busy", "owner", 0);
idt.acquire("busy", "owner", 0);

function time(pass, ops, passes) {
  const t0 = process.hrtime.bigint();
  for (let p = 0; p < passes; p++) pass();
  return Number(process.hrtime.bigint() - t0) / (ops * passes);
}
for (const [, pass, ops] of cases) time(pass, ops, 50);
const best = Object.fromEntries(cases.map(([n]) => [n, Infinity]));
for (let r = 0; r < ROUNDS; r++) for (const [n, pass, ops] of cases) best[n] = Math.min(best[n], time(pass, ops, ops < PASS ? PASSES / 4 : PASSES));
for (const [n] of cases) console.log(n.padEnd(14), best[n].toFixed(2).padStart(9), "ns/op");
console.log("single admit vs plain: numeric", (best.abiAdmit / best.plain).toFixed(2) + "x", " idiomatic", (best.idiomAdmit / best.plain).toFixed(2) + "x");
console.log("admitMany vs plain array: numeric", (best.abiMany / best.plainArray).toFixed(2) + "x", " idiomatic", (best.idiomMany / best.plainArray).toFixed(2) + "x");
console.log("acquire+release table: numeric", best.abiTable.toFixed(0), "ns, idiomatic", best.idiomTable.toFixed(0), "ns");
