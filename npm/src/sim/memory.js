// The simulator module's memory: what each call may take, and what live objects hold.
//
// The module's memory ends at 4 GiB (or where the host caps it). Every call of the module first
// makes room for the most it can take, and refuses with a RangeError (NO_MEMORY) when the memory
// cannot grow that far, so an allocation never fails inside it. On top of that, the package
// refuses, before it starts, a run, sweep, search or history check that could take more than its
// share, with a RangeError that says which option to lower and to free() objects no longer
// needed. The bounds are the simulator's own (`run_bytes`, `sweep_bytes`, `search_bytes`
// and the history checker's `line_bytes`, through the module; crates/fencepost-sim/tests checks
// them against what runs, searches and checks allocate), and so is what a live object is counted
// at once it is made: a finished run's `held_bytes`, a checker's `held_bytes` after each line.
// Live objects may hold at most MEMORY_CAP bytes between them; and what the module's allocator has
// carved of the memory, plus what live sweeps and unfinished searches could still take, must stay
// below MEMORY_END.

import { MAX_SEARCH_STATES, MAX_SWEEP_EVENTS } from "./limits.js";
import { W } from "./instance.js";

const MIB = 2 ** 20;
/** Most bytes live runs, sweeps, searches and history checkers may hold between them. */
const MEMORY_CAP = 3072 * MIB;
/** Most bytes one search may take. */
const SEARCH_SHARE = 2048 * MIB;
/** Where the objects' memory must end: 4 GiB less room for arguments and values written out. */
const MEMORY_END = 3840 * MIB;

/** A recorded run stopped at `maxEvents` events, while it runs (`run_bytes`). */
export function recordedRun(maxEvents) {
  return W.memory_bound(0, maxEvents);
}

/** A sweep whose runs stop at `maxEvents` events (`sweep_bytes`). */
export function sweepBytes(maxEvents) {
  return W.memory_bound(1, maxEvents);
}

/** A search of at most `maxStates` states (`search_bytes`). */
export function searchBytes(maxStates) {
  return W.memory_bound(2, maxStates);
}

/** The largest `n` from `lo` to `hi` with `fits(n)`, for a `fits` that holds up to some point. */
function largest(lo, hi, fits) {
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (fits(mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

let sweepFit = 0;
/** The most events per run a sweep may have. */
export function sweepEventsThatFit() {
  if (sweepFit === 0) sweepFit = largest(1, MAX_SWEEP_EVENTS, (n) => sweepBytes(n) <= MEMORY_CAP);
  return sweepFit;
}

let searchFit = 0;
/** The most states one search may have. */
export function statesThatFit() {
  if (searchFit === 0) searchFit = largest(2, MAX_SEARCH_STATES, (n) => searchBytes(n) <= SEARCH_SHARE);
  return searchFit;
}

/** Bytes held by each live object (by key: kind and index), and whether it may still grow. */
const holds = new Map();
let held = 0;
let growing = 0;

function mib(bytes) {
  return Math.ceil(bytes / MIB);
}

/** Refuses to make an object that could need `bytes` bytes when they may not be left. */
export function room(argName, what, bytes, lower = argName) {
  const used = W.memory_carved();
  const left = Math.min(MEMORY_CAP - held, MEMORY_END - used - growing);
  if (bytes > MEMORY_CAP) {
    // Not even with every other object freed.
    throw new RangeError(
      `${argName}: ${what} could need up to ${mib(bytes)} MiB of the simulator's memory, more than its objects may ever hold (${mib(MEMORY_CAP)} MiB)${lower === null ? "" : `: lower ${lower}`}`,
    );
  }
  if (bytes > left) {
    throw new RangeError(
      `${argName}: ${what} could need up to ${mib(bytes)} MiB of the simulator's memory and ${Math.max(0, Math.floor(left / MIB))} MiB are left (live runs, sweeps, searches and history checkers hold up to ${mib(held)} MiB of the ${mib(MEMORY_CAP)} MiB they may have, and the memory has grown to ${mib(used)} MiB): free() those no longer needed${lower === null ? "" : `, or lower ${lower}`}`,
    );
  }
}

export function hold(key, bytes, grows) {
  holds.set(key, [bytes, grows]);
  held += bytes;
  if (grows) growing += bytes;
}

export function stopGrowing(key) {
  const h = holds.get(key);
  if (h?.[1]) {
    h[1] = false;
    growing -= h[0];
  }
}

export function release(key) {
  const h = holds.get(key);
  if (h === undefined) return;
  holds.delete(key);
  held -= h[0];
  if (h[1]) growing -= h[0];
}
