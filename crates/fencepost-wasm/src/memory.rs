//! Refusing a call up front when the module's memory cannot hold what it would allocate.
//!
//! A failed allocation traps the instance, and most of a call's allocations have no fallible
//! path in Rust (a box, a name the core copies, a list the core grows). So every export that
//! allocates first asks here for its worst case, and when the memory cannot grow that far it
//! records [`code::NO_MEMORY`] (a `RangeError` in JavaScript) and answers its refusal before it
//! changes anything. The check is a compare while the grown memory has room (see
//! `SizeClasses::room_for` in fencepost-wasm-rt); blocks freed by earlier calls count too, so a
//! call fits again once objects are freed.

use alloc::vec::Vec;

use crate::errors::{code, fail};
use crate::name::Name;

/// Whether allocations of each of `sizes` bytes (0: none) cannot fail now; records
/// [`code::NO_MEMORY`] (detail: their sum) when they could.
#[inline(always)]
pub(crate) fn room_for(sizes: &[usize]) -> bool {
    grows_for(sizes) || refused(sizes.iter().sum())
}

/// Whether allocations adding up to `bytes` (each counted as at least 16) cannot fail now; for
/// a call that knows only their sum. Records [`code::NO_MEMORY`] when they could.
pub(crate) fn room(bytes: usize) -> bool {
    grows(bytes) || refused(bytes)
}

/// Records the refusal of a call that asked for `bytes`; false.
#[cold]
#[inline(never)]
fn refused(bytes: usize) -> bool {
    fail(code::NO_MEMORY, bytes);
    false
}

/// A copy of `bytes` as a name; `None` (recorded) when the memory cannot hold it.
pub(crate) fn name(bytes: &[u8]) -> Option<Name> {
    let mut v = Vec::new();
    if !bytes.is_empty() {
        if !room_for(&[bytes.len()]) {
            return None;
        }
        v.reserve_exact(bytes.len());
        v.extend_from_slice(bytes);
    }
    Some(Name(v))
}

/// Makes `into` a copy of `from`, in the room it has if that is enough; false (recorded, `into`
/// unchanged) when the memory cannot hold it.
pub(crate) fn copy_into(into: &mut Name, from: &Name) -> bool {
    let n = from.0.len();
    if into.0.capacity() < n {
        if !room_for(&[n]) {
            return false;
        }
        into.0.clear();
        into.0.reserve_exact(n);
    }
    into.0.clear();
    into.0.extend_from_slice(&from.0);
    true
}

/// Makes sure `v` has room for `n` bytes (growing it to exactly that if it must); false
/// (recorded, `v` unchanged) when the memory cannot hold them.
pub(crate) fn fit(v: &mut Vec<u8>, n: usize) -> bool {
    if v.capacity() < n {
        if !room_for(&[n]) {
            return false;
        }
        v.clear();
        v.reserve_exact(n);
    }
    true
}

#[cfg(target_arch = "wasm32")]
#[inline(always)]
fn grows_for(sizes: &[usize]) -> bool {
    crate::ALLOC.room_for(sizes)
}

#[cfg(target_arch = "wasm32")]
fn grows(bytes: usize) -> bool {
    crate::ALLOC.room(bytes)
}

// Natively (the crate's tests) the memory is the test's to limit: a call fits when what it asks
// for is at most the limit.
#[cfg(not(target_arch = "wasm32"))]
std::thread_local! {
    static LIMIT: core::cell::Cell<usize> = const { core::cell::Cell::new(usize::MAX) };
}

#[cfg(not(target_arch = "wasm32"))]
fn grows_for(sizes: &[usize]) -> bool {
    grows(sizes.iter().sum())
}

#[cfg(not(target_arch = "wasm32"))]
fn grows(bytes: usize) -> bool {
    bytes <= LIMIT.get()
}

/// Lets calls on this thread allocate at most `bytes` each (tests only).
#[cfg(test)]
pub(crate) fn limit(bytes: usize) {
    LIMIT.set(bytes);
}
