//! What every actor believes at an instant of a trace: the picture of a zombie lease.

use alloc::vec::Vec;

use super::event::{Actor, Detail, Event, Msg};
use super::record::Trace;

impl Trace {
    /// What every actor believes at instant `t_ms` (after all events at or before it).
    pub fn beliefs_at(&self, t_ms: u64) -> Beliefs {
        let upto = self.events.partition_point(|e| e.t_ms <= t_ms);
        self.beliefs_after(upto)
    }

    /// What every actor believes after the first `count` events.
    pub fn beliefs_after(&self, count: usize) -> Beliefs {
        let mut b = Beliefs::new(self.workers.len());
        for e in self.events.iter().take(count) {
            b.apply(e);
        }
        b
    }
}

impl Beliefs {
    /// Beliefs before anything happened, for `workers` workers.
    pub fn new(workers: usize) -> Beliefs {
        Beliefs {
            workers: alloc::vec![WorkerBelief::default(); workers],
            authority: None,
            storage_highest: None,
            storage_writes: 0,
            storage_last_writer: None,
        }
    }

    /// Updates the beliefs with one more event of the trace (events must come in order). Folding
    /// a trace event by event gives the same beliefs as [`Trace::beliefs_after`], in linear time.
    pub fn apply(&mut self, e: &Event) {
        match e.actor {
            Actor::Worker(w) => {
                if let Some(wb) = self.workers.get_mut(usize::from(w)) {
                    wb.apply(e);
                }
            }
            Actor::Lock => self.apply_lock(e),
            Actor::Storage => {
                if let Detail::WriteAccepted { writer, .. } = e.detail {
                    self.storage_writes += 1;
                    self.storage_last_writer = Some(writer);
                    if let Some(t) = e.token {
                        self.storage_highest =
                            Some(self.storage_highest.map_or(t, |h: u64| h.max(t)));
                    }
                }
            }
        }
    }

    /// What the lock service's event `e` changes in who it gives the lock to.
    fn apply_lock(&mut self, e: &Event) {
        match e.detail {
            Detail::Grant {
                holder, expires_at, ..
            } => {
                self.authority = e.token.map(|token| HolderView {
                    worker: holder,
                    token,
                    until: expires_at,
                });
            }
            Detail::Renew { holder, expires_at } => {
                if let Some(token) = e.token {
                    self.authority = Some(HolderView {
                        worker: holder,
                        token,
                        until: expires_at,
                    });
                }
            }
            Detail::Expire { .. }
            | Detail::Release { ok: true, .. }
            | Detail::AuthorityRestart {
                persisted: false, ..
            } => self.authority = None,
            _ => {}
        }
    }
}

impl WorkerBelief {
    /// What the worker's own event `e` changes in what it believes.
    fn apply(&mut self, e: &Event) {
        match e.detail {
            Detail::Deliver {
                what,
                believed_until,
                ..
            } => match what {
                Msg::Granted { .. } => {
                    self.holds = e.token;
                    self.until = believed_until;
                }
                Msg::Renewed { .. } => self.until = believed_until.or(self.until),
                Msg::Lost
                | Msg::Ack {
                    accepted: false, ..
                } => {
                    self.holds = None;
                    self.until = None;
                }
                _ => {}
            },
            Detail::Send {
                what: Msg::Release, ..
            }
            | Detail::LeaseLost { .. }
            | Detail::Crash => {
                self.holds = None;
                self.until = None;
                self.crashed = matches!(e.detail, Detail::Crash);
            }
            Detail::Restart { .. } => self.crashed = false,
            Detail::PauseStart { until } => self.paused_until = Some(until),
            Detail::PauseEnd => self.paused_until = None,
            _ => {}
        }
    }
}

/// What one worker believes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WorkerBelief {
    /// The token it thinks it holds.
    pub holds: Option<u64>,
    /// Until when it thinks so (real time).
    pub until: Option<u64>,
    /// Frozen until this instant.
    pub paused_until: Option<u64>,
    /// Its process is down.
    pub crashed: bool,
}

/// The authority's real holder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HolderView {
    /// Worker index.
    pub worker: u16,
    /// Token.
    pub token: u64,
    /// Lease end.
    pub until: u64,
}

/// Everyone's view at one instant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Beliefs {
    /// Per worker.
    pub workers: Vec<WorkerBelief>,
    /// The lock service's real holder.
    pub authority: Option<HolderView>,
    /// Highest token the storage accepted.
    pub storage_highest: Option<u64>,
    /// Writes the storage applied.
    pub storage_writes: u32,
    /// Who wrote the document last.
    pub storage_last_writer: Option<u16>,
}

impl Beliefs {
    /// Whether worker `w` believes it holds a lease the lock service no longer gives it: a zombie.
    pub fn is_zombie(&self, w: u16) -> bool {
        let Some(held) = self.workers.get(usize::from(w)).and_then(|b| b.holds) else {
            return false;
        };
        !matches!(self.authority, Some(h) if h.worker == w && h.token == held)
    }
}
