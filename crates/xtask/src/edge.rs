//! The edge services (examples/cloudflare, examples/deno), tested over HTTP in real workerd and
//! real Deno. Both runtimes come from their npm packages, pinned in tests/edge/package-lock.json.

use crate::Result;
use crate::npm::npm_ci;
use crate::tools::{Cmd, root, step};

/// Runs tests/edge against the package in npm/dist (build it first with `npm::dist`).
pub fn test() -> Result {
    let dir = root().join("tests/edge");
    npm_ci(&dir)?;
    let bin = dir.join("node_modules/.bin");
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
    step("edge services: Cloudflare Workers + Durable Objects (workerd) and Deno + KV, over HTTP");
    Cmd::new("node")
        .args(["--test", "--test-reporter=spec", "edge.test.mjs"])
        .cwd(&dir)
        .env("WORKERD_BIN", bin.join("workerd"))
        .env("DENO_BIN", bin.join("deno"))
        .env("DENO_NO_UPDATE_CHECK", "1")
        .run()
}
