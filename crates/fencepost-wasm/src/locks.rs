//! Locks: an authority (one lock) or a lock table (many). Each export here serves both, by the
//! kind of object at its index; an authority ignores the lock name (the caller passes none).

use alloc::boxed::Box;
use alloc::vec::Vec;

use fencepost::{AcquireError, Config, Expired, Grant, LeaseError, Released, SnapshotError, Token};
use wasm_bindgen::prelude::wasm_bindgen;

use crate::abi::{Out, js_ms, ms, name_at, names};
use crate::errors::{code, config_error, fail, snapshot_error};
use crate::kinds::Table;
use crate::memory::{room, room_for};
use crate::name::{Name, name_ok};
use crate::objects::{NONE, Object, Objects};
use crate::out::answers::{
    Counters, Granted, Held, Lease, LockDelay, Locks, ReentryLimit, Released as Done, Renewed,
    TableExpiry,
};
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
        /// Granted (see `Granted` in `out::answers`).
        GRANTED = 0;
        /// Another holder has it (see `Held`).
        HELD = 1;
        /// In lock-delay after an expiry (see `LockDelay`).
        LOCK_DELAY = 2;
        /// Re-entered as deep as allowed (see `ReentryLimit`).
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

fn table(inner: fencepost::LockTable<Name, Name>) -> Object {
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
    let answer = TableExpiry {
        lock,
        holder: &e.holder,
        token: e.token.get(),
        at: js_ms(e.at),
        free_at: js_ms(e.free_at),
    };
    if !answer.write(&mut st.out) {
        return call::REFUSED;
    }
    1
}

impl Out {
    pub(crate) fn acquired(&mut self, r: Result<Grant, AcquireError<Name>>) -> u32 {
        match r {
            Ok(g) => {
                Granted {
                    token: g.token.get(),
                    expires_at: js_ms(g.expires_at),
                    granted_at: js_ms(g.granted_at),
                    depth: g.depth,
                }
                .write(self);
                acquire::GRANTED
            }
            Err(AcquireError::Held { holder, until }) => {
                let until = js_ms(until);
                Held { holder, until }.write(self);
                acquire::HELD
            }
            Err(AcquireError::LockDelay { until }) => {
                let until = js_ms(until);
                LockDelay { until }.write(self);
                acquire::LOCK_DELAY
            }
            Err(AcquireError::ReentryLimit { max }) => {
                ReentryLimit { max }.write(self);
                acquire::REENTRY_LIMIT
            }
            Err(AcquireError::Exhausted) => acquire::EXHAUSTED,
            Err(_) => acquire::OTHER,
        }
    }

    /// [`lease::DONE`] renewed (see [`Renewed`]), or the refusal's code.
    pub(crate) fn renewed(&mut self, r: Result<fencepost::Renewal, LeaseError>) -> u32 {
        match r {
            Ok(r) => {
                let (token, expires_at) = (r.token.get(), js_ms(r.expires_at));
                Renewed { token, expires_at }.write(self);
                lease::DONE
            }
            Err(e) => lease_refused(e),
        }
    }

    /// [`lease::DONE`] released (see [`Released`](Done): the remaining depth, 0 when free), or
    /// the refusal's code.
    pub(crate) fn released(&mut self, r: Result<Released, LeaseError>) -> u32 {
        let depth = match r {
            Ok(Released::Free) => 0,
            Ok(Released::Held { depth }) => depth,
            Err(e) => return lease_refused(e),
        };
        Done { depth }.write(self);
        lease::DONE
    }

    /// 1: an expiry (see `Expired` in `out::answers`); 0: none.
    pub(crate) fn expired(&mut self, e: Option<Expired<Name>>) -> u32 {
        match e {
            Some(e) => {
                crate::out::answers::Expired {
                    token: e.token.get(),
                    at: js_ms(e.at),
                    free_at: js_ms(e.free_at),
                    holder: e.holder,
                }
                .write(self);
                1
            }
            None => 0,
        }
    }

    /// 1: a live lease (see [`Lease`]); 0: none.
    pub(crate) fn lease(&mut self, l: Option<&fencepost::Lease<Name>>) -> u32 {
        match l {
            Some(l) => {
                let lease = Lease {
                    holder: &l.holder,
                    token: l.token.get(),
                    expires_at: js_ms(l.expires_at),
                    granted_at: js_ms(l.granted_at),
                    depth: l.depth,
                };
                // Room for the copy was made before the call changed anything.
                if !lease.write(self) {
                    return call::REFUSED;
                }
                1
            }
            None => 0,
        }
    }

    /// An authority's or a table's counters (see [`Counters`]).
    pub(crate) fn counters(
        &mut self,
        next: Option<Token>,
        last: Option<Token>,
        reserved: u64,
        free_at: u64,
        time: &fencepost::Timeline,
    ) -> u32 {
        Counters {
            next_token: next.map_or(0, Token::get),
            last_issued: last.map_or(0, Token::get),
            reserved_through: reserved,
            free_at: js_ms(free_at),
            latest: js_ms(time.latest()),
            clamps: js_ms(time.clamps()),
        }
        .write(self);
        1
    }
}

/// A new authority (or, with `table`, a lock table) with the config of `ttl`, `lock_delay`,
/// `max_reentry`, `token` (the first token) and `block`, fresh or, with `restore`, resuming from
/// the binary snapshot in the first `n` bytes of the input area: its index, or [`NONE`] (see
/// `error` in [`Out`]) for an invalid config or snapshot, or when the memory cannot hold it.
#[wasm_bindgen]
#[inline(never)]
#[allow(clippy::too_many_arguments)]
pub fn lock_new(
    table: bool,
    restore: bool,
    n: usize,
    token: u64,
    ttl: f64,
    lock_delay: f64,
    max_reentry: u32,
    block: f64,
) -> u32 {
    let Some(cfg) = config(ttl, lock_delay, max_reentry, token, block) else {
        return NONE;
    };
    with(NONE, |st| {
        let bytes = names(&st.input, n, 0).0;
        if !room_to_make(&mut st.objects, table, restore, bytes) {
            return NONE;
        }
        let authority = |a| Object::Authority(Box::new(a));
        // `config` refused a bad config already; the constructors' own check answers the same
        // codes (a SnapshotError::Config from a restore).
        let made = match (table, restore) {
            (false, true) => fencepost::Authority::restore_bytes(cfg, bytes).map(authority),
            (false, false) => fencepost::Authority::new(cfg)
                .map(authority)
                .map_err(SnapshotError::Config),
            (true, true) => fencepost::LockTable::restore_bytes(cfg, bytes).map(self::table),
            (true, false) => fencepost::LockTable::new(cfg)
                .map(self::table)
                .map_err(SnapshotError::Config),
        };
        match made {
            Ok(o) => st.objects.add(o),
            Err(e) => {
                snapshot_error(e);
                NONE
            }
        }
    })
}

/// Whether the memory can hold a new authority or table (read from the snapshot `bytes` when
/// `restore`) and its place in the table of objects; records `NO_MEMORY` when not.
fn room_to_make(objects: &mut Objects, table: bool, restore: bool, bytes: &[u8]) -> bool {
    if !objects.room_for_one() {
        return false;
    }
    match (table, restore) {
        // The holder an authority reads is at most the whole snapshot.
        (false, true) => room_for(&[size_of::<fencepost::Authority<Name>>(), bytes.len()]),
        (false, false) => room_for(&[size_of::<fencepost::Authority<Name>>()]),
        (true, true) => room(size_of::<Table>() + restored_table_bytes(bytes)),
        (true, false) => room_for(&[size_of::<Table>()]),
    }
}

/// The most a table read from the snapshot `bytes` allocates.
fn restored_table_bytes(bytes: &[u8]) -> usize {
    let n = bytes.len();
    // As many locks as its header says, and no more than fit: a lock takes at least 11 bytes of
    // a snapshot, its name's length (2), its flags (1) and its free-at time (8).
    let said = fencepost::snapshot::table_lock_count(bytes).map_or(0, |c| c as usize);
    let locks = said.min(n / 11);
    // Its two names (each counted as at least 16 bytes), and the list the locks are read into,
    // which doubles up to twice their number (each list on the way counted).
    let names = n + 2 * 16 * locks;
    let list = 2 * (2 * locks).max(4) * fencepost::LockTable::<Name, Name>::LOCK_BYTES;
    names + list
}

/// The counters of authority or table `i` into the `Out` record (see [`Counters`], and for a
/// table [`Locks`]): 1, or 0 if `i` is neither.
#[wasm_bindgen]
#[inline(never)]
pub fn lock_state(i: u32) -> u32 {
    with(0, |st| match st.objects.0.get(i) {
        Some(Object::Authority(a)) => {
            let (next, last, reserved) = (a.next_token(), a.last_issued(), a.reserved_through());
            st.out
                .counters(next, last, reserved, a.free_at(), a.timeline())
        }
        Some(Object::Table(t)) => {
            let t = &t.inner;
            let (next, last, reserved) = (t.next_token(), t.last_issued(), t.reserved_through());
            let count = u32::try_from(t.len()).unwrap_or(u32::MAX);
            Locks { count }.write(&mut st.out);
            st.out.counters(next, last, reserved, 0, t.timeline())
        }
        _ => 0,
    })
}
