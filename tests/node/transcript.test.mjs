// A transcript of the package's behaviour: a seeded program of thousands of calls (good and bad
// arguments, freed objects, options whose getters call back into the package or free objects,
// damaged snapshots, signed tokens forged, tampered or for another lock, batches over the module's
// batch size, tables large enough to grow the module's memory) whose results and thrown errors
// (type and message) must hash to what transcript.json holds, so a change of any result or message
// shows here. Record it again only for an intended change, and only after checking that the new
// build with that one change undone still matches the old file (the commit says which change):
//   FENCEPOST_TRANSCRIPT_RECORD=1 node transcript.test.mjs
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { resealed } from "./snapshot-checksum.mjs";

const P = await import(process.env.FENCEPOST_TRANSCRIPT_MODULE ?? "fencepost");
const FILE = new URL("./transcript.json", import.meta.url);
const SEQUENCES = 120;
const STEPS = 80;

let seed = 1;
/** xorshift32: the same numbers on every platform. */
function R() {
  seed ^= seed << 13;
  seed >>>= 0;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  seed >>>= 0;
  return seed / 4294967296;
}
const Ri = (n) => Math.floor(R() * n);
const Pk = (a) => a[Ri(a.length)];

const KEYS = [new TextEncoder().encode("0123456789abcdef"), new TextEncoder().encode("fedcba9876543210fedc")];
const NAMES = [
  "A",
  "B",
  "lock",
  "é",
  "日本",
  "😀",
  "",
  "x".repeat(1024),
  "é".repeat(512),
  "é".repeat(513),
  "x".repeat(1025),
  "\uD800",
  5,
  null,
  undefined,
];
const TOKENS = [
  0n,
  1n,
  2n,
  3n,
  33n,
  34n,
  35n,
  100n,
  2n ** 53n,
  2n ** 64n - 1n,
  2n ** 64n - 2n,
  2n ** 64n,
  -1n,
  1,
  "1",
  undefined,
];
const TIMES = [0, 1, 5, 10, 29_999, 30_000, 45_000, 100_000, 2 ** 53 - 1, 2 ** 53 - 2, -1, 1.5, NaN, "1", 2 ** 53];
const CLASSES = ["LeaseAuthority", "LockTable", "FenceGuard", "GuardMap", "FencedResource", "TokenSigner"];

function serialize(v, depth = 0) {
  if (depth > 4) return "…";
  if (typeof v === "bigint") return `${v}n`;
  if (v instanceof Uint8Array) return `U8[${Array.from(v).join(",")}]`;
  if (Array.isArray(v)) return `[${v.map((x) => serialize(x, depth + 1)).join(",")}]`;
  if (v && typeof v === "object") {
    const ctor = v.constructor?.name;
    if (CLASSES.includes(ctor)) return `<${ctor}>`;
    return `{${Object.keys(v)
      .map((k) => `${k}:${serialize(v[k], depth + 1)}`)
      .join(",")}}`;
  }
  if (typeof v === "number" && Object.is(v, -0)) return "-0";
  return String(v);
}

function run(fn) {
  try {
    return `ok ${serialize(fn())}`;
  } catch (e) {
    return `throw ${e?.constructor?.name}: ${e?.message}`;
  }
}

/** `snap` with bytes replaced (`spec`: [position, value] pairs), its checksum fixed if asked. */
function mutate(snap, spec) {
  const b = Uint8Array.from(snap);
  if (b.length === 0) return b;
  for (const [pos, val] of spec) b[pos % b.length] = val;
  if (spec.fixCrc && b.length >= 4) resealed(b);
  return b;
}

/** FNV-1a over the UTF-16 code units of `s`, folded into `h`. */
function fnv(h, s) {
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

// The calls a program is made of, each listed `weight` times: given the world of objects made so
// far, one draws its arguments, then returns the call (run and recorded by `run`).
const OPS = [];
function op(weight, f) {
  for (let i = 0; i < weight; i++) OPS.push(f);
}

const Name = () => (R() < 0.7 ? Pk(["A", "B", "C", "l1", "l2"]) : Pk(NAMES));
const Tok = (w) => {
  const r = R();
  if (r < 0.5 && w.tokens.length) return w.tokens[Ri(w.tokens.length)];
  if (r < 0.6) return BigInt(Ri(50));
  return Pk(TOKENS);
};
const Time = () => (R() < 0.8 ? Ri(120_000) : Pk(TIMES));
const obj = (a) => (a.length ? a[Ri(a.length)] : undefined);

function leaseOpts(w) {
  const r = R();
  if (r < 0.6) return undefined;
  if (r < 0.8) return { ttlMs: Pk([0, 1, 10, 1000, 30_000, 2 ** 53 - 1]) };
  if (r < 0.85) return { ttlMs: -1 };
  if (r < 0.9) return { bogus: 1 };
  // A getter that calls back into the package, or frees an object, before the call goes on.
  const act = Ri(4);
  const target = Ri(8);
  return {
    get ttlMs() {
      const all = [...w.auths, ...w.tables, ...w.guards];
      const o = all[target % Math.max(all.length, 1)];
      try {
        if (act === 0) o?.free();
        else if (act === 1 && w.auths[0]) w.auths[0].acquire("Z", 1);
        else if (act === 2 && w.tables[0]) w.tables[0].acquire("zz", "Z", 1);
        else if (act === 3 && w.signers[0]) w.signers[0].sign("zz", 5n);
      } catch {}
      return 500;
    },
  };
}

function cfgOpts() {
  const r = R();
  if (r < 0.1)
    return Pk([
      undefined,
      null,
      {},
      { ttlMs: 0 },
      { ttlMs: 5, maxReentry: 0 },
      { ttlMs: 5, reserveBlock: 0 },
      { ttlMs: 5, firstToken: 0n },
    ]);
  const o = { ttlMs: Pk([1, 10, 1000, 30_000, 2 ** 53 - 1]) };
  if (R() < 0.3) o.firstToken = Pk([1n, 33n, 2n ** 64n - 2n, 2n ** 64n - 1n, 2n ** 63n]);
  if (R() < 0.3) o.lockDelayMs = Pk([0, 5, 1000, 2 ** 53 - 1]);
  if (R() < 0.3) o.maxReentry = Pk([1, 2, 3, 0xffffffff]);
  if (R() < 0.3) o.reserveBlock = Pk([1, 2, 10, 2 ** 53 - 1]);
  return o;
}

function track(w, res) {
  if (res && typeof res === "object" && typeof res.token === "bigint") w.tokens.push(res.token);
  if (res && typeof res === "object" && typeof res.highest === "bigint") w.tokens.push(res.highest);
  return res;
}

op(3, (w) => {
  const o = cfgOpts();
  return () => {
    const a = new w.P.LeaseAuthority(o);
    w.auths.push(a);
    return a;
  };
});
op(3, (w) => {
  const o = cfgOpts();
  return () => {
    const a = new w.P.LockTable(o);
    w.tables.push(a);
    return a;
  };
});
op(2, (w) => {
  const h = R() < 0.7 ? undefined : { highest: Tok(w) };
  return () => {
    const g = new w.P.FenceGuard(h);
    w.guards.push(g);
    return g;
  };
});
op(1, (w) => () => {
  const g = new w.P.GuardMap();
  w.maps.push(g);
  return g;
});
op(1, (w) => () => {
  const g = new w.P.FencedResource();
  w.res.push(g);
  return g;
});
op(1, (w) => {
  const k = R() < 0.9 ? Pk(KEYS) : Pk([new Uint8Array(3), "key", null]);
  return () => {
    const s = new w.P.TokenSigner(k);
    w.signers.push(s);
    return s;
  };
});
// Authority ops
op(8, (w) => {
  const a = obj(w.auths),
    h = Name(),
    t = Time(),
    o = leaseOpts(w);
  return () => track(w, a?.acquire(h, t, o));
});
op(4, (w) => {
  const a = obj(w.auths),
    h = Name(),
    k = Tok(w),
    t = Time(),
    o = leaseOpts(w);
  return () => track(w, a?.renew(h, k, t, o));
});
op(4, (w) => {
  const a = obj(w.auths),
    h = Name(),
    k = Tok(w),
    t = Time();
  return () => a?.release(h, k, t);
});
op(2, (w) => {
  const a = obj(w.auths),
    t = Time();
  return () => a?.expire(t);
});
op(2, (w) => {
  const a = obj(w.auths),
    t = Time();
  return () => a?.lease(t);
});
op(3, (w) => {
  const a = obj(w.auths),
    g = Pk(["nextToken", "lastIssued", "reservedThrough", "freeAt", "latestNow", "clamps"]);
  return () => a?.[g];
});
op(2, (w) => {
  const a = obj(w.auths),
    s = R() < 0.5;
  return () => {
    const x = s ? a?.snapshotString() : a?.snapshot();
    if (x !== undefined) w.snaps.push({ snapshot: x, authority: true });
    return x;
  };
});
op(1, (w) => {
  const a = obj(w.auths);
  return () => a?.free();
});
// Table ops
op(8, (w) => {
  const a = obj(w.tables),
    l = Name(),
    h = Name(),
    t = Time(),
    o = leaseOpts(w);
  return () => track(w, a?.acquire(l, h, t, o));
});
op(4, (w) => {
  const a = obj(w.tables),
    l = Name(),
    h = Name(),
    k = Tok(w),
    t = Time(),
    o = leaseOpts(w);
  return () => track(w, a?.renew(l, h, k, t, o));
});
op(4, (w) => {
  const a = obj(w.tables),
    l = Name(),
    h = Name(),
    k = Tok(w),
    t = Time();
  return () => a?.release(l, h, k, t);
});
op(2, (w) => {
  const a = obj(w.tables),
    l = Name(),
    t = Time();
  return () => a?.expire(l, t);
});
op(2, (w) => {
  const a = obj(w.tables),
    t = Time();
  return () => a?.expireAll(t);
});
op(2, (w) => {
  const a = obj(w.tables),
    l = Name(),
    t = Time();
  return () => a?.lease(l, t);
});
op(3, (w) => {
  const a = obj(w.tables),
    g = Pk(["size", "nextToken", "lastIssued", "reservedThrough", "latestNow", "clamps"]);
  return () => a?.[g];
});
op(2, (w) => {
  const a = obj(w.tables),
    s = R() < 0.5;
  return () => {
    const x = s ? a?.snapshotString() : a?.snapshot();
    if (x !== undefined) w.snaps.push({ snapshot: x, authority: false });
    return x;
  };
});
op(1, (w) => {
  const a = obj(w.tables);
  return () => a?.free();
});
// Restore, mostly as the kind the snapshot was taken of, often with bytes changed (and the
// checksum fixed, so the reader gets past it).
op(5, (w) => {
  const s = obj(w.snaps),
    o = cfgOpts();
  const asAuthority = s === undefined || R() < 0.2 ? R() < 0.5 : s.authority;
  const m =
    R() < 0.3
      ? null
      : Array.from({ length: 1 + Ri(2) }, () => [Ri(64), Pk([0, 1, 2, 0x7f, 0x80, 0xc3, 0xff, Ri(256)])]);
  if (m) m.fixCrc = R() < 0.9;
  return () => {
    let snap = s?.snapshot;
    if (m && snap !== undefined) {
      const bytes = typeof snap === "string" ? Uint8Array.from(atob(snap), (c) => c.charCodeAt(0)) : snap;
      snap = mutate(bytes, m);
    }
    const C = asAuthority ? w.P.LeaseAuthority : w.P.LockTable;
    const a = C.restore(snap, o);
    (asAuthority ? w.auths : w.tables).push(a);
    return [a, a.nextToken, a.reservedThrough, a.lastIssued];
  };
});
// Guards
op(8, (w) => {
  const g = obj(w.guards),
    k = Tok(w);
  return () => g?.admit(k);
});
op(3, (w) => {
  const g = obj(w.guards),
    k = Tok(w);
  return () => g?.check(k);
});
op(1, (w) => {
  const g = obj(w.guards);
  return () => g?.highest;
});
op(2, (w) => {
  const g = obj(w.guards),
    n = Ri(10),
    ks = Array.from({ length: n }, () => Tok(w)),
    withOut = R() < 0.3;
  return () => {
    const arr = new BigUint64Array(ks.filter((k) => typeof k === "bigint" && k >= 0n && k < 2n ** 64n));
    return g?.admitMany(arr, withOut ? new Uint8Array(arr.length + 1) : undefined);
  };
});
op(1, (w) => {
  const g = obj(w.guards);
  return () => g?.free();
});
op(3, (w) => {
  const g = obj(w.guards),
    s = obj(w.signers),
    l = Name(),
    h =
      w.headers.length && R() < 0.6
        ? Pk(w.headers)
        : Pk(["34", "34.", "34.zz", `${2n ** 64n - 1n}.${"a".repeat(64)}`, "0." + "0".repeat(64), "", 5]);
  const tamper = R() < 0.3;
  return () =>
    g?.admitSigned(s, l, tamper && typeof h === "string" ? h.slice(0, -1) + (h.endsWith("0") ? "1" : "0") : h);
});
// Memory growth: many locks in a table, then a snapshot of it restored.
op(1, (w) => {
  const a = obj(w.tables),
    n = 200 + Ri(3000),
    t = Time();
  return () => {
    if (!a) return;
    let k = 0;
    for (let j = 0; j < n; j++) {
      const r = a.acquire(`lock-${j}-${"é".repeat(j % 50)}`, `h${j}`, t);
      if (r.ok) k++;
    }
    const s = a.snapshot();
    w.snaps.push({ snapshot: s, authority: false });
    return [k, s.length, a.size];
  };
});
op(1, (w) => {
  const g = obj(w.guards),
    n = Pk([16383, 16384, 16385, 40000]),
    base = BigInt(Ri(1000)),
    withOut = R() < 0.5,
    off = Ri(3);
  return () => {
    const buf = new BigUint64Array(n + off);
    for (let j = 0; j < buf.length; j++) buf[j] = base + BigInt((j * 7919) % 5000);
    const tokens = buf.subarray(off);
    const r = g?.admitMany(tokens, withOut ? new Uint8Array(n + 3).subarray(1) : undefined);
    if (!r) return r;
    let h = 0;
    for (const c of r) h = (h * 31 + c) >>> 0;
    return [r.length, h, g.highest];
  };
});
op(1, (w) => {
  const g = obj(w.guards),
    o = Pk([w.auths[0], w.tables[0], w.guards[0], {}, null, w.res[0], Object.create(w.P.TokenSigner.prototype)]),
    h = w.headers.length ? Pk(w.headers) : "1.aa";
  return () => g?.admitSigned(o, "A", h);
});
op(1, (w) => {
  const s = obj(w.signers);
  return () => [s?.sign("x".repeat(1024), 5n), s?.sign("é".repeat(300), 6n)];
});
// Guard maps
op(4, (w) => {
  const g = obj(w.maps),
    r = Name(),
    k = Tok(w);
  return () => g?.admit(r, k);
});
op(2, (w) => {
  const g = obj(w.maps),
    r = Name(),
    k = Tok(w);
  return () => g?.check(r, k);
});
op(1, (w) => {
  const g = obj(w.maps),
    r = Name();
  return () => g?.highest(r);
});
op(1, (w) => {
  const g = obj(w.maps);
  return () => [g?.size, g?.entries()];
});
op(1, (w) => {
  const g = obj(w.maps);
  return () => g?.free();
});
// Resources
op(4, (w) => {
  const g = obj(w.res),
    k = Tok(w),
    id = Pk([1, 2, 3, 1n, -1, 2 ** 53, "x"]),
    t = Ri(3);
  return () =>
    g?.write(
      k,
      id,
      t === 0
        ? () => "out"
        : t === 1
          ? () => {
              throw new Error("boom");
            }
          : 5,
    );
});
op(1, (w) => {
  const g = obj(w.res);
  return () => [g?.highest, g?.size];
});
op(1, (w) => {
  const g = obj(w.res);
  return () => g?.free();
});
// Signers
op(3, (w) => {
  const s = obj(w.signers),
    l = Name(),
    k = Tok(w);
  return () => {
    const h = s?.sign(l, k);
    if (h !== undefined) w.headers.push(h);
    return h;
  };
});
op(3, (w) => {
  const s = obj(w.signers),
    l = Name(),
    h =
      w.headers.length && R() < 0.7
        ? Pk(w.headers)
        : Pk(["34", "34.", "34.zz", `${2n ** 64n - 1n}.${"a".repeat(64)}`, "", 5, "x".repeat(5000)]);
  return () => s?.verify(l, h);
});
op(1, (w) => {
  const s = obj(w.signers);
  return () => s?.free();
});
// Codecs
op(2, (w) => {
  const v = Pk([
    "34",
    "034",
    "0",
    "",
    " 1",
    "+1",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999",
    "1a",
    "34.ab",
    5,
    "x".repeat(5000),
  ]);
  const f = Pk(["tokenFromString", "tokenFromHeader"]);
  return () => w.P[f](v);
});
op(1, (w) => {
  const v = Pk([
    new Uint8Array(8),
    Uint8Array.of(0, 0, 0, 0, 0, 0, 1, 0),
    new Uint8Array(7),
    Uint8Array.of(255, 255, 255, 255, 255, 255, 255, 255),
    "x",
  ]);
  return () => w.P.tokenFromBytes(v);
});
op(1, (w) => {
  const k = Tok(w),
    f = Pk(["tokenToString", "tokenToHeader", "tokenToBytes"]);
  return () => w.P[f](k);
});

function world() {
  const w = {
    P,
    auths: [],
    tables: [],
    guards: [],
    maps: [],
    res: [],
    signers: [],
    tokens: [],
    snaps: [],
    headers: [],
  };
  w.auths.push(
    new P.LeaseAuthority({ ttlMs: 30_000, firstToken: 33n }),
    new P.LeaseAuthority({ ttlMs: 1000, lockDelayMs: 500, maxReentry: 2, reserveBlock: 10 }),
  );
  w.tables.push(
    new P.LockTable({ ttlMs: 30_000, firstToken: 33n }),
    new P.LockTable({ ttlMs: 1000, lockDelayMs: 500, maxReentry: 2, reserveBlock: 10 }),
  );
  w.guards.push(new P.FenceGuard(), new P.FenceGuard({ highest: 40n }));
  w.maps.push(new P.GuardMap());
  w.res.push(new P.FencedResource());
  w.signers.push(new P.TokenSigner(KEYS[0]), new P.TokenSigner(KEYS[1]));
  return w;
}

/** The hash of each sequence's results, and (with `keep`) the results of sequence `keep`. */
function transcript(keep = -1) {
  seed = 1;
  const hashes = [];
  const lines = [];
  for (let s = 0; s < SEQUENCES; s++) {
    const w = world();
    let h = 0x811c9dc5;
    for (let k = 0; k < STEPS; k++) {
      const f = OPS[Ri(OPS.length)];
      const result = run(f(w));
      h = fnv(h, `${k} ${result}\n`);
      if (s === keep) lines.push(`step ${k}, op ${OPS.indexOf(f)}: ${result.slice(0, 300)}`);
    }
    for (const k of ["auths", "tables", "guards", "maps", "res", "signers"]) {
      for (const o of w[k]) {
        try {
          o.free();
        } catch {}
      }
    }
    hashes.push(h.toString(16).padStart(8, "0"));
  }
  return { hashes, lines };
}

/**
 * The hash of restoring an authority's and a table's snapshot with each byte in turn replaced by
 * each of a few values, the checksum fixed: every field the reader checks, names that are not
 * UTF-8 included.
 */
function sweep() {
  const a = new P.LeaseAuthority({ ttlMs: 100, lockDelayMs: 7 });
  a.acquire("Aé", 0);
  const t = new P.LockTable({ ttlMs: 100, reserveBlock: 3 });
  t.acquire("lé", "B😀", 0);
  t.acquire("m", "C", 0);
  let h = 0x811c9dc5;
  for (const [C, snap] of [
    [P.LeaseAuthority, a.snapshot()],
    [P.LockTable, t.snapshot()],
  ]) {
    for (let pos = 0; pos < snap.length - 4; pos++) {
      for (const v of [
        0x00, 0x01, 0x02, 0x03, 0x41, 0x7f, 0x80, 0xbf, 0xc0, 0xc3, 0xe0, 0xed, 0xf0, 0xf4, 0xf5, 0xff,
      ]) {
        const b = mutate(snap, Object.assign([[pos, v]], { fixCrc: true }));
        h = fnv(
          h,
          run(() => {
            const x = C.restore(b, { ttlMs: 100 });
            const r = [
              x.nextToken,
              x.reservedThrough,
              x.lastIssued,
              C === P.LockTable ? x.expireAll(1_000) : x.expire(1_000),
            ];
            x.free();
            return r;
          }),
        );
      }
    }
  }
  a.free();
  t.free();
  return h.toString(16).padStart(8, "0");
}

if (process.env.FENCEPOST_TRANSCRIPT_RECORD) {
  writeFileSync(
    FILE,
    `${JSON.stringify({ sequences: SEQUENCES, steps: STEPS, snapshots: sweep(), hashes: transcript().hashes })}\n`,
  );
} else {
  test("thousands of calls answer as the package always has (results, error types and messages)", () => {
    const want = JSON.parse(readFileSync(FILE, "utf8"));
    assert.equal(want.sequences, SEQUENCES);
    assert.equal(want.steps, STEPS);
    assert.equal(
      sweep(),
      want.snapshots,
      "restoring damaged snapshots answers differently from the recorded transcript",
    );
    const got = transcript().hashes;
    const first = got.findIndex((h, i) => h !== want.hashes[i]);
    if (first !== -1) {
      const { lines } = transcript(first);
      assert.fail(
        `sequence ${first} answers differently from the recorded transcript; its results now:\n${lines.join("\n")}`,
      );
    }
  });
}
