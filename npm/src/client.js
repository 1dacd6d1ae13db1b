// The lease client of `fencepost/client`: holds leases of the fencepost lease service (the HTTP API
// of fencepost/service) for a worker script.
//
// Every decision about a lease (is it still safe, until when, when to renew, is it lost) is the
// core keeper's, asked through LeaseKeeper; this file only speaks HTTP, keeps timers and turns the
// keeper's answers into an AbortSignal, errors and the Fencing-Token header. Time is the monotonic
// clock of `performance.now()`, in whole milliseconds: a wall clock stepped back or forward must
// neither revive a lease nor cut one short.

import { HEADER_NAME, LeaseKeeper, tokenFromString } from "./api.js";
import { checkOptions, describe, ms } from "./common.js";

const now = () => Math.floor(performance.now());

const CLIENT_KEYS = ["url", "fetch", "driftPpm", "marginMs", "renewPpm", "retryMs", "onState"];
const ACQUIRE_KEYS = ["ttlMs", "ifAvailable", "waitMs", "signal"];
/** The lease length asked when none is given: the service's default. */
const DEFAULT_TTL_MS = 30_000;
/** Backoff on a held lock: the first wait, and the longest (each is jittered down to half). */
const BACKOFF_FIRST_MS = 25;
const BACKOFF_MAX_MS = 1_000;
/**
 * The longest wait asked of the service per acquire, as a share of the lease's TTL: the lease's
 * safe time counts from when the acquire was sent, so a grant after a long wait would leave
 * little of it. And never more than this, so that a service's or proxy's idle timeout is not met.
 */
const SERVICE_WAIT_SHARE = 4;
const SERVICE_WAIT_MAX_MS = 10_000;
/** The base URL when only a `fetch` is given (a service binding ignores the host). */
const BINDING_BASE = "http://fencepost.invalid/";

const WHY = {
  expired: "its safe-until passed without a successful renewal",
  refused: "the service says it is no longer held",
  released: "it was released",
};

/** A lease that may no longer be acted on; `why` is "expired", "refused" or "released". */
export class LeaseLostError extends Error {
  constructor(lock, why) {
    super(`the lease on lock ${JSON.stringify(lock)} is lost: ${WHY[why]}`);
    this.name = "LeaseLostError";
    this.lock = lock;
    this.why = why;
  }
}

/** A lock still held by another holder when the wait an acquire allowed ran out. */
export class LockHeldError extends Error {
  constructor(lock, waitMs) {
    super(`lock ${JSON.stringify(lock)} is still held by another holder after waiting ${waitMs} ms`);
    this.name = "LockHeldError";
    this.lock = lock;
  }
}

/**
 * An answer of the lease service the client cannot act on (a refused request, a bad answer), or
 * no answer at all (status 0, the network's error as `cause`).
 */
export class LeaseServiceError extends Error {
  constructor(message, status, cause) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = "LeaseServiceError";
    this.status = status;
  }
}

// -------------------------------------------------------------------------------------------
// The service's HTTP API, in one place: what each answer means for the client.

/**
 * POSTs `body` to `/locks/<lock>/<action>`; answers `{ status, json }`, with status 0 when no
 * answer came (the network failed). An abort of `signal` rejects with its reason.
 */
async function post(service, lock, action, body, signal) {
  const url = new URL(`locks/${encodeURIComponent(lock)}/${action}`, service.base);
  const init = { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body), signal };
  try {
    const r = await service.fetch(url, init);
    const text = await r.text();
    let json = null;
    try {
      json = JSON.parse(text);
    } catch {
      // Not JSON (a proxy's error page): the status alone speaks.
    }
    return { status: r.status, json };
  } catch (e) {
    if (signal?.aborted) throw signal.reason;
    const said = e instanceof Error ? `: ${e.message}` : "";
    return { status: 0, json: null, error: new LeaseServiceError(`the lease service could not be reached${said}`, 0, e) };
  }
}

/** The grant a 200 carries, or null when the answer is not one. */
function grantOf(json) {
  if (json === null || typeof json !== "object") return null;
  const { token, header, leaseId } = json;
  if (typeof token !== "string" || typeof header !== "string" || typeof leaseId !== "string") return null;
  try {
    return { token: tokenFromString(token), header, leaseId };
  } catch {
    return null;
  }
}

/**
 * An acquire's answer: `{ kind: "granted", grant }`, `{ kind: "held" }`, `{ kind: "transient",
 * error }` (no answer, or a server error: try again), or a thrown LeaseServiceError (the request
 * itself is refused: trying again cannot help).
 */
async function acquireCall(service, lock, ttlMs, waitMs, signal) {
  // A service that cannot wait ignores waitMs and answers "held" at once, as before.
  const body = waitMs > 0 ? { ttlMs, waitMs } : { ttlMs };
  const { status, json, error } = await post(service, lock, "acquire", body, signal);
  if (status === 200) {
    const grant = grantOf(json);
    if (grant === null) throw new LeaseServiceError("the service answered an acquire without a token, header and leaseId", status);
    return { kind: "granted", grant };
  }
  if (status === 409 && json?.error === "held") return { kind: "held" };
  if (status === 0 || status >= 500) {
    return { kind: "transient", error: error ?? new LeaseServiceError(`the service failed: HTTP ${status}`, status) };
  }
  const said = typeof json?.error === "string" ? `: ${json.error}` : "";
  throw new LeaseServiceError(`the service refused to acquire lock ${JSON.stringify(lock)}: HTTP ${status}${said}`, status);
}

/**
 * A renewal's answer: "granted" (with `grant`), "refused" (409 or 403: the service says this
 * lease is not held any more) or "transient" (anything else: the lease may still be held).
 */
async function renewCall(service, lock, ttlMs, grant, signal) {
  const body = { leaseId: grant.leaseId, token: grant.token.toString(), ttlMs };
  const { status, json } = await post(service, lock, "renew", body, signal);
  if (status === 200) {
    const renewed = grantOf(json);
    return renewed === null ? { kind: "transient" } : { kind: "granted", grant: renewed };
  }
  if (status === 409 || status === 403) return { kind: "refused" };
  return { kind: "transient" };
}

/** Releases a lease; answers whether the service confirmed it. */
async function releaseCall(service, lock, grant) {
  const body = { leaseId: grant.leaseId, token: grant.token.toString() };
  const { status } = await post(service, lock, "release", body, undefined);
  return status === 200;
}

// -------------------------------------------------------------------------------------------
// Timers: never what keeps a Node process alive once a lease is released or lost (a renewal
// timer is unref'd), and a wait of the caller's is cancelled by its signal.

function timer(fn, delay, keepAlive) {
  const t = setTimeout(fn, delay);
  if (!keepAlive && typeof t === "object" && typeof t?.unref === "function") t.unref();
  return t;
}

function sleep(delay, signal) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal.reason);
    };
    const t = timer(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, delay, true);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * How long the service may hold an acquire for a lock held by another (see SERVICE_WAIT_SHARE),
 * with `left` ms of the caller's wait remaining.
 */
function serviceWait(ttlMs, left) {
  return Math.max(0, Math.floor(Math.min(left, ttlMs / SERVICE_WAIT_SHARE, SERVICE_WAIT_MAX_MS)));
}

/** The `attempt`th wait on a held lock: exponential, capped, jittered down to half. */
function backoff(attempt) {
  const full = Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** Math.min(attempt, 16));
  return Math.ceil(full / 2 + Math.random() * (full / 2));
}

// -------------------------------------------------------------------------------------------
// The client.

function acquireOptions(v) {
  const o = checkOptions("options", v, ACQUIRE_KEYS);
  const ttlMs = o.ttlMs === undefined ? DEFAULT_TTL_MS : ms("options.ttlMs", o.ttlMs);
  if (ttlMs < 1) throw new RangeError("options.ttlMs must be at least 1");
  const ifAvailable = o.ifAvailable === undefined ? false : o.ifAvailable;
  if (typeof ifAvailable !== "boolean") throw new TypeError(`options.ifAvailable must be a boolean, got ${describe(ifAvailable)}`);
  let waitMs = Infinity;
  if (o.waitMs !== undefined && o.waitMs !== Infinity) waitMs = ms("options.waitMs", o.waitMs);
  const signal = o.signal;
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw new TypeError(`options.signal must be an AbortSignal, got ${describe(signal)}`);
  }
  return { ttlMs, ifAvailable, waitMs, signal };
}

function lockName(v) {
  if (typeof v !== "string") throw new TypeError(`name must be a string, got ${describe(v)}`);
  if (v.length === 0) throw new RangeError("name must not be empty");
  return v;
}

/** Holds leases of one fencepost lease service. */
export class LeaseClient {
  #service;
  #judge;

  constructor(options) {
    const o = checkOptions("options", options, CLIENT_KEYS);
    if (o.url === undefined && o.fetch === undefined) {
      throw new TypeError("options must give the service's url, or a fetch function that reaches it");
    }
    if (o.fetch !== undefined && typeof o.fetch !== "function") {
      throw new TypeError(`options.fetch must be a function, got ${describe(o.fetch)}`);
    }
    let base = BINDING_BASE;
    if (o.url !== undefined) {
      if (typeof o.url !== "string" && !(o.url instanceof URL)) {
        throw new TypeError(`options.url must be a string or a URL, got ${describe(o.url)}`);
      }
      const u = new URL(o.url);
      if (!u.pathname.endsWith("/")) u.pathname += "/";
      base = u.href;
    }
    const f = o.fetch ?? globalThis.fetch;
    // Called unbound: a runtime's fetch (and a service binding's) refuses another `this`.
    this.#service = { base, fetch: (input, init) => f(input, init) };
    this.#judge = { driftPpm: o.driftPpm, marginMs: o.marginMs, renewPpm: o.renewPpm, retryMs: o.retryMs };
    if (o.onState !== undefined && typeof o.onState !== "function") {
      throw new TypeError(`options.onState must be a function, got ${describe(o.onState)}`);
    }
    this.#service.onState = o.onState ?? null;
    // The keeper checks these: a bad one is refused here, not at the first acquire.
    new LeaseKeeper({ ttlMs: 1, ...this.#judge }, 0).free();
  }

  /**
   * Acquires lock `name`: a Lease, renewed in the background until released or lost; null when
   * `ifAvailable` and the lock is held. A held lock is waited for in the service, which answers
   * the moment it can grant it (each request waits there at most a quarter of the TTL), and asked
   * again, at once after such a wait, else with jittered exponential backoff (a service that does
   * not wait answers at once) until `waitMs` passes (then LockHeldError, or the last error reaching the service) or
   * `signal` aborts (its reason). A service that cannot be reached is tried the same way, and so
   * is a grant that arrives after its own safe-until, once it is given back.
   */
  async acquire(name, options) {
    const lock = lockName(name);
    const { ttlMs, ifAvailable, waitMs, signal } = acquireOptions(options);
    // Rounded up: `now()` is whole milliseconds rounded down, so a deadline counted from it could
    // give up to a millisecond before `waitMs` has really passed.
    const deadline = Math.ceil(performance.now()) + waitMs;
    /**
     * Why the last try failed: the lock was held (null), the service could not be reached, or its
     * grant came too late to act on.
     */
    let failure = null;
    for (let attempt = 0; ; attempt++) {
      signal?.throwIfAborted();
      const keeper = new LeaseKeeper({ ttlMs, ...this.#judge }, now());
      let kept = false;
      const sent = now();
      const wait = ifAvailable ? 0 : serviceWait(ttlMs, deadline - sent);
      try {
        const ticket = keeper.send(sent);
        const answer = await acquireCall(this.#service, lock, ttlMs, wait, signal);
        if (answer.kind === "granted") {
          const s = keeper.granted(ticket, answer.grant.token, ttlMs, now());
          if (s.state === "held") {
            kept = true;
            return new Lease(this.#service, lock, ttlMs, keeper, answer.grant, s);
          }
          // Answered too late to act on: give it back, so that it does not keep the lock from
          // anyone (this client included) until it runs out at the service, and ask again.
          await releaseCall(this.#service, lock, answer.grant);
          const said = `the service granted lock ${JSON.stringify(lock)} too late to act on`;
          failure = new LeaseServiceError(`${said}: the answer came after its safe-until`, 200);
        } else if (answer.kind === "held") {
          keeper.failed(ticket, "refused", now());
          failure = null;
          if (ifAvailable) return null;
        } else {
          keeper.failed(ticket, "transient", now());
          failure = answer.error;
          if (ifAvailable) throw answer.error;
        }
      } finally {
        if (!kept) keeper.free();
      }
      const left = deadline - now();
      if (left <= 0) throw failure ?? new LockHeldError(lock, waitMs);
      // Asked again at once after the service waited all it was asked to; a quicker "held" (a
      // service that does not wait, or is at its bounds) is followed by the backoff, counted
      // from the send.
      const elapsed = now() - sent;
      const pause = wait > 0 && elapsed >= wait ? 0 : backoff(attempt) - elapsed;
      if (pause > 0) await sleep(Math.min(pause, left), signal);
    }
  }

  /**
   * The Web Locks shape: acquires lock `name`, runs `callback` with the Lease (null when
   * `ifAvailable` and the lock is held) and releases the lease when the callback settles, also
   * when it throws; resolves to what the callback resolved to.
   */
  async request(name, options, callback) {
    if (typeof options === "function" && callback === undefined) {
      callback = options;
      options = undefined;
    }
    if (typeof callback !== "function") throw new TypeError(`callback must be a function, got ${describe(callback)}`);
    const lease = await this.acquire(name, options);
    if (lease === null) return await callback(null);
    try {
      return await callback(lease);
    } finally {
      await lease.release();
    }
  }
}

// -------------------------------------------------------------------------------------------
// A lease.

/** One held lease. Made by LeaseClient#acquire. */
class Lease {
  #service;
  #lock;
  #ttlMs;
  #keeper;
  #grant;
  /** The keeper's last word; once "lost", the keeper is freed and this stays. */
  #last;
  #controller = new AbortController();
  #timer = null;

  constructor(service, lock, ttlMs, keeper, grant, state) {
    this.#service = service;
    this.#lock = lock;
    this.#ttlMs = ttlMs;
    this.#keeper = keeper;
    this.#grant = grant;
    this.#heard(state);
  }

  /** The lock's name. */
  get name() {
    return this.#lock;
  }

  /** The fencing token. */
  get token() {
    return this.#grant.token;
  }

  /** The exact `Fencing-Token` header value the service answered (signed when it signs). */
  get header() {
    return this.#grant.header;
  }

  /** The deadline on `performance.now()`'s clock: side effects may start only before it. */
  get safeUntil() {
    return this.#last.safeUntil;
  }

  /** "held", "uncertain" (renewals failing, still before safeUntil) or "lost", now. */
  get state() {
    return this.#now().state;
  }

  /** Aborted the moment the lease is lost; its reason is a LeaseLostError saying why. */
  get signal() {
    return this.#controller.signal;
  }

  /** Throws the LeaseLostError unless a side effect may start now. */
  assertSafe() {
    const s = this.#now();
    if (s.state !== "held" && s.state !== "uncertain") throw this.#controller.signal.reason;
  }

  /**
   * `fetch` with the lease's Fencing-Token header; rejects without sending when the lease is not
   * safe. A relative URL is resolved against the service's.
   */
  async fetch(input, init) {
    this.assertSafe();
    const base = input instanceof Request ? input.headers : undefined;
    const headers = new Headers(init?.headers ?? base);
    headers.set(HEADER_NAME, this.#grant.header);
    const target = typeof input === "string" || input instanceof URL ? new URL(input, this.#service.base) : input;
    return this.#service.fetch(target, { ...init, headers });
  }

  /**
   * Lets the lease go: answers whether the service confirmed the release. A lease already lost is
   * not released again (the service holds nothing of it to free).
   */
  async release() {
    if (this.#keeper === null) return false;
    this.#heard(this.#keeper.released(now()));
    return releaseCall(this.#service, this.#lock, this.#grant);
  }

  /** The keeper's state now, acted on. */
  #now() {
    if (this.#keeper !== null) this.#heard(this.#keeper.state(now()));
    return this.#last;
  }

  /** Acts on what the keeper said: aborts on a loss, else sets the timer for its next time. */
  #heard(s) {
    const before = this.#last;
    this.#last = s;
    if (before === undefined || before.state !== s.state || before.safeUntil !== s.safeUntil) this.#tell(s);
    clearTimeout(this.#timer);
    this.#timer = null;
    if (s.state === "lost") {
      this.#keeper.free();
      this.#keeper = null;
      this.#controller.abort(new LeaseLostError(this.#lock, s.why));
      return;
    }
    const at = s.nextSend === null ? s.safeUntil : Math.min(s.nextSend, s.safeUntil);
    this.#timer = timer(() => this.#tick(), Math.max(0, at - now()), false);
  }

  /**
   * Tells the client's `onState` observer what the keeper says now. An observer that throws must
   * not change what happens to the lease, so its error is only written to the console.
   */
  #tell(s) {
    const observe = this.#service.onState;
    if (observe === null) return;
    const state = s.state === "lost" && s.why === "released" ? "released" : s.state;
    try {
      observe({ lock: this.#lock, state, token: this.#grant.token, safeUntil: s.safeUntil, why: s.why });
    } catch (e) {
      console.error("fencepost/client: the onState observer threw", e);
    }
  }

  #tick() {
    if (this.#keeper === null) return;
    const t = now();
    const s = this.#keeper.state(t);
    if (s.state !== "lost" && s.nextSend !== null && t >= s.nextSend) this.#renew(t);
    else this.#heard(s);
  }

  async #renew(t) {
    const keeper = this.#keeper;
    const ticket = keeper.send(t);
    this.#heard(keeper.state(t));
    let answer;
    try {
      answer = await renewCall(this.#service, this.#lock, this.#ttlMs, this.#grant, this.#controller.signal);
    } catch {
      // Aborted: the lease is lost or released already.
      return;
    }
    if (this.#keeper !== keeper) return;
    let s;
    try {
      if (answer.kind === "granted") {
        s = keeper.granted(ticket, answer.grant.token, this.#ttlMs, now());
        // The same token, perhaps signed with a newer key.
        if (s.state !== "lost") this.#grant = answer.grant;
      } else {
        s = keeper.failed(ticket, answer.kind, now());
      }
    } catch {
      // The keeper refused the answer: a grant of another token (no renewal of this lease), or a
      // ticket it forgot (the answer to one of many old requests). As good as no answer.
      s = keeper.state(now());
    }
    this.#heard(s);
  }
}

// `await using lease = await client.acquire(name)` where the runtime has Symbol.asyncDispose.
if (typeof Symbol.asyncDispose === "symbol") {
  Object.defineProperty(Lease.prototype, Symbol.asyncDispose, {
    // AsyncDisposable's contract: a promise of nothing (release() says whether it was confirmed).
    async value() {
      await this.release();
    },
    writable: true,
    configurable: true,
  });
}
