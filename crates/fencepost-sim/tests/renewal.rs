//! Renewal in the trace: what a worker's keeper counts as it renews, and the moment it knows the
//! lease is lost. The two renewal stories, and the losses a keeper tells, asserted event by event.

use fencepost_sim::trace::{JobEnd, LossWhy, RejectReason};
use fencepost_sim::{
    Actor, Detail, Invariant, Kind, Msg, RunOptions, Scenario, Trace, preset, run_with,
};

const A: u16 = 0;
const B: u16 = 1;

fn story(name: &str, fencing: bool) -> Trace {
    let s = preset(name).unwrap().scenario();
    run_with(
        &s,
        RunOptions {
            fencing: Some(fencing),
            ..RunOptions::default()
        },
    )
}

/// `(seq, t_ms, safe-until as the worker sends)` of each renew worker `w` sends.
fn renews_sent(t: &Trace, w: u16) -> Vec<(u32, u64, Option<u64>)> {
    t.events
        .iter()
        .filter_map(|e| match e.detail {
            Detail::Send {
                what: Msg::Renew { .. },
                believed_until,
                ..
            } if e.actor == Actor::Worker(w) => Some((e.seq, e.t_ms, believed_until)),
            _ => None,
        })
        .collect()
}

/// `(seq, t_ms, when the answered renew was sent, new safe-until)` of each renewal answer that
/// reaches worker `w`.
fn renewals_answered(t: &Trace, w: u16) -> Vec<(u32, u64, u64, Option<u64>)> {
    t.events
        .iter()
        .filter_map(|e| match e.detail {
            Detail::Deliver {
                what: what @ Msg::Renewed { .. },
                sent_at,
                believed_until,
                ..
            } if e.actor == Actor::Worker(w) => Some((
                e.seq,
                e.t_ms,
                what.asked_at(sent_at)
                    .expect("a renewal answer says when it was asked"),
                believed_until,
            )),
            _ => None,
        })
        .collect()
}

fn losses(t: &Trace) -> Vec<(u32, u64, Actor, Option<u64>, Detail)> {
    t.events
        .iter()
        .filter(|e| e.kind() == Kind::LeaseLost)
        .map(|e| (e.seq, e.t_ms, e.actor, e.token, e.detail))
        .collect()
}

fn document(t: &Trace) -> Vec<(u16, u64, u32)> {
    t.document
        .iter()
        .map(|w| (w.writer, w.token, w.op))
        .collect()
}

#[test]
fn renewal_through_a_slow_network_keeps_the_lease() {
    for fencing in [true, false] {
        let t = story("renewal-slow-network", fencing);
        assert!(
            t.verdict.ok,
            "fencing {fencing}: {:?}",
            t.verdict.violations
        );
        assert!(losses(&t).is_empty(), "A never learns of a loss");
        assert_eq!(
            document(&t),
            [(A, 33, 1), (A, 33, 2), (A, 33, 3), (B, 34, 1)]
        );
        // The acquire went out at 0: the grant, answered at 3.538 s, is safe until 20 s.
        let grant = &t.events[8];
        assert_eq!(
            (grant.t_ms, grant.actor, grant.token),
            (3_538, Actor::Worker(A), Some(33))
        );
        assert!(matches!(
            grant.detail,
            Detail::Deliver {
                what: Msg::Granted { .. },
                believed_until: Some(20_000),
                ..
            }
        ));
        // Each renew carries the safe-until it may extend ...
        assert_eq!(
            renews_sent(&t, A),
            [
                (10, 8_538, Some(20_000)),
                (20, 13_538, Some(28_538)),
                (25, 18_538, Some(33_538)),
                (39, 23_538, Some(38_538)),
                (46, 28_538, Some(43_538)),
            ]
        );
        // ... and each answer comes seconds after its renew left, yet before the safe-until the
        // renew went out with; the keeper counts the new one from the renew's send time.
        let answered = renewals_answered(&t, A);
        assert_eq!(
            answered,
            [
                (18, 11_860, 8_538, Some(28_538)),
                (24, 16_617, 13_538, Some(33_538)),
                (33, 21_397, 18_538, Some(38_538)),
                (44, 26_999, 23_538, Some(43_538)),
                // After A released: no lease to believe in.
                (56, 31_504, 28_538, None),
            ]
        );
        let sent = renews_sent(&t, A);
        for (answer, renew) in answered.iter().zip(&sent) {
            assert!(answer.1 - answer.2 > 2_000, "answered late: {answer:?}");
            assert!(answer.1 < renew.2.unwrap(), "answered in time: {answer:?}");
        }
        let writes: Vec<(u32, u64, Option<u64>)> = t
            .events
            .iter()
            .filter(|e| e.kind() == Kind::WriteAccepted)
            .map(|e| (e.seq, e.t_ms, e.token))
            .collect();
        assert_eq!(
            writes,
            [
                (16, 11_301, Some(33)),
                (31, 20_430, Some(33)),
                (48, 29_642, Some(33)),
                (66, 44_399, Some(34)),
            ]
        );
    }
}

#[test]
fn a_pause_past_safe_until_is_stopped_only_by_the_fence() {
    let t = story("renewal-long-pause", true);
    assert!(t.verdict.ok);
    assert_eq!(
        renews_sent(&t, A)[..2],
        [(10, 3_100, Some(10_000)), (15, 6_100, Some(13_100))]
    );
    assert_eq!(
        renewals_answered(&t, A),
        [
            (14, 3_200, 3_100, Some(13_100)),
            (19, 6_200, 6_100, Some(16_100))
        ]
    );
    let key: Vec<(u32, u64, Kind, Option<u64>)> = t
        .events
        .iter()
        .filter(|e| {
            matches!(
                e.kind(),
                Kind::Grant
                    | Kind::Expire
                    | Kind::PauseStart
                    | Kind::PauseEnd
                    | Kind::LeaseLost
                    | Kind::WriteAccepted
                    | Kind::WriteRejected
                    | Kind::JobDone
            )
        })
        .map(|e| (e.seq, e.t_ms, e.kind(), e.token))
        .collect();
    assert_eq!(
        key,
        [
            (2, 50, Kind::Grant, Some(33)),
            (20, 7_100, Kind::PauseStart, None),
            (26, 16_150, Kind::Expire, Some(33)),
            (29, 16_200, Kind::Grant, Some(34)),
            (34, 17_300, Kind::WriteAccepted, Some(34)),
            (38, 17_350, Kind::JobDone, None),
            (41, 22_100, Kind::PauseEnd, None),
            (43, 22_100, Kind::LeaseLost, Some(33)),
            (46, 22_150, Kind::WriteRejected, Some(33)),
            (52, 22_200, Kind::JobDone, None),
        ]
    );
    // A's write left as it woke (event 42), before its keeper told it the lease was gone.
    assert!(matches!(
        t.events[42].detail,
        Detail::Send {
            what: Msg::Write {
                op: 1,
                retry: false
            },
            ..
        }
    ));
    assert_eq!(
        t.events[43].detail,
        Detail::LeaseLost {
            why: LossWhy::Expired,
            believed_until: Some(16_100)
        }
    );
    assert_eq!(
        t.explain(&t.events[43]),
        "A's keeper says its lease (token 33) is lost: its safe-until, 16.1 s, has passed with no renewal answered"
    );
    assert_eq!(
        t.events[46].detail,
        Detail::WriteRejected {
            writer: A,
            op: 1,
            reason: RejectReason::Stale,
            highest: Some(34)
        }
    );
    assert_eq!(
        t.events[52].detail,
        Detail::JobDone {
            end: JobEnd::FencedOut
        }
    );
    // The lock service's refusal arrives after: the keeper already knew, and says it once.
    assert_eq!(losses(&t).len(), 1);
    assert_eq!(document(&t), [(B, 34, 1)]);
}

#[test]
fn a_pause_past_safe_until_corrupts_the_document_without_the_fence() {
    let t = story("renewal-long-pause", false);
    let e = &t.events[46];
    assert_eq!((e.t_ms, e.token), (22_150, Some(33)));
    assert_eq!(
        e.detail,
        Detail::WriteAccepted {
            writer: A,
            op: 1,
            previous: Some(34)
        }
    );
    assert_eq!(
        t.verdict.broken(),
        [Invariant::I1, Invariant::I2, Invariant::I4]
    );
    let i2 = t.verdict.first(Invariant::I2).unwrap();
    assert_eq!((i2.seq, i2.t_ms), (46, 22_150));
    assert_eq!(document(&t), [(B, 34, 1), (A, 33, 1)]);
    // Knowing came too late here as well: the same moment, after the write left.
    assert_eq!(
        losses(&t),
        [(
            43,
            22_100,
            Actor::Worker(A),
            Some(33),
            Detail::LeaseLost {
                why: LossWhy::Expired,
                believed_until: Some(16_100)
            }
        )]
    );
}

#[test]
fn a_refused_renewal_is_the_moment_a_slow_clock_learns() {
    // A's clock runs at 40%: its keeper counts the lease safe until 25 s of real time, but the
    // lock service let it go at 10.05 s. The refusal of its renew tells it first.
    let s = Scenario::from_json(
        r#"{
  "version": 1, "name": "slow-clock-refused", "seed": 1,
  "lease_ttl_ms": 10000, "first_token": 33, "latency_ms": { "min": 50, "max": 50 },
  "workers": [
    { "name": "A", "start_ms": 0, "job": { "work_ms": 30000, "renew_every_ms": 8000 } },
    { "name": "B", "start_ms": 1000, "job": { "work_ms": 1000 } }
  ],
  "faults": [ { "kind": "clock", "worker": "A", "drift_ppm": -600000 } ]
}"#,
    )
    .unwrap();
    let t = run_with(&s, RunOptions::default());
    assert!(t.verdict.ok);
    assert_eq!(renews_sent(&t, A), [(25, 20_100, Some(25_000))]);
    assert_eq!(t.events[29].kind(), Kind::Deliver);
    assert_eq!(
        losses(&t),
        [(
            30,
            20_200,
            Actor::Worker(A),
            Some(33),
            Detail::LeaseLost {
                why: LossWhy::Refused,
                believed_until: Some(25_000)
            }
        )]
    );
    assert_eq!(
        t.explain(&t.events[30]),
        "A's keeper says its lease (token 33) is lost: the lock service refused its renewal"
    );
    assert_eq!(
        t.events[31].detail,
        Detail::JobDone {
            end: JobEnd::LeaseLost
        }
    );
    // Up to the refusal A believed it held 33; from then on it does not.
    assert_eq!(t.beliefs_after(29).workers[0].holds, Some(33));
    assert_eq!(t.beliefs_after(30).workers[0].holds, None);
}

#[test]
fn a_grant_delivered_after_its_ttl_is_lost_as_it_arrives() {
    // A's acquire reaches the lock service at 50 ms, but the grant is cut off with A until
    // 10.1 s: it arrives at 10.15 s, after the 10 s the lease gives counted from the acquire's
    // send. By then the lock service let the lease go (10.05 s) and granted B token 34.
    let s = Scenario::from_json(
        r#"{
  "version": 1, "name": "late-grant", "seed": 1,
  "lease_ttl_ms": 10000, "first_token": 33, "latency_ms": { "min": 50, "max": 50 },
  "workers": [
    { "name": "A", "start_ms": 0, "job": { "work_ms": 1000 } },
    { "name": "B", "start_ms": 10000, "job": { "work_ms": 500 } }
  ],
  "faults": [ { "kind": "partition", "worker": "A", "from": 40, "to": 10100 } ]
}"#,
    )
    .unwrap();
    let t = run_with(&s, RunOptions::default());
    assert!(t.verdict.ok);
    let grant = &t.events[10];
    assert_eq!(
        (grant.t_ms, grant.actor, grant.token),
        (10_150, Actor::Worker(A), Some(33))
    );
    assert!(matches!(
        grant.detail,
        Detail::Deliver {
            what: Msg::Granted { .. },
            sent_at: 50,
            ..
        }
    ));
    // The keeper says the lease is lost the moment the grant arrives, not at some later look.
    assert_eq!(
        losses(&t),
        [(
            11,
            10_150,
            Actor::Worker(A),
            Some(33),
            Detail::LeaseLost {
                why: LossWhy::Expired,
                believed_until: Some(10_150)
            }
        )]
    );
    // After the grant (the first 11 events) A believes it holds 33; after the loss it does not.
    assert_eq!(t.beliefs_after(11).workers[0].holds, Some(33));
    assert_eq!(t.beliefs_after(12).workers[0].holds, None);
    // A carries on regardless, as any worker whose deadline passed: the fence refuses it.
    assert_eq!(
        t.events[23].detail,
        Detail::WriteRejected {
            writer: A,
            op: 1,
            reason: RejectReason::Stale,
            highest: Some(34)
        }
    );
    assert_eq!(document(&t), [(B, 34, 1)]);
}

#[test]
fn the_new_events_are_in_the_json() {
    let t = story("renewal-long-pause", true);
    let v: serde_json::Value = serde_json::from_str(&t.to_json()).unwrap();
    assert_eq!(
        v["events"][15],
        serde_json::json!({
            "seq": 15, "t_ms": 6100, "actor": "A", "kind": "send", "token": 33,
            "detail": { "msg": 6, "what": "renew", "to": "lock", "deliver_at": 6150, "believed_until": 13100 }
        })
    );
    assert_eq!(
        v["events"][19]["detail"],
        serde_json::json!({
            "msg": 7, "what": "renewed", "from": "lock", "sent_at": 6150, "asked_at": 6100,
            "believed_until": 16100, "expires_at": 16150
        })
    );
    assert_eq!(
        v["events"][43],
        serde_json::json!({
            "seq": 43, "t_ms": 22100, "actor": "A", "kind": "lease_lost", "token": 33,
            "detail": { "why": "expired", "believed_until": 16100 }
        })
    );
}

#[test]
fn a_clock_stepping_back_before_the_grant_leaves_nothing_to_watch() {
    // A's clock steps back while its acquire is out: its keeper can no longer measure the lease
    // and never counts a deadline, so there is no moment to wait for; the run ends by itself.
    let s = Scenario::from_json(
        r#"{
  "version": 1, "name": "step-back", "seed": 1,
  "lease_ttl_ms": 10000, "first_token": 33, "latency_ms": { "min": 50, "max": 50 },
  "workers": [ { "name": "A", "start_ms": 0, "job": { "work_ms": 1000, "renew_every_ms": 3000 } } ],
  "faults": [ { "kind": "clock", "worker": "A", "jump_at": 20, "jump_ms": -1000 } ]
}"#,
    )
    .unwrap();
    let t = run_with(&s, RunOptions::default());
    assert!(!t.truncated);
    assert!(t.verdict.ok);
    assert!(losses(&t).is_empty());
    assert_eq!(document(&t), [(A, 33, 1)]);
}
