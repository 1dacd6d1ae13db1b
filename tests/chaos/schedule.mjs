// The campaign's randomness: one seeded generator (a 32-bit multiply-xorshift, mulberry32) and the
// schedule of faults drawn from it before anything starts, so that a seed names one schedule and a
// failing run can be replayed with `--seed`. What the faults then meet (which request a reset cuts)
// depends on timing and is not replayed exactly; the schedule is.

/** A generator of floats in [0, 1) from a 32-bit seed. */
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** An integer in [lo, hi]. */
export const between = (random, lo, hi) => lo + Math.floor(random() * (hi - lo + 1));
export const pick = (random, list) => list[Math.floor(random() * list.length)];

/** Every nemesis the campaign knows; kill-service brings restart-service with it. */
export const NEMESES = [
  "pause-client",
  "kill-service",
  "pause-engine",
  "kill-engine",
  "proxy-hold",
  "proxy-delay",
  "proxy-drop",
  "proxy-reset",
  "clock-fast",
  "clock-slow",
];

/**
 * Clock rates for libfaketime: within a client's driftPpm of 1000 (500 ppm off) and far beyond it
 * (1%). A fast clock ends a lease early (safe); a slow one believes past the service's expiry.
 */
export const RATES = {
  "clock-fast": { within: 1.0005, beyond: 1.01 },
  "clock-slow": { within: 0.9995, beyond: 0.99 },
};

/**
 * How long each fault lasts, in ms, from the lease TTL: a pause must outlast the lease, and so
 * must a held connection, for a write it holds to arrive after another client took the lock (and
 * after its sender gave up on it) and meet the fence.
 */
function duration(random, nemesis, ttlMs) {
  switch (nemesis) {
    case "pause-client":
    case "proxy-hold":
      return between(random, Math.round(ttlMs * 1.5), ttlMs * 3);
    case "clock-fast":
    case "clock-slow":
      return between(random, ttlMs * 3, ttlMs * 6);
    case "kill-service":
    case "kill-engine":
      return between(random, 1_000, 4_000);
    default:
      return between(random, 500, Math.round(ttlMs * 1.5));
  }
}

/**
 * The schedule of a campaign of `seconds`: faults one after another with quiet gaps between them,
 * at most `overlap` at once. Every nemesis comes once (in a seeded order) before any comes twice,
 * so even a short campaign meets each; clock faults alternate within and beyond the drift bound.
 * Each entry: `{ at, nemesis, ms, pick, within }` with `pick` a float that chooses the target once
 * the targets are known, and `within` for clock faults.
 */
export function schedule(seed, seconds, ttlMs, { settleMs = 4_000, overlap = 2 } = {}) {
  const random = rng(seed);
  const end = seconds * 1000 - settleMs;
  const out = [];
  let bag = [];
  let clockWithin = random() < 0.5;
  const lanes = new Array(overlap).fill(settleMs);
  for (;;) {
    if (bag.length === 0) bag = shuffled(random, NEMESES);
    const nemesis = bag.pop();
    const lane = lanes.indexOf(Math.min(...lanes));
    const at = lanes[lane] + between(random, 300, 1_500);
    const ms = duration(random, nemesis, ttlMs);
    if (at + ms > end) break;
    lanes[lane] = at + ms;
    const entry = { at, nemesis, ms, pick: random() };
    if (nemesis.startsWith("clock-")) {
      entry.within = clockWithin;
      clockWithin = !clockWithin;
    }
    out.push(entry);
  }
  return out.sort((a, b) => a.at - b.at);
}

function shuffled(random, list) {
  const a = [...list];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}
