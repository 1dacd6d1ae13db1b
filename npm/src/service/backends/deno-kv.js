// Locks in Deno KV: one entry per lock under ["lock", name], its value the authority's snapshot.
// A commit is `kv.atomic().check(entry)`: it holds only if the entry's versionstamp is still the
// one read. Deno KV is strongly consistent, so every instance sharing the store sees each commit,
// and it deletes an idle lock's entry by itself (`expireIn`), so there is nothing to sweep.

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
