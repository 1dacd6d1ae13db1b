//! `fencepost/service` against real engines, from the packed tarball in the fixture project
//! tests/service: its etcd lock backend against a three-member etcd cluster, and many `fencepost
//! serve` instances over that cluster and over Postgres, with and without faults (members killed
//! and stopped, instances killed, Postgres restarted). Both engines are started here and stopped
//! afterwards, whether the tests pass or not.

use crate::Result;
use crate::etcd::Etcd;
use crate::npm::{dist, fixture, pack};
use crate::postgres::Postgres;
use crate::tools::{Cmd, root, step};

/// The test files of tests/service, run one after another (they share the engines).
const TESTS: &[&str] = &[
    "cli.test.mjs",
    "etcd-backend.test.mjs",
    "etcd-backend-node.test.mjs",
    "instances.test.mjs",
    "waits.test.mjs",
    "faults.test.mjs",
];

/// Runs tests/service against a fresh etcd cluster and a fresh Postgres server.
pub fn test() -> Result {
    dist()?;
    let tarball = pack()?;
    step("the fencepost CLI, for `fencepost check` of the instances' write logs");
    Cmd::cargo(&["build", "-q", "-p", "fencepost-cli"]).run()?;
    let dir = fixture("service", &tarball)?;
    let etcd = Etcd::start()?;
    let pg = Postgres::start()?;
    step("fencepost/service: its etcd backend, and instances over etcd and Postgres, under faults");
    let result = Cmd::new("node")
        // A test that hangs (a server that never answers, a child that never exits) fails after
        // three minutes instead of holding the run until CI's limit.
        .args([
            "--test",
            "--test-reporter=spec",
            "--test-concurrency=1",
            "--test-timeout=180000",
        ])
        .args(TESTS)
        .env("ETCD_ENDPOINTS", etcd.endpoints())
        .env("ETCD_MEMBERS", etcd.members_file())
        .env("PGHOST", pg.socket_dir())
        .env("PGUSER", "postgres")
        .env("PGDATABASE", "postgres")
        .env("PG_RESTART", pg.restart_command())
        .env("FENCEPOST_CLI", root().join("target/debug/fencepost"))
        .cwd(&dir)
        .run();
    if result.is_err() {
        // The members' logs go with the cluster's directory when it is dropped: show them first.
        etcd.print_logs();
    }
    result
}
