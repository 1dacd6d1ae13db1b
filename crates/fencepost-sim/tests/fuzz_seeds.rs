//! The scenario fuzz target's check, run over its committed seeds on stable Rust, so every
//! `cargo xtask test` exercises it. A seed added without a line here fails the test.
#![cfg(not(target_arch = "wasm32"))]

#[path = "../../../fuzz/src/scenario.rs"]
mod check;

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
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/scenario");
    let mut seen: Vec<(String, usize)> = std::fs::read_dir(&dir)
        .expect("the seed folder exists")
        .map(|e| {
            let path = e.expect("readable entry").path();
            let data = std::fs::read(&path).expect("readable seed");
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, check::scenario(&data))
        })
        .collect();
    seen.sort();
    let want: Vec<(String, usize)> = EXPECTED.iter().map(|(n, v)| (n.to_string(), *v)).collect();
    assert_eq!(seen, want);
}
