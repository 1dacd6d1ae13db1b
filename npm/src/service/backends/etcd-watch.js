// Watches of lock keys in etcd, for acquires waiting in the service: one `POST /v3/watch` stream
// of the JSON gateway per lock that has waiters (etcd answers it with one JSON message a line, as
// long as the request lasts), shared by every waiter of that lock in this instance. A change made
// by any instance reaches each waiter with the lock's new state, as good as a read of it: a
// decision on it is committed only if the key's revision is still the one it carries.
//
// A waiter says which version it last read; a watch begins just after it, so a change between
// that read and the watch is reported too. A watch already open tells a later waiter at once when
// the key changed since that waiter's version. A stream that ends (a member lost, the revision
// compacted) tells its waiters to read again, and watching that lock rests for a while, during
// which waiters read now and then instead: a member that refuses every watch must not turn them
// into a loop of reads. A watch nobody needs is closed after a short linger, so that a lock with
// a steady stream of waiters keeps one stream.

/** How long a watch stays open after its last waiter left. */
const LINGER_MS = 2000;
/** How long watching a lock rests after its stream ended on its own. */
const REST_MS = 1000;

const later = (fn, ms) => {
  const t = setTimeout(fn, ms);
  // Never what keeps a Node process alive.
  t?.unref?.();
  return t;
};

/** One lock's watch: its stream, its subscribers, and the newest change it reported. */
class Watch {
  subs = new Set();
  controller = new AbortController();
  linger = null;
  /** Until when this lock is not watched, after its stream ended; 0 while it runs. */
  restUntil = 0;

  constructor(from) {
    // The revision just before the first one the stream reports: nothing newer is known yet.
    this.last = from - 1n;
    this.state = null;
  }
}

export class EtcdWatches {
  #open;
  #decode;
  #byLock = new Map();

  /**
   * `open(body, signal)`: POSTs `body` to /v3/watch of an etcd member, resolving to its Response;
   * `decode(lock, kv)`: the snapshot stored in an event's kv.
   */
  constructor(open, decode) {
    this.#open = open;
    this.#decode = decode;
  }

  /**
   * Calls `onChange(state, before)` when `lock` (its key `key`, base64) changes after revision
   * `since` (a decimal string, or null: unknown): `state` is `{ snapshot, version }` as read()
   * would answer it, or null (read it again); `before` says the change came before this call.
   * Answers the function that stops it, or null when the lock is not watched now.
   */
  watch(lock, key, since, onChange) {
    let w = this.#byLock.get(lock);
    if (w !== undefined && w.restUntil !== 0) {
      if (Date.now() < w.restUntil) return null;
      this.#byLock.delete(lock);
      w = undefined;
    }
    const after = since === null ? null : BigInt(since);
    if (w === undefined) {
      w = new Watch(after === null ? 0n : after + 1n);
      this.#byLock.set(lock, w);
      this.#run(lock, key, w, after === null ? null : after + 1n);
    }
    clearTimeout(w.linger);
    w.linger = null;
    // Told after this call returns, as every other report is.
    if (after === null || w.last > after) queueMicrotask(() => w.subs.has(onChange) && onChange(w.state, true));
    w.subs.add(onChange);
    return () => {
      w.subs.delete(onChange);
      if (w.subs.size > 0 || w.restUntil !== 0) return;
      clearTimeout(w.linger);
      w.linger = later(() => {
        if (w.subs.size > 0) return;
        if (this.#byLock.get(lock) === w) this.#byLock.delete(lock);
        w.controller.abort();
      }, LINGER_MS);
    };
  }

  /**
   * The newest state of `lock` a running watch reported, or null: probably the lock's state now,
   * though a change may be on its way; good to decide a commit on (which holds only if the
   * revision is still this one), not to answer from.
   */
  peek(lock) {
    const w = this.#byLock.get(lock);
    return w === undefined || w.restUntil !== 0 ? null : w.state;
  }

  async #run(lock, key, w, from) {
    const create = from === null ? { key } : { key, start_revision: String(from) };
    try {
      const response = await this.#open({ create_request: create }, w.controller.signal);
      if (response.status !== 200 || response.body === null) throw new Error(`HTTP ${response.status}`);
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let text = "";
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        text += value;
        let end;
        while ((end = text.indexOf("\n")) >= 0) {
          const line = text.slice(0, end).trim();
          text = text.slice(end + 1);
          if (line !== "") this.#message(lock, w, JSON.parse(line));
        }
      }
    } catch {
      // Ended below, whatever the reason.
    }
    if (w.controller.signal.aborted) return;
    w.restUntil = Date.now() + REST_MS;
    for (const onChange of w.subs) onChange(null, true);
  }

  /** One message of the stream: its events reported, or the end of the watch thrown. */
  #message(lock, w, m) {
    const r = m.result;
    if (r === undefined) throw new Error(`etcd watch: ${JSON.stringify(m.error ?? m).slice(0, 200)}`);
    if (r.canceled || r.compact_revision) throw new Error("etcd watch: canceled");
    for (const event of r.events ?? []) {
      const kv = event.kv;
      w.last = BigInt(kv.mod_revision);
      // A deleted key reads as no state, version "0" (see EtcdLocks#read).
      w.state = event.type === "DELETE" ? { snapshot: null, version: "0" } : { snapshot: this.#decode(lock, kv), version: kv.mod_revision };
      for (const onChange of w.subs) onChange(w.state, false);
    }
  }
}
