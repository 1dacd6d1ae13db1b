// The lease service: a Web-standard `fetch(request) -> Response` handler over a lock backend (where
// each lock's state lives, committed only if unchanged) and a fenced document store. It keeps no
// state of its own beyond its counters, so any number of instances can serve the same locks over
// the same engine: a lock's state is read, decided by fencepost's core, and committed only if no
// other instance changed it meanwhile; the loser of such a race reads again.

import { StoreContentionError } from "fencepost/store";
import { withCors } from "./cors.js";
import { adoptDoc, docGet, docPut, signedToken, writeLine } from "./documents.js";
import { COUNTED, Metrics } from "./metrics.js";
import { checkOptions } from "./options.js";
import { answer, HttpError, json, readJson, readText } from "./http.js";
import { loadAuthority, lockOp, lockState } from "./decide.js";
import { route } from "./routes.js";
import { Waits, waitOf } from "./waits.js";

/** Attempts of a lock operation before it gives up under contention. */
const MAX_ATTEMPTS = 64;

/**
 * Commits `snapshot` as `lock`'s state if its version is still `version`: null when stored, else
 * the state that came first when the backend read it with the commit, else undefined.
 */
async function commitOrRead(locks, lock, version, snapshot, deleteAt) {
  if (typeof locks.commitOrRead === "function") return await locks.commitOrRead(lock, version, snapshot, deleteAt);
  return (await locks.commit(lock, version, snapshot, deleteAt)) ? null : undefined;
}

/** Waits a random while, longer after each lost race, so racing requests spread out. */
function backoff(attempt) {
  const ms = Math.random() * Math.min(50, 2 ** attempt);
  return new Promise((r) => setTimeout(r, ms));
}

export class LeaseService {
  #o;
  #waits;
  /** The counters (and the gauge of waiting acquires) this object answers at GET /metrics. */
  metrics = new Metrics(() => (this.#o.locks === undefined ? {} : { waiting: this.#waits.size }));

  /**
   * @param options `{ keys, locks?, documents?, maxTtlMs?, idleKeepMs?, corsOrigins?, writeLog?,
   *   maxDocumentBytes?, reportCounts?, maxWaitMs?, maxWaiters?, maxWaitersPerLock? }`; see
   *   service/index.d.ts.
   */
  constructor(options) {
    this.#o = checkOptions(options);
    this.#waits = new Waits(this.#o.locks ?? {}, this.#o);
    // A handler to pass on as it is (`Deno.serve(service.fetch)`, `export default service`).
    this.fetch = this.fetch.bind(this);
  }

  /** Answers one HTTP request of the service's API. */
  async fetch(request) {
    return withCors(this.#o.corsOrigins, request, (r) => this.#serve(r));
  }

  /**
   * Deletes the state of every lock idle for the idle keep time, for a backend that does not
   * expire states by itself; answers how many. A host calls it now and then (the Node host every
   * few seconds); a backend without `sweep` answers 0.
   */
  async sweep(now = Date.now()) {
    return typeof this.#o.locks?.sweep === "function" ? await this.#o.locks.sweep(now) : 0;
  }

  /** How many acquires wait in this service now. */
  get waiting() {
    return this.#waits.size;
  }

  /**
   * Answers every acquire waiting for a lock now, each as its wait's end would ("held"), and
   * every later one at once: for a host that is stopping, so that no client's wait is cut off.
   */
  endWaits() {
    this.#waits.end();
  }

  async #serve(request) {
    const counted = [];
    const response = await answer(async () => {
      const r = route(request);
      if (r === null) throw new HttpError(404, "no such endpoint");
      if (r.kind === "metrics") return this.metrics.response();
      if (r.kind === "doc") return await this.#doc(request, r.key, counted);
      return await this.#lock(request, r, counted);
    });
    this.metrics.add(counted);
    if (this.#o.reportCounts && counted.length > 0) response.headers.set(COUNTED, counted.join(" "));
    return response;
  }

  async #lock(request, r, counted) {
    const locks = this.#o.locks;
    if (locks === undefined) throw new HttpError(404, "this service keeps no locks");
    const body = r.kind === "lock" ? await readJson(request) : null;
    const waitMs = r.action === "acquire" ? waitOf(body, this.#o.maxWaitMs) : 0;
    // A release here may hand the lock to this acquire: decided on the freed authority, counted
    // here once the release's commit holds (see Waits#handOver).
    const take = (auth, now) => {
      const op = lockOp(this.#o, auth, r.name, "acquire", body, now);
      if (!op.changed || op.response.status !== 200) return null;
      return { ...op, granted: () => counted.push(...op.counted) };
    };
    const decide = (state, waiting) => this.#decide(locks, r, body, counted, state, waiting);
    const out = await this.#waits.run(r.name, waitMs, request.signal, decide, take);
    return json(out.status, out.body);
  }

  /**
   * Decides a lock operation on its lock's state and commits what changed: on `state` when given
   * (as a backend's watch delivered it), else on the newest state the backend's watch reported
   * (`peek`) for an operation on a lock, else on a fresh read; a lost race decides again on the
   * state that beat it (when the backend answered it with the commit) or on a fresh read. Any
   * state is as good as a read for a commit, which holds only if the lock's version is still the
   * one decided on. An answer that commits nothing ("held", a refusal) is given from a fresh
   * state (read, delivered by a watch, or answered by a lost commit), except a "held" to an
   * acquire that goes on waiting (`waiting`): its wait watches the lock from the version decided
   * on, so a newer change wakes it at once. Answers `{ response, held, version }` (see Waits#run).
   */
  async #decide(locks, r, body, counted, state, waiting) {
    let known = state ?? (r.kind === "lock" ? locks.peek?.(r.name) : undefined) ?? undefined;
    let fresh = state !== undefined;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      if (attempt > 1 || (attempt > 0 && known === undefined)) await backoff(attempt);
      if (known === undefined) {
        known = await locks.read(r.name);
        fresh = true;
      }
      const { snapshot, version } = known;
      const now = Date.now();
      const auth = loadAuthority(snapshot, now);
      let lost;
      try {
        if (r.kind === "lockState") return { response: lockState(auth, now), held: null, version };
        const op = lockOp(this.#o, auth, r.name, r.action, body, now);
        if (!op.changed && (fresh || (waiting && op.held !== null))) return { response: op.response, held: op.held, version };
        // Committed before the answer goes out, and only if nobody changed the lock meanwhile.
        if (op.changed) {
          lost = await this.#commit(locks, r, version, auth, op, now);
          if (lost === null) {
            counted.push(...op.counted);
            // A lock-delay noticed and committed: the version that keeps the acquire waiting is
            // the one just written, which the read did not see; the next wake-up reads it.
            return { response: op.response, held: op.held, version: op.held === null ? version : null };
          }
        }
      } finally {
        auth.free();
      }
      // A peeked state that commits nothing, or lost its race, costs no attempt of its own.
      if (!fresh) attempt--;
      known = lost;
      fresh = lost !== undefined;
    }
    throw new HttpError(503, "too much contention on this lock; try again");
  }

  /**
   * Commits `auth` as decided by `op` at `now`: null when stored, else what commitOrRead answers.
   * A release that frees the lock first hands it to an acquire waiting here, if any, granted in
   * the same commit; without a handover, the waiters learn of the change (see Waits#changed).
   */
  async #commit(locks, r, version, auth, op, now) {
    const handed = r.action === "release" && auth.lease(now) === null ? this.#waits.handOver(r.name, auth, now) : null;
    let lost;
    try {
      lost = await commitOrRead(locks, r.name, version, auth.snapshot(), handed?.op.deleteAt ?? op.deleteAt);
    } catch (e) {
      if (handed !== null) this.#waits.settle(handed.slot, null);
      throw e;
    }
    if (handed !== null) {
      if (lost === null) handed.op.granted();
      this.#waits.settle(handed.slot, lost === null ? handed.op : null, lost ?? null);
    } else if (lost === null && (op.counted.includes("releases") || op.counted.includes("expiries"))) {
      this.#waits.changed(r.name);
    }
    return lost;
  }

  async #doc(request, key, counted) {
    const docs = this.#o.documents;
    if (docs === undefined) throw new HttpError(404, "this service keeps no documents");
    if (request.method === "GET") return await docGet(docs, key);
    const token = signedToken(this.#o.ring, request, key, counted);
    const data = await readText(request, this.#o.maxDocumentBytes);
    let decision;
    try {
      // A store retries a lost race itself and ends in a StoreContentionError after its attempts.
      decision = await docPut(docs, key, token, data, counted);
    } catch (e) {
      if (e instanceof StoreContentionError) throw new HttpError(503, "too much contention on this document; try again");
      throw e;
    }
    if (this.#o.writeLog !== null) this.#o.writeLog(writeLine(request, key, token, decision.accepted, Date.now()));
    return decision.response;
  }

  /** Moves a document an earlier version stored into the documents store (see adoptDoc). */
  async adoptDocument(key, highest, data) {
    if (this.#o.documents === undefined) throw new TypeError("this service keeps no documents");
    await adoptDoc(this.#o.documents, key, highest, data);
  }
}
