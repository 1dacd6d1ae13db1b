//! Explorer tasks: its wasm32 test run and its benchmarks.

use crate::Result;
use crate::tools::{Cmd, step};

/// The seed-sweep acceptance test on wasm32, in Node: the same counts as natively. Runs after
/// the determinism step, which installs the pinned wasm-bindgen-test-runner.
pub fn wasm_tests() -> Result {
    step("wasm32: the same seed-sweep counts as native");
    Cmd::cargo(&[
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
    .run()
}

/// Explorer benchmarks: exhaustive search states/s, sweep runs/s, history checker lines/s and
/// peak memory.
pub fn bench() -> Result {
    step("explorer: exhaustive search, seed sweeps, history checker");
    Cmd::cargo(&["bench", "-p", "fencepost-sim", "--bench", "explore"]).run()
}
