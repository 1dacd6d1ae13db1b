//! `fencepost/store` against real engines: SQLite (better-sqlite3 in Node) and Postgres (a
//! throwaway server, see [`crate::postgres`], through the `pg` driver), from the packed tarball in
//! the fixture project tests/store.

use crate::Result;
use crate::npm::{dist, fixture, pack};
use crate::postgres::Postgres;
use crate::tools::{Cmd, root, step};

/// Runs tests/store: SQLite, then Postgres on a server started here and stopped afterwards.
pub fn test() -> Result {
    dist()?;
    let tarball = pack()?;
    step("the fencepost CLI, for `fencepost check` of the write logs");
    Cmd::cargo(&["build", "-p", "fencepost-cli"]).run()?;
    let cli = root().join("target/debug/fencepost");
    let dir = fixture("store", &tarball)?;
    let pg = Postgres::start()?;
    step("fencepost/store: SQLite and Postgres");
    Cmd::new("node")
        .args(["--test", "sqlite.test.mjs", "postgres.test.mjs"])
        .env("FENCEPOST_CLI", &cli)
        .env("PGHOST", pg.socket_dir())
        .env("PGUSER", "postgres")
        .env("PGDATABASE", "postgres")
        .cwd(&dir)
        .run()
}
