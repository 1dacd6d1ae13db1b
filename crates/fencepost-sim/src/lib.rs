//! # fencepost-sim
//!
//! A deterministic simulator of workers, a lock service and a storage, built on the real fencepost
//! core: the lock service *is* a [`fencepost::Authority`] and the storage *is* a
//! [`fencepost::Guard`]. It replays pauses, held messages, partitions, clock faults, crashes and
//! lock-service restarts, checks invariants after every event, and explains every event in a
//! sentence.
//!
//! ```
//! use fencepost_sim::{preset, run, Invariant, RunOptions, run_with};
//!
//! let story = preset("paused-worker").unwrap().scenario();
//! let fenced = run(&story);
//! assert!(fenced.verdict.ok);
//!
//! let unfenced = run_with(&story, RunOptions { fencing: Some(false), ..RunOptions::default() });
//! assert!(unfenced.verdict.violated(Invariant::I2));
//! ```
//!
//! Same scenario and seed, same trace, byte for byte, on every platform: randomness comes from one
//! [`rng::SplitMix64`] and ties are broken by scheduling order.
//!
//! The explorer builds on it: [`template`] and [`sweep`] run many derived scenarios and count what
//! broke, with and without fencing; [`explore`] searches a small scope of faults exhaustively for a
//! shortest counterexample; [`history`] checks a real storage's write log for stale writes.
#![no_std]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

extern crate alloc;
#[cfg(test)]
extern crate std;

mod belief;
pub mod engine;
pub mod explore;
pub mod history;
pub mod invariants;
mod object;
pub mod presets;
pub mod rng;
pub mod scenario;
mod secs;
pub mod sweep;
pub mod template;
pub mod trace;

/// Cuts serde_json's " at line L column C" off the end of its message `msg`, for callers that
/// say where in their own terms; whether there was one. (A byte search, not `rfind`: the
/// WebAssembly simulator then carries no substring searcher.)
///
/// ```
/// let mut m = String::from("missing field `t` at line 1 column 12");
/// assert!(fencepost_sim::strip_json_position(&mut m));
/// assert_eq!(m, "missing field `t`");
/// let mut m = String::from("expected a JSON object");
/// assert!(!fencepost_sim::strip_json_position(&mut m));
/// assert_eq!(m, "expected a JSON object");
/// ```
pub fn strip_json_position(msg: &mut alloc::string::String) -> bool {
    match msg.as_bytes().windows(9).rposition(|w| w == b" at line ") {
        Some(i) => {
            msg.truncate(i);
            true
        }
        None => false,
    }
}

/// Bytes a block of `bytes` bytes takes from the WebAssembly module's allocator: a power of two of
/// at least 16 (none for no bytes; other allocators take no more).
pub fn block_bytes(bytes: u64) -> u64 {
    match bytes {
        0 => 0,
        b => b.max(16).checked_next_power_of_two().unwrap_or(u64::MAX),
    }
}

/// Most bytes a vector of up to `n` elements of `size` bytes can take from the WebAssembly
/// module's allocator while it grows by doubling: every block of its growth (capacities 1, 2, 4,
/// ... up to the first power of two at or above `n`), each rounded up as [`block_bytes`] says,
/// counted as if none were ever given back for reuse.
pub fn growth_bytes(n: u64, size: usize) -> u64 {
    let mut total = 0u64;
    let mut cap = 1u64;
    loop {
        let block = cap.saturating_mul(size as u64).max(16);
        total = total.saturating_add(block_bytes(block));
        if cap >= n {
            return total;
        }
        cap = cap.saturating_mul(2);
    }
}

pub use engine::{RunOptions, run, run_with};
pub use invariants::{Invariant, Verdict, Violation};
pub use presets::{PRESETS, Preset, preset};
pub use scenario::{
    Fault, Job, Latency, Point, Protections, Scenario, ScenarioError, TokenKind, Worker,
};
pub use sweep::{Sweep, SweepOptions, SweepReport};
pub use template::{Source, Template};
pub use trace::{Actor, Beliefs, Detail, Event, Kind, LossWhy, Msg, Trace};
