//! The scenario fuzz target's check, run over its committed seeds on stable Rust, so every
//! `cargo xtask test` exercises it. A seed added without a line here fails the test.
#![cfg(not(target_arch = "wasm32"))]

use fencepost_fuzz_checks::scenario as check;

mod seeds;

/// Seed file -> whether it is a valid scenario.
const EXPECTED: &[(&str, usize)] = &[
    ("bad-worker-ref.json", 0),
    ("every-fault.json", 1),
    ("huge-time.json", 0),
    ("idempotency-only.json", 1),
    // Renewals every 2 ms: the 20,000-event limit is reached inside a step, which keeps its
    // events (20,001 of them).
    ("limit-mid-step.json", 1),
    ("minimal.json", 1),
    ("not-utf8.bin", 0),
    ("paused-worker.json", 1),
    ("truncated.json", 0),
    ("unknown-field.json", 0),
    ("wrong-version.json", 0),
];

#[test]
fn every_seed_gives_its_expected_verdict() {
    assert_eq!(
        seeds::verdicts("scenario", check::scenario),
        seeds::expected(EXPECTED)
    );
}

#[test]
fn a_run_that_reaches_its_limit_inside_a_step_keeps_the_whole_step() {
    use fencepost_sim::engine::STEP_EVENTS;
    use fencepost_sim::{RunOptions, Scenario, run_with};
    let text = include_str!("../../../fuzz/corpus/scenario/limit-mid-step.json");
    let s = Scenario::from_json(text).expect("the seed is a valid scenario");
    let t = run_with(
        &s,
        RunOptions {
            max_events: 20_000,
            ..RunOptions::default()
        },
    );
    // Event 19,999 (0-based) is a renew answered in the same step by its send.
    assert_eq!(t.events.len(), 20_001);
    assert!(t.truncated);
    let last = &t.events[20_000];
    assert_eq!((last.seq, last.t_ms), (20_000, t.events[19_999].t_ms));
    assert!(t.events.len() <= 20_000 + STEP_EVENTS);
}
