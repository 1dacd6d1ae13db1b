//! What a run may override, and the bounds its steps keep.

use crate::scenario::{MAX_FAULTS, MAX_WORKERS};

/// Options that override a scenario for one run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunOptions {
    /// Force fencing on or off.
    pub fencing: Option<bool>,
    /// Use this seed instead of the scenario's.
    pub seed: Option<u64>,
    /// Stop at the first step that reaches this many events (the trace says it was truncated).
    /// The events of that step are all kept, so a trace may hold up to [`STEP_EVENTS`] more.
    pub max_events: usize,
    /// Record the events (off: only the verdict and document are kept; faster for sweeps).
    pub record: bool,
}

impl Default for RunOptions {
    fn default() -> RunOptions {
        RunOptions {
            fencing: None,
            seed: None,
            max_events: 1_000_000,
            record: true,
        }
    }
}

/// Most events one step of a run can emit. A step is one scheduled action: a delivery, say, with
/// what it causes (a grant, an applied write) and the message it sends makes three, the most any
/// step emits today; the bound leaves room, and debug builds check it after every step.
pub const STEP_EVENTS: usize = 16;

/// Most actions a run with `events` events so far has queued or held back for paused workers:
/// each event schedules at most two on average (a grant schedules its expiry check, and the send
/// and delivery of its answer, two events, the delivery and then the holder's work, renewal and
/// deadline timers: five actions for three events; a deadline timer that finds the deadline moved
/// takes its own place), each fault two more (a pause and its end), and each worker its start.
pub(super) const fn live_actions(events: u64) -> u64 {
    2 * events + 2 * MAX_FAULTS as u64 + MAX_WORKERS as u64 + 16
}
