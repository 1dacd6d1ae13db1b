//! The marks laid along the lanes: lease bars, zombie stretches (a worker still believes in a
//! lease the lock service no longer gives it), pauses and downtime, each folded from the trace
//! event by event.

use fencepost_sim::{Actor, Beliefs, Detail, Event};

/// How a lease bar ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LeaseEnd {
    /// It ran out.
    Expired,
    /// The holder let go of it.
    Released,
    /// The lock service restarted and forgot it.
    Forgotten,
    /// Still held when the trace stops; drawn up to its planned end.
    Open,
}

/// A lease as the lock service saw it: from grant to expiry or release.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LeaseBar {
    /// Holder.
    pub worker: u16,
    /// Its token.
    pub token: u64,
    /// Grant time.
    pub from: u64,
    /// End time.
    pub to: u64,
    /// How it ended.
    pub end: LeaseEnd,
    /// Seq of the grant.
    pub seq: u32,
}

/// A stretch of time on one worker's lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    /// The worker.
    pub worker: u16,
    /// Start.
    pub from: u64,
    /// End.
    pub to: u64,
}

/// A stretch during which a worker believes it holds a lease the lock service no longer gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Zombie {
    /// The worker.
    pub worker: u16,
    /// The token it believes it holds.
    pub token: u64,
    /// Start.
    pub from: u64,
    /// End (the end of the trace if it never learned).
    pub to: u64,
}

/// The lease bars of a trace, as its events draw them.
#[derive(Default)]
pub(super) struct LeaseBars {
    bars: Vec<LeaseBar>,
    /// Index in `bars` of the lease the lock service currently knows about.
    open: Option<usize>,
}

impl LeaseBars {
    /// Draws `e`, if it is the lock service's.
    pub(super) fn see(&mut self, e: &Event) {
        match e.detail {
            Detail::Grant {
                holder, expires_at, ..
            } => self.grant(e, holder, expires_at),
            Detail::Renew { expires_at, .. } => {
                if let Some(bar) = self.open.and_then(|i| self.bars.get_mut(i)) {
                    bar.to = expires_at;
                }
            }
            Detail::Expire { .. } => self.close(e.t_ms, LeaseEnd::Expired),
            Detail::Release { ok: true, .. } => self.close(e.t_ms, LeaseEnd::Released),
            Detail::AuthorityRestart {
                persisted: false, ..
            } => self.close(e.t_ms, LeaseEnd::Forgotten),
            _ => {}
        }
    }

    /// A grant: the open bar goes on if it is the same holder's re-entry, else a new one starts.
    fn grant(&mut self, e: &Event, holder: u16, expires_at: u64) {
        let token = e.token.unwrap_or(0);
        let open = self.open.and_then(|i| self.bars.get_mut(i));
        match open {
            Some(bar) if bar.worker == holder && bar.token == token => bar.to = expires_at,
            _ => {
                self.close(e.t_ms, LeaseEnd::Expired);
                self.open = Some(self.bars.len());
                self.bars.push(LeaseBar {
                    worker: holder,
                    token,
                    from: e.t_ms,
                    to: expires_at,
                    end: LeaseEnd::Open,
                    seq: e.seq,
                });
            }
        }
    }

    fn close(&mut self, t: u64, end: LeaseEnd) {
        if let Some(bar) = self.open.take().and_then(|i| self.bars.get_mut(i)) {
            bar.to = t;
            bar.end = end;
        }
    }

    /// The bars, in grant order.
    pub(super) fn finish(self) -> Vec<LeaseBar> {
        self.bars
    }
}

/// The stretches of one kind (pauses, or downtime) on the workers' lanes.
struct Stretches {
    /// When each worker's open stretch started.
    since: Vec<Option<u64>>,
    done: Vec<Span>,
}

impl Stretches {
    fn new(workers: usize) -> Stretches {
        Stretches {
            since: vec![None; workers],
            done: Vec::new(),
        }
    }

    fn start(&mut self, e: &Event) {
        if let Actor::Worker(w) = e.actor
            && let Some(s) = self.since.get_mut(usize::from(w))
        {
            *s = Some(e.t_ms);
        }
    }

    fn end(&mut self, e: &Event) {
        if let Actor::Worker(w) = e.actor
            && let Some(from) = self.since.get_mut(usize::from(w)).and_then(Option::take)
        {
            self.done.push(Span {
                worker: w,
                from,
                to: e.t_ms,
            });
        }
    }

    /// The stretches; those still open run to `last`.
    fn finish(mut self, last: u64) -> Vec<Span> {
        for (w, since) in self.since.iter().enumerate() {
            if let (Some(from), Ok(worker)) = (since, u16::try_from(w)) {
                self.done.push(Span {
                    worker,
                    from: *from,
                    to: last,
                });
            }
        }
        self.done
    }
}

/// The workers' pauses and downtime, as their events draw them.
pub(super) struct WorkerSpans {
    pauses: Stretches,
    down: Stretches,
}

impl WorkerSpans {
    /// For a trace of `workers` workers.
    pub(super) fn new(workers: usize) -> WorkerSpans {
        WorkerSpans {
            pauses: Stretches::new(workers),
            down: Stretches::new(workers),
        }
    }

    /// Draws `e`, if it starts or ends a pause or a crash.
    pub(super) fn see(&mut self, e: &Event) {
        match e.detail {
            Detail::PauseStart { .. } => self.pauses.start(e),
            Detail::PauseEnd => self.pauses.end(e),
            Detail::Crash => self.down.start(e),
            Detail::Restart { .. } => self.down.end(e),
            _ => {}
        }
    }

    /// The pauses (by start) and the downtime; those still open run to `last`.
    pub(super) fn finish(self, last: u64) -> (Vec<Span>, Vec<Span>) {
        let mut pauses = self.pauses.finish(last);
        pauses.sort_by_key(|p| (p.from, p.worker));
        (pauses, self.down.finish(last))
    }
}

/// The zombie stretches of a trace: belief and reality compared once every event of an instant
/// ran.
pub(super) struct Zombies {
    beliefs: Beliefs,
    /// Each worker's open stretch: since when, and the token it believes it holds.
    open: Vec<Option<(u64, u64)>>,
    done: Vec<Zombie>,
}

impl Zombies {
    /// For a trace of `workers` workers.
    pub(super) fn new(workers: usize) -> Zombies {
        Zombies {
            beliefs: Beliefs::new(workers),
            open: vec![None; workers],
            done: Vec::new(),
        }
    }

    /// Folds `e`; `instant_done` when it is the last event of its instant.
    pub(super) fn see(&mut self, e: &Event, instant_done: bool) {
        self.beliefs.apply(e);
        if !instant_done {
            return;
        }
        for (w, slot) in self.open.iter_mut().enumerate() {
            let Ok(w16) = u16::try_from(w) else { break };
            match (*slot, self.beliefs.is_zombie(w16)) {
                (None, true) => {
                    let holds = self.beliefs.workers.get(w).and_then(|b| b.holds);
                    *slot = Some((e.t_ms, holds.unwrap_or(0)));
                }
                (Some((from, token)), false) => {
                    self.done.push(Zombie {
                        worker: w16,
                        token,
                        from,
                        to: e.t_ms,
                    });
                    *slot = None;
                }
                _ => {}
            }
        }
    }

    /// The stretches, by start; those still open run to `last`.
    pub(super) fn finish(mut self, last: u64) -> Vec<Zombie> {
        for (w, slot) in self.open.iter().enumerate() {
            if let (Some((from, token)), Ok(worker)) = (slot, u16::try_from(w)) {
                self.done.push(Zombie {
                    worker,
                    token: *token,
                    from: *from,
                    to: last,
                });
            }
        }
        self.done.sort_by_key(|z| (z.from, z.worker));
        self.done
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Timeline;
    use crate::model::testing::{A, B, N, paused};

    #[test]
    fn leases_run_from_grant_to_expiry_or_release() {
        let tl = Timeline::of(&paused(true), N);
        assert_eq!(
            tl.leases,
            [
                LeaseBar {
                    worker: A,
                    token: 33,
                    from: 50,
                    to: 30_050,
                    end: LeaseEnd::Expired,
                    seq: 2
                },
                LeaseBar {
                    worker: B,
                    token: 34,
                    from: 30_100,
                    to: 31_300,
                    end: LeaseEnd::Released,
                    seq: 14
                },
            ]
        );
    }

    #[test]
    fn the_zombie_interval_runs_from_expiry_until_a_learns() {
        let tl = Timeline::of(&paused(true), N);
        assert_eq!(
            tl.zombies,
            [Zombie {
                worker: A,
                token: 33,
                from: 30_050,
                // A's keeper tells it the lease is lost as it wakes at 46 s (its write has just
                // left): from then A no longer believes it holds 33.
                to: 46_000
            }]
        );
        assert_eq!(
            tl.pauses,
            [Span {
                worker: A,
                from: 1_000,
                to: 46_000
            }]
        );
        assert!(tl.down.is_empty());
        // Without fencing A is never told: it stays a zombie until it releases.
        let off = Timeline::of(&paused(false), N);
        assert_eq!(off.zombies.len(), 1);
        assert_eq!((off.zombies[0].from, off.zombies[0].worker), (30_050, A));
    }
}
