//! Idempotency: a fenced resource's ledger, and the decision a store makes from what it read.

use alloc::boxed::Box;

use fencepost::{FencedResource, Token, WriteOutcome, decide_stored};
use wasm_bindgen::prelude::wasm_bindgen;

pub use crate::kinds::LEDGER_CAPACITY;
use crate::kinds::Resource;
use crate::objects::{NONE, Object};
use crate::out::answers::{Ledger, Stale, Written};
use crate::state::with;

/// A new resource that has accepted nothing: its index, or [`NONE`] (see `error` in the `Out`
/// record) when the memory cannot hold it.
#[wasm_bindgen]
#[inline(never)]
pub fn resource_new() -> u32 {
    with(NONE, |st| {
        let boxed = size_of::<FencedResource<u32, LEDGER_CAPACITY>>();
        if !st.objects.room_to_add(&[boxed]) {
            return NONE;
        }
        st.objects.add(Object::Resource(Resource {
            // A constant: the new box is filled in place, not from a 1.5 KB ledger built on the
            // stack and copied.
            inner: Box::new(const { FencedResource::new() }),
            next_slot: 0,
        }))
    })
}

/// Resource `i`'s state into the `Out` record (see [`Ledger`]): 1, or 0 if `i` is not a
/// resource.
#[wasm_bindgen]
#[inline(never)]
pub fn resource_state(i: u32) -> u32 {
    with(0, |st| match st.objects.0.get(i) {
        Some(Object::Resource(r)) => {
            let highest = r.inner.guard().highest().map_or(0, Token::get);
            let remembered = u32::try_from(r.inner.ledger().len()).unwrap_or(u32::MAX);
            Ledger {
                highest,
                remembered,
            }
            .write(&mut st.out);
            1
        }
        _ => 0,
    })
}

/// Write codes of [`resource_write`].
pub mod write {
    crate::numbered! {
        /// Applied now: run the operation; its new outcome slot is answered (see `Written`).
        APPLIED = 0;
        /// A retry: the slot of the first outcome is answered (see `Written`).
        DUPLICATE = 1;
        /// Stale: the highest token accepted is answered (see `Stale`).
        STALE = 2;
        /// Token 0 (or not a resource).
        INVALID = 3;
    }
}

/// Runs the ledger, then the guard (see [`write`](mod@write) for the codes).
#[wasm_bindgen]
#[inline(never)]
pub fn resource_write(i: u32, token: u64, op: u64) -> u32 {
    with(write::INVALID, |st| {
        let Some(r) = st.objects.resource(i) else {
            return write::INVALID;
        };
        let slot = r.next_slot;
        match r.inner.write(token, op, || slot) {
            WriteOutcome::Applied(s) => {
                r.next_slot = slot.wrapping_add(1);
                Written { slot: s }.write(&mut st.out);
                write::APPLIED
            }
            WriteOutcome::Duplicate(s) => {
                Written { slot: s }.write(&mut st.out);
                write::DUPLICATE
            }
            WriteOutcome::Stale { highest, .. } => {
                let highest = highest.get();
                Stale { highest }.write(&mut st.out);
                write::STALE
            }
            WriteOutcome::Invalid => write::INVALID,
        }
    })
}

/// What a store decides for a write (see [`write`](mod@write) for the codes) from what it read for
/// the key:
/// `highest` its mark and `recorded` the token held for the write's idempotency key (0: none).
/// Stateless: the store keeps both beside its data; [`write::STALE`] answers `highest` (see [`Stale`]).
#[wasm_bindgen]
#[inline(never)]
pub fn store_decide(highest: u64, recorded: u64, token: u64) -> u32 {
    with(write::INVALID, |st| {
        match decide_stored(Token::new(highest), Token::new(recorded), token) {
            WriteOutcome::Applied(()) => write::APPLIED,
            WriteOutcome::Duplicate(()) => write::DUPLICATE,
            WriteOutcome::Stale { highest, .. } => {
                let highest = highest.get();
                Stale { highest }.write(&mut st.out);
                write::STALE
            }
            WriteOutcome::Invalid => write::INVALID,
        }
    })
}
