//! The resource side: fencing guards, one token or a batch at a time.

use fencepost::{Admission, Token};
use wasm_bindgen::prelude::wasm_bindgen;

use crate::memory::fit;
use crate::objects::{NONE, Object};
use crate::state::with;

/// Admission codes: bit 0 set means accepted, so every refusal must be even.
pub mod admit {
    crate::numbered! {
        /// Refused: older than the highest token accepted.
        STALE = 0;
        /// Accepted: newer than every token before (now the highest).
        ADVANCED = 1;
        /// Refused: token 0 is never granted.
        INVALID = 2;
        /// Accepted: the same token as the highest (the same owner again).
        CURRENT = 3;
        /// Refused: the signature does not verify.
        FORGED = 4;
        /// Refused: the signed token could not be parsed (see `error` in the `Out` record).
        MALFORMED = 6;
        /// The index is not a guard (it was freed).
        NO_GUARD = 8;
    }
}

#[inline(always)]
pub(crate) fn admission(a: Admission) -> u32 {
    match a {
        Admission::Advanced { .. } => admit::ADVANCED,
        Admission::Current => admit::CURRENT,
        Admission::Stale { .. } => admit::STALE,
        Admission::Invalid => admit::INVALID,
    }
}

/// Tokens one `guard_admit_many` call takes at most; the caller splits larger batches.
pub const BATCH: usize = 16_384;

/// A new guard whose highest token is `token` (0: none yet): its index, or [`NONE`] (see `error`
/// in the `Out` record) when the memory cannot hold it.
#[wasm_bindgen]
#[inline(never)]
pub fn guard_new(token: u64) -> u32 {
    with(NONE, |st| {
        if !st.objects.room_to_add(&[0]) {
            return NONE;
        }
        let guard = fencepost::Guard::with_highest(Token::new(token));
        st.objects.add(Object::Guard(guard))
    })
}

/// Compare-and-advance on guard `i` (see [`admit`] for the codes; [`admit::NO_GUARD`] for an
/// index that is not a guard).
#[wasm_bindgen]
#[inline(never)]
pub fn guard_admit(i: u32, token: u64) -> u32 {
    with(admit::NO_GUARD, |st| match st.objects.guard(i) {
        Some(g) => admission(g.admit_raw(token)),
        None => admit::NO_GUARD,
    })
}

/// What `guard_admit` would answer.
#[wasm_bindgen]
#[inline(never)]
pub fn guard_check(i: u32, token: u64) -> u32 {
    with(admit::NO_GUARD, |st| match st.objects.guard(i) {
        Some(g) => admission(g.check_raw(token)),
        None => admit::NO_GUARD,
    })
}

/// The highest token guard `i` accepted (0: none, or not a guard).
#[wasm_bindgen]
#[inline(never)]
pub fn guard_highest(i: u32) -> u64 {
    with(0, |st| {
        st.objects
            .guard(i)
            .and_then(|g| g.highest())
            .map_or(0, Token::get)
    })
}

/// Admits a batch of `n` tokens (at most [`BATCH`]: the first `8 * n` bytes of the input area,
/// each token 8 bytes little-endian) on guard `i`, in order, and returns the address of their
/// outcome codes in the output area (one byte per token); 0 if `i` is not a guard, or (with
/// `NO_MEMORY` recorded) when the memory cannot hold the outcomes.
#[wasm_bindgen]
#[inline(never)]
pub fn guard_admit_many(i: u32, n: usize) -> usize {
    with(0, |st| {
        let Some(g) = st.objects.guard(i) else {
            return 0;
        };
        let tokens = st.input.get(..8 * n.min(BATCH)).unwrap_or_default();
        // Room for the outcomes first: refused, the guard is as it was.
        if !fit(&mut st.output, tokens.len() / 8) {
            return 0;
        }
        st.output.resize(tokens.len() / 8, 0);
        for (tok, out) in tokens.chunks_exact(8).zip(st.output.iter_mut()) {
            let tok = u64::from_le_bytes(tok.try_into().unwrap_or_default());
            *out = admission(g.admit_raw(tok)) as u8;
        }
        st.output.as_ptr() as usize
    })
}
