//! The compact model of the simulator the search walks: its state, the faults it may choose
//! and the fixed part of a search.

use alloc::vec::Vec;
use core::hash::Hash;

use fencepost::{Authority, Guard};

use crate::engine::ClockModel;
use crate::invariants::Marks;
use crate::rng::SplitMix64;
use crate::scenario::Point;

/// Most workers the model holds.
pub const MAX_MODEL_WORKERS: usize = 4;
/// Most pending actions the model holds.
pub(super) const MQ: usize = 16;
/// Most actions a paused worker can have waiting.
pub(super) const MD: usize = 6;
/// Most options at one decision point (no fault + the lengths of one kind).
pub(super) const MAX_OPTIONS: usize = 9;
/// Most decision points within one action.
pub(super) const MAX_DECISIONS: usize = 8;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Phase {
    NotStarted,
    Acquiring,
    Working,
    Checking(u16),
    Writing(u16),
    Done,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Dir {
    Lock,
    Storage,
    Worker,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum M {
    Acquire,
    Renew(bool),
    Release,
    Write(u16),
    Granted,
    Denied,
    Renewed(bool),
    Lost,
    Ack(u16, bool),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Act {
    Start(u8),
    WorkDone(u8, u16),
    RetryAcquire(u8),
    Continue(u8, Point, u16),
    PauseEnd(u8),
    ExpiryCheck,
    /// A message between worker `w` and the lock service or storage. `val` is the token, or for
    /// `Denied` the instant a retry could succeed.
    Msg {
        w: u8,
        dir: Dir,
        msg: M,
        val: u64,
    },
}

impl Act {
    pub(super) fn handled_by(&self) -> Option<u8> {
        match *self {
            Act::Start(w) | Act::WorkDone(w, _) | Act::RetryAcquire(w) | Act::Continue(w, ..) => {
                Some(w)
            }
            Act::Msg {
                w,
                dir: Dir::Worker,
                ..
            } => Some(w),
            _ => None,
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub(super) struct Pending {
    pub(super) t: u64,
    pub(super) act: Act,
}

pub(super) const FILLER: Pending = Pending {
    t: 0,
    act: Act::ExpiryCheck,
};

#[derive(Clone, Copy, Debug)]
pub(super) struct Wk {
    pub(super) phase: Phase,
    pub(super) lease: u64,
    pub(super) paused_until: Option<u64>,
    pub(super) nd: u8,
    pub(super) deferred: [Act; MD],
    pub(super) writes_sent: u16,
    pub(super) points: [u16; 3],
    pub(super) clock: ClockModel,
    pub(super) jumped: bool,
}

/// One state of the model.
#[derive(Clone, Debug)]
pub(super) struct State {
    pub(super) now: u64,
    pub(super) nq: u8,
    pub(super) queue: [Pending; MQ],
    pub(super) rng: SplitMix64,
    pub(super) authority: Authority<u8>,
    pub(super) guard: Guard,
    pub(super) marks: Marks,
    pub(super) workers: [Wk; MAX_MODEL_WORKERS],
    pub(super) faults_used: u8,
    /// Bit i: invariant I(i+1) broken.
    pub(super) violated: u8,
    /// When the violation happened.
    pub(super) violated_at: u64,
    /// The model ran out of room (a bigger scope than it holds).
    pub(super) overflow: bool,
}

/// A fault chosen at a decision point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Choice {
    Pause {
        w: u8,
        point: Point,
        nth: u16,
        ms: u64,
    },
    Hold {
        w: u8,
        nth: u16,
        ms: u64,
    },
    Jump {
        w: u8,
        at: u64,
        ms: i64,
    },
}

/// The fixed part of a search: the world and the scope, flattened.
#[derive(Clone, Debug)]
pub(super) struct Model {
    pub(super) fencing: bool,
    pub(super) check_before_write: bool,
    pub(super) lat: (u64, u64),
    pub(super) end_ms: Option<u64>,
    pub(super) first_token: u64,
    pub(super) nw: usize,
    pub(super) work_ms: [u64; MAX_MODEL_WORKERS],
    pub(super) writes: [u32; MAX_MODEL_WORKERS],
    /// Workers the scope may hit.
    pub(super) target: [bool; MAX_MODEL_WORKERS],
    pub(super) points: [bool; 3],
    pub(super) max_faults: u8,
    pub(super) pause_ms: Vec<u64>,
    pub(super) hold_ms: Vec<u64>,
    pub(super) jump_ms: Vec<i64>,
}

/// Makes the decisions of one action: replays a script of option indices, then takes option 0
/// (no fault), remembering how many options each decision point had.
pub(super) struct Chooser<'a> {
    pub(super) script: &'a [u8],
    pub(super) pos: usize,
    pub(super) options: [u8; MAX_DECISIONS],
    pub(super) taken: [u8; MAX_DECISIONS],
    pub(super) chosen: Option<Choice>,
    /// For random walks: pick at random instead (chance per million to inject a fault).
    pub(super) random: Option<(&'a mut SplitMix64, u32)>,
    /// For random walks: the storage's decisions, (t, writer, token, accepted).
    pub(super) writes: Option<&'a mut Vec<(u64, u16, u64, bool)>>,
}

impl<'a> Chooser<'a> {
    pub(super) fn scripted(script: &'a [u8]) -> Chooser<'a> {
        Chooser {
            script,
            pos: 0,
            options: [0; MAX_DECISIONS],
            taken: [0; MAX_DECISIONS],
            chosen: None,
            random: None,
            writes: None,
        }
    }

    /// Picks one of `n` options (0: no fault).
    pub(super) fn pick(&mut self, n: usize) -> usize {
        if n <= 1 {
            return 0;
        }
        let c = if let Some((rng, p)) = self.random.as_mut() {
            if rng.chance(*p) {
                rng.range(1, n as u64 - 1) as usize
            } else {
                0
            }
        } else {
            usize::from(self.script.get(self.pos).copied().unwrap_or(0)).min(n - 1)
        };
        if self.pos < MAX_DECISIONS {
            self.options[self.pos] = n as u8;
            self.taken[self.pos] = c as u8;
        }
        self.pos += 1;
        c
    }
}
