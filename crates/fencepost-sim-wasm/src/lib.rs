//! WebAssembly bindings of the fencepost simulator, for the npm package's `fencepost/sim` entry.
//!
//! As thin as the core's bindings: every rule lives in `fencepost-sim` (and, through it, in the
//! `fencepost` core). This crate only converts, through serde-wasm-bindgen (see [`interop`]):
//! scenarios, templates and scopes come in as JavaScript objects, read and validated by the
//! simulator's own definitions (unknown fields refused, then `validate`), so every error names
//! its field; traces and reports go out as JavaScript objects shaped like the simulator's JSON.
//!
//! Runs, sweeps, searches and history checkers live in tables of the instance and are known to
//! JavaScript by their index (as in the core's bindings), so a trace stays in the module for
//! `explain` and `beliefs_at` and a sweep or search can be advanced in slices.
//!
//! Nothing here may trap the instance. The package's JavaScript (`npm/src/sim/api.js`) checks
//! every argument's type and range and hands over plain data only; every call first makes room
//! for the most memory it can take ([`state::room`]), and whatever still fails returns the
//! function's "nothing" value ([`NONE`], `undefined` or an empty string) and leaves an error kind
//! ([`error_kind`]: a TypeError or a RangeError) and message ([`error_message`]) for the caller to
//! throw.
//!
//! 64-bit integers go out as bigints; the package's JavaScript keeps seeds, tokens and history
//! times so and makes every other integer (times, counts) a number.

extern crate alloc;

mod catalog;
mod errors;
mod failure;
mod history;
mod interop;
mod runs;
mod search;
mod state;
mod sweep;

pub use catalog::*;
pub use errors::*;
pub use history::*;
pub use runs::*;
pub use search::*;
pub use sweep::*;

/// `u32::MAX`: no object was made (see [`error_kind`]).
pub const NONE: u32 = u32::MAX;

#[cfg(test)]
mod tests;
