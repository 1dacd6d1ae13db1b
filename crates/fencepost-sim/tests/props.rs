//! Random scenarios: with fencing on (ordered tokens) and a lock service that persists what
//! fencepost asks it to, no fault mix may break I1, I2, I3 or I4.
#![cfg(not(target_arch = "wasm32"))]

use fencepost_sim::{
    Fault, Invariant, Job, Latency, Point, Protections, RunOptions, Scenario, TokenKind, Worker,
    run_with,
};
use proptest::prelude::*;

const NAMES: [&str; 8] = ["A", "B", "C", "D", "E", "F", "G", "H"];

fn job() -> impl Strategy<Value = Job> {
    (
        0u64..20_000,
        1u32..4,
        prop::option::of(1_000u64..15_000),
        prop::option::of(200u64..5_000),
    )
        .prop_map(|(work_ms, writes, renew_every_ms, retry_after_ms)| Job {
            work_ms,
            writes,
            renew_every_ms,
            retry_after_ms,
        })
}

fn fault(workers: usize) -> impl Strategy<Value = Fault> {
    let w = (0..workers).prop_map(|i| NAMES[i].to_string());
    prop_oneof![
        (w.clone(), 0u64..60_000, 0u64..90_000).prop_map(|(worker, at, for_ms)| Fault::Pause {
            worker,
            at,
            for_ms
        }),
        (w.clone(), 0usize..3, 1u32..3, 0u64..90_000).prop_map(|(worker, p, nth, for_ms)| {
            Fault::PauseAt {
                worker,
                point: Point::ALL[p],
                nth,
                for_ms,
            }
        }),
        (w.clone(), 1u32..4, 0u64..90_000).prop_map(|(worker, nth_write, for_ms)| Fault::Hold {
            worker,
            nth_write,
            for_ms
        }),
        (w.clone(), 0u64..60_000, 1u64..60_000).prop_map(|(worker, from, len)| {
            Fault::Partition {
                worker,
                from,
                to: from + len,
            }
        }),
        (
            w.clone(),
            -5_000i64..5_000,
            -800_000i32..800_000,
            prop::option::of(0u64..60_000),
            -30_000i64..30_000
        )
            .prop_map(
                |(worker, skew_ms, drift_ppm, jump_at, jump_ms)| Fault::Clock {
                    worker,
                    skew_ms,
                    drift_ppm,
                    jump_at,
                    jump_ms: if jump_at.is_some() { jump_ms } else { 0 },
                }
            ),
        (w, 0u64..60_000, prop::option::of(0u64..40_000)).prop_map(
            |(worker, at, restart_after)| Fault::Crash {
                worker,
                at,
                restart_after
            }
        ),
        (0u64..60_000).prop_map(|at| Fault::AuthorityRestart {
            at,
            persisted: true
        }),
    ]
}

fn scenario() -> impl Strategy<Value = Scenario> {
    (1usize..=8).prop_flat_map(|n| {
        (
            prop::collection::vec((0u64..30_000, job()), n),
            prop::collection::vec(fault(n), 0..6),
            1_000u64..40_000,
            0u64..5_000,
            (0u64..200, 0u64..300),
            any::<u64>(),
            any::<(bool, bool)>(),
        )
            .prop_map(
                move |(ws, faults, ttl, delay, (lo, extra), seed, (idem, check))| Scenario {
                    version: 1,
                    name: "random".into(),
                    seed,
                    lease_ttl_ms: ttl,
                    lock_delay_ms: delay,
                    first_token: 1,
                    latency_ms: Latency {
                        min: lo,
                        max: lo + extra,
                    },
                    protections: Protections {
                        fencing: true,
                        token_kind: TokenKind::Ordered,
                        idempotency_keys: idem,
                        check_before_write: check,
                    },
                    workers: ws
                        .into_iter()
                        .enumerate()
                        .map(|(i, (start_ms, job))| Worker {
                            name: NAMES[i].into(),
                            start_ms,
                            job,
                        })
                        .collect(),
                    faults,
                    end_ms: None,
                },
            )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1_000))]

    #[test]
    fn fencing_with_a_persisted_authority_keeps_i1_to_i4(s in scenario()) {
        prop_assert!(s.validate().is_ok(), "{:?}", s.validate());
        let t = run_with(&s, RunOptions { max_events: 200_000, ..RunOptions::default() });
        prop_assert!(!t.truncated, "runaway scenario");
        for inv in [Invariant::I1, Invariant::I2, Invariant::I3, Invariant::I4] {
            prop_assert!(!t.verdict.violated(inv), "{inv}: {:?}\n{}", t.verdict.violations, s.to_json());
        }
        // Replaying is exact.
        let again = run_with(&s, RunOptions { max_events: 200_000, ..RunOptions::default() });
        prop_assert_eq!(&t.events, &again.events);
        // Tokens granted never go down.
        let grants: Vec<u64> = t.events.iter()
            .filter(|e| matches!(e.detail, fencepost_sim::Detail::Grant { reentry: false, .. }))
            .filter_map(|e| e.token)
            .collect();
        prop_assert!(grants.windows(2).all(|w| w[0] < w[1]), "{grants:?}");
    }

    /// Each fault's fields (nth, skew_ms, drift_ppm, jump_at, jump_ms, restart_after...) read
    /// back into their own slots.
    #[test]
    fn scenarios_round_trip_through_json(s in scenario()) {
        prop_assert_eq!(Scenario::from_json(&s.to_json()).unwrap(), s);
    }

    #[test]
    fn without_fencing_the_same_runs_never_panic(s in scenario()) {
        let t = run_with(&s, RunOptions { fencing: Some(false), max_events: 200_000, ..RunOptions::default() });
        prop_assert!(!t.verdict.violated(Invariant::I3));
    }
}
