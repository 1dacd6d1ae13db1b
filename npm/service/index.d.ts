// Types of `fencepost/service`: the lease service as a library (ES modules only).
//
// A LeaseService answers the service's HTTP API (see the package README) with a Web-standard
// `fetch(request)`: mount it as it is in a Worker (`export default service`), `Deno.serve(service.fetch)`,
// `Bun.serve({ fetch: service.fetch })`, or on Node through `fencepost/service/node`. It keeps no
// state of its own beyond its counters: each lock's state lives in a LockBackend, read with its
// version and committed only if unchanged, so any number of instances serve the same locks.

import type { KeyRing, Token } from "fencepost";
import type { StoredEntry, StoreWriteResult } from "fencepost/store";

/**
 * Where each lock's state lives: an opaque snapshot of fencepost's authority (bytes), read with a
 * version and committed only if that version is unchanged. The service decides every operation
 * with fencepost's core on the state it read; a commit that lost a race makes it decide again.
 */
export interface LockBackend {
  /** The stored snapshot of `lock` (null when none) and an opaque version of it. */
  read(lock: string): Promise<{ snapshot: Uint8Array | null; version: unknown }>;
  /**
   * Stores `snapshot` as `lock`'s state if its version is still `version` (as `read` answered; for
   * a lock that had no state, only if it still has none). Resolves true when stored, false when
   * another change came first. From `deleteAt` (unix ms) on, if nothing changed it again, the
   * state may be deleted: the lock is idle.
   */
  commit(lock: string, version: unknown, snapshot: Uint8Array, deleteAt: number): Promise<boolean>;
  /**
   * Optional, used instead of `commit` when present: as `commit`, but a commit that lost its race
   * resolves to the lock's state now, read in the same round trip (as fresh as `read`), so the
   * service decides again without reading first; null when stored.
   */
  commitOrRead?(lock: string, version: unknown, snapshot: Uint8Array, deleteAt: number): Promise<{ snapshot: Uint8Array | null; version: unknown } | null>;
  /** Deletes every state whose deleteAt is <= now and that did not change since; how many. */
  sweep?(now: number): Promise<number>;
  /**
   * For acquires waiting in the service: calls `onChange(state, before)` whenever `lock` changes
   * after `version` (as `read` answered it; null: unknown, so at once). `state` is the new state as
   * `read` would answer it, or null when it must be read again; `before` says the change came
   * before the call. Answers the function that stops watching, or null when the lock cannot be
   * watched now. Without it, a waiting acquire reads its lock again every few tens of ms.
   */
  watch?(lock: string, version: unknown, onChange: LockChange): (() => void) | null;
  /**
   * The newest state of `lock` a watch reported, or null: the service decides an operation that
   * commits on it instead of reading first (the commit holds only if the version is unchanged).
   */
  peek?(lock: string): { snapshot: Uint8Array | null; version: unknown } | null;
}

/** What a lock backend's watch reports: the lock's new state (null: read it again). */
export type LockChange = (state: { snapshot: Uint8Array | null; version: unknown } | null, before: boolean) => void;

/** The documents a service writes with verified tokens: any `fencepost/store` store will do. */
export interface DocumentStore {
  write(key: string, token: Token, value: unknown): Promise<StoreWriteResult>;
  read(key: string): Promise<StoredEntry | null>;
}

export interface LeaseServiceOptions {
  /** Signs every granted token and verifies every document write's. Required: a service that
   * cannot sign would hand out tokens anyone can forge. */
  keys: KeyRing;
  /** Where locks live. Without it, the lock endpoints answer 404. */
  locks?: LockBackend;
  /** Where documents live. Without it, the document endpoints answer 404. */
  documents?: DocumentStore;
  /** The longest lease a client may ask for (default 300000; at most a day). */
  maxTtlMs?: number;
  /** How long a lock's state is kept after its last lease ended (default 60000, at least 1000). */
  idleKeepMs?: number;
  /** Origins whose pages may call the service from a browser, exactly as browsers send them. */
  corsOrigins?: string[];
  /** Each document write as a JSON line for `fencepost check`: true prints it to the console
   * after "fencepost-write ", a function receives it. */
  writeLog?: boolean | ((line: string) => void);
  /** Largest document body, in bytes (default and most: 65536). */
  maxDocumentBytes?: number;
  /** Add the `fencepost-counted` header to answers, for a front that counts (Metrics#takeFrom). */
  reportCounts?: boolean;
  /**
   * The longest an acquire may wait for a held lock (its body's `waitMs`, in ms), answered the
   * moment the lock can be granted, else "held" when the wait ends (default 10000; 0: never wait).
   */
  maxWaitMs?: number;
  /** How many acquires may wait at once in this service object (default 1000); beyond, answered at once. */
  maxWaiters?: number;
  /** How many acquires may wait at once on one lock (default 64); beyond, answered at once. */
  maxWaitersPerLock?: number;
}

export class LeaseService {
  /** Throws TypeError / RangeError naming an option that is missing or wrong. */
  constructor(options: LeaseServiceOptions);
  /** Answers one request of the service's API; bound, so it can be passed on as it is. */
  readonly fetch: (request: Request) => Promise<Response>;
  /** Deletes idle locks' states through the backend's sweep (0 when it has none). */
  sweep(now?: number): Promise<number>;
  /** The counters answered at GET /metrics (with the gauge `fencepost_waiting`). */
  readonly metrics: Metrics;
  /** How many acquires wait now for a held lock. */
  readonly waiting: number;
  /** Answers every waiting acquire now ("held", as its wait's end would), and later ones at once: for a host stopping. */
  endWaits(): void;
  /** Moves a document an earlier version stored (its mark and text) into the documents store. */
  adoptDocument(key: string, highest: string, data: string): Promise<void>;
}

/** What a lock backend throws when its engine cannot answer now; the service answers 503. */
export class BackendUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown });
}

/** An error a host throws to answer with `status` and `{ error: message }`. */
export class HttpError extends Error {
  constructor(status: number, message: string);
  readonly status: number;
}

/** The counter names of /metrics (each `fencepost_<name>_total`). */
export type CounterName = "grants" | "renewals" | "releases" | "expiries" | "stale_rejections" | "forged_rejections" | "invalid_rejections";
export const COUNTERS: readonly CounterName[];
/** The header by which an answer reports what its work counted. */
export const COUNTED: "fencepost-counted";

export class Metrics {
  add(names: Iterable<CounterName>): void;
  get(name: CounterName): number;
  /** Counts what `response` reports (its COUNTED header) and answers it without that header. */
  takeFrom(response: Response): Response;
  /** Prometheus text. */
  text(): string;
  response(): Response;
}

/** The settings a host reads from its environment. */
export const SETTINGS: readonly ["FENCEPOST_KEYS", "FENCEPOST_MAX_TTL_MS", "FENCEPOST_IDLE_KEEP_MS", "FENCEPOST_WRITE_LOG", "FENCEPOST_CORS_ORIGINS"];

/** The service's options from a host's settings (`get(name)`), or what is missing or wrong. */
export function readSettings(get: (name: string) => string | undefined):
  | { keys: KeyRing; maxTtlMs: number; idleKeepMs: number; writeLog: boolean; corsOrigins: string[]; unavailable?: undefined }
  | { unavailable: string };
/** The key ring of a FENCEPOST_KEYS value; throws Error naming what is wrong. */
export function keyRingOf(text: string): KeyRing;
/** A handler answering every request 503 with `{ error: reason }`, for a host whose settings are refused. */
export function refusingService(reason: string): { fetch(request: Request): Promise<Response> };

/** Which endpoint a request asks for, or null; throws HttpError for a malformed one. */
export function route(request: Request):
  | { kind: "lock"; name: string; action: "acquire" | "renew" | "release" }
  | { kind: "lockState"; name: string }
  | { kind: "doc"; key: string }
  | { kind: "metrics" }
  | null;
/** The lock whose tokens guard document `key` (the lock of the same name). */
export function lockOfDocument(key: string): string;

/** Locks in Deno KV (entries under `prefix`, default ["lock"]); KV expires idle ones itself. */
export class DenoKvLocks implements LockBackend {
  constructor(kv: unknown, options?: { prefix?: unknown[] });
  read(lock: string): Promise<{ snapshot: Uint8Array | null; version: unknown }>;
  commit(lock: string, version: unknown, snapshot: Uint8Array, deleteAt: number): Promise<boolean>;
  sweep(now: number): Promise<number>;
  /** Through `kv.watch` (undefined on a runtime without it). */
  watch?(lock: string, version: unknown, onChange: LockChange): (() => void) | null;
}

/** The lock of one Durable Object, in its `ctx.storage`; call `sweep` from the object's alarm. */
export class DurableObjectLocks implements LockBackend {
  constructor(storage: unknown);
  read(lock: string): Promise<{ snapshot: Uint8Array | null; version: unknown }>;
  commit(lock: string, version: unknown, snapshot: Uint8Array, deleteAt: number): Promise<boolean>;
  sweep(now: number): Promise<number>;
  /** Told by the object's own commits and sweeps: every change of its lock goes through it. */
  watch(lock: string, version: unknown, onChange: LockChange): () => void;
}

/** Locks in Postgres through a `pg` Pool: one row per lock, committed only if its version is unchanged. */
export class PostgresLocks implements LockBackend {
  constructor(pool: unknown, options?: { table?: string });
  /** Creates the table when missing. */
  createTable(): Promise<void>;
  read(lock: string): Promise<{ snapshot: Uint8Array | null; version: unknown }>;
  commit(lock: string, version: unknown, snapshot: Uint8Array, deleteAt: number): Promise<boolean>;
  sweep(now: number): Promise<number>;
}

/** Locks in etcd v3, through its JSON gateway with plain fetch: each commit one txn comparing the key's revision. */
export class EtcdLocks implements LockBackend {
  /**
   * `fetch`: the fetch to call etcd with (default the global one; in a Worker, a binding's; on
   * Node, `keepAliveFetch()` of `fencepost/service/node`). It is called with a POST and a string
   * body, and reads the answer's `status` and `text()`, or, for a watch, its `body` stream.
   */
  constructor(options: {
    endpoints: string | string[];
    prefix?: string;
    timeoutMs?: number;
    fetch?: (input: string, init: { method: string; headers: Record<string, string>; body: string; signal: AbortSignal }) => Promise<Pick<Response, "status" | "text" | "body">>;
  });
  read(lock: string): Promise<{ snapshot: Uint8Array | null; version: unknown }>;
  commit(lock: string, version: unknown, snapshot: Uint8Array, deleteAt: number): Promise<boolean>;
  /** One txn: put if the key's revision is unchanged, else range the key. */
  commitOrRead(lock: string, version: unknown, snapshot: Uint8Array, deleteAt: number): Promise<{ snapshot: Uint8Array | null; version: string } | null>;
  sweep(now: number): Promise<number>;
  /** Through a watch stream of the lock's key (`POST /v3/watch`), shared by the lock's waiters. */
  watch(lock: string, version: string | null, onChange: LockChange): (() => void) | null;
  /** The newest state the lock's watch reported, while it runs. */
  peek(lock: string): { snapshot: Uint8Array | null; version: string } | null;
}

/** For hosts that route requests themselves (a Worker in front of Durable Objects). */
export function withCors(origins: Set<string>, request: Request, serve: (request: Request) => Promise<Response>): Promise<Response>;
/** The allowed origins among `entries`; TypeError naming `what` for one that is not an origin. */
export function corsOrigins(entries: string[], what?: string): Set<string>;
/** Runs `handler`, answering an HttpError with its status, a BackendUnavailableError with 503, anything else with 500. */
export function answer(handler: () => Promise<Response>): Promise<Response>;
/** A JSON response; bigints become decimal strings. */
export function json(status: number, body: unknown): Response;
/** Moves a document an earlier version stored (mark and text) into `store`, through the core. */
export function adoptDoc(store: DocumentStore, key: string, highest: string, data: string): Promise<void>;
