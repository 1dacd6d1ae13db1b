//! Property tests over random histories: acquire, try-acquire with a TTL, the blocking acquire,
//! renew, release, expiry, clock moves (forward, backward, jumps to near `u64::MAX`) and snapshot +
//! restore, for an `Authority` and for a `LockTable` of several locks, with several holders.
//!
//! What must hold in every history:
//!
//! * granted tokens strictly increase (per lock, and across a table's shared sequence);
//! * never two holders with unexpired leases on one lock at one authority time, and the authority's
//!   record always agrees with what the holders were told;
//! * a guard never admits a token lower than one it admitted, and never refuses the live holder;
//! * a host that persists only when a grant carries a reservation, crashes and restores from what it
//!   persisted never sees a token granted twice.

#![cfg(feature = "alloc")]

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Debug;

use common::{CASES, Move, clock_move, config, effective_ttl, ttl};
use fencepost::{
    AcquireError, Admission, Authority, AuthoritySnapshot, Config, Expired, Grant, Guard, GuardMap,
    Lease, LeaseError, LockTable, ManualClock, Released, Renewal, TableSnapshot, Token,
};
use proptest::prelude::*;

const HOLDERS: u8 = 3;
const TABLE_LOCKS: u8 = 3;

/// The calls both lock services answer. An `Authority` has one lock, numbered 0.
trait Service: Sized + Debug {
    type Snap: Clone + Debug + PartialEq;
    const LOCKS: u8;

    fn create(cfg: Config) -> Self;
    fn acquire(
        &mut self,
        lock: u8,
        holder: u8,
        ttl: Option<u64>,
        now: u64,
    ) -> Result<Grant, AcquireError<u8>>;
    fn renew(
        &mut self,
        lock: u8,
        holder: u8,
        token: Token,
        ttl: Option<u64>,
        now: u64,
    ) -> Result<Renewal, LeaseError>;
    fn release(
        &mut self,
        lock: u8,
        holder: u8,
        token: Token,
        now: u64,
    ) -> Result<Released, LeaseError>;
    fn expire(&mut self, lock: u8, now: u64) -> Option<Expired<u8>>;
    fn expire_all(&mut self, now: u64) -> Vec<(u8, Expired<u8>)>;
    /// The blocking acquire, where the service has one.
    fn blocking(
        &mut self,
        holder: u8,
        clock: &ManualClock,
        deadline: u64,
        waits: &mut Vec<u64>,
    ) -> Option<Result<Grant, AcquireError<u8>>>;
    /// Every lease as recorded (without settling expiries), by lock.
    fn leases(&self) -> BTreeMap<u8, Lease<u8>>;
    fn latest(&self) -> u64;
    fn clamps(&self) -> u64;
    fn next_token(&self) -> Option<Token>;
    fn reserved_through(&self) -> u64;
    fn snap(&self) -> Self::Snap;
    fn snap_without_next(&self) -> Self::Snap;
    fn restore(cfg: Config, snap: Self::Snap) -> Self;
    fn encode(snap: &Self::Snap) -> Vec<u8>;
    fn decode(bytes: &[u8]) -> Self::Snap;
    /// Raises the persisted reservation of a snapshot (a host that stored it on its own).
    fn raise_reservation(snap: &mut Self::Snap, through: u64);
    #[cfg(feature = "serde")]
    fn via_json(snap: &Self::Snap) -> Self::Snap;
}

impl Service for Authority<u8> {
    type Snap = AuthoritySnapshot<u8>;
    const LOCKS: u8 = 1;

    fn create(cfg: Config) -> Self {
        Authority::new(cfg).expect("strategy builds valid configs")
    }
    fn acquire(
        &mut self,
        _: u8,
        holder: u8,
        ttl: Option<u64>,
        now: u64,
    ) -> Result<Grant, AcquireError<u8>> {
        match ttl {
            None => self.try_acquire(&holder, now),
            Some(ttl) => self.try_acquire_for(&holder, ttl, now),
        }
    }
    fn renew(
        &mut self,
        _: u8,
        holder: u8,
        token: Token,
        ttl: Option<u64>,
        now: u64,
    ) -> Result<Renewal, LeaseError> {
        match ttl {
            None => Authority::renew(self, &holder, token, now),
            Some(ttl) => self.renew_for(&holder, token, ttl, now),
        }
    }
    fn release(
        &mut self,
        _: u8,
        holder: u8,
        token: Token,
        now: u64,
    ) -> Result<Released, LeaseError> {
        Authority::release(self, &holder, token, now)
    }
    fn expire(&mut self, _: u8, now: u64) -> Option<Expired<u8>> {
        Authority::expire(self, now)
    }
    fn expire_all(&mut self, now: u64) -> Vec<(u8, Expired<u8>)> {
        Authority::expire(self, now)
            .map(|e| (0, e))
            .into_iter()
            .collect()
    }
    fn blocking(
        &mut self,
        holder: u8,
        clock: &ManualClock,
        deadline: u64,
        waits: &mut Vec<u64>,
    ) -> Option<Result<Grant, AcquireError<u8>>> {
        Some(self.acquire(&holder, clock, deadline, |until| {
            waits.push(until);
            clock.set(until);
        }))
    }
    fn leases(&self) -> BTreeMap<u8, Lease<u8>> {
        self.recorded_lease()
            .map(|l| (0, l.clone()))
            .into_iter()
            .collect()
    }
    fn latest(&self) -> u64 {
        self.timeline().latest()
    }
    fn clamps(&self) -> u64 {
        self.timeline().clamps()
    }
    fn next_token(&self) -> Option<Token> {
        Authority::next_token(self)
    }
    fn reserved_through(&self) -> u64 {
        Authority::reserved_through(self)
    }
    fn snap(&self) -> Self::Snap {
        let snap = self.snapshot();
        // Written straight from the authority, the bytes are those of the plain data.
        assert_eq!(self.snapshot_bytes(), snap.to_bytes());
        snap
    }
    fn snap_without_next(&self) -> Self::Snap {
        AuthoritySnapshot {
            next_token: None,
            ..self.snapshot()
        }
    }
    fn restore(cfg: Config, snap: Self::Snap) -> Self {
        let bytes = snap.to_bytes().expect("encodes");
        let auth = Authority::restore(cfg, snap).expect("a snapshot the authority took restores");
        // Read straight from the bytes, it is the same authority.
        assert_eq!(Authority::restore_bytes(cfg, &bytes).as_ref(), Ok(&auth));
        auth
    }
    fn encode(snap: &Self::Snap) -> Vec<u8> {
        let bytes = snap.to_bytes().expect("encodes");
        assert_eq!(bytes.len(), snap.encoded_len());
        bytes
    }
    fn decode(bytes: &[u8]) -> Self::Snap {
        AuthoritySnapshot::decode(bytes).expect("decodes what was encoded")
    }
    fn raise_reservation(snap: &mut Self::Snap, through: u64) {
        snap.reserved_through = snap.reserved_through.max(through);
    }
    #[cfg(feature = "serde")]
    fn via_json(snap: &Self::Snap) -> Self::Snap {
        serde_json::from_str(&serde_json::to_string(snap).expect("to json")).expect("from json")
    }
}

impl Service for LockTable<u8, u8> {
    type Snap = TableSnapshot<u8, u8>;
    const LOCKS: u8 = TABLE_LOCKS;

    fn create(cfg: Config) -> Self {
        LockTable::new(cfg).expect("strategy builds valid configs")
    }
    fn acquire(
        &mut self,
        lock: u8,
        holder: u8,
        ttl: Option<u64>,
        now: u64,
    ) -> Result<Grant, AcquireError<u8>> {
        match ttl {
            None => self.try_acquire(&lock, &holder, now),
            Some(ttl) => self.try_acquire_for(&lock, &holder, ttl, now),
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
        match ttl {
            None => LockTable::renew(self, &lock, &holder, token, now),
            Some(ttl) => self.renew_for(&lock, &holder, token, ttl, now),
        }
    }
    fn release(
        &mut self,
        lock: u8,
        holder: u8,
        token: Token,
        now: u64,
    ) -> Result<Released, LeaseError> {
        LockTable::release(self, &lock, &holder, token, now)
    }
    fn expire(&mut self, lock: u8, now: u64) -> Option<Expired<u8>> {
        LockTable::expire(self, &lock, now)
    }
    fn expire_all(&mut self, now: u64) -> Vec<(u8, Expired<u8>)> {
        LockTable::expire_all(self, now)
    }
    fn blocking(
        &mut self,
        _: u8,
        _: &ManualClock,
        _: u64,
        _: &mut Vec<u64>,
    ) -> Option<Result<Grant, AcquireError<u8>>> {
        None
    }
    fn leases(&self) -> BTreeMap<u8, Lease<u8>> {
        self.snapshot()
            .locks
            .into_iter()
            .filter_map(|l| Some((l.name, l.lease?)))
            .collect()
    }
    fn latest(&self) -> u64 {
        self.timeline().latest()
    }
    fn clamps(&self) -> u64 {
        self.timeline().clamps()
    }
    fn next_token(&self) -> Option<Token> {
        LockTable::next_token(self)
    }
    fn reserved_through(&self) -> u64 {
        LockTable::reserved_through(self)
    }
    fn snap(&self) -> Self::Snap {
        let snap = self.snapshot();
        // Written straight from the table, the bytes are those of the plain data.
        assert_eq!(self.snapshot_bytes(), snap.to_bytes());
        snap
    }
    fn snap_without_next(&self) -> Self::Snap {
        TableSnapshot {
            next_token: None,
            ..self.snapshot()
        }
    }
    fn restore(cfg: Config, snap: Self::Snap) -> Self {
        let bytes = snap.to_bytes().expect("encodes");
        let mut shuffled = snap.clone();
        let table = LockTable::restore(cfg, snap).expect("a snapshot the table took restores");
        // Read straight from the bytes, it is the same table.
        assert_eq!(LockTable::restore_bytes(cfg, &bytes).as_ref(), Ok(&table));
        // And with its locks listed in another order (reversed, then turned by a third), by
        // either path.
        shuffled.locks.reverse();
        let third = shuffled.locks.len() / 3;
        shuffled.locks.rotate_left(third);
        let bytes = shuffled.to_bytes().expect("encodes");
        assert_eq!(LockTable::restore_bytes(cfg, &bytes).as_ref(), Ok(&table));
        assert_eq!(LockTable::restore(cfg, shuffled).as_ref(), Ok(&table));
        table
    }
    fn encode(snap: &Self::Snap) -> Vec<u8> {
        let bytes = snap.to_bytes().expect("encodes");
        assert_eq!(bytes.len(), snap.encoded_len());
        bytes
    }
    fn decode(bytes: &[u8]) -> Self::Snap {
        TableSnapshot::decode(bytes).expect("decodes what was encoded")
    }
    fn raise_reservation(snap: &mut Self::Snap, through: u64) {
        snap.reserved_through = snap.reserved_through.max(through);
    }
    #[cfg(feature = "serde")]
    fn via_json(snap: &Self::Snap) -> Self::Snap {
        serde_json::from_str(&serde_json::to_string(snap).expect("to json")).expect("from json")
    }
}

/// How a snapshot travels from the old authority to the restored one.
#[derive(Clone, Copy, Debug)]
enum Path {
    /// The plain data, as is.
    Plain,
    /// Through the binary encoding.
    Binary,
    /// Through serde (JSON) when the feature is on; the plain data otherwise.
    Json,
}

/// Which token a renew or release presents.
#[derive(Clone, Copy, Debug)]
enum Presented {
    /// The last token this holder was granted on this lock (possibly lost by now).
    Own,
    /// The token of the lock's current recorded lease, whoever holds it.
    Current,
    /// A number nobody was necessarily granted.
    Raw(u64),
}

#[derive(Clone, Debug)]
enum Action {
    Acquire {
        lock: u8,
        holder: u8,
        ttl: Option<u64>,
    },
    Blocking {
        holder: u8,
        patience: u64,
    },
    Renew {
        lock: u8,
        holder: u8,
        token: Presented,
        ttl: Option<u64>,
    },
    Release {
        lock: u8,
        holder: u8,
        token: Presented,
    },
    Expire {
        lock: u8,
    },
    ExpireAll,
    Write {
        lock: u8,
        holder: u8,
    },
    SnapshotRestore(Path),
}

fn presented() -> impl Strategy<Value = Presented> {
    prop_oneof![
        6 => Just(Presented::Own),
        2 => Just(Presented::Current),
        1 => prop_oneof![1u64..5, Just(u64::MAX)].prop_map(Presented::Raw),
    ]
}

fn action(locks: u8) -> impl Strategy<Value = Action> {
    let lock = 0..locks;
    let holder = 0..HOLDERS;
    prop_oneof![
        10 => (lock.clone(), holder.clone(), ttl())
            .prop_map(|(lock, holder, ttl)| Action::Acquire { lock, holder, ttl }),
        2 => (holder.clone(), 0u64..400)
            .prop_map(|(holder, patience)| Action::Blocking { holder, patience }),
        5 => (lock.clone(), holder.clone(), presented(), ttl())
            .prop_map(|(lock, holder, token, ttl)| Action::Renew { lock, holder, token, ttl }),
        5 => (lock.clone(), holder.clone(), presented())
            .prop_map(|(lock, holder, token)| Action::Release { lock, holder, token }),
        2 => lock.clone().prop_map(|lock| Action::Expire { lock }),
        1 => Just(Action::ExpireAll),
        4 => (lock, holder).prop_map(|(lock, holder)| Action::Write { lock, holder }),
        2 => prop_oneof![Just(Path::Plain), Just(Path::Binary), Just(Path::Json)]
            .prop_map(Action::SnapshotRestore),
    ]
}

fn history(locks: u8) -> impl Strategy<Value = Vec<(Move, Action)>> {
    prop::collection::vec((clock_move(), action(locks)), 1..60)
}

/// What a holder was told about its lease on one lock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Belief {
    token: Token,
    expires_at: u64,
    depth: u32,
}

/// A service, what every holder believes, and guarded resources (one per lock).
struct World<S> {
    svc: S,
    cfg: Config,
    clock: u64,
    /// Latest `now` handed to the service: its timeline must match.
    latest: u64,
    beliefs: BTreeMap<(u8, u8), Belief>,
    last_token: BTreeMap<(u8, u8), Token>,
    highest_granted: Option<Token>,
    highest_per_lock: BTreeMap<u8, Token>,
    guards: GuardMap<u8>,
    admitted: BTreeMap<u8, Token>,
}

impl<S: Service> World<S> {
    fn new(cfg: Config) -> Self {
        World {
            svc: S::create(cfg),
            cfg,
            clock: 0,
            latest: 0,
            beliefs: BTreeMap::new(),
            last_token: BTreeMap::new(),
            highest_granted: None,
            highest_per_lock: BTreeMap::new(),
            guards: GuardMap::new(),
            admitted: BTreeMap::new(),
        }
    }

    fn see(&mut self, now: u64) {
        self.latest = self.latest.max(now);
    }

    /// Whether `holder` has a lease on `lock` that is live at the service's time.
    fn live(&self, lock: u8, holder: u8) -> Option<Belief> {
        let t = self.svc.latest();
        self.beliefs
            .get(&(lock, holder))
            .copied()
            .filter(|b| t < b.expires_at)
    }

    /// Why a renew or release by `holder` with `token` must be refused: another holder's live
    /// lease has the token, or none has.
    fn refusal(&self, lock: u8, holder: u8, token: Token) -> LeaseError {
        let theirs = self
            .live_on(lock)
            .into_iter()
            .any(|(h, b)| h != holder && b.token == token);
        if theirs {
            LeaseError::NotHolder
        } else {
            LeaseError::Lost
        }
    }

    fn live_on(&self, lock: u8) -> Vec<(u8, Belief)> {
        (0..HOLDERS)
            .filter_map(|h| self.live(lock, h).map(|b| (h, b)))
            .collect()
    }

    fn step(&mut self, mv: Move, action: &Action) {
        self.clock = mv.apply(self.clock);
        let now = self.clock;
        match *action {
            Action::Acquire { lock, holder, ttl } => {
                let lock = lock % S::LOCKS;
                let reserved_before = self.svc.reserved_through();
                let result = self.svc.acquire(lock, holder, ttl, now);
                self.see(now);
                self.on_acquire(
                    lock,
                    holder,
                    effective_ttl(&self.cfg, ttl),
                    reserved_before,
                    result,
                );
            }
            Action::Blocking { holder, patience } => {
                let clock = ManualClock::new(now);
                let deadline = now.saturating_add(patience);
                let mut waits = Vec::new();
                let reserved_before = self.svc.reserved_through();
                let Some(result) = self.svc.blocking(holder, &clock, deadline, &mut waits) else {
                    return;
                };
                // Every reading of the clock was at most its final one.
                self.clock = fencepost::Clock::now_ms(&clock);
                self.see(self.clock);
                let mut previous = now;
                for &w in &waits {
                    assert!(w >= previous && w <= deadline, "wait {w} in {waits:?}");
                    previous = w;
                }
                if result.as_ref().is_err_and(|e| e.retry_at().is_some()) {
                    assert!(self.clock >= deadline, "gave up before the deadline");
                }
                let ttl = effective_ttl(&self.cfg, None);
                self.on_acquire(0, holder, ttl, reserved_before, result);
            }
            Action::Renew {
                lock,
                holder,
                token,
                ttl,
            } => {
                let lock = lock % S::LOCKS;
                let Some(token) = self.pick(lock, holder, token) else {
                    return;
                };
                let result = self.svc.renew(lock, holder, token, ttl, now);
                self.see(now);
                let t = self.svc.latest();
                let should = self.live(lock, holder).filter(|b| b.token == token);
                match (result, should) {
                    (Ok(r), Some(b)) => {
                        assert_eq!(r.token, token);
                        let want = t.saturating_add(effective_ttl(&self.cfg, ttl));
                        assert_eq!(r.expires_at, want, "renewed expiry");
                        self.beliefs.insert(
                            (lock, holder),
                            Belief {
                                expires_at: want,
                                ..b
                            },
                        );
                    }
                    (Err(e), None) => assert_eq!(e, self.refusal(lock, holder, token)),
                    (result, should) => {
                        panic!(
                            "renew by {holder} with {token:?} at {t}: {result:?}, belief {should:?}"
                        )
                    }
                }
            }
            Action::Release {
                lock,
                holder,
                token,
            } => {
                let lock = lock % S::LOCKS;
                let Some(token) = self.pick(lock, holder, token) else {
                    return;
                };
                let result = self.svc.release(lock, holder, token, now);
                self.see(now);
                let t = self.svc.latest();
                let should = self.live(lock, holder).filter(|b| b.token == token);
                match (result, should) {
                    (Ok(Released::Free), Some(b)) if b.depth == 1 => {
                        self.beliefs.remove(&(lock, holder));
                    }
                    (Ok(Released::Held { depth }), Some(b)) if b.depth > 1 => {
                        assert_eq!(depth, b.depth - 1);
                        self.beliefs.insert((lock, holder), Belief { depth, ..b });
                    }
                    (Err(e), None) => assert_eq!(e, self.refusal(lock, holder, token)),
                    (result, should) => {
                        panic!(
                            "release by {holder} with {token:?} at {t}: {result:?}, belief {should:?}"
                        )
                    }
                }
            }
            Action::Expire { lock } => {
                let lock = lock % S::LOCKS;
                let expired = self.svc.expire(lock, now);
                self.see(now);
                if let Some(e) = expired {
                    self.on_expired(lock, &e);
                }
                assert!(
                    self.svc
                        .leases()
                        .get(&lock)
                        .is_none_or(|l| l.expires_at > self.svc.latest()),
                    "an expired lease is still recorded after expire"
                );
            }
            Action::ExpireAll => {
                let all = self.svc.expire_all(now);
                self.see(now);
                let mut previous = None;
                for (lock, e) in &all {
                    assert!(
                        previous < Some(*lock),
                        "expiries out of lock order: {all:?}"
                    );
                    previous = Some(*lock);
                    self.on_expired(*lock, e);
                }
                let t = self.svc.latest();
                assert!(
                    self.svc.leases().values().all(|l| l.expires_at > t),
                    "expire_all left an expired lease"
                );
            }
            Action::Write { lock, holder } => {
                let lock = lock % S::LOCKS;
                let Some(&token) = self.last_token.get(&(lock, holder)) else {
                    return;
                };
                let before = self.admitted.get(&lock).copied();
                assert_eq!(self.guards.highest(&lock), before);
                let checked = self.guards.check(&lock, token);
                let verdict = self.guards.admit(lock, token);
                assert_eq!(checked, verdict, "check and admit disagree");
                let want = match before {
                    None => Admission::Advanced { previous: None },
                    Some(h) if token > h => Admission::Advanced { previous: Some(h) },
                    Some(h) if token == h => Admission::Current,
                    Some(h) => Admission::Stale {
                        presented: token,
                        highest: h,
                    },
                };
                assert_eq!(verdict, want);
                if verdict.is_accepted() {
                    assert!(before.is_none_or(|h| token >= h), "admitted a lower token");
                    self.admitted.insert(lock, token);
                }
                if self.live(lock, holder).is_some_and(|b| b.token == token) {
                    assert!(
                        verdict.is_accepted(),
                        "the live holder was refused: {verdict:?}"
                    );
                }
            }
            Action::SnapshotRestore(path) => {
                let snap = self.svc.snap();
                let moved = match path {
                    Path::Plain => snap.clone(),
                    Path::Binary => {
                        let bytes = S::encode(&snap);
                        let back = S::decode(&bytes);
                        assert_eq!(back, snap, "binary round trip");
                        back
                    }
                    #[cfg(feature = "serde")]
                    Path::Json => {
                        let back = S::via_json(&snap);
                        assert_eq!(back, snap, "serde round trip");
                        back
                    }
                    #[cfg(not(feature = "serde"))]
                    Path::Json => snap.clone(),
                };
                let restored = S::restore(self.cfg, moved);
                assert_eq!(restored.snap_without_next(), self.svc.snap_without_next());
                let (old, new) = (self.svc.next_token(), restored.next_token());
                // The restored service resumes above the reservation: never lower, and exactly where
                // it was when every grant was persisted.
                match (old, new) {
                    (Some(o), Some(n)) => assert!(n >= o, "restore went back: {o:?} -> {n:?}"),
                    (None, Some(n)) => panic!("restore revived an exhausted sequence at {n:?}"),
                    (_, None) => {}
                }
                if self.cfg.reserve_block == 1 {
                    assert_eq!(new, old);
                }
                self.svc = restored;
            }
        }
        self.check_invariants();
    }

    fn pick(&self, lock: u8, holder: u8, which: Presented) -> Option<Token> {
        match which {
            Presented::Own => self.last_token.get(&(lock, holder)).copied(),
            Presented::Current => self.svc.leases().get(&lock).map(|l| l.token),
            Presented::Raw(v) => Token::new(v),
        }
    }

    fn on_acquire(
        &mut self,
        lock: u8,
        holder: u8,
        ttl: u64,
        reserved_before: u64,
        result: Result<Grant, AcquireError<u8>>,
    ) {
        let t = self.svc.latest();
        let mine = self.live(lock, holder);
        match result {
            Ok(g) if g.depth == 1 => {
                assert_eq!(g.granted_at, t);
                assert_eq!(g.expires_at, t.saturating_add(ttl));
                assert_eq!(mine, None, "a fresh grant to a holder with a live lease");
                let others = self.live_on(lock);
                assert!(
                    others.is_empty(),
                    "lock {lock} granted to {holder} at {t} while {others:?} hold it"
                );
                if let Some(h) = self.highest_granted {
                    assert!(g.token > h, "token {:?} after {h:?}", g.token);
                }
                if let Some(h) = self.highest_per_lock.get(&lock) {
                    assert!(g.token > *h);
                }
                self.highest_granted = Some(g.token);
                self.highest_per_lock.insert(lock, g.token);
                // A reservation comes exactly when the token leaves the persisted block.
                assert_eq!(g.reservation.is_some(), g.token.get() > reserved_before);
                if let Some(r) = g.reservation {
                    assert!(r.through >= g.token.get());
                    assert_eq!(r.through, self.svc.reserved_through());
                }
                self.beliefs.insert(
                    (lock, holder),
                    Belief {
                        token: g.token,
                        expires_at: g.expires_at,
                        depth: 1,
                    },
                );
                self.last_token.insert((lock, holder), g.token);
            }
            Ok(g) => {
                let b = mine.expect("re-entry without a live lease");
                assert_eq!(g.granted_at, t);
                assert_eq!(g.token, b.token, "re-entry changed the token");
                assert_eq!(g.depth, b.depth + 1);
                assert!(g.depth <= self.cfg.max_reentry);
                assert_eq!(g.expires_at, b.expires_at.max(t.saturating_add(ttl)));
                assert_eq!(g.reservation, None);
                self.beliefs.insert(
                    (lock, holder),
                    Belief {
                        token: g.token,
                        expires_at: g.expires_at,
                        depth: g.depth,
                    },
                );
            }
            Err(AcquireError::Held { holder: by, until }) => {
                assert_ne!(by, holder);
                let b = self
                    .live(lock, by)
                    .unwrap_or_else(|| panic!("held by {by} who holds nothing live at {t}"));
                assert_eq!(until, b.expires_at);
            }
            Err(AcquireError::LockDelay { until }) => {
                assert!(until > t);
                assert!(self.cfg.lock_delay_ms > 0);
                assert!(self.live_on(lock).is_empty());
            }
            Err(AcquireError::ReentryLimit { max }) => {
                assert_eq!(max, self.cfg.max_reentry);
                assert_eq!(mine.map(|b| b.depth), Some(max));
            }
            Err(AcquireError::Exhausted) => {
                assert_eq!(self.svc.next_token(), None);
                assert!(self.live_on(lock).is_empty());
            }
            Err(other) => panic!("unexpected refusal {other:?}"),
        }
    }

    fn on_expired(&mut self, lock: u8, e: &Expired<u8>) {
        let t = self.svc.latest();
        assert!(e.at <= t, "reported an expiry in the future: {e:?} at {t}");
        assert_eq!(e.free_at, e.at.saturating_add(self.cfg.lock_delay_ms));
        assert!(self.highest_granted.is_some_and(|h| e.token <= h));
        if let Some(b) = self.beliefs.remove(&(lock, e.holder)) {
            assert_eq!((b.token, b.expires_at), (e.token, e.at));
        }
    }

    fn check_invariants(&mut self) {
        let t = self.svc.latest();
        assert_eq!(
            t, self.latest,
            "the service's time is the latest `now` it saw"
        );
        // Holders forget leases that have run out by the authority's time.
        self.beliefs.retain(|_, b| t < b.expires_at);
        let recorded = self.svc.leases();
        for lock in 0..S::LOCKS {
            let live = self.live_on(lock);
            assert!(
                live.len() <= 1,
                "two live holders on lock {lock} at {t}: {live:?}"
            );
            match (live.first(), recorded.get(&lock)) {
                (Some((h, b)), Some(l)) => {
                    assert_eq!(
                        (l.holder, l.token, l.expires_at, l.depth),
                        (*h, b.token, b.expires_at, b.depth),
                        "the authority's record disagrees with its holder"
                    );
                }
                (Some(held), None) => panic!("lock {lock}: holder {held:?} but no record"),
                (None, Some(l)) => assert!(l.expires_at <= t, "unknown live lease {l:?}"),
                (None, None) => {}
            }
        }
        if let (Some(h), Some(n)) = (self.highest_granted, self.svc.next_token()) {
            assert!(n > h, "next token {n:?} not above {h:?}");
        }
        if let Some(h) = self.highest_granted {
            assert!(self.svc.reserved_through() >= h.get());
        }
    }
}

fn run_history<S: Service>(cfg: Config, steps: &[(Move, Action)]) {
    let mut world = World::<S>::new(cfg);
    let mut clamps = 0;
    for (mv, action) in steps {
        world.step(*mv, action);
        assert!(world.svc.clamps() >= clamps);
        clamps = world.svc.clamps();
    }
}

/// What a crashing host does between crashes.
#[derive(Clone, Debug)]
enum HostStep {
    Acquire {
        lock: u8,
        holder: u8,
        ttl: Option<u64>,
    },
    Renew {
        lock: u8,
        holder: u8,
    },
    Release {
        lock: u8,
        holder: u8,
    },
    Expire,
    Write {
        lock: u8,
        holder: u8,
    },
    /// A voluntary snapshot (only a host that persists reservations on their own takes them).
    Checkpoint,
    /// Everything not persisted is lost; the host restores what it persisted.
    Crash,
}

fn host_step(locks: u8) -> impl Strategy<Value = HostStep> {
    let lock = 0..locks;
    let holder = 0..HOLDERS;
    prop_oneof![
        10 => (lock.clone(), holder.clone(), ttl())
            .prop_map(|(lock, holder, ttl)| HostStep::Acquire { lock, holder, ttl }),
        3 => (lock.clone(), holder.clone()).prop_map(|(lock, holder)| HostStep::Renew { lock, holder }),
        4 => (lock.clone(), holder.clone()).prop_map(|(lock, holder)| HostStep::Release { lock, holder }),
        2 => Just(HostStep::Expire),
        3 => (lock, holder).prop_map(|(lock, holder)| HostStep::Write { lock, holder }),
        1 => Just(HostStep::Checkpoint),
        3 => Just(HostStep::Crash),
    ]
}

/// How the host keeps its promise to persist a reservation before returning the grant.
#[derive(Clone, Copy, Debug)]
enum Persist {
    /// Writes a binary snapshot taken right after the grant, and nothing else, ever.
    SnapshotOnReservation,
    /// Writes only the reservation number; snapshots are taken now and then (`Checkpoint`). A
    /// restore takes the last snapshot and raises its reservation to the stored number.
    ReservationOnly,
}

fn run_crashes<S: Service>(cfg: Config, persist: Persist, steps: &[(Move, HostStep)]) {
    let mut svc = S::create(cfg);
    let mut clock = 0u64;
    let mut stored_snapshot: Option<Vec<u8>> = None;
    let mut stored_through: Option<u64> = None;
    let mut granted = BTreeSet::new();
    let mut highest: Option<Token> = None;
    let mut last: BTreeMap<(u8, u8), Token> = BTreeMap::new();
    let mut guards: BTreeMap<u8, Guard> = BTreeMap::new();
    let mut crashes = 0;
    for (mv, step) in steps {
        clock = mv.apply(clock);
        match *step {
            HostStep::Acquire { lock, holder, ttl } => {
                let lock = lock % S::LOCKS;
                if let Ok(g) = svc.acquire(lock, holder, ttl, clock) {
                    if let Some(r) = g.reservation {
                        match persist {
                            Persist::SnapshotOnReservation => {
                                stored_snapshot = Some(S::encode(&svc.snap()));
                            }
                            Persist::ReservationOnly => stored_through = Some(r.through),
                        }
                    }
                    if g.depth == 1 {
                        assert!(
                            granted.insert(g.token),
                            "token {:?} granted twice (after {crashes} crashes)",
                            g.token
                        );
                        assert!(highest.is_none_or(|h| g.token > h));
                        highest = Some(g.token);
                    } else {
                        assert!(granted.contains(&g.token));
                    }
                    last.insert((lock, holder), g.token);
                }
            }
            HostStep::Renew { lock, holder } => {
                let lock = lock % S::LOCKS;
                if let Some(&t) = last.get(&(lock, holder)) {
                    let _ = svc.renew(lock, holder, t, None, clock);
                }
            }
            HostStep::Release { lock, holder } => {
                let lock = lock % S::LOCKS;
                if let Some(&t) = last.get(&(lock, holder)) {
                    let _ = svc.release(lock, holder, t, clock);
                }
            }
            HostStep::Expire => {
                let _ = svc.expire_all(clock);
            }
            HostStep::Write { lock, holder } => {
                let lock = lock % S::LOCKS;
                if let Some(&t) = last.get(&(lock, holder)) {
                    let guard = guards.entry(lock).or_default();
                    let before = guard.highest();
                    let verdict = guard.admit(t);
                    assert_eq!(verdict.is_accepted(), before.is_none_or(|h| t >= h));
                    assert!(guard.highest() >= before);
                }
            }
            HostStep::Checkpoint => {
                if let Persist::ReservationOnly = persist {
                    stored_snapshot = Some(S::encode(&svc.snap()));
                }
            }
            HostStep::Crash => {
                crashes += 1;
                let mut snap = match &stored_snapshot {
                    Some(bytes) => S::decode(bytes),
                    None => S::create(cfg).snap(),
                };
                if let Some(through) = stored_through {
                    S::raise_reservation(&mut snap, through);
                }
                svc = S::restore(cfg, snap);
                if let (Some(h), Some(n)) = (highest, svc.next_token()) {
                    assert!(n > h, "restored at {n:?}, but {h:?} was granted");
                }
            }
        }
    }
}

fn persist() -> impl Strategy<Value = Persist> {
    prop_oneof![
        Just(Persist::SnapshotOnReservation),
        Just(Persist::ReservationOnly)
    ]
}

fn host_history(locks: u8) -> impl Strategy<Value = Vec<(Move, HostStep)>> {
    prop::collection::vec((clock_move(), host_step(locks)), 1..60)
}

/// One step on a set of guards: a token presented to a resource, looked at or admitted.
#[derive(Clone, Copy, Debug)]
struct Presentation {
    resource: u8,
    raw: u64,
    admit: bool,
}

fn presentation() -> impl Strategy<Value = Presentation> {
    (
        0u8..3,
        prop_oneof![
            1 => Just(0u64),
            8 => 1u64..40,
            1 => (u64::MAX - 3)..=u64::MAX,
            1 => any::<u64>(),
        ],
        prop::bool::weighted(0.8),
    )
        .prop_map(|(resource, raw, admit)| Presentation {
            resource,
            raw,
            admit,
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    #[test]
    fn authority_histories_keep_the_rules(cfg in config(), steps in history(1)) {
        run_history::<Authority<u8>>(cfg, &steps);
    }

    #[test]
    fn table_histories_keep_the_rules(cfg in config(), steps in history(TABLE_LOCKS)) {
        run_history::<LockTable<u8, u8>>(cfg, &steps);
    }

    #[test]
    fn authority_restored_after_a_crash_never_regrants(
        cfg in config(),
        persist in persist(),
        steps in host_history(1),
    ) {
        run_crashes::<Authority<u8>>(cfg, persist, &steps);
    }

    #[test]
    fn table_restored_after_a_crash_never_regrants(
        cfg in config(),
        persist in persist(),
        steps in host_history(TABLE_LOCKS),
    ) {
        run_crashes::<LockTable<u8, u8>>(cfg, persist, &steps);
    }

    #[test]
    fn guards_never_go_back(steps in prop::collection::vec(presentation(), 1..80)) {
        let mut single = Guard::new();
        let mut map: GuardMap<u8> = GuardMap::new();
        let mut highest: BTreeMap<u8, Token> = BTreeMap::new();
        for p in steps {
            let before = highest.get(&p.resource).copied();
            let want = match (Token::new(p.raw), before) {
                (None, _) => Admission::Invalid,
                (Some(_), None) => Admission::Advanced { previous: None },
                (Some(t), Some(h)) if t > h => Admission::Advanced { previous: Some(h) },
                (Some(t), Some(h)) if t == h => Admission::Current,
                (Some(t), Some(h)) => Admission::Stale { presented: t, highest: h },
            };
            let got = match (Token::new(p.raw), p.admit) {
                (Some(t), true) => map.admit(p.resource, t),
                (Some(t), false) => map.check(&p.resource, t),
                (None, _) => Admission::Invalid,
            };
            prop_assert_eq!(got, want);
            if p.resource == 0 {
                let s = if p.admit { single.admit_raw(p.raw) } else { single.check_raw(p.raw) };
                prop_assert_eq!(s, want);
            }
            if p.admit && want.is_accepted() {
                let t = Token::new(p.raw).expect("accepted tokens are valid");
                prop_assert!(before.is_none_or(|h| t >= h), "admitted {:?} below {:?}", t, before);
                highest.insert(p.resource, t);
            }
            prop_assert_eq!(map.highest(&p.resource), highest.get(&p.resource).copied());
            prop_assert_eq!(single.highest(), highest.get(&0).copied());
        }
        prop_assert_eq!(map.len(), highest.len());
    }
}
