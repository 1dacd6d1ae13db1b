//! `fencepost/store` against real engines: SQLite (better-sqlite3 in Node), Postgres (a throwaway
//! server, see [`crate::postgres`], through the `pg` driver), Durable Object SQL (workerd) and
//! Deno KV (Deno), from the packed tarball in the fixture project tests/store. workerd and Deno
//! come from their npm packages, pinned there at the versions tests/edge uses.

use std::path::Path;

use crate::Result;
use crate::npm::{dist, fixture, pack};
use crate::postgres::Postgres;
use crate::tools::{Cmd, root, step};

/// `node` in the fixture `dir`, told where Postgres listens and where workerd is.
fn node(pg: &Postgres, dir: &Path) -> Cmd {
    Cmd::new("node")
        .env("PGHOST", pg.socket_dir())
        .env("PGUSER", "postgres")
        .env("PGDATABASE", "postgres")
        .env("WORKERD_BIN", dir.join("node_modules/.bin/workerd"))
        .cwd(dir)
}

/// Runs tests/store: SQLite, then Postgres on a server started here and stopped afterwards.
pub fn test() -> Result {
    dist()?;
    let tarball = pack()?;
    step("the fencepost CLI, for `fencepost check` of the write logs");
    Cmd::cargo(&["build", "-p", "fencepost-cli"]).run()?;
    let cli = root().join("target/debug/fencepost");
    let dir = fixture("store", &tarball)?;
    let pg = Postgres::start()?;
    step("fencepost/store: SQLite and Postgres in Node, Durable Object SQL in workerd, the README");
    node(&pg, &dir)
        .args([
            "--test",
            "sqlite.test.mjs",
            "postgres.test.mjs",
            "do.test.mjs",
            "differential.test.mjs",
            "readme.test.mjs",
        ])
        .env("FENCEPOST_CLI", &cli)
        .run()?;
    step("fencepost/store: its declarations, type-checked (deno check)");
    Cmd::new(dir.join("node_modules/.bin/deno"))
        .args(["check", "--quiet", "--unstable-kv", "store-usage.ts"])
        .env("DENO_NO_UPDATE_CHECK", "1")
        .cwd(&dir)
        .run()?;
    step("fencepost/store: Deno KV in Deno");
    Cmd::new(dir.join("node_modules/.bin/deno"))
        .args([
            "test",
            "--quiet",
            "--no-check",
            "--unstable-kv",
            "--allow-read",
            "--allow-write",
            "--allow-run",
            "--allow-env",
            "deno-kv.test.mjs",
        ])
        .env("FENCEPOST_CLI", &cli)
        .env("DENO_NO_UPDATE_CHECK", "1")
        .cwd(&dir)
        .run()
}

/// The store benchmark: per engine a fenced write against the same plain write and against the
/// floor (that write also storing the token), and 16 concurrent writers to one key
/// (tests/store/bench.mjs in Node and workerd, bench-kv.mjs in Deno).
/// Prints figures; asserts no times.
pub fn bench() -> Result {
    dist()?;
    let tarball = pack()?;
    let dir = fixture("store", &tarball)?;
    let pg = Postgres::start()?;
    step("fencepost/store benchmark: SQLite, Postgres, Durable Object SQL");
    node(&pg, &dir).arg("bench.mjs").run()?;
    step("fencepost/store benchmark: Deno KV");
    Cmd::new(dir.join("node_modules/.bin/deno"))
        .args([
            "run",
            "--quiet",
            "--unstable-kv",
            "--allow-read",
            "--allow-write",
            "bench-kv.mjs",
        ])
        .env("DENO_NO_UPDATE_CHECK", "1")
        .cwd(&dir)
        .run()
}
