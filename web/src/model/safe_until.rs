//! Each worker's safe-until band: from when it learns it holds a lease to the deadline its keeper
//! counts, moved by every renewal answer it takes, as the trace's events say (the simulator asks
//! the core keeper; nothing here computes a deadline). The band drawn at a playhead is the one
//! the worker believed in after the events that have happened: it reaches ahead of the playhead,
//! which is the point of it (how long the worker may still act), and stops growing when renewals
//! stop being answered.

use fencepost_sim::trace::{JobEnd, LossWhy};
use fencepost_sim::{Actor, Detail, Event, Msg};

/// One lease's band on its worker's lane.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SafeBand {
    /// The worker.
    pub worker: u16,
    /// The lease's token.
    pub token: u64,
    /// When the worker learned of the grant.
    pub from: u64,
    /// Every deadline the worker's keeper gave it: (seq of the event, safe-until), in order.
    pub steps: Vec<(u32, u64)>,
    /// The worker stopped believing in the lease before its deadline (it released it, gave up,
    /// crashed, or was refused): (seq, time).
    pub cut: Option<(u32, u64)>,
    /// The moment its keeper said the lease was lost: (seq, time, why).
    pub lost: Option<(u32, u64, LossWhy)>,
}

/// What a band shows once `upto` events have happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BandAt {
    /// Start.
    pub from: u64,
    /// End: the safe-until believed, or the moment the worker stopped believing, if sooner.
    pub to: u64,
    /// The safe-until believed.
    pub until: u64,
    /// When, and why, the keeper said the lease was lost, if it has by then.
    pub lost: Option<(u64, LossWhy)>,
}

impl SafeBand {
    /// The band after the first `upto` events, if the worker had learned of its lease by then.
    pub fn at(&self, upto: usize) -> Option<BandAt> {
        let happened = |seq: u32| (seq as usize) < upto;
        let until = self
            .steps
            .iter()
            .take_while(|(seq, _)| happened(*seq))
            .last()?
            .1;
        let to = match self.cut {
            Some((seq, t)) if happened(seq) => until.min(t).max(self.from),
            _ => until,
        };
        let lost = self
            .lost
            .filter(|(seq, _, _)| happened(*seq))
            .map(|(_, t, why)| (t, why));
        Some(BandAt {
            from: self.from,
            to,
            until,
            lost,
        })
    }
}

/// The bands of a trace, as its events draw them.
pub(super) struct SafeBands {
    /// Each worker's open band: an index in `done`.
    open: Vec<Option<usize>>,
    done: Vec<SafeBand>,
}

impl SafeBands {
    /// For a trace of `workers` workers.
    pub(super) fn new(workers: usize) -> SafeBands {
        SafeBands {
            open: vec![None; workers],
            done: Vec::new(),
        }
    }

    fn open_band(&mut self, w: u16) -> Option<&mut SafeBand> {
        let i = (*self.open.get(usize::from(w))?)?;
        self.done.get_mut(i)
    }

    /// Draws `e`, if it is a worker's.
    pub(super) fn see(&mut self, e: &Event) {
        let Actor::Worker(w) = e.actor else { return };
        match e.detail {
            Detail::Deliver {
                what: Msg::Granted { .. },
                believed_until: Some(until),
                ..
            } => {
                if let Some(slot) = self.open.get_mut(usize::from(w)) {
                    *slot = Some(self.done.len());
                    self.done.push(SafeBand {
                        worker: w,
                        token: e.token.unwrap_or(0),
                        from: e.t_ms,
                        steps: vec![(e.seq, until)],
                        cut: None,
                        lost: None,
                    });
                }
            }
            Detail::Deliver {
                what: Msg::Renewed { .. },
                believed_until: Some(until),
                ..
            } => {
                if let Some(b) = self.open_band(w) {
                    b.steps.push((e.seq, until));
                }
            }
            Detail::LeaseLost { why, .. } => {
                if let Some(b) = self.open_band(w) {
                    b.lost = Some((e.seq, e.t_ms, why));
                    if why == LossWhy::Refused {
                        b.cut.get_or_insert((e.seq, e.t_ms));
                    }
                }
            }
            Detail::Send {
                what: Msg::Release, ..
            }
            | Detail::Crash
            | Detail::JobDone {
                end: JobEnd::FencedOut | JobEnd::LeaseLost,
            } => {
                let (seq, t) = (e.seq, e.t_ms);
                if let Some(b) = self.open_band(w) {
                    b.cut.get_or_insert((seq, t));
                }
                if let Some(slot) = self.open.get_mut(usize::from(w)) {
                    *slot = None;
                }
            }
            _ => {}
        }
    }

    /// The bands, in the order the workers learned of their leases.
    pub(super) fn finish(self) -> Vec<SafeBand> {
        self.done
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Timeline;
    use crate::model::testing::{A, B, N, paused};
    use fencepost_sim::{RunOptions, preset, run_with};

    #[test]
    fn the_paused_worker_is_safe_until_30_s_and_learns_at_46_s() {
        let tl = Timeline::of(&paused(true), N);
        assert_eq!(
            tl.safe_bands,
            [
                SafeBand {
                    worker: A,
                    token: 33,
                    from: 100,
                    steps: vec![(4, 30_000)],
                    cut: Some((33, 46_100)),
                    lost: Some((28, 46_000, LossWhy::Expired)),
                },
                SafeBand {
                    worker: B,
                    token: 34,
                    from: 30_150,
                    steps: vec![(16, 60_050)],
                    cut: Some((22, 31_250)),
                    lost: None,
                },
            ]
        );
        let a = &tl.safe_bands[0];
        assert_eq!(a.at(4), None, "not before A learns of its grant");
        let early = a.at(5).unwrap();
        assert_eq!((early.from, early.to, early.lost), (100, 30_000, None));
        let knows = a.at(29).unwrap();
        assert_eq!(knows.lost, Some((46_000, LossWhy::Expired)));
        assert_eq!(knows.to, 30_000);
        // B let go at 31.250 s: its band stops there, not at its deadline.
        let b = tl.safe_bands[1].at(23).unwrap();
        assert_eq!((b.to, b.until), (31_250, 60_050));
    }

    #[test]
    fn renewals_move_the_band_and_a_pause_stops_it() {
        let t = run_with(
            &preset("renewal-long-pause").unwrap().scenario(),
            RunOptions::default(),
        );
        let tl = Timeline::of(&t, N);
        let a = &tl.safe_bands[0];
        assert_eq!(a.steps, [(4, 10_000), (14, 13_100), (19, 16_100)]);
        assert_eq!(a.lost, Some((43, 22_100, LossWhy::Expired)));
        assert_eq!(a.at(14).map(|b| b.to), Some(10_000));
        assert_eq!(a.at(15).map(|b| b.to), Some(13_100));
        assert_eq!(
            a.at(42).map(|b| (b.from, b.to, b.lost)),
            Some((100, 16_100, None))
        );
    }
}
