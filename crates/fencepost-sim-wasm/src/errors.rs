//! Errors and memory: the error a call leaves for the caller, the objects lent out, and the
//! room a call makes before it takes memory.

use wasm_bindgen::JsValue;
use wasm_bindgen::prelude::wasm_bindgen;

use crate::failure::{Failure, kind};
use crate::interop::OUT_BYTES;
use crate::state;
use crate::state::{fail, room, with};

pub(crate) fn last<R>(fallback: R, f: impl FnOnce(&Failure) -> R) -> R {
    with(None, |st| st.error.as_ref().map(f)).unwrap_or(fallback)
}

/// The kind of the last error (only meaningful right after a call reported one).
#[wasm_bindgen]
pub fn error_kind() -> u32 {
    last(kind::NONE, |f| f.kind)
}

/// A copy of `text` of the last error, or an empty one when there is no room to make it.
pub(crate) fn copied(text: impl FnOnce(&Failure) -> &String) -> String {
    last(String::new(), |f| {
        let t = text(f);
        if room(2 * t.len() as u64 + OUT_BYTES) {
            t.clone()
        } else {
            String::new()
        }
    })
}

/// The field the last error is about (empty: the whole value).
#[wasm_bindgen]
pub fn error_field() -> String {
    copied(|f| &f.field)
}

/// What is wrong, for the last error.
#[wasm_bindgen]
pub fn error_message() -> String {
    copied(|f| &f.message)
}

/// Which object argument of the call the last error is about (0: the first, 1: the second).
#[wasm_bindgen]
pub fn error_part() -> u32 {
    last(0, |f| f.part)
}

/// How many objects are lent out (see `state`): the package notes it before a call that writes
/// values to JavaScript.
#[wasm_bindgen]
pub fn lent_depth() -> u32 {
    state::lent_depth()
}

/// Gives back what a call that JavaScript code threw through had lent out (those above `depth`).
#[wasm_bindgen]
pub fn lent_release(depth: u32) {
    state::lent_release(depth)
}

/// Makes room for `bytes` of arguments the package is about to copy into the module (a string's
/// UTF-8): false when the memory cannot grow that far.
#[wasm_bindgen]
pub fn room_for(bytes: f64) -> bool {
    // A string is copied in by growing a block up to three times: five times its UTF-8 bound
    // covers the blocks.
    room(5 * bytes as u64 + OUT_BYTES)
}

/// Records that the module's memory cannot grow as far as a call needs; returns `nothing`.
pub(crate) fn no_room<R>(nothing: R) -> R {
    fail(nothing, Failure::memory())
}

/// `undefined`, with the error that there is no such `what`.
pub(crate) fn missing(what: &str) -> JsValue {
    fail(JsValue::UNDEFINED, Failure::missing(what))
}

/// Makes room for `bytes` (see [`state::room`]): false, with [`kind::MEMORY`] recorded, when the
/// memory cannot grow that far.
pub(crate) fn make_room(bytes: u64) -> bool {
    room(bytes) || no_room(false)
}

/// How far the allocator's heap reaches now (`SizeClasses::carved`): below it, what the module
/// holds and blocks it keeps for reuse; above it, memory grown but not used yet (the package's
/// memory accounting starts there).
#[wasm_bindgen]
pub fn memory_carved() -> f64 {
    state::carved() as f64
}
