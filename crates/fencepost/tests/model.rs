//! Model-based tests: the `Authority` and the `LockTable` against a reference model of the rules,
//! written out plainly, outcome for outcome:
//!
//! * expiry at `now >= expires_at`;
//! * lock-delay only after an expiry (a clean release frees the lock at once);
//! * re-entry by the holder keeps its token and counts depth up to the limit;
//! * renew and release need the holder **and** the token of a live lease;
//! * an earlier `now` than one already seen is clamped to the latest, and counted;
//! * tokens come from one sequence reserved in blocks; restore resumes above the reservation.

mod common;

use std::collections::BTreeMap;

use common::{CASES, Move, clock_move, config, ttl};
use fencepost::{
    AcquireError, Authority, Config, Expired, Grant, Lease, LeaseError, Released, Renewal,
    Reservation, Token,
};
use proptest::prelude::*;

/// One lock of the model.
#[derive(Clone, Debug, Default)]
struct ModelLock {
    lease: Option<Lease<u8>>,
    free_at: u64,
}

/// The reference model: every rule in a line or two, no shortcuts.
#[derive(Clone, Debug)]
struct Model {
    ttl: u64,
    delay: u64,
    max_depth: u32,
    block: u64,
    first: u64,
    /// The next token; above `u64::MAX` once the sequence is exhausted.
    next: u128,
    reserved: u64,
    latest: u64,
    clamps: u64,
    locks: BTreeMap<u8, ModelLock>,
}

impl Model {
    fn new(cfg: &Config) -> Model {
        Model {
            ttl: cfg.ttl_ms,
            delay: cfg.lock_delay_ms,
            max_depth: cfg.max_reentry,
            block: cfg.reserve_block,
            first: cfg.first_token.get(),
            next: u128::from(cfg.first_token.get()),
            reserved: cfg.first_token.get() - 1,
            latest: 0,
            clamps: 0,
            locks: BTreeMap::new(),
        }
    }

    /// The time an operation runs at.
    fn tick(&mut self, now: u64) -> u64 {
        if now < self.latest {
            self.clamps += 1;
        } else {
            self.latest = now;
        }
        self.latest
    }

    /// Ends the lock's lease if it has run out by `now`.
    fn lapse(&mut self, lock: u8, now: u64) -> Option<Expired<u8>> {
        let delay = self.delay;
        let l = self.locks.entry(lock).or_default();
        let lease = l.lease.take_if(|lease| now >= lease.expires_at)?;
        l.free_at = lease.expires_at.saturating_add(delay);
        Some(Expired {
            holder: lease.holder,
            token: lease.token,
            at: lease.expires_at,
            free_at: l.free_at,
        })
    }

    fn acquire(
        &mut self,
        lock: u8,
        holder: u8,
        ttl: Option<u64>,
        now: u64,
    ) -> Result<Grant, AcquireError<u8>> {
        let now = self.tick(now);
        self.lapse(lock, now);
        let until = now.saturating_add(ttl.unwrap_or(self.ttl).max(1));
        let max_depth = self.max_depth;
        let l = self.locks.entry(lock).or_default();
        if let Some(lease) = &mut l.lease {
            if lease.holder != holder {
                return Err(AcquireError::Held {
                    holder: lease.holder,
                    until: lease.expires_at,
                });
            }
            if lease.depth >= max_depth {
                return Err(AcquireError::ReentryLimit { max: max_depth });
            }
            lease.depth += 1;
            lease.expires_at = lease.expires_at.max(until);
            return Ok(Grant {
                token: lease.token,
                granted_at: now,
                expires_at: lease.expires_at,
                depth: lease.depth,
                reservation: None,
            });
        }
        if now < l.free_at {
            return Err(AcquireError::LockDelay { until: l.free_at });
        }
        let Ok(raw) = u64::try_from(self.next) else {
            return Err(AcquireError::Exhausted);
        };
        let token = Token::new(raw).expect("the sequence starts at a valid token");
        self.next += 1;
        let mut reservation = None;
        if raw > self.reserved {
            self.reserved = raw.saturating_add(self.block - 1);
            reservation = Some(Reservation {
                through: self.reserved,
            });
        }
        l.lease = Some(Lease {
            holder,
            token,
            granted_at: now,
            expires_at: until,
            depth: 1,
        });
        Ok(Grant {
            token,
            granted_at: now,
            expires_at: until,
            depth: 1,
            reservation,
        })
    }

    /// The holder's live lease with exactly this token, after settling expiry: `NotHolder` when
    /// the live lease has the token but another holder.
    fn owned(
        &mut self,
        lock: u8,
        holder: u8,
        token: Token,
        now: u64,
    ) -> Result<&mut Lease<u8>, LeaseError> {
        self.lapse(lock, now);
        match self.locks.get_mut(&lock).and_then(|l| l.lease.as_mut()) {
            Some(l) if l.token == token && l.holder == holder => Ok(l),
            Some(l) if l.token == token => Err(LeaseError::NotHolder),
            _ => Err(LeaseError::Lost),
        }
    }

    fn renew(
        &mut self,
        lock: u8,
        holder: u8,
        token: Token,
        ttl: Option<u64>,
        now: u64,
    ) -> Result<Renewal, LeaseError> {
        let now = self.tick(now);
        let ttl = ttl.unwrap_or(self.ttl).max(1);
        let lease = self.owned(lock, holder, token, now)?;
        lease.expires_at = now.saturating_add(ttl);
        Ok(Renewal {
            token,
            expires_at: lease.expires_at,
        })
    }

    fn release(
        &mut self,
        lock: u8,
        holder: u8,
        token: Token,
        now: u64,
    ) -> Result<Released, LeaseError> {
        let now = self.tick(now);
        let lease = self.owned(lock, holder, token, now)?;
        if lease.depth > 1 {
            lease.depth -= 1;
            return Ok(Released::Held { depth: lease.depth });
        }
        let l = self.locks.get_mut(&lock).expect("owned lock exists");
        l.lease = None;
        l.free_at = 0;
        Ok(Released::Free)
    }

    fn expire(&mut self, lock: u8, now: u64) -> Option<Expired<u8>> {
        let now = self.tick(now);
        self.lapse(lock, now)
    }

    fn expire_all(&mut self, now: u64) -> Vec<(u8, Expired<u8>)> {
        let now = self.tick(now);
        let locks: Vec<u8> = self.locks.keys().copied().collect();
        locks
            .into_iter()
            .filter_map(|lock| self.lapse(lock, now).map(|e| (lock, e)))
            .collect()
    }

    fn lease(&mut self, lock: u8, now: u64) -> Option<Lease<u8>> {
        let now = self.tick(now);
        self.lapse(lock, now);
        self.locks.get(&lock)?.lease.clone()
    }

    /// A restore resumes right after the reservation, or at the first token if that is higher.
    fn restore(&mut self) {
        if self.reserved >= self.first {
            self.next = u128::from(self.reserved) + 1;
        } else {
            self.next = u128::from(self.first);
            self.reserved = self.first - 1;
        }
    }

    fn next_token(&self) -> Option<Token> {
        u64::try_from(self.next).ok().and_then(Token::new)
    }

    fn last_issued(&self) -> Option<Token> {
        if self.next <= u128::from(self.first) {
            None
        } else {
            Token::new(u64::try_from(self.next - 1).expect("issued tokens fit"))
        }
    }

    fn recorded(&self, lock: u8) -> Option<&Lease<u8>> {
        self.locks.get(&lock)?.lease.as_ref()
    }
}

#[derive(Clone, Copy, Debug)]
enum Pick {
    /// The lock's current lease token (whoever holds it).
    Current,
    /// The token the holder was last granted on this lock.
    Mine,
    /// Another number.
    Raw(u64),
}

#[derive(Clone, Debug)]
enum Op {
    Acquire {
        lock: u8,
        holder: u8,
        ttl: Option<u64>,
    },
    Renew {
        lock: u8,
        holder: u8,
        pick: Pick,
        ttl: Option<u64>,
    },
    Release {
        lock: u8,
        holder: u8,
        pick: Pick,
    },
    Expire {
        lock: u8,
    },
    ExpireAll,
    Lease {
        lock: u8,
    },
    Restore {
        binary: bool,
    },
}

fn op(locks: u8) -> impl Strategy<Value = Op> {
    let pick = prop_oneof![
        4 => Just(Pick::Current),
        4 => Just(Pick::Mine),
        1 => prop_oneof![1u64..6, Just(u64::MAX)].prop_map(Pick::Raw),
    ];
    prop_oneof![
        10 => (0..locks, 0u8..3, ttl())
            .prop_map(|(lock, holder, ttl)| Op::Acquire { lock, holder, ttl }),
        5 => (0..locks, 0u8..3, pick.clone(), ttl())
            .prop_map(|(lock, holder, pick, ttl)| Op::Renew { lock, holder, pick, ttl }),
        5 => (0..locks, 0u8..3, pick)
            .prop_map(|(lock, holder, pick)| Op::Release { lock, holder, pick }),
        2 => (0..locks).prop_map(|lock| Op::Expire { lock }),
        1 => Just(Op::ExpireAll),
        2 => (0..locks).prop_map(|lock| Op::Lease { lock }),
        1 => any::<bool>().prop_map(|binary| Op::Restore { binary }),
    ]
}

fn ops(locks: u8) -> impl Strategy<Value = Vec<(Move, Op)>> {
    prop::collection::vec((clock_move(), op(locks)), 1..60)
}

/// Resolves a token choice against the model (the implementation must agree on everything the
/// model knows, so either could be asked).
fn resolve(
    model: &Model,
    mine: &BTreeMap<(u8, u8), Token>,
    lock: u8,
    holder: u8,
    pick: Pick,
) -> Option<Token> {
    match pick {
        Pick::Current => model.recorded(lock).map(|l| l.token),
        Pick::Mine => mine.get(&(lock, holder)).copied(),
        Pick::Raw(v) => Token::new(v),
    }
}

fn check_authority(cfg: Config, steps: &[(Move, Op)]) -> Result<(), TestCaseError> {
    let mut auth: Authority<u8> = Authority::new(cfg).expect("valid config");
    let mut model = Model::new(&cfg);
    let mut mine = BTreeMap::new();
    let mut clock = 0;
    for (i, (mv, op)) in steps.iter().enumerate() {
        clock = mv.apply(clock);
        let now = clock;
        match *op {
            Op::Acquire { holder, ttl, .. } => {
                let got = match ttl {
                    None => auth.try_acquire(&holder, now),
                    Some(ttl) => auth.try_acquire_for(&holder, ttl, now),
                };
                let want = model.acquire(0, holder, ttl, now);
                prop_assert_eq!(&got, &want, "step {}: acquire by {} at {}", i, holder, now);
                if let Ok(g) = got {
                    mine.insert((0, holder), g.token);
                }
            }
            Op::Renew {
                holder, pick, ttl, ..
            } => {
                let Some(token) = resolve(&model, &mine, 0, holder, pick) else {
                    continue;
                };
                let got = match ttl {
                    None => auth.renew(&holder, token, now),
                    Some(ttl) => auth.renew_for(&holder, token, ttl, now),
                };
                let want = model.renew(0, holder, token, ttl, now);
                prop_assert_eq!(got, want, "step {}: renew by {} at {}", i, holder, now);
            }
            Op::Release { holder, pick, .. } => {
                let Some(token) = resolve(&model, &mine, 0, holder, pick) else {
                    continue;
                };
                let got = auth.release(&holder, token, now);
                let want = model.release(0, holder, token, now);
                prop_assert_eq!(got, want, "step {}: release by {} at {}", i, holder, now);
            }
            Op::Expire { .. } | Op::ExpireAll => {
                let got = auth.expire(now);
                let want = model.expire(0, now);
                prop_assert_eq!(got, want, "step {}: expire at {}", i, now);
            }
            Op::Lease { .. } => {
                let got = auth.lease(now).cloned();
                let want = model.lease(0, now);
                prop_assert_eq!(got, want, "step {}: lease at {}", i, now);
            }
            Op::Restore { binary } => {
                let mut snap = auth.snapshot();
                if binary {
                    let bytes = snap.to_bytes().expect("encodes");
                    snap = fencepost::AuthoritySnapshot::decode(&bytes).expect("decodes");
                }
                auth = Authority::restore(cfg, snap).expect("restores");
                model.restore();
            }
        }
        prop_assert_eq!(auth.timeline().latest(), model.latest, "step {}: latest", i);
        prop_assert_eq!(auth.timeline().clamps(), model.clamps, "step {}: clamps", i);
        prop_assert_eq!(auth.next_token(), model.next_token(), "step {}: next", i);
        prop_assert_eq!(auth.last_issued(), model.last_issued(), "step {}: last", i);
        prop_assert_eq!(
            auth.reserved_through(),
            model.reserved,
            "step {}: reserved",
            i
        );
        prop_assert_eq!(
            auth.recorded_lease(),
            model.recorded(0),
            "step {}: lease",
            i
        );
        let free_at = model.locks.get(&0).map_or(0, |l| l.free_at);
        prop_assert_eq!(auth.free_at(), free_at, "step {}: free_at", i);
    }
    Ok(())
}

#[cfg(feature = "alloc")]
fn check_table(cfg: Config, steps: &[(Move, Op)]) -> Result<(), TestCaseError> {
    use fencepost::{LockTable, TableSnapshot};

    let mut table: LockTable<u8, u8> = LockTable::new(cfg).expect("valid config");
    let mut model = Model::new(&cfg);
    let mut mine = BTreeMap::new();
    let mut clock = 0;
    for (i, (mv, op)) in steps.iter().enumerate() {
        clock = mv.apply(clock);
        let now = clock;
        match *op {
            Op::Acquire { lock, holder, ttl } => {
                let got = match ttl {
                    None => table.try_acquire(&lock, &holder, now),
                    Some(ttl) => table.try_acquire_for(&lock, &holder, ttl, now),
                };
                let want = model.acquire(lock, holder, ttl, now);
                prop_assert_eq!(&got, &want, "step {}: acquire {} by {}", i, lock, holder);
                if let Ok(g) = got {
                    mine.insert((lock, holder), g.token);
                }
            }
            Op::Renew {
                lock,
                holder,
                pick,
                ttl,
            } => {
                let Some(token) = resolve(&model, &mine, lock, holder, pick) else {
                    continue;
                };
                let got = match ttl {
                    None => table.renew(&lock, &holder, token, now),
                    Some(ttl) => table.renew_for(&lock, &holder, token, ttl, now),
                };
                let want = model.renew(lock, holder, token, ttl, now);
                prop_assert_eq!(got, want, "step {}: renew {} by {}", i, lock, holder);
            }
            Op::Release { lock, holder, pick } => {
                let Some(token) = resolve(&model, &mine, lock, holder, pick) else {
                    continue;
                };
                let got = table.release(&lock, &holder, token, now);
                let want = model.release(lock, holder, token, now);
                prop_assert_eq!(got, want, "step {}: release {} by {}", i, lock, holder);
            }
            Op::Expire { lock } => {
                let got = table.expire(&lock, now);
                let want = model.expire(lock, now);
                prop_assert_eq!(got, want, "step {}: expire {}", i, lock);
            }
            Op::ExpireAll => {
                let got = table.expire_all(now);
                let want = model.expire_all(now);
                prop_assert_eq!(got, want, "step {}: expire_all", i);
            }
            Op::Lease { lock } => {
                let got = table.lease(&lock, now).cloned();
                let want = model.lease(lock, now);
                prop_assert_eq!(got, want, "step {}: lease {}", i, lock);
            }
            Op::Restore { binary } => {
                let mut snap = table.snapshot();
                if binary {
                    let bytes = snap.to_bytes().expect("encodes");
                    snap = TableSnapshot::decode(&bytes).expect("decodes");
                }
                table = LockTable::restore(cfg, snap).expect("restores");
                model.restore();
            }
        }
        prop_assert_eq!(table.timeline().latest(), model.latest, "step {}", i);
        prop_assert_eq!(table.timeline().clamps(), model.clamps, "step {}", i);
        prop_assert_eq!(table.next_token(), model.next_token(), "step {}", i);
        prop_assert_eq!(table.last_issued(), model.last_issued(), "step {}", i);
        prop_assert_eq!(table.reserved_through(), model.reserved, "step {}", i);
        // The table may forget a free lock; every lock it remembers matches the model, and every
        // lock it forgot holds nothing the model would still enforce.
        let snap = table.snapshot();
        for l in &snap.locks {
            prop_assert_eq!(l.lease.as_ref(), model.recorded(l.name), "step {}", i);
            let free_at = model.locks.get(&l.name).map_or(0, |m| m.free_at);
            prop_assert_eq!(l.free_at, free_at, "step {}: free_at of {}", i, l.name);
        }
        for (name, m) in &model.locks {
            if !snap.locks.iter().any(|l| l.name == *name) {
                prop_assert!(m.lease.is_none(), "step {}: forgot held lock {}", i, name);
                prop_assert!(m.free_at <= model.latest, "step {}: forgot delay", i);
            }
        }
        // A forgotten lock behaves like one never used: the model forgets it too.
        model
            .locks
            .retain(|name, _| snap.locks.iter().any(|l| l.name == *name));
    }
    Ok(())
}

/// The reference for `Grant::safe_until`, in 128-bit arithmetic.
fn safe_until_reference(g: &Grant, sent_at: u64, drift_ppm: u32, margin: u64) -> u64 {
    let ttl = u128::from(g.expires_at.saturating_sub(g.granted_at));
    let keep = 1_000_000 - u128::from(drift_ppm.min(1_000_000));
    let budget = ttl * keep / 1_000_000;
    let usable = budget.saturating_sub(u128::from(margin));
    u64::try_from(u128::from(sent_at) + usable).unwrap_or(u64::MAX)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    #[test]
    fn authority_matches_the_model(cfg in config(), steps in ops(1)) {
        check_authority(cfg, &steps)?;
    }

    #[cfg(feature = "alloc")]
    #[test]
    fn table_matches_the_model(cfg in config(), steps in ops(3)) {
        check_table(cfg, &steps)?;
    }

    #[test]
    fn safe_until_is_inside_the_lease(
        granted_at in any::<u64>(),
        ttl in prop_oneof![1u64..100_000, any::<u64>()],
        sent_back in 0u64..10_000,
        drift_ppm in prop_oneof![0u32..100_000, any::<u32>()],
        margin in prop_oneof![0u64..1_000, any::<u64>()],
    ) {
        let g = Grant {
            token: Token::MIN,
            granted_at,
            expires_at: granted_at.saturating_add(ttl),
            depth: 1,
            reservation: None,
        };
        let sent_at = granted_at.saturating_sub(sent_back);
        let got = g.safe_until(sent_at, drift_ppm, margin);
        prop_assert_eq!(got, safe_until_reference(&g, sent_at, drift_ppm, margin));
        // Never before the request was sent, never past the lease measured from the send.
        prop_assert!(got >= sent_at);
        prop_assert!(got <= sent_at.saturating_add(g.expires_at - g.granted_at));
    }
}
