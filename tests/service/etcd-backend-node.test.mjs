// The EtcdLocks tests of etcd-backend.test.mjs again, with every backend sending through
// keepAliveFetch (fencepost/service/node), the fetch `fencepost serve` hands EtcdLocks on Node:
// the same exact answers, and the same faults survived or reported in time.

process.env.FENCEPOST_TEST_ETCD_FETCH = "node";
await import("./etcd-backend.test.mjs");
