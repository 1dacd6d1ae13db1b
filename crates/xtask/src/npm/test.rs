//! The packaging tests of the npm package (`cargo xtask test-npm`, and part of `cargo xtask test`).

use std::path::Path;

use super::fixtures::{fixture, free_port, pack};
use super::service::{Host, with_service};
use super::wasm::MODULES;
use super::{dist, size, target};
use crate::Result;
use crate::tools::{Cmd, ensure_chromium, root, step};

/// Everything `cargo xtask test` checks about the npm package: the build, the size budget, and
/// the story in Node ESM and CJS, TypeScript, workerd, Deno and Chromium, each from the packed
/// tarball in a fresh fixture project; in Node also misuse, the API in detail, the transcript of
/// recorded behaviour, a big-endian host, the simulator (against the CLI too) and the README's
/// examples. In each of those runtimes `fencepost/client` from the tarball also holds a lease of a
/// real lease service (acquire, background renewal, a fenced write, release): Node against the
/// workerd host, Deno and Chromium against the Deno host, a Worker through a service binding.
pub fn test() -> Result {
    let started = std::time::Instant::now();
    clippy_wasm()?;
    dist()?;
    step("wasm sizes");
    size()?;
    let tarball = pack()?;
    node(&tarball)?;
    workerd(&tarball)?;
    deno(&tarball)?;
    browser(&tarball)?;
    println!(
        "npm package checks took {:.1} s",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Clippy on the bindings as built for wasm32 (allocator, single-threaded state).
fn clippy_wasm() -> Result {
    step("clippy on the bindings as built for wasm32 (allocator, single-threaded state)");
    crate::tools::ensure_targets()?;
    // One at a time: together, cargo would unify wasm-bindgen's features, and the simulator's
    // `std` would clash with the core bindings' own panic handler.
    for module in MODULES {
        Cmd::cargo(&[
            "clippy",
            "-p",
            module.krate,
            "--target",
            "wasm32-unknown-unknown",
            "--",
            "-D",
            "warnings",
        ])
        .run()?;
    }
    Ok(())
}

/// The Node test files of tests/node, run together.
const NODE_TESTS: &[&str] = &[
    "story.test.mjs",
    "story.test.cjs",
    "misuse.test.mjs",
    "api.test.mjs",
    "transcript.test.mjs",
    "byte-order.test.mjs",
    "sim.test.mjs",
    "sim.test.cjs",
    "sim-misuse.test.mjs",
    "sim-memory.test.mjs",
    "sim-boundary.test.mjs",
    "sim-exhausted.test.mjs",
    "memory.test.mjs",
    "sim-cli.test.mjs",
    "readme.test.mjs",
    "lease-client.test.mjs",
    "lease-client.test.cjs",
];

/// Node (ESM, CommonJS, misuse, the simulator, the README, a lease from the workerd service) and
/// TypeScript.
fn node(tarball: &Path) -> Result {
    // The simulator's traces are compared with the CLI's, byte for byte.
    step("the fencepost CLI, for the trace comparison");
    Cmd::cargo(&["build", "-p", "fencepost-cli"]).run()?;
    let cli = target().join("debug").join("fencepost");

    step(
        "npm package: Node (ESM, CommonJS, misuse, the simulator, the README, a lease from the workerd service) and TypeScript",
    );
    let node = fixture("node", tarball)?;
    with_service(Host::Workerd, None, "node")?
        .arg("--test")
        .args(NODE_TESTS)
        .env("FENCEPOST_CLI", &cli)
        .cwd(&node)
        .run()?;
    // NodeNext (TypeScript models require() of ES modules there) and Node16 (it does not: CommonJS
    // code must find the .d.cts declarations through the `require` condition).
    for config in ["tsconfig.json", "tsconfig.node16.json"] {
        Cmd::new("node_modules/.bin/tsc")
            .args(["--noEmit", "--strict", "-p", config])
            .cwd(&node)
            .run()?;
    }
    Ok(())
}

/// workerd, and a Worker holding a lease through a service binding.
fn workerd(tarball: &Path) -> Result {
    step("npm package: workerd (and a Worker holding a lease through a service binding)");
    let workerd = fixture("workerd", tarball)?;
    Cmd::new("node")
        .arg("run.mjs")
        .arg(free_port()?.to_string())
        .arg(free_port()?.to_string())
        .env(
            "FENCEPOST_SERVICE_CAPNP",
            root().join("examples/cloudflare/workerd.capnp"),
        )
        .cwd(&workerd)
        .run()
}

/// Deno, and a lease from the Deno service.
fn deno(tarball: &Path) -> Result {
    step("npm package: Deno (and a lease from the Deno service)");
    let deno = fixture("deno", tarball)?;
    with_service(Host::Deno, None, "node_modules/.bin/deno")?
        .args([
            "test",
            "--allow-read",
            "--allow-net=127.0.0.1",
            "--allow-env=FENCEPOST_SERVICE",
            "--no-prompt",
            "story.test.ts",
            "sim.test.ts",
            "lease-client.test.ts",
        ])
        .cwd(&deno)
        .run()
}

/// Headless Chromium, and a lease from the Deno service on another origin.
fn browser(tarball: &Path) -> Result {
    step("npm package: headless Chromium (and a lease from the Deno service, on another origin)");
    ensure_chromium()?;
    let browser = fixture("browser", tarball)?;
    let port = free_port()?;
    with_service(
        Host::Deno,
        Some(&format!("http://127.0.0.1:{port}")),
        "node",
    )?
    .arg("run.mjs")
    .arg(port.to_string())
    .env("FENCEPOST_SCREENSHOTS", target().join("npm-browser"))
    .cwd(&browser)
    .run()
}
