//! Shared by the native and the wasm32 determinism tests.

use fencepost_sim::{PRESETS, RunOptions, run_with};

/// FNV-1a, 64-bit: a fixed, dependency-free hash of the trace bytes.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// `(preset, fencing, hash of the trace JSON)` for every preset, both ways.
pub fn trace_hashes() -> Vec<(&'static str, bool, u64)> {
    let mut out = Vec::new();
    for p in PRESETS {
        let s = p.scenario();
        for fencing in [true, false] {
            let t = run_with(
                &s,
                RunOptions {
                    fencing: Some(fencing),
                    ..RunOptions::default()
                },
            );
            out.push((p.name, fencing, fnv1a(t.to_json().as_bytes())));
        }
    }
    out
}

/// The hashes both platforms must produce. If the trace format changes on purpose, run
/// `FENCEPOST_PRINT_HASHES=1 cargo test -p fencepost-sim --test determinism -- --nocapture` and
/// paste the printed table here.
pub const EXPECTED: &[(&str, bool, u64)] = &[
    ("paused-worker", true, 0x6b59bb9ee558a39c),
    ("paused-worker", false, 0x8fe1d694dc4bbbd4),
    ("gc-pause", true, 0x9d713103ae0e8722),
    ("gc-pause", false, 0x58367d0d1401e52d),
    ("vm-suspend", true, 0xe2e0749db237e2a3),
    ("vm-suspend", false, 0x7c9efa013a012e74),
    ("delayed-write", true, 0xe47965676f83110c),
    ("delayed-write", false, 0x75399f625fd13b18),
    ("check-then-pause", true, 0xa36b465404dd4a2f),
    ("check-then-pause", false, 0x583c46ba7882e8dc),
    ("uuid-token", true, 0x790c18a0f73642f5),
    ("uuid-token", false, 0x08ed6c720462d8b4),
    ("idempotency-only", true, 0xc082d8227cfa2e4a),
    ("idempotency-only", false, 0x4edd219f020ac802),
    ("lock-delay", true, 0x52846e036bd74e10),
    ("lock-delay", false, 0x224d77c76a54ef33),
    ("clock-skew", true, 0x3136a79a855ada10),
    ("clock-skew", false, 0xff92af27d24a5205),
    ("authority-restart-unpersisted", true, 0xbd6a741002cd2148),
    ("authority-restart-unpersisted", false, 0xfb0040b9dc75b37f),
    ("authority-restart-persisted", true, 0xc5082a364d5d751b),
    ("authority-restart-persisted", false, 0x81d330aff8d4a623),
    ("crash-restart", true, 0x8079102584d8630c),
    ("crash-restart", false, 0x445eb06ca0c8dc46),
];
