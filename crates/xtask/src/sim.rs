//! Simulator tasks: the explorer's benchmarks and its wasm32 test run.

use std::process::Command;

use crate::Result;
use crate::tools::{Cmd, root, step};

/// The wasm-bindgen version the wasm32 tests are pinned to (see crates/fencepost-sim/Cargo.toml).
const WASM_BINDGEN_VERSION: &str = "0.2.130";

/// wasm-bindgen-test-runner at the pinned version (installed from crates.io when missing).
fn ensure_wasm_test_runner() -> Result {
    let have = Command::new("wasm-bindgen-test-runner")
        .arg("--version")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    if !have.contains(WASM_BINDGEN_VERSION) {
        step(&format!(
            "installing wasm-bindgen-test-runner {WASM_BINDGEN_VERSION}"
        ));
        Cmd::cargo(&[
            "install",
            "wasm-bindgen-cli",
            "--locked",
            "--version",
            &format!("={WASM_BINDGEN_VERSION}"),
        ])
        .run()?;
    }
    Ok(())
}

/// The seed-sweep acceptance test on wasm32, in Node: the same counts as natively.
pub fn wasm_tests() -> Result {
    ensure_wasm_test_runner()?;
    step("sim tests on wasm32 (wasm-bindgen-test in Node)");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(cargo)
        .args([
            "test",
            "-p",
            "fencepost-sim",
            "--target",
            "wasm32-unknown-unknown",
            "--test",
            "sweep_counts",
        ])
        .env(
            "CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER",
            "wasm-bindgen-test-runner",
        )
        .current_dir(root())
        .status()
        .map_err(|e| format!("could not start cargo: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("wasm32 sim tests failed ({status})"))
    }
}

/// Explorer benchmarks: states/s of the exhaustive search, sweep runs/s, history lines/s and
/// peak memory.
pub fn bench() -> Result {
    step("explorer benchmarks");
    Cmd::cargo(&["bench", "-p", "fencepost-sim", "--bench", "explore"]).run()
}
