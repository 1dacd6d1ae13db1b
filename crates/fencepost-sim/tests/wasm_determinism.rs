//! Runs under `cargo test --target wasm32-unknown-unknown` with wasm-bindgen-test-runner (Node):
//! the trace bytes of every preset must hash to exactly what the native run produces.
#![cfg(target_arch = "wasm32")]

mod common;

use wasm_bindgen_test::wasm_bindgen_test;

#[wasm_bindgen_test]
fn wasm32_trace_hashes_match_native() {
    assert_eq!(common::trace_hashes(), common::EXPECTED);
}

/// The package (npm/src/sim/api.js) refuses runs, sweeps and searches by these bounds (the
/// module's `memory_bound`), and its errors name the largest sweep runs and searches they allow:
/// on wasm32 they are exactly these.
#[wasm_bindgen_test]
fn memory_bounds_on_wasm32() {
    use fencepost_sim::engine::{run_bytes, trace_bytes};
    use fencepost_sim::explore::search_bytes;
    let runs: Vec<[u64; 3]> = [1, 33, 1000, 1_000_000]
        .iter()
        .map(|&n| {
            [
                run_bytes(n, true),
                run_bytes(n, false),
                trace_bytes(n as u64),
            ]
        })
        .collect();
    assert_eq!(
        runs,
        [
            [398_176, 324_576, 65_696],
            [426_592, 344_800, 85_856],
            [1_674_976, 1_347_424, 393_056],
            [1_181_168_352, 912_667_488, 335_609_696],
        ]
    );
    let searches: Vec<u64> = [2, 1000, 1_000_000, 2_000_000, 5_000_000]
        .into_iter()
        .map(search_bytes)
        .collect();
    assert_eq!(
        searches,
        [
            1_212_560,
            2_589_648,
            1_413_578_704,
            2_826_010_576,
            7_364_247_504
        ]
    );
    // The most states one search may have (2 GiB), as the package's errors say.
    assert!(search_bytes(1_483_149) <= 2 << 30 && search_bytes(1_483_150) > 2 << 30);
    // The most events per run of a sweep (3 GiB), as the package's errors say.
    let sweep = fencepost_sim::sweep::sweep_bytes;
    assert!(sweep(2_872_179) <= 3 << 30 && sweep(2_872_180) > 3 << 30);
}
