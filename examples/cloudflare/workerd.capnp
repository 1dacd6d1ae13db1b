# Runs the service locally in workerd, with Durable Object storage on local disk:
#
#   workerd serve examples/cloudflare/workerd.capnp \
#     --socket-addr http=127.0.0.1:8787 --directory-path do-storage=/tmp/fencepost-do
#
# As on Cloudflare, the front Worker and the Durable Objects run in different isolates: here two
# workers of the same script, "leases" (the front, which routes) and "fencepost-objects" (which
# defines the objects). A config that imports this one names both services.
#
# The `fencepost` modules are the package built by `cargo xtask dist` (npm/dist). The signing key
# below is for development only.
using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "main", worker = .leases),
    (name = "fencepost-objects", worker = .objects),
    (name = "do-storage", disk = (writable = true)),
  ],
  sockets = [ (name = "http", address = "127.0.0.1:8787", http = (), service = "main") ],
);

# workerd resolves a bare specifier next to the module that imports it, so the package's modules
# are named beside src/worker.js, which imports "fencepost/service" and "fencepost/store"; those
# import "fencepost" and "fencepost/store" in turn, which are named beside them and re-export the
# modules above, so the service, the store and the worker share one instance of the package.
const modules :List(Workerd.Worker.Module) = [
  (name = "examples/cloudflare/src/worker.js", esModule = embed "src/worker.js"),
  (name = "examples/cloudflare/src/fencepost", esModule = embed "../../npm/dist/workerd.js"),
  (name = "examples/cloudflare/src/api.js", esModule = embed "../../npm/dist/api.js"),
  (name = "examples/cloudflare/src/common.js", esModule = embed "../../npm/dist/common.js"),
  (name = "examples/cloudflare/src/fencepost_bg.wasm", wasm = embed "../../npm/dist/fencepost_bg.wasm"),
  (name = "examples/cloudflare/src/fencepost/store", esModule = embed "../../npm/dist/store/index.js"),
  (name = "examples/cloudflare/src/fencepost/fence.js", esModule = embed "../../npm/dist/store/fence.js"),
  (name = "examples/cloudflare/src/fencepost/durable-object.js", esModule = embed "../../npm/dist/store/durable-object.js"),
  (name = "examples/cloudflare/src/fencepost/deno-kv.js", esModule = embed "../../npm/dist/store/deno-kv.js"),
  (name = "examples/cloudflare/src/fencepost/postgres.js", esModule = embed "../../npm/dist/store/postgres.js"),
  (name = "examples/cloudflare/src/fencepost/sqlite.js", esModule = embed "../../npm/dist/store/sqlite.js"),
  (name = "examples/cloudflare/src/fencepost/sql.js", esModule = embed "../../npm/dist/store/sql.js"),
  (name = "examples/cloudflare/src/fencepost/service", esModule = embed "../../npm/dist/service/index.js"),
  (name = "examples/cloudflare/src/fencepost/service.js", esModule = embed "../../npm/dist/service/service.js"),
  (name = "examples/cloudflare/src/fencepost/errors.js", esModule = embed "../../npm/dist/service/errors.js"),
  (name = "examples/cloudflare/src/fencepost/http.js", esModule = embed "../../npm/dist/service/http.js"),
  (name = "examples/cloudflare/src/fencepost/cors.js", esModule = embed "../../npm/dist/service/cors.js"),
  (name = "examples/cloudflare/src/fencepost/metrics.js", esModule = embed "../../npm/dist/service/metrics.js"),
  (name = "examples/cloudflare/src/fencepost/options.js", esModule = embed "../../npm/dist/service/options.js"),
  (name = "examples/cloudflare/src/fencepost/settings.js", esModule = embed "../../npm/dist/service/settings.js"),
  (name = "examples/cloudflare/src/fencepost/refusing.js", esModule = embed "../../npm/dist/service/refusing.js"),
  (name = "examples/cloudflare/src/fencepost/routes.js", esModule = embed "../../npm/dist/service/routes.js"),
  (name = "examples/cloudflare/src/fencepost/decide.js", esModule = embed "../../npm/dist/service/decide.js"),
  (name = "examples/cloudflare/src/fencepost/documents.js", esModule = embed "../../npm/dist/service/documents.js"),
  (name = "examples/cloudflare/src/fencepost/waits.js", esModule = embed "../../npm/dist/service/waits.js"),
  (name = "examples/cloudflare/src/fencepost/backends/deno-kv.js", esModule = embed "../../npm/dist/service/backends/deno-kv.js"),
  (name = "examples/cloudflare/src/fencepost/backends/durable-object.js", esModule = embed "../../npm/dist/service/backends/durable-object.js"),
  (name = "examples/cloudflare/src/fencepost/backends/postgres.js", esModule = embed "../../npm/dist/service/backends/postgres.js"),
  (name = "examples/cloudflare/src/fencepost/backends/etcd.js", esModule = embed "../../npm/dist/service/backends/etcd.js"),
  (name = "examples/cloudflare/src/fencepost/backends/etcd-watch.js", esModule = embed "../../npm/dist/service/backends/etcd-watch.js"),
  (name = "examples/cloudflare/src/fencepost/fencepost", esModule = "export * from \"../fencepost\";"),
  (name = "examples/cloudflare/src/fencepost/fencepost/store", esModule = "export * from \"../store\";"),
];

# Each worker gets the service's settings: both lists end with them. A development key, public in
# this file: never deploy it. A deployment sets its own with `wrangler secret put FENCEPOST_KEYS`
# (see README.md, also for rotating it).
const leases :Workerd.Worker = (
  compatibilityDate = "2025-01-01",
  modules = .modules,
  bindings = [
    (name = "LOCKS", durableObjectNamespace = (serviceName = "fencepost-objects", className = "LockObject")),
    (name = "DOCS", durableObjectNamespace = (serviceName = "fencepost-objects", className = "DocObject")),
    (name = "FENCEPOST_KEYS", text = "1:dev-only-key-never-deploy-this-0000"),
    (name = "FENCEPOST_MAX_TTL_MS", text = "300000"),
  ],
);

const objects :Workerd.Worker = (
  compatibilityDate = "2025-01-01",
  modules = .modules,
  durableObjectNamespaces = [
    (className = "LockObject", uniqueKey = "fencepost-locks", enableSql = true),
    (className = "DocObject", uniqueKey = "fencepost-docs", enableSql = true),
  ],
  durableObjectStorage = (localDisk = "do-storage"),
  bindings = [
    (name = "FENCEPOST_KEYS", text = "1:dev-only-key-never-deploy-this-0000"),
    (name = "FENCEPOST_MAX_TTL_MS", text = "300000"),
  ],
);
