//! The keeper's rules, one story per test, with numbers that can be read off directly.

use super::*;

fn t(v: u64) -> Token {
    Token::new(v).unwrap()
}

/// No drift, no margin, renew a third in, retry after 100 ms: the numbers read off directly.
fn plain() -> KeeperConfig {
    KeeperConfig::new()
        .with_drift_ppm(0)
        .with_margin_ms(0)
        .with_retry_ms(100)
}

fn held(token: u64, safe_until: u64) -> LeaseState {
    LeaseState::Held {
        token: t(token),
        safe_until,
    }
}

fn answer(token: u64, ttl_ms: u64) -> Answer {
    Answer {
        token: t(token),
        ttl_ms,
    }
}

#[test]
fn acquire_then_renew_on_time() {
    let mut k = Keeper::new(plain(), 3_000, 0).unwrap();
    assert_eq!(k.state(0), LeaseState::Acquiring);
    assert_eq!(k.next_send(), None);
    let a = k.send(0);
    assert_eq!(k.granted(a, answer(33, 3_000), 50), Ok(held(33, 3_000)));
    // A third of 3 s after the acquire was sent.
    assert_eq!(k.next_send(), Some(999));
    let r = k.send(999);
    assert_eq!(k.next_send(), Some(1_099));
    assert_eq!(k.granted(r, answer(33, 3_000), 1_040), Ok(held(33, 3_999)));
    assert_eq!(k.next_send(), Some(1_998));
    assert_eq!(k.state(3_998), held(33, 3_999));
    assert_eq!(
        k.state(3_999),
        LeaseState::Lost {
            token: Some(t(33)),
            why: Loss::Expired
        }
    );
    assert_eq!(k.next_send(), None);
}

#[test]
fn safe_until_counts_from_the_send_time_with_drift_and_margin() {
    let cfg = KeeperConfig::new()
        .with_drift_ppm(10_000)
        .with_margin_ms(200);
    let mut k = Keeper::new(cfg, 30_000, 900).unwrap();
    let a = k.send(900);
    // A slow answer: 30 s lease, 1% drift -> 29.7 s, minus 200 ms, from 900 (not from 2_900).
    assert_eq!(k.granted(a, answer(7, 30_000), 2_900), Ok(held(7, 30_400)));
    assert_eq!(safe_until(900, 30_000, 10_000, 200), 30_400);
    assert_eq!(safe_until(900, 30_000, 2_000_000, 0), 900);
    assert_eq!(safe_until(900, 30_000, 0, 40_000), 900);
    assert_eq!(safe_until(u64::MAX - 5, 30_000, 0, 0), u64::MAX);
}

#[test]
fn an_older_answer_arriving_last_neither_shortens_nor_extends() {
    let mut k = Keeper::new(plain(), 3_000, 0).unwrap();
    let a = k.send(0);
    k.granted(a, answer(5, 3_000), 10).unwrap();
    let r1 = k.send(1_000);
    let r2 = k.send(2_000);
    // The newer renewal's answer comes first ...
    assert_eq!(k.granted(r2, answer(5, 3_000), 2_050), Ok(held(5, 5_000)));
    // ... then the older one: 4_000 would shorten it, so it stays 5_000.
    assert_eq!(k.granted(r1, answer(5, 3_000), 2_100), Ok(held(5, 5_000)));
    // The same answer twice changes nothing.
    assert_eq!(k.granted(r2, answer(5, 3_000), 2_200), Ok(held(5, 5_000)));
}

#[test]
fn a_grant_shorter_than_asked_counts_for_every_request() {
    let mut k = Keeper::new(plain(), 3_000, 0).unwrap();
    let a = k.send(0);
    k.granted(a, answer(5, 3_000), 10).unwrap();
    let r = k.send(1_000);
    // The authority capped this renewal at 1 s: any request of the lease may have been.
    assert_eq!(k.granted(r, answer(5, 1_000), 1_010), Ok(held(5, 2_000)));
    // A grant longer than asked is held to what was asked.
    let r = k.send(1_500);
    assert_eq!(k.granted(r, answer(5, 60_000), 1_510), Ok(held(5, 2_500)));
}

#[test]
fn expiry_is_final_even_if_a_renewal_answer_arrives_after_it() {
    let mut k = Keeper::new(plain(), 3_000, 0).unwrap();
    let a = k.send(0);
    k.granted(a, answer(5, 3_000), 10).unwrap();
    let r = k.send(2_000);
    // The answer (which would give 5_000) arrives at 3_000, when the lease already ran out.
    let lost = LeaseState::Lost {
        token: Some(t(5)),
        why: Loss::Expired,
    };
    assert_eq!(k.granted(r, answer(5, 3_000), 3_000), Ok(lost));
    assert_eq!(k.state(3_001), lost);
    assert_eq!(k.safe_until(), Some(3_000));
}

#[test]
fn a_first_grant_answered_after_its_own_deadline_is_lost_as_it_arrives() {
    let lost = LeaseState::Lost {
        token: Some(t(5)),
        why: Loss::Expired,
    };
    let mut k = Keeper::new(plain(), 3_000, 0).unwrap();
    let a = k.send(0);
    // Counted from the send, the grant is safe until 3_000; it arrives at 3_200.
    assert_eq!(k.granted(a, answer(5, 3_000), 3_200), Ok(lost));
    assert_eq!(k.state(3_200), lost);
    assert_eq!(k.next_send(), None);
    // The token and its deadline stay known: the holder gives the lease back by its token.
    assert_eq!(k.token(), Some(t(5)));
    assert_eq!(k.safe_until(), Some(3_000));
    // The deadline itself is already too late; a millisecond before it, the lease is held.
    let mut k = Keeper::new(plain(), 3_000, 0).unwrap();
    let a = k.send(0);
    assert_eq!(k.granted(a, answer(5, 3_000), 3_000), Ok(lost));
    let mut k = Keeper::new(plain(), 3_000, 0).unwrap();
    let a = k.send(0);
    assert_eq!(k.granted(a, answer(5, 3_000), 2_999), Ok(held(5, 3_000)));
}

#[test]
fn a_renewal_that_cuts_the_deadline_to_before_its_arrival_loses_the_lease() {
    let mut k = Keeper::new(plain(), 3_000, 0).unwrap();
    let a = k.send(0);
    k.granted(a, answer(5, 3_000), 10).unwrap();
    let r = k.send(1_000);
    // The authority capped the renewal at 1 s, so every request may have been: the lease is
    // safe until 2_000 at most, and the answer arrives at 2_100.
    let lost = LeaseState::Lost {
        token: Some(t(5)),
        why: Loss::Expired,
    };
    assert_eq!(k.granted(r, answer(5, 1_000), 2_100), Ok(lost));
    assert_eq!(k.state(2_100), lost);
    assert_eq!(k.safe_until(), Some(2_000));
}

#[test]
fn failing_renewals_make_it_uncertain_until_one_succeeds() {
    let mut k = Keeper::new(plain(), 3_000, 0).unwrap();
    let a = k.send(0);
    k.granted(a, answer(5, 3_000), 10).unwrap();
    let r1 = k.send(999);
    let uncertain = LeaseState::Uncertain {
        token: t(5),
        safe_until: 3_000,
    };
    assert_eq!(k.failed(r1, Failure::Transient, 1_020), Ok(uncertain));
    assert_eq!(k.next_send(), Some(1_120));
    let r2 = k.send(1_120);
    // Unanswered: still uncertain; resend after the retry interval.
    assert_eq!(k.state(1_500), uncertain);
    assert_eq!(k.next_send(), Some(1_220));
    assert_eq!(k.granted(r2, answer(5, 3_000), 1_600), Ok(held(5, 4_120)));
    // A failure of an older request after a newer success says nothing.
    assert_eq!(k.failed(r1, Failure::Transient, 1_700), Ok(held(5, 4_120)));
}

#[test]
fn an_unanswered_renewal_turns_uncertain_after_the_retry_interval() {
    let mut k = Keeper::new(plain(), 3_000, 0).unwrap();
    let a = k.send(0);
    k.granted(a, answer(5, 3_000), 10).unwrap();
    k.send(999);
    assert_eq!(k.state(1_098), held(5, 3_000));
    assert_eq!(
        k.state(1_099),
        LeaseState::Uncertain {
            token: t(5),
            safe_until: 3_000
        }
    );
}

#[test]
fn a_refused_renewal_loses_the_lease_at_once() {
    let mut k = Keeper::new(plain(), 3_000, 0).unwrap();
    let a = k.send(0);
    k.granted(a, answer(5, 3_000), 10).unwrap();
    let r1 = k.send(500);
    let r2 = k.send(999);
    k.granted(r2, answer(5, 3_000), 1_010).unwrap();
    // r1 was refused before r2 renewed: older news, ignored.
    assert_eq!(k.failed(r1, Failure::Refused, 1_020), Ok(held(5, 3_999)));
    let r3 = k.send(1_998);
    let lost = LeaseState::Lost {
        token: Some(t(5)),
        why: Loss::Refused,
    };
    assert_eq!(k.failed(r3, Failure::Refused, 2_000), Ok(lost));
    assert_eq!(k.next_send(), None);
    // Nothing revives it.
    assert_eq!(k.granted(r3, answer(5, 3_000), 2_001), Ok(lost));
}

#[test]
fn a_refused_acquire_keeps_acquiring_and_release_ends_it() {
    let mut k = Keeper::new(plain(), 3_000, 0).unwrap();
    let a = k.send(0);
    assert_eq!(k.failed(a, Failure::Refused, 5), Ok(LeaseState::Acquiring));
    assert_eq!(
        k.failed(a, Failure::Transient, 6),
        Ok(LeaseState::Acquiring)
    );
    let b = k.send(100);
    k.granted(b, answer(9, 1_000), 110).unwrap();
    let released = LeaseState::Lost {
        token: Some(t(9)),
        why: Loss::Released,
    };
    assert_eq!(k.released(200), released);
    assert_eq!(k.state(201), released);
    let never = Keeper::new(plain(), 3_000, 0).unwrap().released(1);
    assert_eq!(
        never,
        LeaseState::Lost {
            token: None,
            why: Loss::Released
        }
    );
}

#[test]
fn a_clock_that_steps_back_loses_the_lease() {
    let mut k = Keeper::new(plain(), 3_000, 0).unwrap();
    let a = k.send(0);
    k.granted(a, answer(5, 3_000), 10).unwrap();
    assert_eq!(k.state(2_000), held(5, 3_000));
    // The clock steps back by 1_900: counted in its new readings the deadline would come
    // 1_900 ms late, so the lease is given up at once, and nothing revives it.
    let lost = LeaseState::Lost {
        token: Some(t(5)),
        why: Loss::Expired,
    };
    assert_eq!(k.state(100), lost);
    let r = k.send(150);
    assert_eq!(k.granted(r, answer(5, 3_000), 200), Ok(lost));
    assert_eq!(k.state(2_100), lost);
    assert_eq!(k.next_send(), None);
    // Before anything was sent, the clock's new readings are simply the ones counted in.
    let mut fresh = Keeper::new(plain(), 3_000, 500).unwrap();
    assert_eq!(fresh.state(100), LeaseState::Acquiring);
    let a = fresh.send(120);
    assert_eq!(a.sent_at(), 120);
    assert_eq!(fresh.granted(a, answer(6, 3_000), 200), Ok(held(6, 3_120)));
}

#[test]
fn answers_that_do_not_fit_are_refused_and_change_nothing() {
    let mut k = Keeper::new(plain(), 3_000, 0).unwrap();
    let a = k.send(0);
    k.granted(a, answer(5, 3_000), 10).unwrap();
    let r = k.send(100);
    assert_eq!(
        k.granted(r, answer(6, 3_000), 110),
        Err(KeeperError::OtherToken {
            held: t(5),
            answered: t(6)
        })
    );
    let foreign = Keeper::new(plain(), 3_000, 0).unwrap().send(0);
    let mut fresh = Keeper::new(plain(), 3_000, 0).unwrap();
    // An older ticket of another keeper: its number was issued here too, but not the ticket.
    let mut other = Keeper::new(plain(), 3_000, 0).unwrap();
    let older = other.send(0);
    fresh.send(0);
    fresh.send(0);
    assert_eq!(
        fresh.granted(older, answer(1, 10), 1),
        Err(KeeperError::UnknownTicket)
    );
    assert_eq!(
        fresh.granted(foreign, answer(1, 10), 1),
        Err(KeeperError::UnknownTicket)
    );
    assert_eq!(fresh.state(1), LeaseState::Acquiring);
    assert_eq!(
        std::format!(
            "{}",
            KeeperError::OtherToken {
                held: t(5),
                answered: t(6)
            }
        ),
        "answer carries token 6, but the lease holds token 5"
    );
}

#[test]
fn configs_out_of_range_are_refused() {
    let bad = [
        (
            KeeperConfig::new().with_drift_ppm(1_000_001),
            KeeperConfigError::DriftOutOfRange,
        ),
        (
            KeeperConfig::new().with_renew_ppm(0),
            KeeperConfigError::RenewOutOfRange,
        ),
        (
            KeeperConfig::new().with_renew_ppm(1_000_001),
            KeeperConfigError::RenewOutOfRange,
        ),
        (
            KeeperConfig::new().with_retry_ms(0),
            KeeperConfigError::ZeroRetry,
        ),
    ];
    for (cfg, want) in bad {
        assert_eq!(Keeper::new(cfg, 1_000, 0).unwrap_err(), want);
    }
    assert_eq!(
        Keeper::new(KeeperConfig::new(), 0, 0).unwrap_err(),
        KeeperConfigError::ZeroTtl
    );
    assert_eq!(KeeperConfig::default(), KeeperConfig::new());
    assert_eq!(Loss::Expired.as_str(), "expired");
}
