// The lock of one Durable Object, in its storage: "snapshot" (the authority's), "version" (a count
// of commits) and "deleteAt", with an alarm at deleteAt that calls `sweep`. A Durable Object runs
// one request at a time between its storage calls (its input gate), so the version check never
// fails in practice; it is kept so that the object honours the same contract as every backend.
// Every change of the lock is made through this object, so its watch needs no engine: a commit or
// a sweep tells the acquires waiting in the object itself.

import { describe } from "../../common.js";

export class DurableObjectLocks {
  #storage;
  /** The watches of acquires waiting in this object. */
  #watchers = new Set();

  /** `storage`: the object's `ctx.storage`. Every lock name given to it is the object's own. */
  constructor(storage) {
    if (typeof storage?.get !== "function" || typeof storage?.setAlarm !== "function") {
      throw new TypeError(`storage must be a Durable Object's ctx.storage, got ${describe(storage)}`);
    }
    this.#storage = storage;
  }

  async read() {
    const got = await this.#storage.get(["snapshot", "version"]);
    return { snapshot: got.get("snapshot") ?? null, version: got.get("version") ?? 0 };
  }

  async commit(_lock, version, snapshot, deleteAt) {
    if (((await this.#storage.get("version")) ?? 0) !== version) return false;
    await this.#storage.put({ snapshot, version: version + 1, deleteAt });
    await this.#storage.setAlarm(deleteAt);
    this.#changed({ snapshot, version: version + 1 });
    return true;
  }

  /**
   * Calls `onChange(state, before)` when the lock changes after `version` (null: unknown, so at
   * once): `state` is its new `{ snapshot, version }`, or null when it must be read again;
   * `before`: the change came before this call. Answers the function that stops watching.
   */
  watch(_lock, version, onChange) {
    const w = { onChange };
    this.#watchers.add(w);
    this.#storage.get("version").then(
      (now) => this.#watchers.has(w) && (version === null || (now ?? 0) !== version) && onChange(null, true),
      () => this.#watchers.has(w) && onChange(null, true),
    );
    return () => this.#watchers.delete(w);
  }

  #changed(state) {
    for (const w of this.#watchers) w.onChange(state, false);
  }

  /** Deletes the object's state if its deleteAt came with no change since; else sets the alarm again. */
  async sweep(now) {
    const deleteAt = await this.#storage.get("deleteAt");
    if (deleteAt === undefined) return 0;
    if (deleteAt <= now) {
      await this.#storage.deleteAll();
      this.#changed({ snapshot: null, version: 0 });
      return 1;
    }
    await this.#storage.setAlarm(deleteAt);
    return 0;
  }
}
