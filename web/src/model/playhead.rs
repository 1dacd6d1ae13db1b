//! How far playback has got, and where a trace ends.

use fencepost_sim::{Event, Trace};

/// How far playback has got: a time, and how many events have happened by then.
///
/// Invariant: every event before `upto` is at or before `t`, and every event after it is at or
/// after `t`. Stepping moves one event at a time, so several events at one instant are seen
/// one by one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Playhead {
    /// Virtual time.
    pub t: u64,
    /// Events that have happened.
    pub upto: usize,
}

impl Playhead {
    /// The playhead at time `t`, after every event at or before it.
    pub fn at_time(trace: &Trace, t: u64) -> Playhead {
        Playhead {
            t,
            upto: trace.events.partition_point(|e| e.t_ms <= t),
        }
    }

    /// The playhead right after event `index` (clamped to the trace).
    pub fn at_event(trace: &Trace, index: usize) -> Playhead {
        match trace.events.get(index) {
            Some(e) => Playhead {
                t: e.t_ms,
                upto: index + 1,
            },
            None => Playhead::at_time(trace, end_time(trace)),
        }
    }

    /// One event further (or the same, at the end).
    pub fn next(self, trace: &Trace) -> Playhead {
        match trace.events.get(self.upto) {
            Some(e) => Playhead {
                t: e.t_ms.max(self.t),
                upto: self.upto + 1,
            },
            None => self,
        }
    }

    /// One event back; before the first event, time 0.
    pub fn prev(self, trace: &Trace) -> Playhead {
        match self.upto.checked_sub(2) {
            Some(i) => Playhead::at_event(trace, i),
            None => Playhead::default(),
        }
    }

    /// The last event that happened.
    pub fn current<'a>(&self, trace: &'a Trace) -> Option<&'a Event> {
        self.upto.checked_sub(1).and_then(|i| trace.events.get(i))
    }
}

/// When the last event happens.
pub fn end_time(trace: &Trace) -> u64 {
    trace.events.last().map_or(0, |e| e.t_ms)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::testing::paused;

    #[test]
    fn playhead_steps_event_by_event_and_seeks_by_time() {
        let t = paused(true);
        let p = Playhead::at_time(&t, 30_050);
        assert_eq!(p.upto, 13);
        assert_eq!(p.current(&t).map(|e| e.seq), Some(12));
        let n = p.next(&t);
        assert_eq!((n.t, n.upto), (30_100, 14));
        assert_eq!(
            n.prev(&t),
            Playhead {
                t: 30_050,
                upto: 13
            }
        );
        // Three events share 0.050 s: stepping sees them one by one.
        let mut q = Playhead::at_event(&t, 0);
        let mut seen = Vec::new();
        for _ in 0..4 {
            q = q.next(&t);
            seen.push((q.t, q.upto));
        }
        assert_eq!(seen, [(50, 2), (50, 3), (50, 4), (100, 5)]);
        assert_eq!(Playhead::default().prev(&t), Playhead::default());
        let end = Playhead::at_event(&t, 999);
        assert_eq!((end.t, end.upto), (46_100, t.events.len()));
        assert_eq!(end.next(&t), end);
    }
}
