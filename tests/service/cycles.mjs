// Clients spread at random over service instances, each looping acquire -> signed PUT -> release
// on a few locks, and the checks of what they recorded: per lock, tokens strictly increase in the
// order the grants were made, and no grant was made while an earlier lease of the lock was live.

import assert from "node:assert/strict";
import { acquire, put, release } from "./calls.mjs";

const pick = (list) => list[Math.floor(Math.random() * list.length)];

/**
 * One client's loop until `until` (ms): each cycle on a random lock of `locks`, each call to a
 * random base of `bases()` (called every time, so a test may change the list while it runs).
 * `until` may be a function, for a run whose end moves. Resolves to its grants:
 * `{ lock, token, start, end, writer, header, put }`, where `start` is
 * when the service made the grant (its expiresAt minus the TTL, on the instances' shared clock)
 * and `end` until when the lease was surely live: its release's send time (the release may
 * have been applied from then on, whatever it was answered), or its expiry if earlier. With
 * `waitMs`, each acquire asks the service to wait that long for a held lock.
 */
export async function client(name, bases, locks, until, ttlMs = 3000, waitMs = 0) {
  const grants = [];
  const refused = { held: 0, unavailable: 0 };
  const end = typeof until === "function" ? until : () => until;
  while (Date.now() < end()) {
    const lock = pick(locks);
    const a = await acquire(pick(bases()), lock, ttlMs, waitMs > 0 ? { waitMs } : {}).catch(() => ({ status: 0 }));
    if (a.status !== 200) {
      if (a.status === 409) refused.held++;
      else refused.unavailable++;
      continue;
    }
    const g = { lock, token: BigInt(a.json.token), start: a.json.expiresAt - ttlMs, end: a.json.expiresAt, writer: name, header: a.json.header };
    grants.push(g);
    g.put = (await put(pick(bases()), lock, a.json.header, `${name} ${g.token}`, { "Fencepost-Writer": name }).catch(() => ({ status: 0 }))).status;
    const sent = Date.now();
    // Whatever the answer, the release may have been applied from the moment it was sent (an
    // answer lost with a dying engine member is a 503 for a release that was stored): from then
    // on the lease is no longer surely live.
    await release(pick(bases()), lock, a.json).catch(() => ({ status: 0 }));
    g.end = Math.min(g.end, sent);
  }
  return { grants, refused };
}

/** `grants` by lock (Map.groupBy, which Node 20 lacks). */
export function byLock(grants) {
  const m = new Map();
  for (const g of grants) m.set(g.lock, [...(m.get(g.lock) ?? []), g]);
  return m;
}

/** Per lock: tokens unique and increasing in the order grants were made; no overlapping grant. */
export function checkGrants(grants) {
  const locks = byLock(grants);
  for (const [lock, list] of locks) {
    list.sort((a, b) => (a.token < b.token ? -1 : a.token > b.token ? 1 : 0));
    for (let i = 1; i < list.length; i++) {
      const [p, g] = [list[i - 1], list[i]];
      assert.ok(p.token < g.token, `lock ${lock}: token ${g.token} granted twice`);
      assert.ok(p.start <= g.start, `lock ${lock}: token ${g.token} granted at ${g.start}, before ${p.token} at ${p.start}`);
      assert.ok(g.start >= p.end, `lock ${lock}: ${g.token} granted at ${g.start} while ${p.token} was live until ${p.end}`);
    }
  }
  return locks.size;
}
