/// <reference lib="esnext.disposable" />
// Types of `fencepost/client`: a lease client for the fencepost lease service.

/** How to reach the lease service, and how cautiously to judge a lease. */
export interface LeaseClientOptions {
  /** The service's base URL (its `/locks/...` routes are resolved against it). */
  url?: string | URL;
  /** The fetch to reach it with (a service binding's, say); the global fetch by default. */
  fetch?: (input: URL | Request, init?: RequestInit) => Promise<Response>;
  /** Bound on how much faster the service's clock runs than this one, in ppm (default 1000). */
  driftPpm?: number;
  /** Time a side effect may take to reach the resource, taken off every deadline (default 100 ms). */
  marginMs?: number;
  /** When to renew, as parts per million of the TTL (default 333333: a third in). */
  renewPpm?: number;
  /** How long to wait before sending again after a failed renewal (default 250 ms). */
  retryMs?: number;
  /**
   * Told every change of a lease's state or of its `safeUntil` (so every successful renewal), for
   * tracing and fault tests; it cannot change what happens to the lease.
   */
  onState?: (change: LeaseStateChange) => void;
}

/** What {@link LeaseClientOptions.onState} is told. */
export interface LeaseStateChange {
  /** The lock's name. */
  lock: string;
  /** `released` when the holder let go; `lost` for every other end. */
  state: LeaseStateName | "released";
  /** The lease's fencing token. */
  token: bigint;
  /** The deadline on `performance.now()`'s clock (once lost or released: the last one). */
  safeUntil: number | null;
  /** Why it was lost, else null. */
  why: LossReason | null;
}

/** How to acquire a lock. */
export interface AcquireOptions {
  /** The lease length asked of the service, in milliseconds (default 30000). */
  ttlMs?: number;
  /** Give `null` at once when the lock is held, rather than wait. */
  ifAvailable?: boolean;
  /**
   * How long to wait for a held lock, in milliseconds (default: until `signal` aborts). The
   * service is asked to hold each acquire until it can grant the lock (at most a quarter of
   * `ttlMs` per request); a service that does not wait is asked again with backoff.
   */
  waitMs?: number;
  /** Aborts the wait (the acquire rejects with its reason); it does not end a lease once held. */
  signal?: AbortSignal;
}

/** Why a lease was lost. */
export type LossReason = "expired" | "refused" | "released";

/** What a lease is now: `uncertain` means renewals are failing but `safeUntil` has not passed. */
export type LeaseStateName = "held" | "uncertain" | "lost";

/** A held lease, renewed in the background until released or lost. */
export interface Lease {
  /** The lock's name. */
  readonly name: string;
  /** The fencing token. */
  readonly token: bigint;
  /** The exact `Fencing-Token` header value the service answered (signed when it signs). */
  readonly header: string;
  /** The deadline on `performance.now()`'s clock: side effects may start only before it. */
  readonly safeUntil: number;
  /** The state now. */
  readonly state: LeaseStateName;
  /** Aborted the moment the lease is lost; its `reason` is a {@link LeaseLostError}. */
  readonly signal: AbortSignal;
  /** Throws the {@link LeaseLostError} unless a side effect may start now. */
  assertSafe(): void;
  /**
   * `fetch` with the `Fencing-Token` header added; rejects with the {@link LeaseLostError} without
   * sending when the lease is not safe. A relative URL is resolved against the service's.
   */
  fetch(input: string | URL | Request, init?: RequestInit): Promise<Response>;
  /** Lets the lease go; resolves to whether the service confirmed it (false once lost). */
  release(): Promise<boolean>;
  /** `release()`, for `await using` (where the runtime has `Symbol.asyncDispose`). */
  [Symbol.asyncDispose](): Promise<void>;
}

/** Holds leases of one fencepost lease service. */
export declare class LeaseClient {
  constructor(options: LeaseClientOptions);
  /**
   * A held lease; `null` only with `ifAvailable` when the lock is held. A grant that arrives after
   * its own safe-until is given back and asked again while `waitMs` lasts (after it, the acquire
   * rejects with a {@link LeaseServiceError}).
   */
  acquire(name: string, options: AcquireOptions & { ifAvailable: true }): Promise<Lease | null>;
  acquire(name: string, options?: AcquireOptions & { ifAvailable?: false }): Promise<Lease>;
  acquire(name: string, options: AcquireOptions): Promise<Lease | null>;
  /** Runs `callback` holding lock `name` and releases it when the callback settles. */
  request<T>(name: string, callback: (lease: Lease) => T | PromiseLike<T>): Promise<T>;
  request<T>(
    name: string,
    options: AcquireOptions & { ifAvailable: true },
    callback: (lease: Lease | null) => T | PromiseLike<T>,
  ): Promise<T>;
  request<T>(
    name: string,
    options: AcquireOptions & { ifAvailable?: false },
    callback: (lease: Lease) => T | PromiseLike<T>,
  ): Promise<T>;
  request<T>(name: string, options: AcquireOptions, callback: (lease: Lease | null) => T | PromiseLike<T>): Promise<T>;
}

/** A lease that may no longer be acted on. */
export declare class LeaseLostError extends Error {
  readonly name: "LeaseLostError";
  /** The lock's name. */
  readonly lock: string;
  readonly why: LossReason;
}

/** A lock still held by another holder when the wait an acquire allowed ran out. */
export declare class LockHeldError extends Error {
  readonly name: "LockHeldError";
  readonly lock: string;
}

/** An answer of the lease service the client cannot act on. */
export declare class LeaseServiceError extends Error {
  readonly name: "LeaseServiceError";
  /** The HTTP status (0: no answer; the network's error is then the `cause`). */
  readonly status: number;
}
