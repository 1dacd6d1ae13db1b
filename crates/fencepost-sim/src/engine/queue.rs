//! The event queue: what is scheduled, in the order it runs.
//!
//! Pending actions sit in one priority queue ordered by `(time, insertion number)`, so two actions
//! at the same instant run in the order they were scheduled.

use core::cmp::Ordering;

use crate::scenario::Point;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Timer {
    WorkDone {
        write: u32,
    },
    RenewTick {
        lease: u32,
    },
    AckTimeout {
        write: u32,
        attempt: u32,
    },
    RetryAcquire,
    /// The worker's keeper deadline may have come: ask it (and look again later if a renewal
    /// moved it).
    SafeUntil {
        lease: u32,
    },
    /// Carry on after a pause injected at a decision point.
    Continue {
        point: Point,
        write: u32,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Action {
    Start { w: u16 },
    Timer { w: u16, inc: u16, timer: Timer },
    Deliver { msg: u32 },
    PauseStart { w: u16, until: u64 },
    PauseEnd { w: u16 },
    Crash { w: u16, restart_after: Option<u64> },
    Restart { w: u16 },
    ClockJump { w: u16, by_ms: i64 },
    AuthorityRestart { persisted: bool },
    ExpiryCheck,
}

#[derive(Clone, Copy, Debug)]
pub(super) struct Scheduled {
    pub(super) t: u64,
    pub(super) n: u64,
    pub(super) action: Action,
}

impl PartialEq for Scheduled {
    fn eq(&self, o: &Self) -> bool {
        (self.t, self.n) == (o.t, o.n)
    }
}
impl Eq for Scheduled {}
impl PartialOrd for Scheduled {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Scheduled {
    fn cmp(&self, o: &Self) -> Ordering {
        // BinaryHeap is a max-heap: reverse so the earliest (then first scheduled) pops first.
        (o.t, o.n).cmp(&(self.t, self.n))
    }
}
