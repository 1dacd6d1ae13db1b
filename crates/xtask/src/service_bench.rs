//! The lease service under load, side by side in one run with the locks a team would pick instead,
//! on the same machine: `fencepost serve` instances over etcd and over Postgres, the workerd and
//! Deno hosts, etcd's own lock API on the same etcd cluster, and redlock on Redis. Every contender
//! runs the same client loop (tests/service/bench.mjs); a second phase pauses holders past their
//! lease and counts the stale writes each one let through. Every engine and host is started here
//! and stopped afterwards, whether the run passed or not.

use crate::Result;
use crate::etcd::Etcd;
use crate::npm::{dist, fixture, pack};
use crate::postgres::Postgres;
use crate::redis::Redis;
use crate::tools::{Cmd, root, step};

/// Builds and packs the package, starts every engine, and runs tests/service/bench.mjs, which
/// prints the table (and fails if fencepost accepted a stale write).
pub fn bench() -> Result {
    dist()?;
    let tarball = pack()?;
    step("the fencepost CLI, for `fencepost check` of the write logs");
    Cmd::cargo(&["build", "--release", "-q", "-p", "fencepost-cli"]).run()?;
    let dir = fixture("service", &tarball)?;
    let (_, runtimes) = crate::edge::runtimes()?;
    let etcd = Etcd::start()?;
    let pg = Postgres::start()?;
    let redis = Redis::start()?;
    step(
        "the lease service beside etcd's lock and redlock: 64 clients, 16 locks, acquire -> write -> release",
    );
    Cmd::new("node")
        .arg("bench.mjs")
        .env("ETCD_ENDPOINTS", etcd.endpoints())
        .env("PGHOST", pg.socket_dir())
        .env("PGUSER", "postgres")
        .env("PGDATABASE", "postgres")
        .env("REDIS_URL", redis.url())
        .env("WORKERD_BIN", runtimes.join("workerd"))
        .env("DENO_BIN", runtimes.join("deno"))
        .env("DENO_NO_UPDATE_CHECK", "1")
        .env("EDGE_HOSTS", root().join("tests/lease-service/host.mjs"))
        .env("FENCEPOST_CLI", root().join("target/release/fencepost"))
        .env("BENCH_OUT", root().join("target/service-bench"))
        .cwd(&dir)
        .run()
}
