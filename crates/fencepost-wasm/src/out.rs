//! The [`Out`] record a call leaves what it has to say beyond its return value in, and every
//! answer a call writes there, declared once by name in [`answers`]: each declaration gives the
//! Rust type a call fills in (its `write` puts each field into its slot of the record) and the
//! names of the readers `npm/src/abi.js` gets (see `js.rs`), so no slot's meaning is written
//! twice.

use alloc::vec::Vec;

use crate::memory::copy_into;
use crate::name::Name;

/// Results of the last call that has more to say than its return value, read by the caller right
/// after it from memory: `out` (in `abi.rs`) gives the address of this record (one for the whole
/// instance), whose fields up to `field_at` sit at the byte offsets `npm/src/abi.js` gives
/// (little-endian).
#[repr(C)]
pub struct Out {
    /// Offset 0: a token.
    pub(crate) token: u64,
    /// Offset 8: a second token.
    pub(crate) token2: u64,
    /// Offset 16: a third token.
    pub(crate) token3: u64,
    /// Offset 24: a time (milliseconds).
    pub(crate) time: f64,
    /// Offset 32: a second time.
    pub(crate) time2: f64,
    /// Offset 40: a third time (or a count).
    pub(crate) time3: f64,
    /// Offset 48: a depth, limit or count.
    pub(crate) depth: u32,
    /// Offset 52: the code of the last error (only meaningful right after a call reported one).
    pub(crate) error: u32,
    /// Offset 56: the number that goes with it (a byte offset, a length ...).
    pub(crate) detail: u32,
    /// Offsets 60 and 64: the address and length of `holder` (UTF-8).
    pub(crate) holder_at: u32,
    pub(crate) holder_len: u32,
    /// Offsets 68 and 72: the address and length of `name` (UTF-8).
    pub(crate) name_at: u32,
    pub(crate) name_len: u32,
    /// Offset 76: the address of the output area.
    pub(crate) output_at: u32,
    /// Offset 80: the address of the field name (UTF-8) an inconsistent snapshot names; its
    /// length is `detail`.
    pub(crate) field_at: u32,
    pub(crate) holder: Name,
    pub(crate) name: Name,
}

impl Out {
    pub(crate) const fn new() -> Out {
        Out {
            token: 0,
            token2: 0,
            token3: 0,
            time: 0.0,
            time2: 0.0,
            time3: 0.0,
            depth: 0,
            error: 0,
            detail: 0,
            holder_at: 0,
            holder_len: 0,
            name_at: 0,
            name_len: 0,
            output_at: 0,
            field_at: 0,
            holder: Name(Vec::new()),
            name: Name(Vec::new()),
        }
    }
}

/// A slot of the record taking a value of type `V`: false (recorded, the slot unchanged) when the
/// memory cannot hold a copy of a name.
pub(crate) trait Slot<V> {
    fn put(&mut self, v: V) -> bool;
}

macro_rules! plain_slot {
    ($($t:ty),*) => {$(
        impl Slot<$t> for $t {
            #[inline(always)]
            fn put(&mut self, v: $t) -> bool {
                *self = v;
                true
            }
        }
    )*};
}
plain_slot!(u64, f64, u32, Name);

/// A borrowed name is copied, in the room the slot has if that is enough.
impl Slot<&Name> for Name {
    #[inline(always)]
    fn put(&mut self, v: &Name) -> bool {
        copy_into(self, v)
    }
}

/// Declares answers: each a struct of named fields, each field with the slot of [`Out`] it is
/// written to. Its `write` puts the fields in declaration order and stops at the first that
/// fails (a name the memory cannot hold, so names go first): false then. `ALL` lists each
/// answer with its fields and their slots, for `abi.js`.
macro_rules! answers {
    ($(
        $(#[$doc:meta])*
        $name:ident $(<$lt:lifetime>)? { $($field:ident: $ty:ty => $slot:ident),* $(,)? }
    )*) => {
        $(
            $(#[$doc])*
            pub struct $name $(<$lt>)? { $(pub(crate) $field: $ty),* }

            impl $(<$lt>)? $name $(<$lt>)? {
                /// Puts every field into its slot of `out`.
                #[inline(always)]
                pub(crate) fn write(self, out: &mut Out) -> bool {
                    $(if !Slot::put(&mut out.$slot, self.$field) {
                        return false;
                    })*
                    true
                }
            }
        )*

        /// Every answer with its fields, each with the slot of [`Out`] it is written to.
        pub const ALL: &[(&str, &[(&str, &str)])] =
            &[$((stringify!($name), &[$((stringify!($field), stringify!($slot))),*])),*];
    };
}

/// What each call answers beyond its return value, by name. Times are milliseconds.
pub mod answers {
    use super::{Out, Slot};
    use crate::name::Name;

    answers! {
        /// An acquire that was granted.
        Granted { token: u64 => token, expires_at: f64 => time, granted_at: f64 => time2, depth: u32 => depth }
        /// An acquire refused: another holder has the lock until `until`.
        Held { holder: Name => holder, until: f64 => time }
        /// An acquire refused: the lock is in lock-delay until `until`.
        LockDelay { until: f64 => time }
        /// An acquire refused: re-entered as deep as allowed.
        ReentryLimit { max: u32 => depth }
        /// A renewal that was done.
        Renewed { token: u64 => token, expires_at: f64 => time }
        /// A release that was done: the depth left (0: the lock is free).
        Released { depth: u32 => depth }
        /// A lease that was noticed to have run out.
        Expired { holder: Name => holder, token: u64 => token, at: f64 => time, free_at: f64 => time2 }
        /// One of the expiries a table's last `EXPIRE_ALL` noticed.
        TableExpiry<'a> { lock: &'a Name => name, holder: &'a Name => holder, token: u64 => token, at: f64 => time, free_at: f64 => time2 }
        /// A live lease.
        Lease<'a> { holder: &'a Name => holder, token: u64 => token, expires_at: f64 => time, granted_at: f64 => time2, depth: u32 => depth }
        /// The counters of an authority or a lock table: the next token (0: exhausted), the last
        /// issued (0: none), reserved through, free at (0 for a table), the latest time seen and
        /// how many times were clamped.
        Counters { next_token: u64 => token, last_issued: u64 => token2, reserved_through: u64 => token3, free_at: f64 => time, latest: f64 => time2, clamps: f64 => time3 }
        /// How many locks a table remembers.
        Locks { count: u32 => depth }
        /// A resource's state: its highest token (0: none), the operations its ledger remembers.
        Ledger { highest: u64 => token, remembered: u32 => depth }
        /// A write applied now (its new outcome slot) or a retry (the slot of its first outcome).
        Written { slot: u32 => depth }
        /// A write refused as stale: the highest token accepted.
        Stale { highest: u64 => token }
        /// A key ring's current key id.
        Ring { current_key_id: u32 => depth }
        /// A keeper's state: its lease's token (0: none yet), safe-until (-1: none yet) and when
        /// to send next (-1: nothing to send).
        Keeper { token: u64 => token, safe_until: f64 => time, next_send: f64 => time2 }
        /// Why a keeper's lease was lost (a `KEEPER_LOSS_` code).
        Lost { why: u32 => depth }
        /// A keeper's answer refused as for another token: the lease's.
        OtherToken { held: u64 => token }
    }
}
