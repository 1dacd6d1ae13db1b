//! Idempotency: a fenced resource's ledger, and the decision a store makes from what it read.

use alloc::boxed::Box;

use fencepost::{FencedResource, Token, WriteOutcome, decide_stored};
use wasm_bindgen::prelude::wasm_bindgen;

use crate::state::with;

/// Operations a resource's idempotency ledger remembers.
pub const LEDGER_CAPACITY: usize = 64;

/// A fenced resource; the outcome its ledger keeps is a slot number, and the caller keeps the real
/// outcome under that number.
pub(crate) struct Resource {
    pub(crate) inner: Box<FencedResource<u32, LEDGER_CAPACITY>>,
    pub(crate) next_slot: u32,
}

/// Write codes of [`resource_write`].
pub mod write {
    crate::numbered! {
        /// Applied now: run the operation; `depth` is its new outcome slot.
        APPLIED = 0;
        /// A retry: `depth` is the slot of the first outcome.
        DUPLICATE = 1;
        /// Stale: `token` is the highest token accepted.
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
                st.out.depth = s;
                write::APPLIED
            }
            WriteOutcome::Duplicate(s) => {
                st.out.depth = s;
                write::DUPLICATE
            }
            WriteOutcome::Stale { highest, .. } => {
                st.out.token = highest.get();
                write::STALE
            }
            WriteOutcome::Invalid => write::INVALID,
        }
    })
}

/// What a store decides for a write (see [`write`](mod@write) for the codes) from what it read for
/// the key:
/// `highest` its mark and `recorded` the token held for the write's idempotency key (0: none).
/// Stateless: the store keeps both beside its data; [`write::STALE`] leaves `highest` in `token`.
#[wasm_bindgen]
#[inline(never)]
pub fn store_decide(highest: u64, recorded: u64, token: u64) -> u32 {
    with(write::INVALID, |st| {
        match decide_stored(Token::new(highest), Token::new(recorded), token) {
            WriteOutcome::Applied(()) => write::APPLIED,
            WriteOutcome::Duplicate(()) => write::DUPLICATE,
            WriteOutcome::Stale { highest, .. } => {
                st.out.token = highest.get();
                write::STALE
            }
            WriteOutcome::Invalid => write::INVALID,
        }
    })
}
