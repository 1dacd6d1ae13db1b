//! Many named locks behind one authority (feature `alloc`).
//!
//! A [`LockTable`] applies exactly the rules of [`crate::Authority`] to each lock. All locks draw
//! from **one** token sequence, so a token is unique across the table and each lock sees a strictly
//! increasing subsequence. That is what lets the table forget a lock once it is free (no lease, no
//! pending lock-delay): nothing about it needs remembering to keep tokens increasing, so memory
//! follows the locks in use, not every lock ever named.
//!
//! The locks it remembers are kept in one vector sorted by name: a lookup is a binary search, and
//! naming a new lock (or forgetting one) moves the entries after it. With the table forgetting
//! free locks, that vector holds the locks in use; it is also far less code than a B-tree, which
//! matters where the table ships as WebAssembly. The price is in tables holding many locks at
//! once: the `table_acquire_release` benchmark names and forgets a lock in about 0.1 µs next to
//! 100 held locks and about 6 µs next to 10,000 (a B-tree: about 0.2 µs).

use alloc::vec::Vec;

use crate::authority::{
    AcquireError, Config, ConfigError, Expired, Grant, Lease, LeaseError, Released, Renewal, Slot,
    TokenSequence,
};
use crate::snapshot::{
    FLAG_LEASE, KIND_TABLE, SnapshotCodec, SnapshotError, Tokens, Writer, invalid, scan, to_vec,
};
use crate::time::Timeline;
use crate::token::Token;

/// A lease authority for many named locks.
///
/// ```
/// use fencepost::{Config, LockTable};
///
/// let mut table: LockTable<String, String> = LockTable::new(Config::new(1_000)).unwrap();
/// let a = table.try_acquire(&"orders".into(), &"A".into(), 0).unwrap();
/// let b = table.try_acquire(&"invoices".into(), &"B".into(), 0).unwrap();
/// assert!(b.token > a.token);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LockTable<K, H> {
    cfg: Config,
    seq: TokenSequence,
    /// Sorted by name, each name once.
    locks: Vec<(K, Slot<H>)>,
    time: Timeline,
}

impl<K: Ord + Clone, H: Clone + Eq> LockTable<K, H> {
    /// An empty table. Its first grant issues `cfg.first_token`.
    pub fn new(cfg: Config) -> Result<LockTable<K, H>, ConfigError> {
        cfg.validate()?;
        Ok(LockTable {
            cfg,
            seq: TokenSequence::starting_at(cfg.first_token),
            locks: Vec::new(),
            time: Timeline::default(),
        })
    }

    /// The config shared by every lock.
    pub const fn config(&self) -> &Config {
        &self.cfg
    }

    /// Acquires `lock` with the default TTL, without waiting.
    pub fn try_acquire(
        &mut self,
        lock: &K,
        holder: &H,
        now: u64,
    ) -> Result<Grant, AcquireError<H>> {
        self.try_acquire_for(lock, holder, self.cfg.ttl_ms, now)
    }

    /// Acquires `lock` with a TTL of `ttl_ms`, without waiting.
    pub fn try_acquire_for(
        &mut self,
        lock: &K,
        holder: &H,
        ttl_ms: u64,
        now: u64,
    ) -> Result<Grant, AcquireError<H>> {
        let now = self.time.now(now);
        let i = match self.find(lock) {
            Ok(i) => i,
            Err(i) => {
                self.grow();
                self.locks.insert(i, (lock.clone(), Slot::default()));
                i
            }
        };
        let result = self.locks[i]
            .1
            .acquire(&mut self.seq, &self.cfg, holder, ttl_ms, now);
        // A refusal can leave a lock that was only just named (or just expired) free: forget it
        // (a grant never leaves it free).
        self.forget_if_idle(i, now);
        result
    }

    /// Renews the holder's live lease on `lock` with the default TTL.
    pub fn renew(
        &mut self,
        lock: &K,
        holder: &H,
        token: Token,
        now: u64,
    ) -> Result<Renewal, LeaseError> {
        self.renew_for(lock, holder, token, self.cfg.ttl_ms, now)
    }

    /// Renews the holder's live lease on `lock` to `now + ttl_ms`.
    pub fn renew_for(
        &mut self,
        lock: &K,
        holder: &H,
        token: Token,
        ttl_ms: u64,
        now: u64,
    ) -> Result<Renewal, LeaseError> {
        let now = self.time.now(now);
        let i = self.find(lock).map_err(|_| LeaseError::Lost)?;
        let result = self.locks[i].1.renew(&self.cfg, holder, token, ttl_ms, now);
        self.forget_if_idle(i, now);
        result
    }

    /// Releases one level of the holder's live lease on `lock`.
    pub fn release(
        &mut self,
        lock: &K,
        holder: &H,
        token: Token,
        now: u64,
    ) -> Result<Released, LeaseError> {
        let now = self.time.now(now);
        let i = self.find(lock).map_err(|_| LeaseError::Lost)?;
        let result = self.locks[i].1.release(&self.cfg, holder, token, now);
        self.forget_if_idle(i, now);
        result
    }

    /// Notices the expiry of `lock`'s lease, once.
    pub fn expire(&mut self, lock: &K, now: u64) -> Option<Expired<H>> {
        let now = self.time.now(now);
        let i = self.find(lock).ok()?;
        let expired = self.locks[i].1.settle(now, &self.cfg);
        self.forget_if_idle(i, now);
        expired
    }

    /// Notices every expiry due by `now`, in lock order, and forgets locks that are free.
    pub fn expire_all(&mut self, now: u64) -> Vec<(K, Expired<H>)> {
        let now = self.time.now(now);
        let cfg = self.cfg;
        let mut out = Vec::new();
        for (name, slot) in &mut self.locks {
            if let Some(e) = slot.settle(now, &cfg) {
                out.push((name.clone(), e));
            }
        }
        self.locks.retain(|(_, slot)| !slot.is_idle(now));
        out
    }

    /// The live lease on `lock` at `now`.
    pub fn lease(&mut self, lock: &K, now: u64) -> Option<&Lease<H>> {
        self.expire(lock, now);
        self.recorded_lease(lock)
    }

    /// The lease on `lock` as last recorded, without looking at the time (it may have expired
    /// since).
    pub fn recorded_lease(&self, lock: &K) -> Option<&Lease<H>> {
        let i = self.find(lock).ok()?;
        self.locks.get(i)?.1.lease.as_ref()
    }

    /// Locks the table is remembering (held, or in lock-delay, or not yet noticed as free).
    pub fn len(&self) -> usize {
        self.locks.len()
    }

    /// Whether the table remembers no lock.
    pub fn is_empty(&self) -> bool {
        self.locks.is_empty()
    }

    /// The token the next fresh grant will carry.
    pub const fn next_token(&self) -> Option<Token> {
        self.seq.next
    }

    /// The highest token that may have been issued, on any lock (as for
    /// [`Authority::last_issued`](crate::Authority::last_issued): after a restore, the top of the
    /// snapshot's reservation).
    pub fn last_issued(&self) -> Option<Token> {
        self.seq.last_issued(self.cfg.first_token)
    }

    /// Highest token covered by the current reservation.
    pub const fn reserved_through(&self) -> u64 {
        self.seq.reserved_through
    }

    /// The table's view of time.
    pub const fn timeline(&self) -> &Timeline {
        &self.time
    }

    /// Bytes one lock takes in the table's list, besides what its names hold. With
    /// [`insert_bytes`](Self::insert_bytes) and [`names`](Self::names), for a host that must know
    /// before a call whether its memory can hold what the call allocates (a WebAssembly module
    /// whose memory cannot grow refuses such a call rather than fail in the middle of it).
    pub const LOCK_BYTES: usize = core::mem::size_of::<(K, Slot<H>)>();

    /// Bytes the list allocates if a lock it does not remember is acquired now: 0 while it has
    /// room, else its new size (it doubles, to at least 4 locks).
    pub fn insert_bytes(&self) -> usize {
        let cap = self.locks.capacity();
        if self.locks.len() < cap {
            0
        } else {
            (cap + cap.max(4)) * Self::LOCK_BYTES
        }
    }

    /// The names of the locks it remembers, in order.
    pub fn names(&self) -> impl ExactSizeIterator<Item = &K> {
        self.locks.iter().map(|(name, _)| name)
    }

    /// Room for one more lock, grown exactly as [`insert_bytes`](Self::insert_bytes) says.
    fn grow(&mut self) {
        let cap = self.locks.capacity();
        if self.locks.len() == cap {
            self.locks.reserve_exact(cap.max(4));
        }
    }

    /// Where `lock` is (`Ok`), or where it would go (`Err`).
    fn find(&self, lock: &K) -> Result<usize, usize> {
        position(&self.locks, lock)
    }

    fn forget_if_idle(&mut self, i: usize, now: u64) {
        if self.locks.get(i).is_some_and(|(_, slot)| slot.is_idle(now)) {
            self.locks.remove(i);
        }
    }

    /// The whole state, as plain data.
    pub fn snapshot(&self) -> TableSnapshot<K, H> {
        let mut locks = Vec::new();
        for (name, slot) in &self.locks {
            locks.push(LockState {
                name: name.clone(),
                lease: slot.lease.clone(),
                free_at: slot.free_at,
            });
        }
        TableSnapshot {
            next_token: self.seq.next,
            reserved_through: self.seq.reserved_through,
            latest_now: self.time.latest(),
            clamps: self.time.clamps(),
            locks,
        }
    }

    /// A table resuming from a snapshot, above every token it may have handed out.
    ///
    /// The locks may be listed in any order. A bad config is reported first, then whatever
    /// [`TableSnapshot::validate`] reports, then a lock named twice (`Invalid("locks.name")`).
    pub fn restore(
        cfg: Config,
        snapshot: TableSnapshot<K, H>,
    ) -> Result<LockTable<K, H>, SnapshotError> {
        cfg.validate()?;
        snapshot.validate()?;
        let seq = TokenSequence::resume(snapshot.reserved_through, cfg.first_token);
        let mut locks: Vec<_> = (snapshot.locks.into_iter())
            .map(|s| {
                let slot = Slot {
                    lease: s.lease,
                    free_at: s.free_at,
                };
                (s.name, slot)
            })
            .collect();
        in_order(&mut locks)?;
        Ok(LockTable {
            cfg,
            seq,
            locks,
            time: Timeline::resume(snapshot.latest_now, snapshot.clamps),
        })
    }
}

impl<K: Ord + Clone + SnapshotCodec, H: Clone + Eq + SnapshotCodec> LockTable<K, H> {
    /// The binary snapshot, written straight from the table: the bytes of
    /// `self.snapshot().to_bytes()` without the copy of every lock in between.
    pub fn snapshot_bytes(&self) -> Result<Vec<u8>, SnapshotError> {
        countable(self.locks.len())?;
        to_vec(&|out| self.write_snapshot(out))
    }

    /// The length of [`snapshot_bytes`](Self::snapshot_bytes), found without writing it.
    pub fn snapshot_len(&self) -> usize {
        self.write_snapshot(&mut []).len()
    }

    fn write_snapshot<'o>(&self, out: &'o mut [u8]) -> Writer<'o> {
        write_table(
            out,
            self.seq.next,
            self.seq.reserved_through,
            self.time.latest(),
            self.time.clamps(),
            self.locks
                .iter()
                .map(|(name, slot)| (name, slot.lease.as_ref(), slot.free_at)),
        )
    }

    /// A table resuming from a binary snapshot, read straight into it: what
    /// `LockTable::restore(cfg, TableSnapshot::decode(bytes)?)` gives, without the list of locks
    /// in between. A bad config is reported first, then whatever `decode` would report, then a
    /// lock named twice.
    pub fn restore_bytes(cfg: Config, bytes: &[u8]) -> Result<LockTable<K, H>, SnapshotError> {
        cfg.validate()?;
        let mut locks = Vec::new();
        // `insert` at the end, not `push`: the table's one way to grow its list, where a second
        // costs the WebAssembly build about 150 bytes.
        let t = scan(bytes, KIND_TABLE, &mut |name, slot| {
            if let Some(name) = name {
                locks.insert(locks.len(), (name, slot));
            }
        })?;
        in_order(&mut locks)?;
        Ok(LockTable {
            cfg,
            seq: TokenSequence::resume(t.reserved_through, cfg.first_token),
            locks,
            time: Timeline::resume(t.latest_now, t.clamps),
        })
    }
}

/// Where `lock` is in `locks`, sorted by name (`Ok`), or where it would go (`Err`).
fn position<K: Ord, V>(locks: &[(K, V)], lock: &K) -> Result<usize, usize> {
    locks.binary_search_by(|(name, _)| name.cmp(lock))
}

/// The locks read from a snapshot, in the order it lists them, put in name order; refuses a name
/// listed twice as `Invalid("locks.name")`.
///
/// Snapshots this crate writes list locks in name order, so that is one pass over them. Any
/// order is read, though, and costs a sort: O(n log n) for a snapshot from anywhere, where
/// inserting each lock in its place would move the locks after it, O(n^2) for a list in reverse.
///
/// The `inline` attributes below are for the WebAssembly build's size (its gzip size
/// especially), as measured; they change nothing else. This one is left to the compiler, which
/// inlines it: its refusal is then made in the caller's result, not copied there through `?`.
fn in_order<K: Ord, V>(locks: &mut [(K, V)]) -> Result<(), SnapshotError> {
    // Strictly increasing: sorted, and each name once.
    let ascending = |l: &[(K, V)]| l.is_sorted_by(before);
    if !ascending(locks) {
        sort_by_name(locks);
        if !ascending(locks) {
            return Err(SnapshotError::Invalid("locks.name"));
        }
    }
    Ok(())
}

/// Whether `a`'s name comes before `b`'s: the one comparison [`in_order`] makes. With `cmp`, as
/// lookups compare, rather than `<`, which costs the WebAssembly build a second comparison.
#[inline(always)]
fn before<K: Ord, V>(a: &(K, V), b: &(K, V)) -> bool {
    a.0.cmp(&b.0).is_lt()
}

/// Sorts by name in O(n log n), in place: a heapsort, which is far less WebAssembly than the
/// standard library's sorts (the core module's size is budgeted), for the rare snapshot that
/// lists its locks out of order.
fn sort_by_name<K: Ord, V>(v: &mut [(K, V)]) {
    let len = v.len();
    // Make `v` a max-heap (each name at `i` no smaller than those at `2i + 1` and `2i + 2`), then
    // move its largest name to the end, one at a time, keeping a heap in front of it.
    for node in (0..len / 2).rev() {
        sift_down(v, node);
    }
    for end in (1..len).rev() {
        v.swap(0, end);
        sift_down(&mut v[..end], 0);
    }
}

/// Moves the name at `node` down the heap until no name below it is larger.
#[inline(never)]
fn sift_down<K: Ord, V>(heap: &mut [(K, V)], mut node: usize) {
    loop {
        let mut child = 2 * node + 1;
        let Some(left) = heap.get(child) else {
            break;
        };
        if heap.get(child + 1).is_some_and(|right| before(left, right)) {
            child += 1;
        }
        if !before(&heap[node], &heap[child]) {
            break;
        }
        heap.swap(node, child);
        node = child;
    }
}

/// One lock in a [`TableSnapshot`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct LockState<K, H> {
    /// The lock's name.
    pub name: K,
    /// Its lease at snapshot time.
    pub lease: Option<Lease<H>>,
    /// End of a pending lock-delay.
    pub free_at: u64,
}

/// A lock table's whole state, as plain data.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct TableSnapshot<K, H> {
    /// The next token to issue (`None`: exhausted).
    pub next_token: Option<Token>,
    /// Highest token that may have been handed out. Restore resumes above it.
    pub reserved_through: u64,
    /// Latest instant the table had seen.
    pub latest_now: u64,
    /// Clamped readings so far.
    pub clamps: u64,
    /// The locks the table remembered.
    pub locks: Vec<LockState<K, H>>,
}

impl<K, H> TableSnapshot<K, H> {
    /// Checks the snapshot's fields agree with each other.
    pub fn validate(&self) -> Result<(), SnapshotError> {
        let t = Tokens {
            next_token: self.next_token,
            reserved_through: self.reserved_through,
            latest_now: self.latest_now,
            clamps: self.clamps,
        };
        let mut fault = t.fault();
        for l in &self.locks {
            if let (None, Some(lease)) = (fault, &l.lease) {
                fault = t.lease_fault(lease);
            }
        }
        invalid(fault)
    }
}

/// Refuses a table of more locks than a snapshot's `u32` count can say, as `Invalid("locks")`.
fn countable(locks: usize) -> Result<(), SnapshotError> {
    match u32::try_from(locks) {
        Ok(_) => Ok(()),
        Err(_) => Err(SnapshotError::Invalid("locks")),
    }
}

/// Lays out a table snapshot over `out` (see [`Writer`]) from its fields and its locks in order.
fn write_table<'o, 'l, K: SnapshotCodec + 'l, H: SnapshotCodec + 'l>(
    out: &'o mut [u8],
    next_token: Option<Token>,
    reserved_through: u64,
    latest_now: u64,
    clamps: u64,
    locks: impl ExactSizeIterator<Item = (&'l K, Option<&'l Lease<H>>, u64)>,
) -> Writer<'o> {
    let mut w = Writer::start(out, KIND_TABLE, next_token, false, reserved_through);
    w.u64(latest_now);
    w.u64(clamps);
    w.u32(locks.len() as u32);
    for (name, lease, free_at) in locks {
        w.id(name);
        w.u8(if lease.is_some() { FLAG_LEASE } else { 0 });
        w.u64(free_at);
        if let Some(lease) = lease {
            w.lease(lease);
        }
    }
    w
}

impl<K: SnapshotCodec, H: SnapshotCodec> TableSnapshot<K, H> {
    fn write<'o>(&self, out: &'o mut [u8]) -> Writer<'o> {
        write_table(
            out,
            self.next_token,
            self.reserved_through,
            self.latest_now,
            self.clamps,
            self.locks
                .iter()
                .map(|l| (&l.name, l.lease.as_ref(), l.free_at)),
        )
    }

    /// Encodes into `out`; returns the length written.
    pub fn encode(&self, out: &mut [u8]) -> Result<usize, SnapshotError> {
        countable(self.locks.len())?;
        self.write(out).finish()
    }

    /// The encoded length.
    pub fn encoded_len(&self) -> usize {
        self.write(&mut []).len()
    }

    /// Encodes into a new vector.
    pub fn to_bytes(&self) -> Result<Vec<u8>, SnapshotError> {
        countable(self.locks.len())?;
        to_vec(&|out| self.write(out))
    }

    /// Decodes and checks a binary snapshot.
    pub fn decode(bytes: &[u8]) -> Result<TableSnapshot<K, H>, SnapshotError> {
        // The list grows as locks are read: a count is never trusted to size it.
        let mut locks = Vec::new();
        let t = scan(bytes, KIND_TABLE, &mut |name, slot: Slot<H>| {
            if let Some(name) = name {
                locks.push(LockState {
                    name,
                    lease: slot.lease,
                    free_at: slot.free_at,
                });
            }
        })?;
        Ok(TableSnapshot {
            next_token: t.next_token,
            reserved_through: t.reserved_through,
            latest_now: t.latest_now,
            clamps: t.clamps,
            locks,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::string::String;

    fn t(v: u64) -> Token {
        Token::new(v).unwrap()
    }
    fn s(x: &str) -> String {
        String::from(x)
    }

    #[test]
    fn the_memory_figures_are_what_the_table_allocates() {
        let mut tb: LockTable<u32, u32> = LockTable::new(Config::new(100)).unwrap();
        let lock_bytes = LockTable::<u32, u32>::LOCK_BYTES;
        assert_eq!(lock_bytes, core::mem::size_of::<(u32, Slot<u32>)>());
        let mut grew = 0;
        for lock in 0..40u32 {
            let (before, want) = (tb.locks.capacity(), tb.insert_bytes());
            tb.try_acquire(&lock, &7, 0).unwrap();
            let after = tb.locks.capacity();
            if want == 0 {
                assert_eq!(after, before, "lock {lock}");
            } else {
                assert_eq!(after * lock_bytes, want, "lock {lock}");
                grew += 1;
            }
            assert_eq!(tb.snapshot_len(), tb.snapshot_bytes().unwrap().len());
        }
        // 4, 8, 16, 32, 64.
        assert_eq!(grew, 5);
        // 40 locks in room for 64: the next new lock allocates nothing.
        assert_eq!(tb.insert_bytes(), 0);
        tb.try_acquire(&40, &7, 1).unwrap();
        assert_eq!(tb.locks.capacity(), 64);
        let names: std::vec::Vec<u32> = tb.names().copied().collect();
        assert_eq!(names, (0..=40).collect::<std::vec::Vec<u32>>());
        let bytes = tb.snapshot_bytes().unwrap();
        assert_eq!(crate::snapshot::table_lock_count(&bytes), Some(41));
        assert_eq!(crate::snapshot::table_lock_count(&bytes[..42]), None);
        let one: crate::Authority<u32> = crate::Authority::new(Config::new(100)).unwrap();
        assert_eq!(
            crate::snapshot::table_lock_count(&one.snapshot_bytes().unwrap()),
            None
        );
    }

    #[test]
    fn locks_are_independent_and_share_one_sequence() {
        let mut tb: LockTable<String, String> =
            LockTable::new(Config::new(100).with_first_token(t(33))).unwrap();
        assert_eq!(tb.try_acquire(&s("x"), &s("A"), 0).unwrap().token, t(33));
        assert_eq!(tb.try_acquire(&s("y"), &s("B"), 0).unwrap().token, t(34));
        assert_eq!(
            tb.try_acquire(&s("x"), &s("B"), 50),
            Err(AcquireError::Held {
                holder: s("A"),
                until: 100
            })
        );
        assert_eq!(tb.try_acquire(&s("x"), &s("B"), 100).unwrap().token, t(35));
        assert_eq!(tb.last_issued(), Some(t(35)));
        assert_eq!(
            tb.renew(&s("x"), &s("A"), t(33), 101),
            Err(LeaseError::Lost)
        );
        assert_eq!(
            tb.renew(&s("z"), &s("A"), t(33), 101),
            Err(LeaseError::Lost)
        );
        assert_eq!(
            tb.release(&s("z"), &s("A"), t(33), 101),
            Err(LeaseError::Lost)
        );
        assert_eq!(
            tb.renew(&s("x"), &s("B"), t(35), 150),
            Ok(Renewal {
                token: t(35),
                expires_at: 250
            })
        );
        assert_eq!(tb.lease(&s("x"), 200).map(|l| l.token), Some(t(35)));
    }

    #[test]
    fn the_recorded_lease_is_read_without_settling() {
        let mut tb: LockTable<u32, u32> = LockTable::new(Config::new(100)).unwrap();
        assert_eq!(tb.recorded_lease(&1), None);
        tb.try_acquire(&1, &7, 0).unwrap();
        // Past its expiry, but nothing noticed it yet.
        assert_eq!(
            tb.recorded_lease(&1).map(|l| (l.holder, l.token)),
            Some((7, t(1)))
        );
        assert_eq!(tb.lease(&1, 100), None);
        assert_eq!(tb.recorded_lease(&1), None);
        assert!(tb.is_empty());
    }

    #[test]
    fn free_locks_are_forgotten() {
        let mut tb: LockTable<u32, u32> =
            LockTable::new(Config::new(100).with_lock_delay(10)).unwrap();
        for lock in 0..50 {
            tb.try_acquire(&lock, &1, 0).unwrap();
        }
        assert_eq!(tb.len(), 50);
        let g = tb.try_acquire(&7, &2, 0);
        assert!(g.is_err());
        assert_eq!(tb.release(&0, &1, t(1), 1), Ok(Released::Free));
        assert_eq!(tb.len(), 49);
        let expired = tb.expire_all(100);
        assert_eq!(expired.len(), 49);
        assert_eq!(expired[0].1.free_at, 110);
        // Still in lock-delay: remembered.
        assert_eq!(tb.len(), 49);
        assert_eq!(tb.expire_all(110).len(), 0);
        assert!(tb.is_empty());
        // Forgetting never lowers a token.
        assert_eq!(tb.try_acquire(&3, &9, 111).unwrap().token, t(51));
        assert_eq!(tb.expire(&3, 300).map(|e| e.token), Some(t(51)));
        assert!(tb.is_empty());
    }

    #[test]
    fn a_refused_new_lock_is_not_remembered() {
        let mut tb: LockTable<u32, u32> =
            LockTable::new(Config::new(100).with_first_token(Token::MAX)).unwrap();
        assert_eq!(tb.try_acquire(&1, &1, 0).unwrap().token, Token::MAX);
        assert_eq!(tb.try_acquire(&2, &1, 0), Err(AcquireError::Exhausted));
        assert_eq!(tb.len(), 1);
        // A refused acquire on a held lock keeps the lock (it is held).
        assert!(tb.try_acquire(&1, &2, 0).is_err());
        assert_eq!(tb.len(), 1);
    }

    #[test]
    fn snapshot_round_trip_and_restore() {
        let mut tb: LockTable<String, String> =
            LockTable::new(Config::new(100).with_reserve_block(4).with_lock_delay(5)).unwrap();
        tb.try_acquire(&s("a"), &s("A"), 0).unwrap();
        tb.try_acquire(&s("b"), &s("B"), 0).unwrap();
        tb.try_acquire(&s("c"), &s("C"), 0).unwrap();
        tb.expire(&s("c"), 101);
        let snap = tb.snapshot();
        assert_eq!(snap.locks.len(), 3);
        let bytes = snap.to_bytes().unwrap();
        assert_eq!(bytes.len(), snap.encoded_len());
        let back = TableSnapshot::<String, String>::decode(&bytes).unwrap();
        assert_eq!(back, snap);
        let mut restored = LockTable::restore(*tb.config(), back).unwrap();
        assert_eq!(restored.next_token(), Some(t(5)));
        assert_eq!(
            restored.try_acquire(&s("c"), &s("D"), 102),
            Err(AcquireError::LockDelay { until: 105 })
        );
        assert_eq!(
            restored.try_acquire(&s("d"), &s("D"), 102).unwrap().token,
            t(5)
        );
        for cut in 0..bytes.len() {
            assert!(TableSnapshot::<String, String>::decode(&bytes[..cut]).is_err());
        }
        assert_eq!(
            crate::AuthoritySnapshot::<String>::decode(&bytes),
            Err(SnapshotError::WrongKind(2))
        );
    }

    #[test]
    fn direct_snapshots_match_the_plain_data() {
        let mut tb: LockTable<String, String> =
            LockTable::new(Config::new(100).with_reserve_block(4).with_lock_delay(5)).unwrap();
        for (lock, holder) in [("b", "B"), ("a", "A"), ("c", "C")] {
            tb.try_acquire(&s(lock), &s(holder), 0).unwrap();
        }
        tb.expire(&s("c"), 101);
        let bytes = tb.snapshot_bytes().unwrap();
        assert_eq!(Ok(&bytes), tb.snapshot().to_bytes().as_ref());
        let cfg = *tb.config();
        let plain = |b: &[u8]| {
            TableSnapshot::<String, String>::decode(b)
                .and_then(|snap| LockTable::restore(cfg, snap))
        };
        assert_eq!(LockTable::restore_bytes(cfg, &bytes), plain(&bytes));
        // Every cut and every flipped bit (checksum fixed up, so the fields are read) is refused
        // or read the same way.
        for cut in 0..bytes.len() {
            assert_eq!(
                LockTable::<String, String>::restore_bytes(cfg, &bytes[..cut]),
                plain(&bytes[..cut])
            );
        }
        for bit in 0..(bytes.len() - 4) * 8 {
            let mut v = bytes.clone();
            v[bit / 8] ^= 1 << (bit % 8);
            let n = v.len() - 4;
            let c = crate::snapshot::crc32(&v[..n]);
            v[n..].copy_from_slice(&c.to_be_bytes());
            assert_eq!(
                LockTable::<String, String>::restore_bytes(cfg, &v),
                plain(&v),
                "bit {bit}"
            );
        }
        // A lock named twice, and a bad config, as the plain path reports them.
        let mut snap = tb.snapshot();
        snap.locks.push(snap.locks[0].clone());
        snap.locks.sort_by(|a, b| a.name.cmp(&b.name));
        let twice = snap.to_bytes().unwrap();
        assert_eq!(
            LockTable::<String, String>::restore_bytes(cfg, &twice),
            Err(SnapshotError::Invalid("locks.name"))
        );
        assert_eq!(plain(&twice), Err(SnapshotError::Invalid("locks.name")));
        assert_eq!(
            LockTable::<String, String>::restore_bytes(Config::new(0), &bytes),
            Err(SnapshotError::Config(ConfigError::ZeroTtl))
        );
    }

    #[test]
    fn restore_refuses_duplicate_names() {
        let tb: LockTable<String, String> = LockTable::new(Config::new(100)).unwrap();
        let mut snap = tb.snapshot();
        for _ in 0..2 {
            snap.locks.push(LockState {
                name: s("a"),
                lease: None,
                free_at: 0,
            });
        }
        assert_eq!(
            LockTable::restore(Config::new(100), snap).unwrap_err(),
            SnapshotError::Invalid("locks.name")
        );
    }

    /// A snapshot from elsewhere may list its locks in any order; the restored table must still
    /// find each one (a binary search over them out of order would miss a held lock, and grant it
    /// again).
    #[test]
    fn locks_listed_out_of_order_stay_findable() {
        let lease = |holder: &str, token| Lease {
            holder: s(holder),
            token: t(token),
            granted_at: 0,
            expires_at: 100,
            depth: 1,
        };
        let snap = TableSnapshot {
            next_token: Some(t(4)),
            reserved_through: 3,
            latest_now: 0,
            clamps: 0,
            locks: [("c", "C", 1), ("a", "A", 2), ("b", "B", 3)]
                .map(|(name, holder, token)| LockState {
                    name: s(name),
                    lease: Some(lease(holder, token)),
                    free_at: 0,
                })
                .to_vec(),
        };
        let cfg = Config::new(100);
        let bytes = snap.to_bytes().unwrap();
        let plain = LockTable::restore(cfg, snap.clone()).unwrap();
        let direct = LockTable::<String, String>::restore_bytes(cfg, &bytes).unwrap();
        assert_eq!(plain, direct);
        for mut tb in [plain, direct] {
            for (name, holder, token) in [("a", "A", 2), ("b", "B", 3), ("c", "C", 1)] {
                assert_eq!(
                    tb.lease(&s(name), 10),
                    Some(&lease(holder, token)),
                    "{name}"
                );
                assert_eq!(
                    tb.try_acquire(&s(name), &s("X"), 10),
                    Err(AcquireError::Held {
                        holder: s(holder),
                        until: 100
                    }),
                    "{name}"
                );
            }
            // Written back in name order.
            let names: std::vec::Vec<String> =
                tb.snapshot().locks.into_iter().map(|l| l.name).collect();
            assert_eq!(names, [s("a"), s("b"), s("c")]);
            assert_eq!(tb.try_acquire(&s("d"), &s("X"), 10).unwrap().token, t(4));
        }
    }

    #[test]
    fn a_name_twice_out_of_order_is_refused_by_both_paths() {
        let tb: LockTable<String, String> = LockTable::new(Config::new(100)).unwrap();
        let mut snap = tb.snapshot();
        for name in ["b", "a", "c", "a"] {
            snap.locks.push(LockState {
                name: s(name),
                lease: None,
                free_at: 0,
            });
        }
        let bytes = snap.to_bytes().unwrap();
        assert_eq!(
            LockTable::<String, String>::restore_bytes(Config::new(100), &bytes),
            Err(SnapshotError::Invalid("locks.name"))
        );
        assert_eq!(
            LockTable::restore(Config::new(100), snap),
            Err(SnapshotError::Invalid("locks.name"))
        );
    }

    #[test]
    fn sort_by_name_sorts_every_order() {
        // Every order of up to 6 names, some repeated, against the standard library's sort.
        for len in 0..=6u32 {
            let mut v: std::vec::Vec<Entry> = (0..len).map(|i| (i / 2, i)).collect();
            let mut orders = 0;
            permute(&mut v, 0, &mut |p| {
                let mut ours = p.to_vec();
                sort_by_name(&mut ours);
                let mut names: std::vec::Vec<u32> = p.iter().map(|e| e.0).collect();
                names.sort();
                assert!(ours.iter().map(|e| e.0).eq(names), "{p:?}");
                let mut values: std::vec::Vec<u32> = ours.iter().map(|e| e.1).collect();
                values.sort();
                assert!(values.into_iter().eq(0..len), "{p:?}");
                orders += 1;
            });
            assert_eq!(orders, (1..=len).product::<u32>());
        }
    }

    /// A name and a value that tells equal names apart.
    type Entry = (u32, u32);

    /// Calls `f` with every order of `v[k..]`.
    fn permute(v: &mut [Entry], k: usize, f: &mut dyn FnMut(&[Entry])) {
        if k == v.len() {
            return f(v);
        }
        for i in k..v.len() {
            v.swap(k, i);
            permute(v, k + 1, f);
            v.swap(k, i);
        }
    }

    /// Restoring locks listed in reverse takes a sort, not an insertion per lock (quadratic: at
    /// this size, minutes).
    #[test]
    fn restoring_many_locks_in_reverse_is_not_quadratic() {
        let n = 200_000u32;
        let snap = TableSnapshot::<u32, u32> {
            next_token: Some(t(1)),
            reserved_through: 0,
            latest_now: 0,
            clamps: 0,
            locks: (0..n)
                .rev()
                .map(|name| LockState {
                    name,
                    lease: None,
                    free_at: 1,
                })
                .collect(),
        };
        let bytes = snap.to_bytes().unwrap();
        let tb = LockTable::<u32, u32>::restore_bytes(Config::new(100), &bytes).unwrap();
        assert_eq!(tb, LockTable::restore(Config::new(100), snap).unwrap());
        assert_eq!(tb.len(), n as usize);
        assert!(tb.snapshot().locks.iter().map(|l| l.name).eq(0..n));
    }

    #[test]
    fn huge_count_does_not_allocate() {
        let tb: LockTable<String, String> = LockTable::new(Config::new(100)).unwrap();
        let bytes = tb.snapshot().to_bytes().unwrap();
        let mut body = bytes[6..bytes.len() - 4].to_vec();
        let n = body.len();
        body[n - 4..].copy_from_slice(&u32::MAX.to_be_bytes());
        let mut v = std::vec::Vec::from(&b"FPst\x01\x02"[..]);
        v.extend_from_slice(&body);
        let c = crate::snapshot::crc32(&v);
        v.extend_from_slice(&c.to_be_bytes());
        assert!(matches!(
            TableSnapshot::<String, String>::decode(&v),
            Err(SnapshotError::Truncated { .. })
        ));
    }
}
