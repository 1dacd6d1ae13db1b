//! Named stories. Each is a scenario plus the verdict it must reach with fencing on and off.
//!
//! | preset | what it shows | fencing on | fencing off |
//! | --- | --- | --- | --- |
//! | `paused-worker` | A pauses 45 s with a 30 s lease; B takes over with 34; A wakes and writes with 33 | holds | I1 I2 I4 |
//! | `gc-pause` | a stop-the-world GC pause outlasts a renewing worker's lease | holds | I1 I2 I4 |
//! | `vm-suspend` | a VM is suspended for two minutes in the middle of a job | holds | I1 I2 I4 |
//! | `delayed-write` | a write sent before expiry is held in the network past B's write | holds | I1 I2 I4 |
//! | `check-then-pause` | the renew check passes, then a pause before the write | holds | I1 I2 I4 |
//! | `uuid-token` | unique but unordered tokens: the storage cannot tell old from new | I1 I2 I4 | I1 I2 I4 |
//! | `idempotency-only` | idempotency keys stop a resent write applying twice but still let the stale owner in | holds | I1 I2 I4 |
//! | `lock-delay` | a lock-delay outlasts the pause: the stale write lands before anyone newer | holds | holds |
//! | `clock-skew` | a slow clock renews too late; the worker writes after losing the lease | holds | I1 I2 I4 |
//! | `authority-restart-unpersisted` | the lock service forgets its tokens and issues 33 twice | I2 I3 I4 | I2 I3 I4 |
//! | `authority-restart-persisted` | the same restart, restored from persisted state | holds | I1 I2 I4 |
//! | `crash-restart` | a crashed worker's in-flight write arrives after its restarted self wrote | holds | I1 I2 I4 |
//! | `renewal-slow-network` | renewals answered late but inside safe-until keep the lease | holds | holds |
//! | `renewal-long-pause` | a pause past safe-until: renewal cannot help, only the fence | holds | I1 I2 I4 |
//!
//! The `idempotency-only` scenario itself has fencing off (that is its point); "fencing on" is the
//! same scenario with fencing forced on.

use crate::invariants::Invariant;
use crate::scenario::Scenario;

/// A named story.
#[derive(Clone, Copy, Debug)]
pub struct Preset {
    /// Its name, as used on the command line and in URLs.
    pub name: &'static str,
    /// A title.
    pub title: &'static str,
    /// What it shows, in a few sentences.
    pub story: &'static str,
    /// The scenario, as JSON.
    pub json: &'static str,
    /// Invariants violated with fencing forced on.
    pub with_fencing: &'static [Invariant],
    /// Invariants violated with fencing forced off.
    pub without_fencing: &'static [Invariant],
}

impl Preset {
    /// The scenario.
    pub fn scenario(&self) -> Scenario {
        // Every preset is parsed by the tests; a failure here is a bug in this file.
        Scenario::from_json(self.json).unwrap_or_else(|e| panic!("preset {}: {e}", self.name))
    }
}

use Invariant::{I1, I2, I3, I4};

const STALE: &[Invariant] = &[I1, I2, I4];

/// Every preset, the paused-worker story first.
pub const PRESETS: &[Preset] = &[
    Preset {
        name: "paused-worker",
        title: "The paused worker",
        story: "A gets the lock with token 33 and a 30 s lease, then freezes for 45 s. Its lease \
                expires; B gets token 34 and writes. A wakes up, still sure it holds the lock, and \
                writes with 33. With fencing the storage refuses 33 because it has seen 34; \
                without it, A's stale data lands on top of B's.",
        json: r#"{
  "version": 1, "name": "paused-worker", "seed": 1,
  "lease_ttl_ms": 30000, "first_token": 33, "latency_ms": { "min": 50, "max": 50 },
  "workers": [
    { "name": "A", "start_ms": 0, "job": { "work_ms": 2000 } },
    { "name": "B", "start_ms": 10000, "job": { "work_ms": 1000 } }
  ],
  "faults": [ { "kind": "pause", "worker": "A", "at": 1000, "for": 45000 } ]
}"#,
        with_fencing: &[],
        without_fencing: STALE,
    },
    Preset {
        name: "gc-pause",
        title: "A stop-the-world GC pause",
        story: "A renews its 10 s lease every 3 s, but a 15 s garbage-collection pause stops the \
                renewals too. B takes over. When the GC ends, A's pending renew and its write go out \
                together: the write carries a token that is no longer current.",
        json: r#"{
  "version": 1, "name": "gc-pause", "seed": 1,
  "lease_ttl_ms": 10000, "first_token": 33, "latency_ms": { "min": 20, "max": 20 },
  "workers": [
    { "name": "A", "start_ms": 0, "job": { "work_ms": 5000, "renew_every_ms": 3000 } },
    { "name": "B", "start_ms": 2000, "job": { "work_ms": 500 } }
  ],
  "faults": [ { "kind": "pause", "worker": "A", "at": 4000, "for": 15000 } ]
}"#,
        with_fencing: &[],
        without_fencing: STALE,
    },
    Preset {
        name: "vm-suspend",
        title: "A suspended virtual machine",
        story: "A's VM is suspended for two minutes in the middle of a three-write job. Nothing \
                inside the VM notices; B does all its work meanwhile. On resume A sends its next \
                write as if nothing happened.",
        json: r#"{
  "version": 1, "name": "vm-suspend", "seed": 1,
  "lease_ttl_ms": 30000, "first_token": 33, "latency_ms": { "min": 50, "max": 50 },
  "workers": [
    { "name": "A", "start_ms": 0, "job": { "work_ms": 10000, "writes": 3, "renew_every_ms": 10000 } },
    { "name": "B", "start_ms": 1000, "job": { "work_ms": 2000, "writes": 2 } }
  ],
  "faults": [ { "kind": "pause", "worker": "A", "at": 12000, "for": 120000 } ]
}"#,
        with_fencing: &[],
        without_fencing: STALE,
    },
    Preset {
        name: "delayed-write",
        title: "A write held in the network",
        story: "A sends its write well before its lease expires, but the request sits in a \
                congested network for 40 s. By the time it arrives, B holds the lock and has \
                written. The lease was valid when the write left; it is stale when it lands.",
        json: r#"{
  "version": 1, "name": "delayed-write", "seed": 1,
  "lease_ttl_ms": 30000, "first_token": 33, "latency_ms": { "min": 50, "max": 50 },
  "workers": [
    { "name": "A", "start_ms": 0, "job": { "work_ms": 1000 } },
    { "name": "B", "start_ms": 5000, "job": { "work_ms": 1000 } }
  ],
  "faults": [ { "kind": "hold", "worker": "A", "nth_write": 1, "for": 40000 } ]
}"#,
        with_fencing: &[],
        without_fencing: STALE,
    },
    Preset {
        name: "check-then-pause",
        title: "Check, then pause",
        story: "A is careful: before writing it renews its lease and writes only if that \
                succeeded. The check passes, and A freezes right after it. Every check has a gap \
                before the side effect; only the resource can close it.",
        json: r#"{
  "version": 1, "name": "check-then-pause", "seed": 1,
  "lease_ttl_ms": 30000, "first_token": 33, "latency_ms": { "min": 50, "max": 50 },
  "protections": { "check_before_write": true },
  "workers": [
    { "name": "A", "start_ms": 0, "job": { "work_ms": 1000 } },
    { "name": "B", "start_ms": 5000, "job": { "work_ms": 1000 } }
  ],
  "faults": [ { "kind": "pause_at", "worker": "A", "point": "after_renew_check", "for": 45000 } ]
}"#,
        with_fencing: &[],
        without_fencing: STALE,
    },
    Preset {
        name: "uuid-token",
        title: "Unique is not ordered",
        story: "The paused-worker story with random unique tokens instead of increasing numbers. \
                The storage can tell A's token is different from B's, but not that it is older, so \
                it takes A for a new owner and lets the stale write in.",
        json: r#"{
  "version": 1, "name": "uuid-token", "seed": 1,
  "lease_ttl_ms": 30000, "first_token": 33, "latency_ms": { "min": 50, "max": 50 },
  "protections": { "token_kind": "uuid" },
  "workers": [
    { "name": "A", "start_ms": 0, "job": { "work_ms": 2000 } },
    { "name": "B", "start_ms": 10000, "job": { "work_ms": 1000 } }
  ],
  "faults": [ { "kind": "pause", "worker": "A", "at": 1000, "for": 45000 } ]
}"#,
        with_fencing: STALE,
        without_fencing: STALE,
    },
    Preset {
        name: "idempotency-only",
        title: "Idempotency keys are not fencing",
        story: "A's first write is slow, so A resends it; the resend lands first, and by its \
                idempotency key the storage recognises the slow one as one it already applied. \
                Then A freezes, B takes over, and A's next \
                write, a new operation, is applied on top of B's. Idempotency stops duplicates; \
                it does not stop stale owners.",
        json: r#"{
  "version": 1, "name": "idempotency-only", "seed": 1,
  "lease_ttl_ms": 30000, "first_token": 33, "latency_ms": { "min": 50, "max": 50 },
  "protections": { "fencing": false, "idempotency_keys": true },
  "workers": [
    { "name": "A", "start_ms": 0, "job": { "work_ms": 3000, "writes": 2, "retry_after_ms": 1500 } },
    { "name": "B", "start_ms": 5000, "job": { "work_ms": 1000 } }
  ],
  "faults": [
    { "kind": "hold", "worker": "A", "nth_write": 1, "for": 4000 },
    { "kind": "pause", "worker": "A", "at": 6000, "for": 45000 }
  ]
}"#,
        with_fencing: &[],
        without_fencing: STALE,
    },
    Preset {
        name: "lock-delay",
        title: "Lock-delay buys time",
        story: "After an expiry the lock service waits 15 s before granting the lock again. A's \
                12 s pause ends inside that window, so its late write lands before anyone newer \
                exists. Lock-delay covers pauses up to the lease plus the delay; a longer pause \
                would still need fencing.",
        json: r#"{
  "version": 1, "name": "lock-delay", "seed": 1,
  "lease_ttl_ms": 10000, "lock_delay_ms": 15000, "first_token": 33,
  "latency_ms": { "min": 50, "max": 50 },
  "workers": [
    { "name": "A", "start_ms": 0, "job": { "work_ms": 2000 } },
    { "name": "B", "start_ms": 3000, "job": { "work_ms": 1000 } }
  ],
  "faults": [ { "kind": "pause", "worker": "A", "at": 1000, "for": 12000 } ]
}"#,
        with_fencing: &[],
        without_fencing: &[],
    },
    Preset {
        name: "clock-skew",
        title: "A slow clock",
        story: "A's clock runs at 40% speed. It plans to renew every 8 s of its own time, which is \
                20 s of real time, so its 10 s lease lapses between renewals without A noticing. \
                B takes over; A writes with the old token.",
        json: r#"{
  "version": 1, "name": "clock-skew", "seed": 1,
  "lease_ttl_ms": 10000, "first_token": 33, "latency_ms": { "min": 50, "max": 50 },
  "workers": [
    { "name": "A", "start_ms": 0, "job": { "work_ms": 5000, "renew_every_ms": 8000 } },
    { "name": "B", "start_ms": 1000, "job": { "work_ms": 1000 } }
  ],
  "faults": [ { "kind": "clock", "worker": "A", "drift_ppm": -600000 } ]
}"#,
        with_fencing: &[],
        without_fencing: STALE,
    },
    Preset {
        name: "authority-restart-unpersisted",
        title: "A lock service that forgets",
        story: "The lock service restarts without persisted state and starts again at token 33. \
                B is granted 33 while A still holds 33: two owners with one token. The storage \
                cannot tell them apart, so fencing alone is not enough: the authority must never \
                re-issue a token.",
        json: r#"{
  "version": 1, "name": "authority-restart-unpersisted", "seed": 1,
  "lease_ttl_ms": 30000, "first_token": 33, "latency_ms": { "min": 50, "max": 50 },
  "workers": [
    { "name": "A", "start_ms": 0, "job": { "work_ms": 2000, "writes": 2 } },
    { "name": "B", "start_ms": 3000, "job": { "work_ms": 1000 } }
  ],
  "faults": [
    { "kind": "authority_restart", "at": 2500, "persisted": false },
    { "kind": "pause", "worker": "A", "at": 3000, "for": 40000 }
  ]
}"#,
        with_fencing: &[I2, I3, I4],
        without_fencing: &[I2, I3, I4],
    },
    Preset {
        name: "authority-restart-persisted",
        title: "A lock service that remembers",
        story: "The same restart, but the lock service persisted its token reservation before \
                each grant, as fencepost requires. It restores A's lease and resumes above every \
                token it may have issued, so B gets 34 and A's late write is refused.",
        json: r#"{
  "version": 1, "name": "authority-restart-persisted", "seed": 1,
  "lease_ttl_ms": 30000, "first_token": 33, "latency_ms": { "min": 50, "max": 50 },
  "workers": [
    { "name": "A", "start_ms": 0, "job": { "work_ms": 2000, "writes": 2 } },
    { "name": "B", "start_ms": 3000, "job": { "work_ms": 1000 } }
  ],
  "faults": [
    { "kind": "authority_restart", "at": 2500, "persisted": true },
    { "kind": "pause", "worker": "A", "at": 3000, "for": 40000 }
  ]
}"#,
        with_fencing: &[],
        without_fencing: STALE,
    },
    Preset {
        name: "crash-restart",
        title: "A crash with a write in flight",
        story: "A sends a write that gets stuck in the network, then its process crashes. A fresh \
                A process starts, waits out the old lease, gets token 34 and writes. Then the old \
                process's write finally arrives, carrying 33.",
        json: r#"{
  "version": 1, "name": "crash-restart", "seed": 1,
  "lease_ttl_ms": 30000, "first_token": 33, "latency_ms": { "min": 50, "max": 50 },
  "workers": [ { "name": "A", "start_ms": 0, "job": { "work_ms": 1000 } } ],
  "faults": [
    { "kind": "hold", "worker": "A", "nth_write": 1, "for": 40000 },
    { "kind": "crash", "worker": "A", "at": 1500, "restart_after": 1000 }
  ]
}"#,
        with_fencing: &[],
        without_fencing: STALE,
    },
    Preset {
        name: "renewal-slow-network",
        title: "Renewal through a slow network",
        story: "A holds a 20 s lease for a 30 s job and renews it every 5 s. Every message takes \
                1 to 2 s, so each renewal is answered seconds late, but always before the \
                safe-until its keeper counted from the previous renewal's send. A never loses the \
                lease; its three writes land, then B gets 34 and writes. Renewal saves A here.",
        json: r#"{
  "version": 1, "name": "renewal-slow-network", "seed": 1,
  "lease_ttl_ms": 20000, "first_token": 33, "latency_ms": { "min": 1000, "max": 2000 },
  "workers": [
    { "name": "A", "start_ms": 0, "job": { "work_ms": 6000, "writes": 3, "renew_every_ms": 5000 } },
    { "name": "B", "start_ms": 1000, "job": { "work_ms": 1000 } }
  ],
  "faults": []
}"#,
        with_fencing: &[],
        without_fencing: &[],
    },
    Preset {
        name: "renewal-long-pause",
        title: "A pause longer than the safe margin",
        story: "A renews its 10 s lease every 3 s, and each renewal is answered at once. Then, \
                about to write, A freezes for 15 s: no renewal can go out, so its safe-until \
                passes and the lease expires. B gets 34 and writes. A wakes and its write leaves \
                before its keeper tells it the lease is gone. Auto-renew cannot help; only the \
                storage's fence refuses 33.",
        json: r#"{
  "version": 1, "name": "renewal-long-pause", "seed": 1,
  "lease_ttl_ms": 10000, "first_token": 33, "latency_ms": { "min": 50, "max": 50 },
  "workers": [
    { "name": "A", "start_ms": 0, "job": { "work_ms": 7000, "renew_every_ms": 3000 } },
    { "name": "B", "start_ms": 2000, "job": { "work_ms": 1000 } }
  ],
  "faults": [ { "kind": "pause_at", "worker": "A", "point": "before_write", "for": 15000 } ]
}"#,
        with_fencing: &[],
        without_fencing: STALE,
    },
];

/// The preset named `name`.
pub fn preset(name: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|p| p.name == name)
}
