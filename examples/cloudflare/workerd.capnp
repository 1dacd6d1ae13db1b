# Runs the service locally in workerd, with Durable Object storage on local disk:
#
#   workerd serve examples/cloudflare/workerd.capnp \
#     --socket-addr http=127.0.0.1:8787 --directory-path do-storage=/tmp/fencepost-do
#
# The `fencepost` modules are the package built by `cargo xtask dist` (npm/dist). The signing key
# below is for development only.
using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "main", worker = .leases),
    (name = "do-storage", disk = (writable = true)),
  ],
  sockets = [ (name = "http", address = "127.0.0.1:8787", http = (), service = "main") ],
);

const leases :Workerd.Worker = (
  compatibilityDate = "2025-01-01",
  modules = [
    (name = "examples/cloudflare/src/worker.js", esModule = embed "src/worker.js"),
    (name = "examples/shared/service.js", esModule = embed "../shared/service.js"),
    (name = "examples/shared/http.js", esModule = embed "../shared/http.js"),
    (name = "examples/shared/metrics.js", esModule = embed "../shared/metrics.js"),
    (name = "examples/shared/settings.js", esModule = embed "../shared/settings.js"),
    (name = "examples/shared/cors.js", esModule = embed "../shared/cors.js"),
    (name = "examples/shared/documents.js", esModule = embed "../shared/documents.js"),
    # workerd resolves a bare specifier next to the module that imports it, so the package's
    # modules are named beside examples/shared/service.js, which imports "fencepost".
    (name = "examples/shared/fencepost", esModule = embed "../../npm/dist/workerd.js"),
    (name = "examples/shared/api.js", esModule = embed "../../npm/dist/api.js"),
    (name = "examples/shared/common.js", esModule = embed "../../npm/dist/common.js"),
    (name = "examples/shared/fencepost_bg.js", esModule = embed "../../npm/dist/fencepost_bg.js"),
    (name = "examples/shared/fencepost_bg.wasm", wasm = embed "../../npm/dist/fencepost_bg.wasm"),
    # fencepost/store, imported by examples/shared/documents.js. Its modules import the package as
    # "fencepost", which workerd names beside them; that name re-exports the package above, so the
    # store and the service share one instance of it.
    (name = "examples/shared/fencepost/store", esModule = embed "../../npm/dist/store/index.js"),
    (name = "examples/shared/fencepost/fence.js", esModule = embed "../../npm/dist/store/fence.js"),
    (name = "examples/shared/fencepost/durable-object.js", esModule = embed "../../npm/dist/store/durable-object.js"),
    (name = "examples/shared/fencepost/deno-kv.js", esModule = embed "../../npm/dist/store/deno-kv.js"),
    (name = "examples/shared/fencepost/postgres.js", esModule = embed "../../npm/dist/store/postgres.js"),
    (name = "examples/shared/fencepost/sqlite.js", esModule = embed "../../npm/dist/store/sqlite.js"),
    (name = "examples/shared/fencepost/fencepost", esModule = "export * from \"../fencepost\";"),
  ],
  durableObjectNamespaces = [
    (className = "LockObject", uniqueKey = "fencepost-locks", enableSql = true),
    (className = "DocObject", uniqueKey = "fencepost-docs", enableSql = true),
  ],
  durableObjectStorage = (localDisk = "do-storage"),
  bindings = [
    (name = "LOCKS", durableObjectNamespace = "LockObject"),
    (name = "DOCS", durableObjectNamespace = "DocObject"),
    # A development key, public in this file: never deploy it. A deployment sets its own with
    # `wrangler secret put FENCEPOST_KEYS` (see README.md, also for rotating it).
    (name = "FENCEPOST_KEYS", text = "1:dev-only-key-never-deploy-this-0000"),
    (name = "FENCEPOST_MAX_TTL_MS", text = "300000"),
  ],
);
