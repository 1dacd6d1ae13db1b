# A Worker holding a lease of the example lease service through a service binding: the Worker's
# LeaseClient is given the binding's fetch. The service is the example's own worker, unchanged.
#
#   workerd serve tests/edge/lease-client-worker.capnp \
#     --socket-addr http=127.0.0.1:<port> --directory-path do-storage=<dir>
using Workerd = import "/workerd/workerd.capnp";
using Example = import "../../examples/cloudflare/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "holder", worker = .holder),
    (name = "leases", worker = Example.leases),
    (name = "fencepost-objects", worker = Example.objects),
    (name = "do-storage", disk = (writable = true)),
  ],
  sockets = [ (name = "http", address = "127.0.0.1:8788", http = (), service = "holder") ],
);

const holder :Workerd.Worker = (
  compatibilityDate = "2025-01-01",
  modules = [
    (name = "tests/edge/lease-client-worker.js", esModule = embed "lease-client-worker.js"),
    (name = "tests/edge/hold-once.js", esModule = embed "hold-once.js"),
    # The package as built in npm/dist, under the names its relative imports expect.
    (name = "npm/dist/client/workerd.js", esModule = embed "../../npm/dist/client/workerd.js"),
    (name = "npm/dist/client.js", esModule = embed "../../npm/dist/client.js"),
    (name = "npm/dist/workerd.js", esModule = embed "../../npm/dist/workerd.js"),
    (name = "npm/dist/api.js", esModule = embed "../../npm/dist/api.js"),
    (name = "npm/dist/fencepost_bg.wasm", wasm = embed "../../npm/dist/fencepost_bg.wasm"),
  ],
  bindings = [ (name = "LEASES", service = "leases") ],
);
