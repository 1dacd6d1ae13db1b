//! The seed-sweep acceptance: 10,000 seeds of the `pauses-holds-skew` template (pauses, held
//! writes, clock skew, restarts of a lock service that persists its state), each run with fencing
//! on and off. The same file runs natively (`cargo test`) and on wasm32 (`cargo xtask test` runs it
//! under wasm-bindgen-test in Node), against the same expected counts: the simulation is a pure
//! function of the seed on every platform.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use fencepost_sim::Invariant;
use fencepost_sim::sweep::{Sweep, SweepOptions};
use fencepost_sim::template::{Source, template};

const SEEDS: u64 = 10_000;
/// Violating runs with fencing on, per invariant I1..I5.
const FENCED: [u64; 5] = [0, 0, 0, 0, 0];
/// Violating runs with fencing off.
const UNFENCED_RUNS: u64 = 4_314;
/// Violating runs with fencing off, per invariant I1..I5.
const UNFENCED: [u64; 5] = [4_314, 4_314, 0, 4_314, 0];
/// The first violating seeds without fencing.
const UNFENCED_FIRST: [u64; 5] = [1, 3, 6, 7, 8];

#[test]
fn ten_thousand_seeds_fencing_holds_and_its_absence_shows() {
    let t = template("pauses-holds-skew").expect("built-in template");
    let mut sweep = Sweep::new(Source::Template(t), 0, SEEDS, SweepOptions::default());
    // In slices, as a browser would.
    let mut slices = 0;
    while !sweep.step(777).finished() {
        slices += 1;
    }
    assert_eq!(slices, 12);
    let r = sweep.report();
    assert_eq!(r.runs, SEEDS);
    let on = r.fencing_on.as_ref().unwrap();
    let off = r.fencing_off.as_ref().unwrap();
    assert_eq!(on.violating_runs, 0);
    assert_eq!(on.by_invariant.0, FENCED);
    assert!(on.first_violating.is_empty());
    assert!(off.violating_runs > 0);
    assert_eq!(off.violating_runs, UNFENCED_RUNS);
    assert_eq!(off.by_invariant.0, UNFENCED);
    assert_eq!(off.by_invariant.get(Invariant::I3), 0);
    let first: Vec<u64> = off.first_violating.iter().map(|h| h.seed).collect();
    assert_eq!(first, UNFENCED_FIRST);
    assert_eq!(on.truncated_runs + off.truncated_runs, 0);
}
