// Type-checked (tsc --noEmit --strict) use of `fencepost/service`'s declarations: a service over
// each backend, mounted as a fetch handler, a backend of one's own, and the options and calls the
// declarations must refuse (each @ts-expect-error fails the check if it were accepted).
import { KeyRing } from "fencepost";
import {
  BackendUnavailableError,
  DenoKvLocks,
  EtcdLocks,
  LeaseService,
  Metrics,
  PostgresLocks,
  keyRingOf,
  readSettings,
  type DocumentStore,
  type LockBackend,
} from "fencepost/service";

const keys: KeyRing = keyRingOf("1:dev-only-key-never-deploy-this-0000");

/** A backend of one's own: a Map, committed only if the version is unchanged. */
class MapLocks implements LockBackend {
  #states = new Map<string, { snapshot: Uint8Array; version: number }>();
  async read(lock: string) {
    const s = this.#states.get(lock);
    return s === undefined ? { snapshot: null, version: 0 } : s;
  }
  async commit(lock: string, version: unknown, snapshot: Uint8Array, _deleteAt: number) {
    if ((this.#states.get(lock)?.version ?? 0) !== version) return false;
    this.#states.set(lock, { snapshot, version: (version as number) + 1 });
    return true;
  }
}

const documents: DocumentStore = {
  async write(_key, token) {
    return { ok: true, token };
  },
  async read() {
    return null;
  },
};

const service = new LeaseService({ keys, locks: new MapLocks(), documents, maxTtlMs: 60_000, corsOrigins: ["https://app.example.com"], writeLog: (line: string) => void line });
const handler: (request: Request) => Promise<Response> = service.fetch;
const counted: number = service.metrics.get("grants");
const swept: Promise<number> = service.sweep();

new LeaseService({ keys, locks: new EtcdLocks({ endpoints: ["http://127.0.0.1:2379"], timeoutMs: 2000 }) });
// The global fetch fits EtcdLocks' option, and so does a fetch answering only what it reads, as
// keepAliveFetch of fencepost/service/node does (its declarations need Node's, not loaded here).
new EtcdLocks({ endpoints: "http://127.0.0.1:2379", fetch: (url, init) => fetch(url, init) });
const answer = async () => ({ status: 200, text: async () => "{}", body: null });
new LeaseService({ keys, locks: new EtcdLocks({ endpoints: "http://127.0.0.1:2379", fetch: answer }) });
new LeaseService({ keys, locks: new PostgresLocks({}, { table: "locks" }) });
new LeaseService({ keys, locks: new DenoKvLocks({}) });

const settings = readSettings((name) => ({ FENCEPOST_KEYS: "1:dev-only-key-never-deploy-this-0000" })[name]);
if (settings.unavailable === undefined) {
  const fromEnv = new LeaseService({ ...settings, locks: new MapLocks() });
  void fromEnv;
} else {
  const why: string = settings.unavailable;
  void why;
}

const front = new Metrics();
const out: Response = front.takeFrom(new Response("{}"));
const e: Error = new BackendUnavailableError("etcd cannot answer", { cause: new Error("x") });

// @ts-expect-error: keys are required
new LeaseService({ locks: new MapLocks() });
// @ts-expect-error: a counter that does not exist
service.metrics.get("grant");
// @ts-expect-error: corsOrigins is a list of origins
new LeaseService({ keys, documents, corsOrigins: "https://app.example.com" });
// @ts-expect-error: EtcdLocks' fetch answers at least a status, text() and body
new EtcdLocks({ endpoints: "http://127.0.0.1:2379", fetch: async () => ({ status: 200 }) });

void [handler, counted, swept, out, e];
