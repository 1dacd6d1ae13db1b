// Locks in Deno KV: one entry per lock under ["lock", name], its value the authority's snapshot.
// A commit is `kv.atomic().check(entry)`: it holds only if the entry's versionstamp is still the
// one read. Deno KV is strongly consistent, so every instance sharing the store sees each commit,
// and it deletes an idle lock's entry by itself (`expireIn`), so there is nothing to sweep. A
// waiting acquire watches its lock's entry with `kv.watch`, where the runtime has it.

import { describe } from "../../common.js";
import { BackendUnavailableError } from "../errors.js";

/**
 * Runs a KV call; a store that is busy (another process holds its lock, as when instances share a
 * local file) is a BackendUnavailableError, which the service answers with a 503 to retry.
 */
async function kvCall(call) {
  try {
    return await call();
  } catch (e) {
    if (e instanceof Error && /database is locked/i.test(e.message)) {
      throw new BackendUnavailableError("Deno KV is busy", { cause: e });
    }
    throw e;
  }
}

export class DenoKvLocks {
  #kv;
  #prefix;

  /** `kv`: a `Deno.Kv`; `prefix`: the key parts before a lock's name (default ["lock"]). */
  constructor(kv, { prefix = ["lock"] } = {}) {
    if (typeof kv?.atomic !== "function" || typeof kv?.get !== "function") {
      throw new TypeError(`kv must be a Deno.Kv, got ${describe(kv)}`);
    }
    if (!Array.isArray(prefix)) throw new TypeError(`prefix must be an array of key parts, got ${describe(prefix)}`);
    this.#kv = kv;
    this.#prefix = prefix;
    // Without kv.watch, the service reads a waited-for lock again now and then instead.
    if (typeof kv.watch !== "function") this.watch = undefined;
  }

  /**
   * Calls `onChange(state, before)` when the lock's entry changes after `version` (the entry
   * read() answered; null: unknown, so at once): `state` is its new `{ snapshot, version }`;
   * `before`: the change came before this call. Answers the function that stops watching.
   */
  watch(lock, version, onChange) {
    const reader = this.#kv.watch([[...this.#prefix, lock]]).getReader();
    let stopped = false;
    let seen = version === null ? undefined : version.versionstamp;
    (async () => {
      // The first entry the watch answers is the current one: a change before the call if it
      // is not the one read.
      for (let first = true; ; first = false) {
        const { done, value } = await reader.read();
        if (done || stopped) return;
        const entry = value[0];
        if (entry.versionstamp === seen) continue;
        seen = entry.versionstamp;
        onChange({ snapshot: entry.value ?? null, version: entry }, first);
      }
    })().catch(() => !stopped && onChange(null, true));
    return () => {
      stopped = true;
      reader.cancel().catch(() => {});
    };
  }

  async read(lock) {
    const entry = await kvCall(() => this.#kv.get([...this.#prefix, lock]));
    return { snapshot: entry.value ?? null, version: entry };
  }

  async commit(lock, version, snapshot, deleteAt) {
    const expireIn = Math.max(1, deleteAt - Date.now());
    const key = [...this.#prefix, lock];
    const r = await kvCall(() => this.#kv.atomic().check(version).set(key, snapshot, { expireIn }).commit());
    return r.ok;
  }

  /** Deno KV expires idle states itself. */
  async sweep() {
    return 0;
  }
}
