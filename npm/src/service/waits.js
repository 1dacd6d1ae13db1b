// Acquires that wait in the service for a held lock, instead of being answered "held" at once and
// asking again. A waiting acquire is decided again, by the same code and fencepost's core, each
// time something says the lock may have changed: the lock backend's watch (a change made by any
// instance), a change this instance committed itself (for a backend that cannot watch), the held
// lease's expiry, or a short re-read. It is answered as soon as a decision grants it, or, when its
// wait ends, with the same "held" answer as an acquire that did not wait.
//
// What a wait may cost is bounded: how long (the service's cap on what a client asks), how many
// one instance holds in total and on one lock (beyond either, the acquire is answered at once, as
// if it had not asked to wait), and every watch it opened is stopped when it ends. `end()` answers
// every wait at once, for a host that is stopping.
//
// Of several acquires waiting on one lock in this instance, a change wakes one, the longest
// waiting: only one of them could be granted, and waking every one would send them all to the
// engine to race for it. The one woken and answered "held" again goes back to sleep at its place.
//
// A release decided in this instance hands the lock over to the longest waiting acquire here, when
// there is one: the service decides that acquire on the released state and commits both in one
// change, so the lock passes from holder to waiter in one commit, and no waiter of any instance
// races for a lock that was free for no one. The waiter is claimed while that commit is in flight
// (nothing else wakes it), then answered with its grant, or woken to decide again if the commit
// lost its race.

import { HttpError } from "./http.js";
import { LONGEST_MS } from "./options.js";

/**
 * A backend without a watch: how soon a waiting acquire reads its lock again, the first time and
 * at most, doubling in between (jittered): prompt when the holder is quick, and many waiters on
 * long leases do not keep the engine busy.
 */
const RECHECK_MS = 25;
const RECHECK_MAX_MS = 400;
/** A backend with a watch: a read now and then all the same, should a change go unreported. */
const WATCHED_RECHECK_MS = 1000;

/** How long the acquire of `body` asks to wait (`waitMs`, default 0), capped at `maxWaitMs`. */
export function waitOf(body, maxWaitMs) {
  const w = body.waitMs;
  if (w === undefined) return 0;
  if (!Number.isSafeInteger(w) || w < 0 || w > LONGEST_MS) {
    throw new HttpError(400, `waitMs must be a whole number of milliseconds from 0 to ${LONGEST_MS}`);
  }
  return Math.min(w, maxWaitMs);
}

/** One waiting acquire: asleep, or deciding again after a wake-up. */
class Slot {
  /** What wakes the sleep in progress (nothing while it is claimed), or null while awake. */
  wake = null;
  /** What ends the sleep in progress, claimed or not, with `{ state }` or `{ decided }`. */
  finish = null;
  /** A release's handover decides this acquire now: nothing else may wake it. */
  claimed = false;
  /** A wake-up that came while awake, kept for the next sleep: `{ state }`. */
  pending = null;
  /** How many times it has found the lock held and slept: until then, an acquire like any other. */
  sleeps = 0;

  /** `take(auth, now)`: the acquire decided on a released authority (see Waits#handOver). */
  constructor(lock, take) {
    this.lock = lock;
    this.take = take;
  }
}

export class Waits {
  #locks;
  #maxWaiters;
  #maxPerLock;
  /** Per lock, its waiting acquires, longest waiting first. */
  #byLock = new Map();
  #count = 0;
  #ended = false;

  /** `locks`: the backend (its optional `watch`); `limits`: `{ maxWaiters, maxWaitersPerLock }`. */
  constructor(locks, limits) {
    this.#locks = locks;
    this.#maxWaiters = limits.maxWaiters;
    this.#maxPerLock = limits.maxWaitersPerLock;
  }

  /** How many acquires wait now: found their lock held, and are not answered yet. */
  get size() {
    let n = 0;
    for (const slots of this.#byLock.values()) for (const s of slots) if (s.sleeps > 0) n++;
    return n;
  }

  /**
   * Runs a waiting acquire on `lock` for up to `waitMs`: `decide(state?, waiting)` decides it (on
   * `state` when a watch delivered the lock's state, else on a fresh read; `waiting`: a "held"
   * will be waited on, not answered) and answers `{ response, held, version }`, where `held` is
   * when the lease that keeps it waiting ends, or null when `response` is final. Answers the first
   * final response, or the last "held" one when the wait ends, the request is aborted
   * (`signal`), the bounds are reached, or `end()` was called. `take(auth, now)` decides this
   * acquire on an authority a release just freed, for a handover (see handOver).
   */
  async run(lock, waitMs, signal, decide, take) {
    const deadline = Date.now() + waitMs;
    // Entered before the first decision, so a change this instance makes meanwhile is not missed.
    const slot = waitMs > 0 ? this.#enter(lock, take) : null;
    try {
      const waiting = () => slot !== null && !this.#ended && !signal?.aborted && Date.now() < deadline;
      let d = await decide(undefined, waiting());
      while (d.held !== null && waiting()) {
        const woken = await this.#sleep(slot, Math.min(deadline, d.held), d.version, signal);
        if (woken.decided !== undefined) return woken.decided.response;
        if (this.#ended || signal?.aborted) break;
        d = await decide(woken.state ?? undefined, waiting());
      }
      return d.response;
    } finally {
      if (slot !== null) this.#leave(slot);
    }
  }

  /**
   * Says `lock` changed in this instance (a release or an expiry committed here), for a backend
   * that cannot watch: wakes the longest waiting acquire on it, to read it again.
   */
  changed(lock) {
    if (typeof this.#locks.watch !== "function") this.#offer(lock, null);
  }

  /**
   * For a release about to commit `auth` (its lease just ended at `now`): claims the longest
   * waiting acquire on `lock` that sleeps here and decides it on `auth` (`take`), which grants it
   * in place. Answers `{ slot, op }` to commit with the release and then `settle`, or null (no
   * such acquire, or it was not granted: it sleeps on, unclaimed).
   */
  handOver(lock, auth, now) {
    if (this.#ended) return null;
    const slot = this.#byLock.get(lock)?.find((s) => s.wake !== null && !s.claimed);
    if (slot === undefined) return null;
    const op = slot.take(auth, now);
    if (op === null) return null;
    slot.claimed = true;
    return { slot, op };
  }

  /**
   * Ends a handover: the claimed acquire is answered with `op` (its grant was committed), or,
   * when `op` is null, wakes to decide again on `state` (the lock's state if known, else null).
   */
  settle(slot, op, state = null) {
    slot.claimed = false;
    slot.finish?.(op !== null ? { decided: op } : { state });
  }

  /** Answers every wait now (a host stopping), and every later acquire at once. */
  end() {
    this.#ended = true;
    for (const slots of this.#byLock.values()) for (const s of slots) s.wake?.(null);
  }

  #enter(lock, take) {
    if (this.#ended || this.#count >= this.#maxWaiters) return null;
    const slots = this.#byLock.get(lock) ?? [];
    if (slots.length >= this.#maxPerLock) return null;
    const slot = new Slot(lock, take);
    slots.push(slot);
    this.#byLock.set(lock, slots);
    this.#count++;
    return slot;
  }

  #leave(slot) {
    const slots = this.#byLock.get(slot.lock);
    slots.splice(slots.indexOf(slot), 1);
    if (slots.length === 0) this.#byLock.delete(slot.lock);
    this.#count--;
    // A wake-up it did not act on is another waiter's.
    if (slot.pending !== null) this.#offer(slot.lock, slot.pending.state, true);
  }

  /**
   * Wakes the longest waiting acquire on `lock` that sleeps (else keeps it for the first), with
   * the lock's `state` if known. A change is offered once, however many watches heard it, unless
   * `again` (the offer of a waiter that left without acting on it).
   */
  #offer(lock, state, again = false) {
    const slots = this.#byLock.get(lock);
    if (slots === undefined) return;
    if (state !== null && !again) {
      const v = state.version;
      // A Deno KV version is its entry; its versionstamp names the change.
      const change = typeof v === "object" && v !== null ? v.versionstamp : v;
      if (slots.offered === change) return;
      slots.offered = change;
    }
    const asleep = slots.find((s) => s.wake !== null && !s.claimed);
    if (asleep !== undefined) asleep.wake(state);
    else slots[0].pending = { state };
  }

  /**
   * Sleeps until a wake-up, `until` (the held lease's end or the wait's), the next re-read, or the
   * end of a handover; answers `{ state }`, the lock's state when a watch delivered it (else
   * null), or `{ decided }`, the grant a handover committed. While it sleeps the backend watches
   * the lock for any change after `version`, the version the last decision read.
   */
  #sleep(slot, until, version, signal) {
    slot.sleeps++;
    if (slot.pending !== null) {
      const { state } = slot.pending;
      slot.pending = null;
      return Promise.resolve({ state });
    }
    return new Promise((resolve) => {
      let finished = false;
      let timer = null;
      let stop = null;
      const finish = (woken) => {
        if (finished) return;
        finished = true;
        clearTimeout(timer);
        signal?.removeEventListener("abort", aborted);
        slot.wake = null;
        slot.finish = null;
        stop?.();
        resolve(woken);
      };
      // A claimed acquire is ended by its handover's settle only.
      const done = (state) => {
        if (!slot.claimed) finish({ state });
      };
      const aborted = () => done(null);
      signal?.addEventListener("abort", aborted, { once: true });
      slot.wake = done;
      slot.finish = finish;
      if (typeof this.#locks.watch === "function") {
        // A change the backend reports wakes the longest waiting acquire, whichever slot's watch
        // heard it; one made before the watch began wakes this slot itself.
        stop = this.#locks.watch(slot.lock, version, (state, before) => {
          if (before) done(state);
          else this.#offer(slot.lock, state);
        });
      }
      if (finished) {
        // Woken while the watch began: it is stopped now that it exists.
        stop?.();
        return;
      }
      const unwatched = Math.min(RECHECK_MAX_MS, RECHECK_MS * 2 ** Math.min(slot.sleeps - 1, 8));
      const recheck = stop !== null ? WATCHED_RECHECK_MS : unwatched / 2 + Math.random() * unwatched;
      // One millisecond past the lease's end, so that the decision sees it ended.
      timer = setTimeout(() => done(null), Math.max(0, Math.min(until + 1 - Date.now(), recheck)));
    });
  }
}
