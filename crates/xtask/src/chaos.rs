//! `cargo xtask chaos`: the fault campaign over the real pieces. xtask builds and packs the npm
//! package, installs the fixture tests/chaos from the tarball, starts a three-member etcd cluster
//! and runs tests/chaos/run.mjs, which starts everything else (service instances, the workerd and
//! Deno hosts, fault proxies, clients, nemeses) and kills it before it exits. The cluster, and
//! every member the campaign started again, is stopped when [`Etcd`] is dropped, whether the
//! campaign passed, failed or panicked.
//!
//! The history the campaign records is JSON Lines ordered by `t`, the milliseconds since it
//! started, one event a line, each naming the `process` that recorded it:
//!
//! - `grant` (a client got a lease: `lock`, `token`), `belief` (what the client's keeper says at
//!   each change: `state` acquiring / held / uncertain / lost / released, `safe_until` on the same
//!   timeline while held or uncertain), `write` (`resource`, `token`, `via` fetch or store,
//!   `result` ok / rejected / unknown);
//! - lines without a `kind`: what a store applied or refused, as `fencepost check` reads today;
//! - `final` (each resource's row once everything stopped) and `fault` (a nemesis's `start` and
//!   `end` on a `target`; clock faults say whether their rate is `within_drift`).
//!
//! Each process stamps its lines with its own clock plus the offset the runner measured against
//! it at start (a ping over its stdin and stdout), so a client under `faketime` keeps its skew.

use std::path::PathBuf;

use crate::Result;
use crate::edge::runtimes;
use crate::etcd::Etcd;
use crate::npm::{dist, fixture, pack};
use crate::tools::{Cmd, debian_program, root, step};

/// What a campaign is asked to do.
pub struct Campaign {
    pub seconds: u64,
    pub seed: u32,
    pub clients: u32,
}

/// The campaign of `cargo xtask test`: a fixed seed whose schedule strikes with every nemesis,
/// within 90 seconds.
pub const SHORT: Campaign = Campaign {
    seconds: 60,
    seed: 27,
    clients: 3,
};

/// A seed from the clock, for a run that was not given one (it is printed, to replay).
pub fn fresh_seed() -> u32 {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    (now.as_secs() as u32) ^ now.subsec_nanos()
}

/// The short campaign of `cargo xtask test`.
pub fn short() -> Result {
    run(&SHORT)
}

/// Runs one campaign; fails when a figure that must be 0 is not.
pub fn run(c: &Campaign) -> Result {
    ensure_faketime()?;
    dist()?;
    let tarball = pack()?;
    step("the fencepost CLI, to check the campaign's history");
    Cmd::cargo(&["build", "-q", "-p", "fencepost-cli"]).run()?;
    let (_, bin) = runtimes()?;
    let dir = fixture("chaos", &tarball)?;
    step("the campaign's own parts: its schedule and its fault proxy");
    Cmd::new("node")
        .args(["--test", "--test-reporter=dot"])
        .args(["schedule.test.mjs", "proxy.test.mjs"])
        .env("CHAOS_SHORT_SEED", SHORT.seed.to_string())
        .cwd(&dir)
        .run()?;
    let out = root().join("target/chaos").join(format!("seed-{}", c.seed));
    let etcd = Etcd::start()?;
    step(&format!(
        "fault campaign: {} s, seed {}, {} Node clients and one Deno client (replay: cargo xtask \
         chaos --seconds {} --seed {} --clients {})",
        c.seconds, c.seed, c.clients, c.seconds, c.seed, c.clients
    ));
    let result = Cmd::new("node")
        .arg("run.mjs")
        .args(["--seconds", &c.seconds.to_string()])
        .args(["--seed", &c.seed.to_string()])
        .args(["--clients", &c.clients.to_string()])
        .arg("--out")
        .arg(&out)
        .env("ETCD_ENDPOINTS", etcd.endpoints())
        .env("ETCD_MEMBERS", etcd.members_file())
        .env("CHAOS_ROOT", root())
        .env("WORKERD_BIN", bin.join("workerd"))
        .env("DENO_BIN", bin.join("deno"))
        .env("FENCEPOST_CLI", root().join("target/debug/fencepost"))
        .cwd(&dir)
        .run();
    if result.is_err() {
        etcd.print_logs();
    }
    result
}

/// Where `faketime` is, installed with apt-get when missing (needs root), like etcd.
fn ensure_faketime() -> Result<PathBuf> {
    debian_program("faketime", "faketime")
}
