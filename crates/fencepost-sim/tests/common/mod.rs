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
    ("paused-worker", true, 0xb1cbdf95d8a9f6a0),
    ("paused-worker", false, 0xecc78d941038a841),
    ("gc-pause", true, 0xe961d11fb7445a62),
    ("gc-pause", false, 0x0c2df34ac9892015),
    ("vm-suspend", true, 0xdca55777421db5a8),
    ("vm-suspend", false, 0xd1f3c3f02faaa639),
    ("delayed-write", true, 0xc59f13f5618a5a3f),
    ("delayed-write", false, 0xef0bf38679eac19c),
    ("check-then-pause", true, 0xa837159f011f30a6),
    ("check-then-pause", false, 0x3e216452d57e5440),
    ("uuid-token", true, 0x2b019ca15d759f7a),
    ("uuid-token", false, 0x1733a73b052d2ea1),
    ("idempotency-only", true, 0xf01bcc1fd1b19143),
    ("idempotency-only", false, 0x19d22d1986ef7256),
    ("lock-delay", true, 0x76e9fc1c0e480261),
    ("lock-delay", false, 0xc5957f5d686b17f0),
    ("clock-skew", true, 0x3136a79a855ada10),
    ("clock-skew", false, 0xff92af27d24a5205),
    ("authority-restart-unpersisted", true, 0xc560d251c454e8c2),
    ("authority-restart-unpersisted", false, 0x85a55e348c7cec9b),
    ("authority-restart-persisted", true, 0x57a937aa0e653c12),
    ("authority-restart-persisted", false, 0xf0be6865df3281c8),
    ("crash-restart", true, 0x8079102584d8630c),
    ("crash-restart", false, 0x445eb06ca0c8dc46),
    ("renewal-slow-network", true, 0xd421424a26c14f50),
    ("renewal-slow-network", false, 0x99da2c921ec795b3),
    ("renewal-long-pause", true, 0xaa02b7e671236ad1),
    ("renewal-long-pause", false, 0xf50056ac2918bf99),
];
