//! The instance's objects: one table for every kind, indexed from JavaScript.
//!
//! Every object the JavaScript side creates lives in a table here and is known there by its index,
//! so every export is a free function of an index: no reference counting or borrow flags per call
//! (the guard's `admit` is the hot path), and much less code than one wasm-bindgen class per kind.
//! An index that is not (or no longer) an object makes a function return its harmless default.

use alloc::boxed::Box;

use fencepost::{FencedResource, KeyRing, SnapshotError, Token, TokenSigner};
use fencepost_wasm_rt::Slots;
use wasm_bindgen::prelude::wasm_bindgen;

use crate::abi::{names, wipe};
use crate::errors::{code, fail, signature_error, snapshot_error};
use crate::keeper;
use crate::locks::{Table, config, table};
use crate::memory::{room, room_for};
use crate::name::Name;
use crate::resource::{LEDGER_CAPACITY, Resource};
use crate::state::with;

/// Every kind of object in one table (one copy of its code); the large ones boxed so a guard
/// stays small.
pub(crate) enum Object {
    Guard(fencepost::Guard),
    Authority(Box<fencepost::Authority<Name>>),
    Table(Box<Table>),
    Resource(Resource),
    Signer(Box<TokenSigner>),
    Ring(Box<KeyRing>),
    Keeper(Box<keeper::Held>),
}

/// The kinds of object, as [`free`] names them.
pub mod kind {
    crate::numbered! {
        #[allow(missing_docs)]
        GUARD = 0;
        #[allow(missing_docs)]
        AUTHORITY = 1;
        #[allow(missing_docs)]
        TABLE = 2;
        #[allow(missing_docs)]
        RESOURCE = 3;
        #[allow(missing_docs)]
        SIGNER = 4;
        #[allow(missing_docs)]
        RING = 5;
        #[allow(missing_docs)]
        KEEPER = 6;
    }
}

/// Frees object `i` if it is of kind `k` (see [`kind`]); its index is reused by a later one.
#[wasm_bindgen]
#[inline(never)]
pub fn free(k: u32, i: u32) {
    with((), |st| {
        if st.objects.kind(i) == Some(k) {
            st.objects.0.remove(i);
        }
    })
}

/// The instance's objects; each accessor answers `None` for an index holding another kind.
pub(crate) struct Objects(pub(crate) Slots<Object>);

macro_rules! kind {
    ($(#[$attr:meta])* $get:ident, $variant:ident, $t:ty) => {
        $(#[$attr])*
        pub(crate) fn $get(&mut self, i: u32) -> Option<&mut $t> {
            match self.0.get(i) {
                Some(Object::$variant(x)) => Some(x),
                _ => None,
            }
        }
    };
}

impl Objects {
    pub(crate) const fn new() -> Objects {
        Objects(Slots::new())
    }

    // In line in the guard's exports, the hot path (called, an admission takes about a third
    // longer); the others are smaller called.
    kind!(
        #[inline(always)]
        guard,
        Guard,
        fencepost::Guard
    );
    kind!(table, Table, Table);
    kind!(resource, Resource, Resource);
    kind!(ring, Ring, KeyRing);

    /// Whether the next [`add`](Objects::add) has its place (growing the table if it must);
    /// records `NO_MEMORY` when the memory cannot hold a larger table.
    pub(crate) fn room_for_one(&mut self) -> bool {
        let ok = self.0.reserve_one();
        if !ok {
            fail(code::NO_MEMORY, 0);
        }
        ok
    }

    pub(crate) fn add(&mut self, o: Object) -> u32 {
        self.0.add(o)
    }

    /// The kind of object at `i` (see [`kind`]), if any.
    pub(crate) fn kind(&mut self, i: u32) -> Option<u32> {
        Some(match self.0.get(i)? {
            Object::Guard(_) => kind::GUARD,
            Object::Authority(_) => kind::AUTHORITY,
            Object::Table(_) => kind::TABLE,
            Object::Resource(_) => kind::RESOURCE,
            Object::Signer(_) => kind::SIGNER,
            Object::Ring(_) => kind::RING,
            Object::Keeper(_) => kind::KEEPER,
        })
    }
}

/// `u32::MAX`: no object was made (see `error` in [`Out`](crate::abi::Out)).
pub const NONE: u32 = u32::MAX;

/// A new object of kind `k` (see [`kind`]); its index, or [`NONE`] (see `error` in
/// [`Out`](crate::abi::Out)) when
/// none was made:
///
/// - a guard whose highest token is `token` (0: none yet);
/// - a resource that has accepted nothing;
/// - a signer for the key in the first `n` bytes of the input area (refused if too short), or a
///   key ring whose current key it is, under the key id `token` (refused past `u32::MAX`);
/// - an authority or a lock table with the config of `ttl`, `lock_delay`, `max_reentry`, `token`
///   (the first token) and `block`, fresh or, with `restore`, resuming from the binary snapshot
///   in the first `n` bytes of the input area (refused for an invalid config or snapshot).
#[wasm_bindgen]
#[inline(never)]
#[allow(clippy::too_many_arguments)]
pub fn object_new(
    k: u32,
    restore: bool,
    n: usize,
    token: u64,
    ttl: f64,
    lock_delay: f64,
    max_reentry: u32,
    block: f64,
) -> u32 {
    let cfg = if k == kind::AUTHORITY || k == kind::TABLE {
        let Some(cfg) = config(ttl, lock_delay, max_reentry, token, block) else {
            return NONE;
        };
        Some(cfg)
    } else {
        None
    };
    with(NONE, |st| {
        if !room_to_make(&mut st.objects, k, restore, names(&st.input, n, 0).0) {
            if k == kind::SIGNER || k == kind::RING {
                wipe(&mut st.input, n);
            }
            return NONE;
        }
        let bytes = names(&st.input, n, 0).0;
        let authority = |a| Object::Authority(Box::new(a));
        // `config` refused a bad config already; the constructors' own check answers the same
        // codes (a SnapshotError::Config from a restore).
        let made = match (k, cfg) {
            (kind::GUARD, _) => Ok(Object::Guard(fencepost::Guard::with_highest(Token::new(
                token,
            )))),
            (kind::RESOURCE, _) => Ok(Object::Resource(Resource {
                // A constant: the new box is filled in place, not from a 1.5 KB ledger built on
                // the stack and copied.
                inner: Box::new(const { FencedResource::new() }),
                next_slot: 0,
            })),
            (kind::SIGNER | kind::RING, _) => {
                let made = if k == kind::SIGNER {
                    TokenSigner::new(bytes).map(|s| Object::Signer(Box::new(s)))
                } else if let Ok(id) = u32::try_from(token) {
                    KeyRing::new(id, bytes).map(|r| Object::Ring(Box::new(r)))
                } else {
                    // api.js checks key ids; a larger one is no ring, never a trap.
                    wipe(&mut st.input, n);
                    fail(code::UNKNOWN, 0);
                    return NONE;
                };
                // The key has been mixed into the signer's state: wipe the copy JavaScript wrote
                // into the input area, made or refused, so no later read of memory finds it.
                wipe(&mut st.input, n);
                match made {
                    Ok(o) => Ok(o),
                    Err(e) => {
                        signature_error(e);
                        return NONE;
                    }
                }
            }
            (kind::AUTHORITY, Some(cfg)) if restore => {
                fencepost::Authority::restore_bytes(cfg, bytes).map(authority)
            }
            (kind::AUTHORITY, Some(cfg)) => fencepost::Authority::new(cfg)
                .map(authority)
                .map_err(SnapshotError::Config),
            (kind::TABLE, Some(cfg)) if restore => {
                fencepost::LockTable::restore_bytes(cfg, bytes).map(table)
            }
            (kind::TABLE, Some(cfg)) => fencepost::LockTable::new(cfg)
                .map(table)
                .map_err(SnapshotError::Config),
            _ => return NONE,
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

/// Whether the memory can hold a new object of kind `k` (read from the snapshot `bytes` when
/// `restore`) and its place in the table; records `NO_MEMORY` when not.
fn room_to_make(objects: &mut Objects, k: u32, restore: bool, bytes: &[u8]) -> bool {
    if !objects.room_for_one() {
        return false;
    }
    let boxed = match k {
        kind::RESOURCE => size_of::<FencedResource<u32, LEDGER_CAPACITY>>(),
        kind::SIGNER => size_of::<TokenSigner>(),
        kind::RING => size_of::<KeyRing>(),
        kind::AUTHORITY => size_of::<fencepost::Authority<Name>>(),
        kind::TABLE => size_of::<Table>(),
        _ => 0,
    };
    match (k, restore) {
        // The holder an authority reads is at most the whole snapshot.
        (kind::AUTHORITY, true) => room_for(&[boxed, bytes.len()]),
        (kind::TABLE, true) => room(boxed + restored_table_bytes(bytes)),
        _ => room_for(&[boxed]),
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

/// The counters of an authority or a lock table into [`Out`](crate::abi::Out) (see
/// `Out::counters`; for a table
/// `depth` is the number of locks it remembers and `time` is 0), a resource's state (`token`
/// the highest token, 0 for none, `depth` the operations its ledger remembers), or a key ring's
/// current key id (`depth`); 0 if `i` is none of them.
#[wasm_bindgen]
#[inline(never)]
pub fn state(i: u32) -> u32 {
    with(0, |st| match st.objects.0.get(i) {
        Some(Object::Authority(a)) => {
            let (next, last, reserved) = (a.next_token(), a.last_issued(), a.reserved_through());
            st.out
                .counters(next, last, reserved, a.free_at(), a.timeline())
        }
        Some(Object::Table(t)) => {
            let t = &t.inner;
            let (next, last, reserved) = (t.next_token(), t.last_issued(), t.reserved_through());
            st.out.depth = u32::try_from(t.len()).unwrap_or(u32::MAX);
            st.out.counters(next, last, reserved, 0, t.timeline())
        }
        Some(Object::Resource(r)) => {
            st.out.token = r.inner.guard().highest().map_or(0, Token::get);
            st.out.depth = u32::try_from(r.inner.ledger().len()).unwrap_or(u32::MAX);
            1
        }
        Some(Object::Ring(r)) => {
            st.out.depth = r.current_key_id();
            1
        }
        _ => 0,
    })
}
