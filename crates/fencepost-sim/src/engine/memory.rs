//! How much memory a run and its trace may take: the WebAssembly simulator's bounds.

use super::options::{STEP_EVENTS, live_actions};
use super::queue::{Action, Scheduled};
use super::sim::{Holder, InFlight};
use crate::scenario::MAX_WORKERS;
use crate::trace::{AppliedWrite, Event};

/// Most bytes of memory a run stopped at `max_events` events can take from the WebAssembly
/// module's allocator (see [`crate::growth_bytes`]) while it runs: every table that grows with
/// its events (each event sends at most one message and applies at most one write and one fresh
/// grant), its queued and held-back actions (one table per worker for those), and its trace
/// (see [`trace_bytes`]) when it records one. The last step may emit up to [`STEP_EVENTS`] events
/// past the limit.
pub fn run_bytes(max_events: usize, record: bool) -> u64 {
    use crate::growth_bytes as g;
    use core::mem::size_of;
    let n = (max_events + STEP_EVENTS) as u64;
    let q = live_actions(n);
    // Per worker at most 8 bytes per action and a few blocks of growth (see growth_bytes).
    let held = 8 * q * size_of::<Action>() as u64 + MAX_WORKERS as u64 * 1024;
    let tables = g(n, size_of::<InFlight>())
        + g(n, size_of::<(Holder, u64, u32)>())
        + g(n, size_of::<u32>())
        + g(n, size_of::<(u16, u16, u32)>())
        + g(q, size_of::<Scheduled>())
        + held;
    tables
        + if record {
            trace_bytes(n)
        } else {
            g(n, size_of::<AppliedWrite>())
        }
}

/// Most bytes of memory a recorded trace of `events` events holds while it grows (its events, and
/// its document, which has fewer writes than the trace has events). Writing it out takes no
/// memory of its size: the events are written one by one, and the WebAssembly package reads a
/// long trace in pieces.
pub fn trace_bytes(events: u64) -> u64 {
    use crate::growth_bytes as g;
    use core::mem::size_of;
    g(events, size_of::<Event>()) + g(events, size_of::<AppliedWrite>()) + 64 * 1024
}
