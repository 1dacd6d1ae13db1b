// fencepost/service: the lease service as a library. A LeaseService answers the service's HTTP API
// with a Web-standard `fetch(request)`, over a lock backend (where each lock's state lives, read
// with its version and committed only if unchanged) and a `fencepost/store` store of documents.
// Every lease, fence and signing rule runs in fencepost's core.
export { LeaseService } from "./service.js";
export { BackendUnavailableError } from "./errors.js";
export { HttpError } from "./http.js";
export { Metrics, COUNTED, COUNTERS } from "./metrics.js";
export { readSettings, keyRingOf, SETTINGS } from "./settings.js";
export { refusingService } from "./refusing.js";
export { route, lockOfDocument } from "./routes.js";
export { DenoKvLocks } from "./backends/deno-kv.js";
export { DurableObjectLocks } from "./backends/durable-object.js";
export { PostgresLocks } from "./backends/postgres.js";
export { EtcdLocks } from "./backends/etcd.js";
// For hosts that route requests themselves (a Worker in front of Durable Objects).
export { withCors, corsOrigins } from "./cors.js";
export { answer, json } from "./http.js";
export { adoptDoc } from "./documents.js";
