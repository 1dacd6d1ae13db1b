//! What crosses the boundary besides plain arguments: the [`Out`] record a call leaves its
//! results in, the input area JavaScript writes text and bytes into, and time conversions.

use alloc::vec::Vec;
use core::sync::atomic::Ordering;

use wasm_bindgen::prelude::wasm_bindgen;
use zeroize::Zeroize;

use crate::errors::{LAST_DETAIL, LAST_ERROR, LAST_FIELD};
use crate::name::Name;
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

/// Results of the last call that has more to say than its return value, read by the caller right
/// after it from memory: [`out`] gives the address of this record (one for the whole instance),
/// whose fields up to `field_at` sit at the byte offsets `npm/src/abi.js` gives (little-endian).
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
