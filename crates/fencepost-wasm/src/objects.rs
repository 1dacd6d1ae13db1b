//! The instance's objects: one table for every kind, indexed from JavaScript. Each family makes
//! its own (`guard_new`, `lock_new`, ...); `free` (in `abi.rs`) gives any back.
//!
//! Every object the JavaScript side creates lives in a table here and is known there by its index,
//! so every export is a free function of an index: no reference counting or borrow flags per call
//! (the guard's `admit` is the hot path), and much less code than one wasm-bindgen class per kind.
//! An index that is not (or no longer) an object makes a function return its harmless default.

use alloc::boxed::Box;

use fencepost::{KeyRing, TokenSigner};
use fencepost_wasm_rt::Slots;

use crate::errors::{code, fail};
use crate::kinds::{Held, Resource, Table};
use crate::memory::room_for;
use crate::name::Name;

/// Every kind of object in one table (one copy of its code); the large ones boxed so a guard
/// stays small.
pub(crate) enum Object {
    Guard(fencepost::Guard),
    Authority(Box<fencepost::Authority<Name>>),
    Table(Box<Table>),
    Resource(Resource),
    Signer(Box<TokenSigner>),
    Ring(Box<KeyRing>),
    Keeper(Box<Held>),
}

/// The kinds of object, as `free` names them.
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

    /// Whether the next [`add`](Objects::add) has its place and the memory can hold the boxes
    /// of `sizes` bytes the new object takes; records `NO_MEMORY` when not.
    pub(crate) fn room_to_add(&mut self, sizes: &[usize]) -> bool {
        self.room_for_one() && room_for(sizes)
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

/// `u32::MAX`: no object was made (see `error` in the `Out` record).
pub const NONE: u32 = u32::MAX;
