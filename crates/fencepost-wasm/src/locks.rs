//! Locks: an authority (one lock) or a lock table (many). Each export here serves both, by the
//! kind of object at its index; an authority ignores the lock name (the caller passes none).

use alloc::boxed::Box;
use alloc::vec::Vec;

use fencepost::{AcquireError, Config, Expired, Grant, LeaseError, Released, SnapshotError, Token};
use wasm_bindgen::prelude::wasm_bindgen;

use crate::abi::{Out, js_ms, ms, name_at};
use crate::errors::{code, config_error, fail, snapshot_error};
use crate::memory::{copy_into, room, room_for};
use crate::name::{Name, name_ok};
use crate::objects::Object;
use crate::state::{State, with};

pub(crate) fn config(
    ttl: f64,
    lock_delay: f64,
    max_reentry: u32,
    first: u64,
    block: f64,
) -> Option<Config> {
    let Some(first) = Token::new(first) else {
        fail(code::ZERO_FIRST_TOKEN, 0);
        return None;
    };
    let cfg = Config::new(ms(ttl))
        .with_lock_delay(ms(lock_delay))
        .with_max_reentry(max_reentry)
        .with_first_token(first)
        .with_reserve_block(ms(block));
    // Checked here once, for a fresh object and a restored one alike (their constructors, `new`
    // and `restore_bytes`, check it first too).
    match cfg.validate() {
        Ok(()) => Some(cfg),
        Err(e) => {
            config_error(e);
            None
        }
    }
}

/// Acquire codes.
pub mod acquire {
    crate::numbered! {
        /// Granted: `token`, `time` (expires at), `time2` (granted at), `depth`.
        GRANTED = 0;
        /// Another holder has it: `holder`, `time` (until).
        HELD = 1;
        /// In lock-delay after an expiry: `time` (until).
        LOCK_DELAY = 2;
        /// Re-entered as deep as allowed: `depth` (the limit).
        REENTRY_LIMIT = 3;
        /// Every token was issued.
        EXHAUSTED = 4;
        /// The holder id (or lock name) is too long: see `error` in [`Out`](crate::abi::Out).
        BAD_NAME = 5;
        /// A refusal this build does not know.
        OTHER = 6;
    }
}

/// What a renew or a release answers.
pub mod lease {
    crate::numbered! {
        /// Renewed or released.
        DONE = 0;
        /// No live lease has the token (`LeaseError::Lost`).
        LOST = 1;
        /// The live lease has the token, but another holder holds it (`LeaseError::NotHolder`).
        NOT_HOLDER = 2;
    }
}

/// The code of a renew's or release's refusal.
fn lease_refused(e: LeaseError) -> u32 {
    match e {
        LeaseError::NotHolder => lease::NOT_HOLDER,
        // `Lost`, and any refusal a later core adds: the caller no longer holds the lease.
        _ => lease::LOST,
    }
}

/// A lock table with the expiries of its last `call::EXPIRE_ALL`.
pub(crate) struct Table {
    pub(crate) inner: fencepost::LockTable<Name, Name>,
    pub(crate) expired: Vec<(Name, Expired<Name>)>,
}

/// Encodes a snapshot into the output area; returns its length (0, see `error` in [`Out`], on
/// failure).
pub(crate) fn snapshot_out(output: &mut Vec<u8>, r: Result<Vec<u8>, SnapshotError>) -> usize {
    match r {
        Ok(bytes) => {
            *output = bytes;
            output.len()
        }
        Err(e) => {
            snapshot_error(e);
            0
        }
    }
}

pub(crate) fn table(inner: fencepost::LockTable<Name, Name>) -> Object {
    Object::Table(Box::new(Table {
        inner,
        expired: Vec::new(),
    }))
}

/// The lease length: the config's for a negative `ttl`, else `ttl`.
pub(crate) fn ttl_ms(cfg: &Config, ttl: f64) -> u64 {
    if ttl < 0.0 { cfg.ttl_ms } else { ms(ttl) }
}

/// What [`lock_call`] does.
pub mod call {
    crate::numbered! {
        /// Acquire the lock for the holder (`token` unused; `ttl`: negative for the default); see
        /// [`acquire`](super::acquire) for the codes.
        ACQUIRE = 0;
        /// Renew the holder's lease with `token` (`ttl`: negative for the default); see
        /// [`lease`](super::lease) for the codes (`token`, `time` when renewed).
        RENEW = 1;
        /// Release one level of the holder's lease with `token` (`ttl` unused); see
        /// [`lease`](super::lease) for the codes (`depth` when released).
        RELEASE = 2;
        /// Notice its expiry (holder, `token` and `ttl` unused): 1 if its lease ran out (`holder`,
        /// `token`, `time` at, `time2` free at), else 0.
        EXPIRE = 3;
        /// Read its live lease (holder, `token` and `ttl` unused): 1 if there is one (`holder`,
        /// `token`, `time` expires, `time2` granted, `depth`), else 0.
        LEASE = 4;
        /// Notice every expiry due on a table (names, `token` and `ttl` unused): how many (read
        /// each with [`EXPIRED`]).
        EXPIRE_ALL = 5;
        /// Expiry `lock` (a number here, not a name) of a table's last [`EXPIRE_ALL`]: 1 if there
        /// is one (`name` the lock, `holder`, `token`, `time` at, `time2` free at), else 0.
        EXPIRED = 6;
        /// The binary snapshot of the authority or the table into the output area: its length (0,
        /// see `error` in [`Out`](crate::abi::Out), if it cannot be encoded).
        SNAPSHOT = 7;
        /// Not an operation: what any of them answers when the module's memory cannot hold what
        /// it would allocate (`error` in [`Out`](crate::abi::Out) is `NO_MEMORY`); nothing was
        /// changed.
        REFUSED = u32::MAX;
    }
}

/// Acquires, renews or releases a lock (the first `lock` bytes of the input area; none for an
/// authority) for a holder (the `holder` bytes after them), or notices its expiry or reads its
/// lease (see [`call`]).
#[wasm_bindgen]
#[inline(never)]
pub fn lock_call(
    op: u32,
    i: u32,
    lock: usize,
    holder: usize,
    token: u64,
    now: f64,
    ttl: f64,
) -> u32 {
    if op >= call::EXPIRE {
        return look(op, i, lock, now);
    }
    let acquiring = op == call::ACQUIRE;
    if acquiring && (!name_ok(lock) || !name_ok(holder)) {
        return acquire::BAD_NAME;
    }
    let lost = if acquiring {
        acquire::OTHER
    } else {
        lease::LOST
    };
    with(lost, |st| {
        // Token 0 is never held: a renewal or release with it is lost.
        let token = Token::new(token);
        let now = ms(now);
        let Some(holder) = name_at(&st.input, lock, holder) else {
            return call::REFUSED;
        };
        let out = &mut st.out;
        match st.objects.0.get(i) {
            Some(Object::Authority(a)) => {
                // A grant keeps a copy of the holder; a refusal copies out the one who has it.
                let copies = [holder.0.len(), holder_len(a.recorded_lease())];
                if acquiring && !room_for(&copies) {
                    return call::REFUSED;
                }
                let ttl = ttl_ms(a.config(), ttl);
                match token {
                    _ if acquiring => out.acquired(a.try_acquire_for(&holder, ttl, now)),
                    Some(token) if op == call::RENEW => {
                        out.renewed(a.renew_for(&holder, token, ttl, now))
                    }
                    Some(token) => out.released(a.release(&holder, token, now)),
                    None => lost,
                }
            }
            Some(Object::Table(t)) => {
                let t = &mut t.inner;
                let Some(lock) = name_at(&st.input, 0, lock) else {
                    return call::REFUSED;
                };
                // As for an authority, and a lock not remembered yet takes a copy of its name
                // and a place in the table's list.
                let current = holder_len(t.recorded_lease(&lock));
                let copies = [t.insert_bytes(), lock.0.len(), holder.0.len(), current];
                if acquiring && !room_for(&copies) {
                    return call::REFUSED;
                }
                let ttl = ttl_ms(t.config(), ttl);
                match token {
                    _ if acquiring => out.acquired(t.try_acquire_for(&lock, &holder, ttl, now)),
                    Some(token) if op == call::RENEW => {
                        out.renewed(t.renew_for(&lock, &holder, token, ttl, now))
                    }
                    Some(token) => out.released(t.release(&lock, &holder, token, now)),
                    None => lost,
                }
            }
            _ => lost,
        }
    })
}

/// The length of a lease's holder (0: no lease).
fn holder_len(l: Option<&fencepost::Lease<Name>>) -> usize {
    l.map_or(0, |l| l.holder.0.len())
}

/// [`call::EXPIRE`], [`call::LEASE`], [`call::EXPIRE_ALL`], [`call::EXPIRED`] or
/// [`call::SNAPSHOT`] for [`lock_call`].
fn look(op: u32, i: u32, lock: usize, now: f64) -> u32 {
    with(0, |st| {
        let now = ms(now);
        if op == call::SNAPSHOT {
            return snapshot(st, i);
        }
        if op > call::LEASE {
            return expiries(st, op, i, lock, now);
        }
        let lease = op == call::LEASE;
        // Either way the expiry is noticed first: reading the lease is `lease(now)`. Its holder
        // is copied out, so the room for that copy is asked for before anything changes.
        let out = &mut st.out;
        let (expired, l) = match st.objects.0.get(i) {
            Some(Object::Authority(a)) => {
                if lease && !room_for(&[holder_len(a.recorded_lease())]) {
                    return call::REFUSED;
                }
                (a.expire(now), a.recorded_lease())
            }
            Some(Object::Table(t)) => {
                let Some(lock) = name_at(&st.input, 0, lock) else {
                    return call::REFUSED;
                };
                if lease && !room_for(&[holder_len(t.inner.recorded_lease(&lock))]) {
                    return call::REFUSED;
                }
                (t.inner.expire(&lock, now), t.inner.recorded_lease(&lock))
            }
            _ => return 0,
        };
        if lease {
            out.lease(l)
        } else {
            out.expired(expired)
        }
    })
}

/// The binary snapshot of authority or table `i` into the output area (see [`call::SNAPSHOT`]).
fn snapshot(st: &mut State, i: u32) -> u32 {
    let r = match st.objects.0.get(i) {
        Some(Object::Authority(a)) if room_for(&[a.snapshot_len()]) => a.snapshot_bytes(),
        Some(Object::Table(t)) if room_for(&[t.inner.snapshot_len()]) => t.inner.snapshot_bytes(),
        Some(Object::Authority(_) | Object::Table(_)) => return call::REFUSED,
        _ => return 0,
    };
    snapshot_out(&mut st.output, r) as u32
}

/// [`call::EXPIRE_ALL`] or [`call::EXPIRED`] on table `i`.
fn expiries(st: &mut State, op: u32, i: u32, lock: usize, now: u64) -> u32 {
    let Some(t) = st.objects.table(i) else {
        return 0;
    };
    if op == call::EXPIRE_ALL {
        // The list of expiries grows by doubling, to one entry per lock at most, and holds a
        // copy of each expiring lock's name: room for all of them, before anything expires.
        let names: usize = t.inner.names().map(|n| n.0.len().max(16)).sum();
        let list = 2 * (2 * t.inner.len()).max(4) * size_of::<(Name, Expired<Name>)>();
        if !room(names + list) {
            return call::REFUSED;
        }
        t.expired = t.inner.expire_all(now);
        return u32::try_from(t.expired.len()).unwrap_or(u32::MAX);
    }
    let Some((lock, e)) = t.expired.get(lock) else {
        return 0;
    };
    // Room for both copies first, so a refusal leaves the record as it was.
    if !room_for(&[lock.0.len(), e.holder.0.len()]) {
        return call::REFUSED;
    }
    let out = &mut st.out;
    if !copy_into(&mut out.name, lock) || !copy_into(&mut out.holder, &e.holder) {
        return call::REFUSED;
    }
    out.expired_at(e)
}

impl Out {
    pub(crate) fn acquired(&mut self, r: Result<Grant, AcquireError<Name>>) -> u32 {
        match r {
            Ok(g) => {
                self.token = g.token.get();
                self.time = js_ms(g.expires_at);
                self.time2 = js_ms(g.granted_at);
                self.depth = g.depth;
                acquire::GRANTED
            }
            Err(AcquireError::Held { holder, until }) => {
                self.holder = holder;
                self.time = js_ms(until);
                acquire::HELD
            }
            Err(AcquireError::LockDelay { until }) => {
                self.time = js_ms(until);
                acquire::LOCK_DELAY
            }
            Err(AcquireError::ReentryLimit { max }) => {
                self.depth = max;
                acquire::REENTRY_LIMIT
            }
            Err(AcquireError::Exhausted) => acquire::EXHAUSTED,
            Err(_) => acquire::OTHER,
        }
    }

    /// [`lease::DONE`] renewed (`token`, `time`), or the refusal's code.
    pub(crate) fn renewed(&mut self, r: Result<fencepost::Renewal, LeaseError>) -> u32 {
        match r {
            Ok(r) => {
                self.token = r.token.get();
                self.time = js_ms(r.expires_at);
                lease::DONE
            }
            Err(e) => lease_refused(e),
        }
    }

    /// [`lease::DONE`] released (`depth`: remaining depth, 0 when free), or the refusal's code.
    pub(crate) fn released(&mut self, r: Result<Released, LeaseError>) -> u32 {
        match r {
            Ok(Released::Free) => {
                self.depth = 0;
                lease::DONE
            }
            Ok(Released::Held { depth }) => {
                self.depth = depth;
                lease::DONE
            }
            Err(e) => lease_refused(e),
        }
    }

    /// 1: an expiry (`holder`, `token`, `time` at, `time2` free at); 0: none.
    pub(crate) fn expired(&mut self, e: Option<Expired<Name>>) -> u32 {
        match e {
            Some(e) => {
                let answer = self.expired_at(&e);
                self.holder = e.holder;
                answer
            }
            None => 0,
        }
    }

    /// 1, with an expiry's token and times (its holder is the caller's to set).
    pub(crate) fn expired_at(&mut self, e: &Expired<Name>) -> u32 {
        self.token = e.token.get();
        self.time = js_ms(e.at);
        self.time2 = js_ms(e.free_at);
        1
    }

    /// 1: a live lease (`holder`, `token`, `time` expires, `time2` granted,
    /// `depth`); 0: none.
    pub(crate) fn lease(&mut self, l: Option<&fencepost::Lease<Name>>) -> u32 {
        match l {
            Some(l) => {
                // Room for the copy was made before the call changed anything.
                if !copy_into(&mut self.holder, &l.holder) {
                    return call::REFUSED;
                }
                self.token = l.token.get();
                self.time = js_ms(l.expires_at);
                self.time2 = js_ms(l.granted_at);
                self.depth = l.depth;
                1
            }
            None => 0,
        }
    }

    /// An authority's counters: `token` next token (0: exhausted), `token2` last issued
    /// (0: none), `token3` reserved through, `time` free at, `time2` latest time seen,
    /// `time3` clamps.
    pub(crate) fn counters(
        &mut self,
        next: Option<Token>,
        last: Option<Token>,
        reserved: u64,
        free_at: u64,
        time: &fencepost::Timeline,
    ) -> u32 {
        self.token = next.map_or(0, Token::get);
        self.token2 = last.map_or(0, Token::get);
        self.token3 = reserved;
        self.time = js_ms(free_at);
        self.time2 = js_ms(time.latest());
        self.time3 = js_ms(time.clamps());
        1
    }
}
