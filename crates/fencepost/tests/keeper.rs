//! Property tests of the holder's keeper against a real `Authority` on the same clock, over
//! random interleavings: requests sent at any time, delayed on the way there and back, dropped
//! either way, answers duplicated and reordered, a competitor acquiring whenever the lock is free.
//!
//! What must hold at every instant of every history:
//!
//! * whenever the keeper says the lease is safe (held or uncertain) at `now`, the authority really
//!   has it granted to that holder, with that token, until after `now + margin`;
//! * the keeper's safe-until never moves back, and `now` is always before it while safe;
//! * once lost, the keeper stays lost for the same reason;
//! * what each call of the keeper returns (a grant, a failure, a release) is what it says of
//!   the lease at that same instant: an answer is judged at the time it arrives.

use fencepost::{
    Answer, Authority, Config, Failure, Keeper, KeeperConfig, KeeperError, LeaseState, Ticket,
    Token,
};
use proptest::prelude::*;

#[derive(Clone, Debug)]
enum Op {
    /// Let time pass.
    Advance(u64),
    /// The holder sends an acquire (before its first grant) or a renew.
    Send {
        to_authority: u64,
        back: u64,
        drop_request: bool,
        drop_answer: bool,
        duplicate_after: Option<u64>,
    },
    /// A competitor tries to take the lock.
    Compete { ttl_ms: u64 },
    /// The holder asks its state (nothing is sent).
    Look,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (0u64..1_500).prop_map(Op::Advance),
        3 => (
            0u64..900,
            0u64..900,
            proptest::bool::weighted(0.15),
            proptest::bool::weighted(0.15),
            proptest::option::weighted(0.2, 0u64..1_500),
        )
            .prop_map(|(to_authority, back, drop_request, drop_answer, duplicate_after)| {
                Op::Send { to_authority, back, drop_request, drop_answer, duplicate_after }
            }),
        1 => (100u64..3_000).prop_map(|ttl_ms| Op::Compete { ttl_ms }),
        1 => Just(Op::Look),
    ]
}

#[derive(Clone, Copy, Debug)]
enum Event {
    /// A request reaches the authority.
    Arrive {
        ticket: Ticket,
        ttl_ms: u64,
        token: Option<Token>,
        back: u64,
        drop_answer: bool,
        duplicate_after: Option<u64>,
    },
    /// An answer reaches the holder.
    Answer {
        ticket: Ticket,
        result: Result<Answer, Failure>,
    },
}

struct World {
    now: u64,
    /// The most the authority grants (a deployer's ceiling).
    ceiling: u64,
    authority: Authority<&'static str>,
    keeper: Keeper,
    margin: u64,
    queue: Vec<(u64, u64, Event)>,
    seq: u64,
    last_safe_until: Option<u64>,
    lost: Option<LeaseState>,
}

impl World {
    fn schedule(&mut self, at: u64, e: Event) {
        self.seq += 1;
        self.queue.push((at, self.seq, e));
    }

    /// Runs every event due by `until`, in time order, checking after each one.
    fn run_until(&mut self, until: u64) -> Result<(), TestCaseError> {
        loop {
            self.queue.sort_by_key(|&(at, seq, _)| (at, seq));
            let Some(&(at, _, e)) = self.queue.first().filter(|(at, _, _)| *at <= until) else {
                break;
            };
            self.queue.remove(0);
            self.now = at;
            self.handle(e)?;
            self.check()?;
        }
        self.now = until;
        self.check()
    }

    fn handle(&mut self, e: Event) -> Result<(), TestCaseError> {
        match e {
            Event::Arrive {
                ticket,
                ttl_ms,
                token,
                back,
                drop_answer,
                duplicate_after,
            } => {
                let ttl_ms = ttl_ms.min(self.ceiling);
                let result = match token {
                    None => self
                        .authority
                        .try_acquire_for(&"holder", ttl_ms, self.now)
                        .map(|g| Answer {
                            token: g.token,
                            ttl_ms,
                        })
                        .map_err(|_| Failure::Refused),
                    Some(token) => self
                        .authority
                        .renew_for(&"holder", token, ttl_ms, self.now)
                        .map(|r| Answer {
                            token: r.token,
                            ttl_ms,
                        })
                        .map_err(|_| Failure::Refused),
                };
                if !drop_answer {
                    let at = self.now + back;
                    self.schedule(at, Event::Answer { ticket, result });
                    if let Some(d) = duplicate_after {
                        self.schedule(at + d, Event::Answer { ticket, result });
                    }
                }
            }
            Event::Answer { ticket, result } => {
                let state = match result {
                    Ok(answer) => self.keeper.granted(ticket, answer, self.now),
                    Err(f) => self.keeper.failed(ticket, f, self.now),
                };
                // Two acquires in flight can both be granted, the second after the first lease
                // ran out, with another token; the keeper keeps the lease it holds and refuses
                // the other answer, changing nothing. Nothing else may be refused.
                match state {
                    Ok(state) => self.same_as_now(state, "the answer")?,
                    Err(KeeperError::OtherToken { .. }) => {}
                    Err(e) => panic!("an answer of this lease was refused: {e}"),
                }
            }
        }
        Ok(())
    }

    /// A host acts on what a call returned, not on a later look: it must be the state now.
    fn same_as_now(&mut self, returned: LeaseState, call: &str) -> Result<(), TestCaseError> {
        let now = self.now;
        let state = self.keeper.state(now);
        prop_assert_eq!(
            returned,
            state,
            "at {}, {} returned another state than state() at the same instant",
            now,
            call
        );
        Ok(())
    }

    fn check(&mut self) -> Result<(), TestCaseError> {
        let now = self.now;
        let state = self.keeper.state(now);
        if let Some(lost) = self.lost {
            prop_assert_eq!(state, lost, "lost is final");
        }
        if let LeaseState::Lost { .. } = state {
            self.lost = Some(state);
        }
        let until = self.keeper.safe_until();
        if let (Some(before), Some(after)) = (self.last_safe_until, until) {
            prop_assert!(
                after >= before,
                "safe-until moved back from {} to {}",
                before,
                after
            );
        }
        self.last_safe_until = until;
        if let LeaseState::Held { token, safe_until }
        | LeaseState::Uncertain { token, safe_until } = state
        {
            prop_assert!(now < safe_until);
            let margin = self.margin;
            let lease = self.authority.lease(now);
            prop_assert!(
                lease.is_some(),
                "keeper says safe at {} but the lock is free",
                now
            );
            let lease = lease.unwrap();
            prop_assert_eq!(
                lease.holder,
                "holder",
                "keeper says safe while another holds it"
            );
            prop_assert_eq!(lease.token, token);
            prop_assert!(
                lease.expires_at > now + margin,
                "safe at {} with margin {} but the lease ends at {}",
                now,
                margin,
                lease.expires_at
            );
        }
        Ok(())
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn safe_only_while_the_authority_really_grants_it(
        ops in proptest::collection::vec(op(), 1..80),
        drift_ppm in 0u32..50_000,
        margin in 0u64..300,
        renew_ppm in 1u32..=1_000_000,
        ttl_ms in 300u64..3_000,
        ceiling in prop_oneof![Just(u64::MAX), 100u64..3_000],
    ) {
        let cfg = KeeperConfig::new()
            .with_drift_ppm(drift_ppm)
            .with_margin_ms(margin)
            .with_renew_ppm(renew_ppm);
        let mut w = World {
            now: 0,
            ceiling,
            authority: Authority::new(Config::new(1_000)).unwrap(),
            keeper: Keeper::new(cfg, ttl_ms, 0).unwrap(),
            margin,
            queue: Vec::new(),
            seq: 0,
            last_safe_until: None,
            lost: None,
        };
        for op in ops {
            match op {
                Op::Advance(ms) => w.run_until(w.now + ms)?,
                Op::Send { to_authority, back, drop_request, drop_answer, duplicate_after } => {
                    if w.lost.is_some() {
                        continue;
                    }
                    let token = w.keeper.token();
                    let ttl_ms = w.keeper.ttl_ms();
                    let ticket = w.keeper.send(w.now);
                    if !drop_request {
                        let at = w.now + to_authority;
                        w.schedule(at, Event::Arrive { ticket, ttl_ms, token, back, drop_answer, duplicate_after });
                    }
                }
                Op::Compete { ttl_ms } => {
                    let _ = w.authority.try_acquire_for(&"competitor", ttl_ms, w.now);
                    w.check()?;
                }
                Op::Look => w.check()?,
            }
        }
        // The holder lets go, and answers still in flight arrive after: they revive nothing.
        let released = w.keeper.released(w.now);
        w.same_as_now(released, "the release")?;
        w.check()?;
        w.run_until(w.now + 10_000)?;
    }

    #[test]
    fn following_next_send_keeps_a_lease_on_a_steady_network(
        ttl_ms in 300u64..5_000,
        delay in 0u64..60,
        renew_ppm in 100_000u32..=500_000,
    ) {
        // Renewals sent when the keeper says, answered within a small fraction of the lease:
        // the holder never loses the lease and is never uncertain.
        let cfg = KeeperConfig::new().with_drift_ppm(1_000).with_margin_ms(10).with_renew_ppm(renew_ppm);
        let mut k = Keeper::new(cfg, ttl_ms, 0).unwrap();
        let mut a = Authority::new(Config::new(ttl_ms)).unwrap();
        let first = k.send(0);
        let g = a.try_acquire_for(&"holder", ttl_ms, delay).unwrap();
        let state = k.granted(first, Answer { token: g.token, ttl_ms }, 2 * delay).unwrap();
        prop_assert_eq!(state, k.state(2 * delay));
        let mut now = 2 * delay;
        for _ in 0..50 {
            // Due already (the answer came after the due time) means: send now.
            let at = k.next_send().expect("a renewal is due before the deadline").max(now);
            let before = k.state(at);
            prop_assert!(matches!(before, LeaseState::Held { .. }), "{:?}", before);
            let t = k.send(at);
            let r = a.renew_for(&"holder", g.token, ttl_ms, at + delay).unwrap();
            now = at + 2 * delay;
            let state = k.granted(t, Answer { token: r.token, ttl_ms }, now).unwrap();
            prop_assert!(matches!(state, LeaseState::Held { .. }), "{:?}", state);
            prop_assert_eq!(state, k.state(now));
        }
    }
}
