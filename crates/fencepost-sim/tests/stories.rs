//! The stories, asserted event by event.

use fencepost_sim::trace::{JobEnd, Msg, RejectReason};
use fencepost_sim::{
    Actor, Detail, Invariant, Kind, PRESETS, RunOptions, Scenario, Trace, preset, run, run_with,
};

fn paused(fencing: bool) -> Trace {
    let s = preset("paused-worker").unwrap().scenario();
    run_with(
        &s,
        RunOptions {
            fencing: Some(fencing),
            ..RunOptions::default()
        },
    )
}

const A: u16 = 0;
const B: u16 = 1;

#[test]
fn paused_worker_with_fencing_rejects_33() {
    let t = paused(true);
    let key: Vec<(u32, u64, Kind, Option<u64>)> = t
        .events
        .iter()
        .filter(|e| {
            matches!(
                e.kind(),
                Kind::Grant | Kind::Expire | Kind::WriteAccepted | Kind::WriteRejected
            )
        })
        .map(|e| (e.seq, e.t_ms, e.kind(), e.token))
        .collect();
    assert_eq!(
        key,
        [
            (2, 50, Kind::Grant, Some(33)),
            (11, 30_050, Kind::Expire, Some(33)),
            (14, 30_100, Kind::Grant, Some(34)),
            (19, 31_200, Kind::WriteAccepted, Some(34)),
            (30, 46_050, Kind::WriteRejected, Some(33)),
        ]
    );
    // A's keeper tells it the lease is gone only once A runs again (event 28), after the write it
    // was about to send has left (event 27): a paused worker cannot learn anything.
    assert_eq!(
        (t.events[27].kind(), t.events[28].kind(), t.events[28].t_ms),
        (Kind::Send, Kind::LeaseLost, 46_000)
    );
    assert!(matches!(
        t.events[2].detail,
        Detail::Grant {
            holder: A,
            expires_at: 30_050,
            reentry: false
        }
    ));
    assert!(matches!(
        t.events[14].detail,
        Detail::Grant {
            holder: B,
            expires_at: 60_100,
            reentry: false
        }
    ));
    assert!(matches!(
        t.events[19].detail,
        Detail::WriteAccepted {
            writer: B,
            op: 1,
            previous: None
        }
    ));
    assert_eq!(
        t.events[30].detail,
        Detail::WriteRejected {
            writer: A,
            op: 1,
            reason: RejectReason::Stale,
            highest: Some(34)
        }
    );
    assert_eq!(t.events[30].actor, Actor::Storage);
    assert_eq!(
        t.explain(&t.events[30]),
        "the storage refuses A's write with token 33: it has already accepted 34 from B"
    );
    assert_eq!(
        t.events.last().unwrap().detail,
        Detail::JobDone {
            end: JobEnd::FencedOut
        }
    );
    assert!(t.verdict.ok);
    assert!(t.verdict.violations.is_empty());
    assert_eq!(t.document.len(), 1);
    assert_eq!((t.document[0].writer, t.document[0].token), (B, 34));
    assert!(!t.truncated);
}

#[test]
fn paused_worker_without_fencing_shows_the_corruption() {
    let t = paused(false);
    // Event 28 is A's keeper saying the lease is lost, just after the write left.
    let e = &t.events[30];
    assert_eq!(
        (e.t_ms, e.kind(), e.token),
        (46_050, Kind::WriteAccepted, Some(33))
    );
    assert_eq!(
        e.detail,
        Detail::WriteAccepted {
            writer: A,
            op: 1,
            previous: Some(34)
        }
    );
    assert_eq!(
        t.explain(e),
        "the storage applies A's write #1 with token 33 even though it already accepted 34: stale data lands"
    );
    assert_eq!(e.stale_over(), Some(34));
    // Every other write of the run landed on top of lower tokens only.
    assert_eq!(
        t.events.iter().filter(|e| e.stale_over().is_some()).count(),
        1
    );
    let i2 = t.verdict.first(Invariant::I2).expect("I2 is violated");
    assert_eq!((i2.seq, i2.t_ms), (30, 46_050));
    assert_eq!(
        i2.because,
        "A's write (token 33) landed after B (a newer owner, token 34) had written: stale data now sits on top"
    );
    assert_eq!(
        t.verdict.broken(),
        [Invariant::I1, Invariant::I2, Invariant::I4]
    );
    // The data shows it: A's value sits on top of B's.
    let doc: Vec<(u16, u64)> = t.document.iter().map(|d| (d.writer, d.token)).collect();
    assert_eq!(doc, [(B, 34), (A, 33)]);
}

#[test]
fn every_preset_reaches_its_documented_verdict() {
    assert_eq!(PRESETS.len(), 14);
    assert_eq!(PRESETS[0].name, "paused-worker");
    for p in PRESETS {
        let s = p.scenario();
        assert_eq!(s.name, p.name);
        for (fencing, want) in [(true, p.with_fencing), (false, p.without_fencing)] {
            let t = run_with(
                &s,
                RunOptions {
                    fencing: Some(fencing),
                    ..RunOptions::default()
                },
            );
            assert_eq!(
                t.verdict.broken(),
                want,
                "{} with fencing {fencing}: {:?}",
                p.name,
                t.verdict.violations
            );
            assert_eq!(t.verdict.ok, want.is_empty());
            assert!(!t.truncated, "{} ran into the event limit", p.name);
        }
    }
}

#[test]
fn idempotency_keys_stop_the_double_apply_only() {
    let mut s = preset("idempotency-only").unwrap().scenario();
    let t = run(&s);
    assert!(t.events.iter().any(|e| e.kind() == Kind::WriteDeduplicated));
    assert!(!t.verdict.violated(Invariant::I5));
    assert!(t.verdict.violated(Invariant::I2));
    s.protections.idempotency_keys = false;
    let t = run(&s);
    let i5 = t
        .verdict
        .first(Invariant::I5)
        .expect("the retry applies twice");
    assert_eq!(i5.because, "A's write #1 was applied a second time");
}

#[test]
fn unpersisted_restart_issues_33_twice() {
    let t = run(&preset("authority-restart-unpersisted").unwrap().scenario());
    let grants: Vec<(u16, Option<u64>)> = t
        .events
        .iter()
        .filter_map(|e| match e.detail {
            Detail::Grant { holder, .. } => Some((holder, e.token)),
            _ => None,
        })
        .collect();
    assert_eq!(grants, [(A, Some(33)), (B, Some(33))]);
    let i3 = t.verdict.first(Invariant::I3).unwrap();
    assert_eq!(
        i3.because,
        "the lock service granted token 33 to B after it had already issued 33"
    );
}

#[test]
fn persisted_restart_resumes_above_every_grant() {
    let t = run(&preset("authority-restart-persisted").unwrap().scenario());
    let restart = t
        .events
        .iter()
        .find(|e| e.kind() == Kind::AuthorityRestart)
        .unwrap();
    assert_eq!(
        restart.detail,
        Detail::AuthorityRestart {
            persisted: true,
            next_token: Some(34)
        }
    );
    let b_grant = t
        .events
        .iter()
        .find(|e| matches!(e.detail, Detail::Grant { holder: B, .. }))
        .unwrap();
    assert_eq!(b_grant.token, Some(34));
}

#[test]
fn beliefs_show_the_zombie() {
    let t = paused(true);
    let early = t.beliefs_at(10_000);
    assert_eq!(early.workers[0].holds, Some(33));
    assert_eq!(early.workers[0].until, Some(30_000));
    assert!(!early.is_zombie(A));
    assert_eq!(early.authority.map(|h| (h.worker, h.token)), Some((A, 33)));
    // After B's grant, A still believes it holds 33: a zombie, paused until 46 s.
    let mid = t.beliefs_at(30_500);
    assert_eq!(mid.workers[0].holds, Some(33));
    assert_eq!(mid.workers[0].paused_until, Some(46_000));
    assert!(mid.is_zombie(A));
    assert_eq!(
        mid.authority.map(|h| (h.worker, h.token, h.until)),
        Some((B, 34, 60_100))
    );
    assert_eq!(mid.workers[1].holds, Some(34));
    assert!(!mid.is_zombie(B));
    let later = t.beliefs_at(32_000);
    assert_eq!(later.storage_highest, Some(34));
    assert_eq!(later.storage_last_writer, Some(B));
    // Fenced out: A's belief ends when the rejection reaches it.
    let end = t.beliefs_at(50_000);
    assert_eq!(end.workers[0].holds, None);
    assert_eq!(end.workers[0].paused_until, None);
}

#[test]
fn same_scenario_same_trace() {
    for p in PRESETS {
        let s = p.scenario();
        assert_eq!(run(&s).to_json(), run(&s).to_json(), "{}", p.name);
    }
}

#[test]
fn seed_changes_latency_draws_only_when_there_is_a_range() {
    let mut s = preset("paused-worker").unwrap().scenario();
    let a = run_with(
        &s,
        RunOptions {
            seed: Some(1),
            ..RunOptions::default()
        },
    )
    .to_json();
    let b = run_with(
        &s,
        RunOptions {
            seed: Some(2),
            ..RunOptions::default()
        },
    );
    assert_eq!(a.replace("\"seed\":1", "\"seed\":2"), b.to_json());
    s.latency_ms.min = 10;
    s.latency_ms.max = 400;
    let c = run_with(
        &s,
        RunOptions {
            seed: Some(1),
            ..RunOptions::default()
        },
    );
    let d = run_with(
        &s,
        RunOptions {
            seed: Some(2),
            ..RunOptions::default()
        },
    );
    assert_ne!(c.events, d.events);
    assert_eq!(
        c.events,
        run_with(
            &s,
            RunOptions {
                seed: Some(1),
                ..RunOptions::default()
            }
        )
        .events
    );
}

#[test]
fn end_ms_and_event_limit_truncate() {
    let mut s = preset("paused-worker").unwrap().scenario();
    s.end_ms = Some(20_000);
    let t = run(&s);
    assert!(t.truncated);
    assert!(t.events.iter().all(|e| e.t_ms <= 20_000));
    s.end_ms = None;
    let t = run_with(
        &s,
        RunOptions {
            max_events: 5,
            ..RunOptions::default()
        },
    );
    assert!(t.truncated);
    assert_eq!(t.events.len(), 5);
}

#[test]
fn trace_json_has_the_documented_shape() {
    let t = paused(true);
    let v: serde_json::Value = serde_json::from_str(&t.to_json()).unwrap();
    assert_eq!(v["scenario"], "paused-worker");
    assert_eq!(v["workers"], serde_json::json!(["A", "B"]));
    let e = &v["events"][30];
    assert_eq!(
        *e,
        serde_json::json!({
            "seq": 30, "t_ms": 46050, "actor": "storage", "kind": "write_rejected", "token": 33,
            "detail": { "writer": "A", "op": 1, "reason": "stale", "highest": 34 }
        })
    );
    assert_eq!(
        v["events"][0]["detail"],
        serde_json::json!({"msg": 0, "what": "acquire", "to": "lock", "deliver_at": 50})
    );
    assert_eq!(
        v["events"][28],
        serde_json::json!({
            "seq": 28, "t_ms": 46000, "actor": "A", "kind": "lease_lost", "token": 33,
            "detail": { "why": "expired", "believed_until": 30000 }
        })
    );
    assert_eq!(
        v["verdict"],
        serde_json::json!({"ok": true, "violations": []})
    );
    assert_eq!(
        v["document"],
        serde_json::json!([{"writer": "B", "token": 34, "op": 1, "t_ms": 31200, "seq": 19}])
    );
}

#[test]
fn record_off_keeps_the_verdict() {
    let s = preset("paused-worker").unwrap().scenario();
    let t = run_with(
        &s,
        RunOptions {
            fencing: Some(false),
            record: false,
            ..RunOptions::default()
        },
    );
    assert!(t.events.is_empty());
    assert_eq!(t.verdict, paused(false).verdict);
}

#[test]
fn a_scenario_round_trips_through_json() {
    for p in PRESETS {
        let s = p.scenario();
        assert_eq!(Scenario::from_json(&s.to_json()).unwrap(), s);
    }
}

/// The beliefs of paused-worker without fencing at the instants its story turns on, read off
/// its trace: A keeps believing in token 33 while B is granted 34, writes and releases, and the
/// stale write lands on top without lowering the storage's highest token.
#[test]
fn beliefs_without_fencing_follow_the_story() {
    use fencepost_sim::trace::{HolderView, WorkerBelief};
    let t = paused(false);
    let worker = |holds, until, paused_until| WorkerBelief {
        holds,
        until,
        paused_until,
        crashed: false,
    };
    let nothing = worker(None, None, None);
    let lock = |worker, token, until| {
        Some(HolderView {
            worker,
            token,
            until,
        })
    };
    let beliefs = |workers, authority, storage_highest, storage_writes, storage_last_writer| {
        fencepost_sim::Beliefs {
            workers,
            authority,
            storage_highest,
            storage_writes,
            storage_last_writer,
        }
    };
    // Event 4: A learns of token 33 and believes in it until 30 s (the lease ends at 30.050 s).
    assert_eq!(
        t.beliefs_at(100),
        beliefs(
            vec![worker(Some(33), Some(30_000), None), nothing],
            lock(A, 33, 30_050),
            None,
            0,
            None
        )
    );
    // Events 5 and 16: A frozen until 46 s still believes in 33; B holds 34 until 60.050 s.
    assert_eq!(
        t.beliefs_at(30_500),
        beliefs(
            vec![
                worker(Some(33), Some(30_000), Some(46_000)),
                worker(Some(34), Some(60_050), None)
            ],
            lock(B, 34, 60_100),
            None,
            0,
            None
        )
    );
    // Events 19 to 25: B's write is applied and B releases the lock.
    assert_eq!(
        t.beliefs_at(32_000),
        beliefs(
            vec![worker(Some(33), Some(30_000), Some(46_000)), nothing],
            None,
            Some(34),
            1,
            Some(B)
        )
    );
    // Event 28: A, awake, has sent its write with 33 when its keeper tells it the lease is lost:
    // from then on A no longer believes it holds anything.
    assert_eq!(
        t.beliefs_after(28).workers[0],
        worker(Some(33), Some(30_000), None)
    );
    assert_eq!(t.beliefs_after(29).workers[0], nothing);
    // Event 30: the storage applies A's write with 33 over 34.
    assert_eq!(
        t.beliefs_at(46_050),
        beliefs(vec![nothing, nothing], None, Some(34), 2, Some(A))
    );
    // At 46.1 s A learns its write landed and lets go; nobody believes it holds anything.
    assert_eq!(
        t.beliefs_at(46_100),
        beliefs(vec![nothing, nothing], None, Some(34), 2, Some(A))
    );
}

#[test]
fn a_deduplicated_write_is_not_called_a_retry_when_the_original_arrives_last() {
    let t = run_with(
        &preset("idempotency-only").unwrap().scenario(),
        RunOptions {
            fencing: Some(false),
            ..RunOptions::default()
        },
    );
    // The resend lands first and is applied; the slow original is the copy recognised.
    let dedup = t
        .events
        .iter()
        .position(|e| e.kind() == Kind::WriteDeduplicated)
        .unwrap();
    assert!(matches!(
        t.events[dedup - 1].detail,
        Detail::Deliver {
            what: Msg::Write {
                op: 1,
                retry: false
            },
            sent_at: 3_100,
            ..
        }
    ));
    assert_eq!(
        t.explain(&t.events[dedup]),
        "the storage recognises A's write #1 as one it already applied and does not apply it again"
    );
    let story = preset("idempotency-only").unwrap().story;
    assert!(story.contains("the resend lands first"), "{story}");
}

/// The sentence of the first event of `kind` by `actor`.
fn sentence(t: &Trace, actor: Actor, kind: Kind) -> String {
    let e = t
        .events
        .iter()
        .find(|e| e.actor == actor && e.kind() == kind)
        .unwrap_or_else(|| panic!("no {kind:?} by {actor:?}"));
    t.explain(e)
}

#[test]
fn a_crash_leaves_a_lease_to_expire_only_when_it_held_one() {
    let t = run(&preset("crash-restart").unwrap().scenario());
    let crash = t.events.iter().find(|e| e.kind() == Kind::Crash).unwrap();
    assert_eq!(crash.token, Some(33));
    assert_eq!(
        t.explain(crash),
        "A's process crashes; its lease is left to expire"
    );
    // A released its lease long before it crashes.
    let s = Scenario::from_json(
        r#"{ "version": 1, "name": "crash-after-done", "seed": 1,
  "lease_ttl_ms": 30000, "first_token": 33, "latency_ms": { "min": 50, "max": 50 },
  "workers": [ { "name": "A", "start_ms": 0, "job": { "work_ms": 1000 } } ],
  "faults": [ { "kind": "crash", "worker": "A", "at": 5000 } ] }"#,
    )
    .unwrap();
    let t = run(&s);
    let crash = t.events.iter().find(|e| e.kind() == Kind::Crash).unwrap();
    assert_eq!((crash.t_ms, crash.token), (5_000, None));
    assert_eq!(
        sentence(&t, Actor::Worker(A), Kind::Crash),
        "A's process crashes"
    );
}

#[test]
fn a_refused_worker_waits_by_its_own_clock() {
    // B's clock runs at half speed: told to come back at 30.05 s, it asks again at 50 s.
    let s = Scenario::from_json(
        r#"{ "version": 1, "name": "deny-drift", "seed": 1,
  "lease_ttl_ms": 30000, "first_token": 33, "latency_ms": { "min": 50, "max": 50 },
  "workers": [
    { "name": "A", "start_ms": 0, "job": { "work_ms": 20000 } },
    { "name": "B", "start_ms": 10000, "job": { "work_ms": 1000 } } ],
  "faults": [ { "kind": "clock", "worker": "B", "drift_ppm": -500000 } ] }"#,
    )
    .unwrap();
    let t = run(&s);
    let denied = t
        .events
        .iter()
        .find(|e| {
            e.actor == Actor::Worker(B)
                && matches!(
                    e.detail,
                    Detail::Deliver {
                        what: Msg::Denied { .. },
                        ..
                    }
                )
        })
        .unwrap();
    assert_eq!(
        (denied.t_ms, t.explain(denied)),
        (
            10_100,
            "B learns it cannot take the lock until 30.050 s; it waits 19.950 s by its own clock to try again".into()
        )
    );
    let asks: Vec<u64> = t
        .events
        .iter()
        .filter(|e| {
            e.actor == Actor::Worker(B)
                && matches!(
                    e.detail,
                    Detail::Send {
                        what: Msg::Acquire,
                        ..
                    }
                )
        })
        .map(|e| e.t_ms)
        .collect();
    assert_eq!(asks, [10_000, 50_000]);
}

#[test]
fn i4_counts_a_write_the_storage_acknowledged_even_if_the_ack_never_arrives() {
    // B's write is applied and acknowledged at 31.2 s; B crashes at 31.21 s, before the ack
    // reaches it. A's stale write then overwrites it: the storage lost data it said it kept.
    let s = Scenario::from_json(
        r#"{ "version": 1, "name": "i4-unacked", "seed": 1,
  "lease_ttl_ms": 30000, "first_token": 33, "latency_ms": { "min": 50, "max": 50 },
  "protections": { "fencing": false },
  "workers": [
    { "name": "A", "start_ms": 0, "job": { "work_ms": 2000 } },
    { "name": "B", "start_ms": 10000, "job": { "work_ms": 1000 } } ],
  "faults": [ { "kind": "pause", "worker": "A", "at": 1000, "for": 45000 },
              { "kind": "crash", "worker": "B", "at": 31210 } ] }"#,
    )
    .unwrap();
    let t = run(&s);
    assert!(!t.events.iter().any(|e| e.actor == Actor::Worker(B)
        && matches!(
            e.detail,
            Detail::Deliver {
                what: Msg::Ack { .. },
                ..
            }
        )));
    let i4 = t.verdict.first(Invariant::I4).expect("I4 is violated");
    assert_eq!(i4.t_ms, 46_050);
    assert_eq!(
        i4.because,
        "B's write (token 34), acknowledged by the storage, was overwritten by A's older one (token 33)"
    );
    assert_eq!(
        Invariant::I4.description(),
        "no write the storage acknowledged is lost"
    );
}

#[test]
fn a_message_for_a_process_that_dies_first_is_only_ever_due() {
    let t = run(&preset("crash-restart").unwrap().scenario());
    let delivered: Vec<u32> = t
        .events
        .iter()
        .filter_map(|e| match e.detail {
            Detail::Deliver { msg, .. } => Some(msg),
            _ => None,
        })
        .collect();
    let lost: Vec<String> = t
        .events
        .iter()
        .filter(|e| matches!(e.detail, Detail::Send { msg, .. } if !delivered.contains(&msg)))
        .map(|e| t.explain(e))
        .collect();
    assert_eq!(lost, ["storage sends rejected to A, due at 41.2 s"]);
}

#[test]
fn a_worker_refused_during_a_lock_delay_is_not_told_the_lock_is_taken() {
    let t = run(&preset("lock-delay").unwrap().scenario());
    let told: Vec<(u32, String)> = t
        .events
        .iter()
        .filter(|e| {
            matches!(
                e.detail,
                Detail::Deliver {
                    what: Msg::Denied { .. },
                    ..
                }
            )
        })
        .map(|e| (e.seq, t.explain(e)))
        .collect();
    // The first refusal is while A holds the lock; the second while nobody does (the lock-delay).
    assert_eq!(
        told[..2],
        [
            (
                10,
                "B learns it cannot take the lock until 10.050 s; it waits 6.950 s by its own clock to try again".to_string()
            ),
            (
                16,
                "B learns it cannot take the lock until 25.050 s; it waits 14.9 s by its own clock to try again".to_string()
            ),
        ]
    );
}

#[test]
fn a_renewed_lease_counts_from_when_the_renew_was_sent() {
    // A holds from 0.1 s and renews every 2 s; its link is cut from 3 s to 9 s, so the renews
    // it sends at 4.1, 6.1 and 8.1 s all reach the lock service at 9.05 s, which renews to
    // 19.05 s. Hearing back at 9.1 s, A counts each answer's 10 s from when it sent that renew
    // (it cannot know how long a request waited), not from when the answer left.
    let s = Scenario::from_json(
        r#"{ "version": 1, "name": "late-renew", "seed": 1,
  "lease_ttl_ms": 10000, "first_token": 33, "latency_ms": { "min": 50, "max": 50 },
  "workers": [ { "name": "A", "job": { "work_ms": 12000, "renew_every_ms": 2000 } } ],
  "faults": [ { "kind": "partition", "worker": "A", "from": 3000, "to": 9000 } ] }"#,
    )
    .unwrap();
    let t = run(&s);
    let renews: Vec<(u64, u64, Option<u64>)> = t
        .events
        .iter()
        .filter_map(|e| match e.detail {
            Detail::Deliver {
                what: Msg::Renewed { expires_at, .. },
                believed_until,
                ..
            } if e.actor == Actor::Worker(A) => Some((e.t_ms, expires_at, believed_until)),
            _ => None,
        })
        .collect();
    assert_eq!(
        renews,
        [
            (2_200, 12_150, Some(12_100)),
            (9_100, 19_050, Some(14_100)),
            (9_100, 19_050, Some(16_100)),
            (9_100, 19_050, Some(18_100)),
            (10_200, 20_150, Some(20_100)),
            // The answer to the renew sent at 12.1 s arrives after the job is done.
            (12_200, 22_150, None),
        ]
    );
}
