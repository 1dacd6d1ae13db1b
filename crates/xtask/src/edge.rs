//! The edge services (examples/cloudflare, examples/deno), tested over HTTP in real workerd and
//! real Deno, and the lease client's benchmark. Both runtimes come from their npm packages, pinned
//! in tests/edge/package-lock.json.

use std::path::{Path, PathBuf};

use crate::Result;
use crate::tools::{Cmd, npm_ci, root, step};

/// The test files of tests/edge, run together.
const TESTS: &[&str] = &[
    "edge.test.mjs",
    "security.test.mjs",
    "lifecycle.test.mjs",
    "documents.test.mjs",
    "cors.test.mjs",
    "waits.test.mjs",
    "lease-client.test.mjs",
    "lease-client.test.cjs",
    "lease-client-browser.test.mjs",
    "runtimes.test.mjs",
];

/// Installs the runtimes; answers tests/edge and the folder of their binaries.
pub(crate) fn runtimes() -> Result<(PathBuf, PathBuf)> {
    let dir = root().join("tests/edge");
    npm_ci(&dir)?;
    let bin = dir.join("node_modules/.bin");
    Ok((dir, bin))
}

/// A command in tests/edge with the runtimes' paths set.
fn node(dir: &Path, bin: &Path) -> Cmd {
    Cmd::new("node")
        .cwd(dir)
        .env("WORKERD_BIN", bin.join("workerd"))
        .env("DENO_BIN", bin.join("deno"))
        .env("DENO_NO_UPDATE_CHECK", "1")
}

/// Runs tests/edge against the package in npm/dist (build it first with `npm::dist`).
pub fn test() -> Result {
    let (dir, bin) = runtimes()?;
    step("edge services: the Deno host type-checks");
    Cmd::new(bin.join("deno"))
        .args([
            "check",
            "--quiet",
            "--unstable-kv",
            "--config",
            "../../examples/deno/deno.json",
            "../../examples/deno/main.ts",
        ])
        .cwd(&dir)
        .env("DENO_NO_UPDATE_CHECK", "1")
        .run()?;
    step("edge services: the fencepost CLI that checks the lease clients' write log");
    Cmd::cargo(&["build", "-q", "-p", "fencepost-cli"]).run()?;
    step("edge services: Cloudflare Workers + Durable Objects (workerd) and Deno + KV, over HTTP");
    node(&dir, &bin)
        .env("FENCEPOST_CLI", root().join("target/debug/fencepost"))
        .args(["--test", "--test-reporter=spec", "--test-concurrency=1"])
        .args(TESTS)
        .run()
}

/// The lease client's benchmark (the package in npm/dist, built first). The hosts themselves are
/// put under load by `service_bench`, in one table with the Node hosts and the other locks.
pub fn bench() -> Result {
    let (dir, bin) = runtimes()?;
    step("the lease client: lease.fetch against plain fetch, a keeper round, 1,000 leases held");
    node(&dir, &bin).arg("client-bench.mjs").run()
}
