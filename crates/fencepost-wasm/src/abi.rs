//! What crosses the boundary besides plain arguments: the address of the [`Out`] record a call
//! leaves its results in, the input area JavaScript writes text and bytes into, time conversions,
//! and freeing an object of the table.

use core::sync::atomic::Ordering;

use wasm_bindgen::prelude::wasm_bindgen;
use zeroize::Zeroize;

use crate::errors::{LAST_DETAIL, LAST_ERROR, LAST_FIELD};
use crate::name::Name;
pub use crate::out::Out;
use crate::state::with;

/// Milliseconds from JavaScript. The caller passes non-negative safe integers; the cast saturates
/// (and maps NaN to 0) for anything else, so it can never trap.
#[inline]
pub(crate) fn ms(v: f64) -> u64 {
    v as u64
}

/// Milliseconds to JavaScript (exact up to 2^53).
#[inline]
pub(crate) fn js_ms(v: u64) -> f64 {
    v as f64
}

/// The first `a` bytes of the input area and the `b` bytes after them. Lengths beyond the area
/// give empty names (the caller never passes them).
pub(crate) fn names(input: &[u8], a: usize, b: usize) -> (&[u8], &[u8]) {
    let first = input.get(..a).unwrap_or(&[]);
    let second = input.get(a..).and_then(|r| r.get(..b)).unwrap_or(&[]);
    (first, second)
}

/// The address of the [`Out`] record of the last result, with the last error and the
/// addresses of its holder, its lock name and the output area brought up to date.
#[wasm_bindgen]
#[inline(never)]
pub fn out() -> usize {
    with(0, |st| {
        let o = &mut st.out;
        o.error = LAST_ERROR.load(Ordering::Relaxed);
        o.detail = LAST_DETAIL.load(Ordering::Relaxed);
        o.field_at = LAST_FIELD.load(Ordering::Relaxed);
        o.holder_at = o.holder.0.as_ptr() as u32;
        o.holder_len = o.holder.0.len() as u32;
        o.name_at = o.name.0.as_ptr() as u32;
        o.name_len = o.name.0.len() as u32;
        o.output_at = st.output.as_ptr() as u32;
        o as *const Out as usize
    })
}

// Strings and bytes.
//
// They cross through two areas of the module's memory: the caller writes a call's text (names,
// header values, keys, snapshots) into the input area, back to back, and passes their lengths; a
// call that answers with bytes (a snapshot, a header value) leaves them in the output area and
// returns their length. No allocation crosses the boundary.

/// Largest input area: the package reads snapshots of up to 64 MiB.
pub const MAX_INPUT: usize = 64 << 20;

/// Makes the input area `n` bytes long and returns its address, for the caller to fill before
/// the call that reads it; 0 (no area) for more than [`MAX_INPUT`] bytes, or when the memory
/// cannot grow to hold them. Any call may move it: ask again each time.
#[wasm_bindgen]
#[inline(never)]
pub fn input(n: usize) -> usize {
    if n > MAX_INPUT {
        return 0;
    }
    with(0, |st| {
        // Memory that cannot grow (a runtime's limit) is an answer, not a trap.
        if st
            .input
            .try_reserve(n.saturating_sub(st.input.len()))
            .is_err()
        {
            return 0;
        }
        st.input.resize(n, 0);
        st.input.as_ptr() as usize
    })
}

/// The `len` bytes of the input area from `at`, as a name (empty beyond the area); `None`
/// (recorded) when the memory cannot hold the copy. Made only where it is used: an authority
/// has no lock name to make.
pub(crate) fn name_at(input: &[u8], at: usize, len: usize) -> Option<Name> {
    crate::memory::name(names(input, at, len).1)
}

/// Wipes the first `n` bytes of the input area: a key JavaScript wrote there.
pub(crate) fn wipe(input: &mut [u8], n: usize) {
    if let Some(key) = input.get_mut(..n) {
        key.zeroize();
    }
}

/// Frees object `i` if it is of kind `k` (see `objects::kind`); its index is reused by a later
/// one.
#[wasm_bindgen]
#[inline(never)]
pub fn free(k: u32, i: u32) {
    with((), |st| {
        if st.objects.kind(i) == Some(k) {
            st.objects.0.remove(i);
        }
    })
}
