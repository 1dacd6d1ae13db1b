// A lock backend on etcd v3, spoken through its JSON gateway (`/v3/...` over HTTP) with plain
// `fetch`, so the same code runs in Node, Deno, workerd and Bun without an etcd client.
//
// Each lock is one key, `prefix + name`. Its value is 8 bytes of deleteAt (unix ms, big-endian)
// followed by the snapshot, so that sweep() can tell idle states from a range over the prefix
// alone. A state's version is the key's mod_revision as etcd's decimal string ("0": no key),
// and a commit is one txn: compare that revision, then put. etcd orders every txn through its
// raft log, so of any number of commits racing on one version exactly one succeeds.
//
// Reads are etcd's default range, which is linearizable: a member answers only after
// confirming with the leader that it has applied everything committed before the read began. A
// serializable read would be cheaper and could answer from a member cut off from the others,
// handing the service a state older than a grant it already made.
//
// Failures. The endpoints are tried in turn, starting with the one that last answered, all
// within one budget of timeoutMs per call. A read that fails on one member is tried on the next:
// reads change nothing. A write is tried on the next member only when it certainly never reached
// etcd (no connection was made) or etcd refused it before proposing it (no leader); after a
// timeout, a reset or any other failure it may still be applied later, so its outcome is unknown
// and the call throws BackendUnavailableError at once. (workerd reports a refused connection
// and a broken one alike, so there a write never moves on after either.) Answering false there would be a lie the
// service would act on; trying the next member would turn our own applied write into an
// apparent lost race.

import { describe, checkOptions, ms } from "../../common.js";
import { BackendUnavailableError } from "../errors.js";
import { EtcdWatches } from "./etcd-watch.js";

const NAME = /^[A-Za-z0-9._~-]{1,128}$/;
/** A mod_revision as read() answers it: etcd's int64 revision in decimal, "0" for no key. */
const VERSION = /^(0|[1-9][0-9]{0,18})$/;
const DELETE_AT_BYTES = 8;
/** Keys per range of a sweep: each page arrives as one JSON body of base64 values, so a page
 *  is kept small enough that large states cannot make one answer huge or slow. */
const SWEEP_PAGE = 32;
const MAX_TIMEOUT_MS = 600_000;
const MAX_PREFIX = 256;

// Kinds of failure, by what they say about a write that was sent.
/** It never reached etcd, or etcd refused it before proposing it: nothing was changed. */
const NOT_APPLIED = "not applied";
/** It may have been applied, or may still be. */
const UNKNOWN = "unknown";

/** gRPC codes (in the gateway's error body) that mean etcd cannot answer now. */
const UNAVAILABLE_CODES = new Set([1, 4, 8, 10, 14]); // cancelled, deadline, exhausted, aborted, unavailable

const encoder = new TextEncoder();

function toBase64(bytes) {
  let binary = "";
  // In slices: String.fromCharCode takes its arguments on the stack.
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

function fromBase64(text) {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** The first key after every key that starts with `prefix` (etcd's range_end for a prefix). */
function prefixEnd(prefix) {
  const end = prefix.slice();
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i] < 0xff) {
      end[i] += 1;
      return end.subarray(0, i + 1);
    }
  }
  // Only 0xff bytes: every key from the prefix on.
  return new Uint8Array([0]);
}

function lockName(lock) {
  if (typeof lock !== "string") throw new TypeError(`lock must be a string, got ${describe(lock)}`);
  if (!NAME.test(lock)) {
    throw new RangeError(`lock must be 1 to 128 characters of A-Z a-z 0-9 . _ ~ -, got ${describe(lock)}`);
  }
  return lock;
}

function endpointList(endpoints) {
  const list = typeof endpoints === "string" ? endpoints.split(",") : endpoints;
  if (!Array.isArray(list)) {
    throw new TypeError(`options.endpoints must be a URL string or an array of them, got ${describe(endpoints)}`);
  }
  if (list.length === 0 || list.length > 64) {
    throw new RangeError(`options.endpoints must hold 1 to 64 URLs, got ${list.length}`);
  }
  return list.map((e, i) => {
    if (typeof e !== "string") throw new TypeError(`options.endpoints[${i}] must be a URL string, got ${describe(e)}`);
    let url;
    try {
      url = new URL(e.trim());
    } catch {
      throw new RangeError(`options.endpoints[${i}] must be an http: or https: URL, got ${describe(e)}`);
    }
    if ((url.protocol !== "http:" && url.protocol !== "https:") || url.search || url.hash || url.username) {
      throw new RangeError(`options.endpoints[${i}] must be an http: or https: URL without query, fragment or credentials, got ${describe(e)}`);
    }
    return url.href.replace(/\/+$/, "");
  });
}

/** What went wrong with one request, and whether a write it carried may have been applied. */
class Failure {
  constructor(endpoint, kind, reason) {
    this.endpoint = endpoint;
    this.kind = kind;
    this.reason = reason;
  }

  toString() {
    return `${this.endpoint}: ${this.reason}`;
  }
}

/**
 * Error codes of a connection that was never made, so never carried the request: Node's
 * (undici's) and Bun's spellings.
 */
const NOT_CONNECTED = new Set([
  "ECONNREFUSED",
  "ConnectionRefused",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/** The Failure of a fetch that threw: a connection never made never carried the request. */
function fetchFailure(endpoint, error) {
  if (error?.name === "TimeoutError" || error?.name === "AbortError") {
    return new Failure(endpoint, UNKNOWN, "no answer in time");
  }
  const code = error?.cause?.code ?? error?.code;
  const detail = [error?.message, code, error?.cause?.message].filter(Boolean).join(", ");
  if (code === "ECONNREFUSED" || code === "ConnectionRefused") {
    return new Failure(endpoint, NOT_APPLIED, "connection refused");
  }
  // Deno names the phase that failed: "client error (Connect)".
  if (NOT_CONNECTED.has(code) || /client error \(Connect\)/.test(detail)) {
    return new Failure(endpoint, NOT_APPLIED, `could not connect (${detail})`);
  }
  return new Failure(endpoint, UNKNOWN, `the request failed (${detail || describe(error)})`);
}

export class EtcdLocks {
  #endpoints;
  #prefix;
  #range;
  #timeoutMs;
  #fetch;
  /** The index of the endpoint tried first: the last that answered. */
  #preferred = 0;
  #watches;

  /**
   * @param {{ endpoints: string[] | string, prefix?: string, timeoutMs?: number,
   *   fetch?: typeof fetch }} options  endpoints: the members' client URLs (a string may list
   *   several, comma-separated); prefix: of every lock's key; timeoutMs: the budget of one call,
   *   every endpoint tried included; fetch: the fetch to send with (e.g. a Worker's binding).
   */
  constructor(options) {
    if (options === undefined) throw new TypeError("options with endpoints are required");
    const o = checkOptions("options", options, ["endpoints", "prefix", "timeoutMs", "fetch"]);
    this.#endpoints = endpointList(o.endpoints);
    const prefix = o.prefix ?? "fencepost/locks/";
    if (typeof prefix !== "string") throw new TypeError(`options.prefix must be a string, got ${describe(prefix)}`);
    if (prefix.length === 0 || prefix.length > MAX_PREFIX) {
      // Empty would make sweep() read, and judge, every key in the cluster.
      throw new RangeError(`options.prefix must be 1 to ${MAX_PREFIX} characters, got ${prefix.length}`);
    }
    this.#prefix = encoder.encode(prefix);
    this.#range = { key: toBase64(this.#prefix), range_end: toBase64(prefixEnd(this.#prefix)) };
    const timeoutMs = ms("options.timeoutMs", o.timeoutMs ?? 2000);
    if (timeoutMs < 1 || timeoutMs > MAX_TIMEOUT_MS) {
      throw new RangeError(`options.timeoutMs must be 1 to ${MAX_TIMEOUT_MS}, got ${timeoutMs}`);
    }
    this.#timeoutMs = timeoutMs;
    const f = o.fetch ?? globalThis.fetch;
    if (typeof f !== "function") throw new TypeError(`options.fetch must be a function, got ${describe(f)}`);
    // Called bare: workerd and browsers refuse a fetch called with another `this`.
    this.#fetch = (url, init) => f(url, init);
    this.#watches = new EtcdWatches((body, signal) => this.#openWatch(body, signal), (lock, kv) => this.#decode(lock, kv).snapshot);
  }

  /**
   * Calls `onChange(state, before)` when `lock` changes after `version` (as read() answered it; null:
   * unknown, so at once): `state` is the lock's new `{ snapshot, version }`, or null when it must
   * be read again; `before`: the change came before this call. Answers the function that stops
   * watching, or null when the lock cannot be watched now (see etcd-watch.js).
   */
  watch(lock, version, onChange) {
    const key = this.#key(lockName(lock));
    if (version !== null && (typeof version !== "string" || !VERSION.test(version))) {
      throw new RangeError(`version must be the version read() answered (a decimal revision) or null, got ${describe(version)}`);
    }
    return this.#watches.watch(lock, key, version, onChange);
  }

  /**
   * The newest state of `lock` its watch reported (while acquires wait on it, and a little
   * after), or null: see EtcdWatches#peek.
   */
  peek(lock) {
    return this.#watches.peek(lockName(lock));
  }

  /** Opens a watch stream on the endpoint that answered last (a failure ends it; see EtcdWatches). */
  #openWatch(body, signal) {
    return this.#fetch(`${this.#endpoints[this.#preferred]}/v3/watch`, {
      method: "POST",
      headers: { "content-type": "application/json", "grpc-metadata-hasleader": "true" },
      body: JSON.stringify(body),
      signal,
    });
  }

  /** The stored snapshot of `lock` (null: none) and its version (the key's mod_revision). */
  async read(lock) {
    const key = this.#key(lockName(lock));
    const answer = await this.#call("/v3/kv/range", { key }, false);
    const kv = answer.kvs?.[0];
    if (kv === undefined) return { snapshot: null, version: "0" };
    return { snapshot: this.#decode(lock, kv).snapshot, version: kv.mod_revision };
  }

  /**
   * Stores `snapshot` with `deleteAt` as `lock`'s state if the key's mod_revision is still
   * `version` ("0": if there is still no key). True when stored, false when another change
   * came first; BackendUnavailableError when etcd cannot answer or the outcome is unknown.
   */
  async commit(lock, version, snapshot, deleteAt) {
    return (await this.#txn(lock, version, snapshot, deleteAt, false)).succeeded === true;
  }

  /**
   * As commit(), but a commit that lost its race answers the state that beat it, read by the
   * same txn (so as fresh as a read()): null when stored, else `{ snapshot, version }`.
   */
  async commitOrRead(lock, version, snapshot, deleteAt) {
    const answer = await this.#txn(lock, version, snapshot, deleteAt, true);
    if (answer.succeeded === true) return null;
    const kv = answer.responses?.[0]?.response_range?.kvs?.[0];
    if (kv === undefined) return { snapshot: null, version: "0" };
    return { snapshot: this.#decode(lock, kv).snapshot, version: kv.mod_revision };
  }

  /** The txn of a commit: put if the revision is `version`, else (when `read`) range the key. */
  async #txn(lock, version, snapshot, deleteAt, read) {
    const key = this.#key(lockName(lock));
    if (typeof version !== "string") {
      throw new TypeError(`version must be the version read() answered (a string), got ${describe(version)}`);
    }
    if (!VERSION.test(version)) {
      throw new RangeError(`version must be the version read() answered (a decimal revision), got ${describe(version)}`);
    }
    if (!(snapshot instanceof Uint8Array)) {
      throw new TypeError(`snapshot must be a Uint8Array, got ${describe(snapshot)}`);
    }
    ms("deleteAt", deleteAt);
    const value = new Uint8Array(DELETE_AT_BYTES + snapshot.length);
    new DataView(value.buffer).setBigUint64(0, BigInt(deleteAt));
    value.set(snapshot, DELETE_AT_BYTES);
    const compare =
      version === "0"
        ? { key, target: "CREATE", result: "EQUAL", create_revision: "0" }
        : { key, target: "MOD", result: "EQUAL", mod_revision: version };
    const txn = { compare: [compare], success: [{ request_put: { key, value: toBase64(value) } }] };
    if (read) txn.failure = [{ request_range: { key } }];
    // The gateway leaves out fields at their default: a failed compare has no `succeeded`.
    return await this.#call("/v3/kv/txn", txn, true);
  }

  /**
   * Deletes every state under the prefix whose deleteAt is <= `now`, each only if its key was
   * not changed since this sweep read it; answers how many it deleted. A value it cannot read
   * is not one of ours and is left alone.
   */
  async sweep(now) {
    ms("now", now);
    let deleted = 0;
    let from = this.#range.key;
    for (;;) {
      const page = await this.#call(
        "/v3/kv/range",
        { key: from, range_end: this.#range.range_end, limit: String(SWEEP_PAGE) },
        false,
      );
      const kvs = page.kvs ?? [];
      const idle = kvs.filter((kv) => {
        const value = fromBase64(kv.value ?? "");
        return value.length >= DELETE_AT_BYTES && new DataView(value.buffer).getBigUint64(0) <= BigInt(now);
      });
      const done = await Promise.allSettled(idle.map((kv) => this.#deleteIfUnchanged(kv)));
      const failed = done.find((d) => d.status === "rejected");
      if (failed) throw failed.reason;
      deleted += done.filter((d) => d.value).length;
      if (!page.more || kvs.length === 0) return deleted;
      // The next page starts right after the last key of this one.
      const last = fromBase64(kvs[kvs.length - 1].key);
      const next = new Uint8Array(last.length + 1);
      next.set(last);
      from = toBase64(next);
    }
  }

  async #deleteIfUnchanged(kv) {
    const answer = await this.#call(
      "/v3/kv/txn",
      {
        compare: [{ key: kv.key, target: "MOD", result: "EQUAL", mod_revision: kv.mod_revision }],
        success: [{ request_delete_range: { key: kv.key } }],
      },
      true,
    );
    return answer.succeeded === true;
  }

  #key(lock) {
    const name = encoder.encode(lock);
    const key = new Uint8Array(this.#prefix.length + name.length);
    key.set(this.#prefix);
    key.set(name, this.#prefix.length);
    return toBase64(key);
  }

  #decode(lock, kv) {
    const value = fromBase64(kv.value ?? "");
    if (value.length < DELETE_AT_BYTES) {
      throw new Error(
        `etcd holds ${value.length} bytes for lock ${JSON.stringify(lock)}, fewer than the ${DELETE_AT_BYTES} of a state's deleteAt: not a state this backend wrote`,
      );
    }
    return { snapshot: value.slice(DELETE_AT_BYTES) };
  }

  /**
   * POSTs `body` to `path` on one endpoint after another, within one budget of timeoutMs, until
   * one answers; a write (`isWrite`) moves on only after a failure that left etcd unchanged.
   */
  async #call(path, body, isWrite) {
    const deadline = Date.now() + this.#timeoutMs;
    const text = JSON.stringify(body);
    const failures = [];
    const first = this.#preferred;
    for (let i = 0; i < this.#endpoints.length; i++) {
      const at = (first + i) % this.#endpoints.length;
      const left = deadline - Date.now();
      if (left <= 0) break;
      const outcome = await this.#post(this.#endpoints[at], path, text, left);
      if (!(outcome instanceof Failure)) {
        this.#preferred = at;
        return outcome;
      }
      failures.push(outcome);
      // Move the next calls on, unless a concurrent call already found another endpoint.
      if (this.#preferred === at) this.#preferred = (at + 1) % this.#endpoints.length;
      if (isWrite && outcome.kind === UNKNOWN) {
        throw new BackendUnavailableError(`etcd ${path}: the outcome of the write is unknown: ${outcome}`);
      }
    }
    const tried = failures.length < this.#endpoints.length ? ` (${this.#timeoutMs} ms spent)` : "";
    throw new BackendUnavailableError(`etcd ${path}: no member answered${tried}: ${failures.join("; ")}`);
  }

  /** One request: etcd's answer (parsed JSON), or a Failure; throws on a refusal of the request. */
  async #post(endpoint, path, text, timeoutMs) {
    let response;
    let answer;
    try {
      response = await this.#fetch(`${endpoint}${path}`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          // etcd's require-leader metadata: a member without a leader says so at once, before
          // proposing anything, instead of holding the request until it times out.
          "grpc-metadata-hasleader": "true",
        },
        body: text,
        signal: AbortSignal.timeout(timeoutMs),
      });
      answer = await response.text();
    } catch (error) {
      return fetchFailure(endpoint, error);
    }
    let json;
    try {
      json = JSON.parse(answer);
    } catch {
      json = undefined;
    }
    if (response.status === 200 && json !== undefined) return json;
    return this.#refusal(endpoint, path, response.status, json, answer);
  }

  /** The Failure for an answer other than 200 with JSON, or throws if it refuses the request. */
  #refusal(endpoint, path, status, json, answer) {
    const message = typeof json?.message === "string" ? json.message : answer.slice(0, 200);
    if (/etcdserver: no leader/.test(message)) return new Failure(endpoint, NOT_APPLIED, message);
    if (status >= 500 || status === 429 || status === 200 || UNAVAILABLE_CODES.has(json?.code)) {
      return new Failure(endpoint, UNKNOWN, `HTTP ${status}: ${message}`);
    }
    // A 4xx with no sign of unavailability: the request itself is at fault, on every member.
    throw new Error(`etcd refused ${path} at ${endpoint}: HTTP ${status}: ${message}`);
  }
}
