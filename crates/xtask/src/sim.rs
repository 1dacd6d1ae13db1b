//! Explorer tasks: its wasm32 test run and its benchmarks.

use crate::Result;
use crate::tools::{Cmd, step};

/// The simulator's wasm32 tests, in Node through wasm-bindgen-test-runner (installed, pinned,
/// by `npm::ensure_wasm_bindgen`, which must run first): every preset's trace hashes as natively,
/// and the seed sweep counts as natively.
pub fn wasm_tests() -> Result {
    for (test, what) in [
        ("wasm_determinism", "the same traces as native"),
        ("sweep_counts", "the same seed-sweep counts as native"),
    ] {
        step(&format!("wasm32: {what}"));
        Cmd::cargo(&[
            "test",
            "-p",
            "fencepost-sim",
            "--target",
            "wasm32-unknown-unknown",
            "--test",
            test,
        ])
        .env(
            "CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER",
            "wasm-bindgen-test-runner",
        )
        .run()?;
    }
    Ok(())
}

/// Explorer benchmarks: exhaustive search states/s, sweep runs/s, history checker lines/s and
/// peak memory.
pub fn bench() -> Result {
    step("explorer: exhaustive search, seed sweeps, history checker");
    Cmd::cargo(&["bench", "-p", "fencepost-sim", "--bench", "explore"]).run()
}
