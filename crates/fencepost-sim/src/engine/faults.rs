//! What befalls a worker's process: pauses (at an instant, or at a decision point), crashes and
//! restarts.

use super::queue::{Action, Timer};
use super::sim::{Phase, Sim, holder_id};
use crate::scenario::{Fault, Point};
use crate::trace::{Actor, Detail};

impl Sim<'_> {
    /// A decision point: pauses the worker here if a `pause_at` fault says so. Returns whether
    /// it paused (the continuation then runs on resume).
    pub(super) fn point(&mut self, w: u16, point: Point, write: u32) -> bool {
        let ws = &mut self.workers[usize::from(w)];
        let idx = point as usize;
        ws.points_reached[idx] += 1;
        let reached = ws.points_reached[idx];
        let name = &self.names[usize::from(w)];
        let pause = self.sc.faults.iter().find_map(|f| match f {
            Fault::PauseAt {
                worker,
                point: p,
                nth,
                for_ms,
            } if worker == name && *p == point && *nth == reached => Some(*for_ms),
            _ => None,
        });
        let Some(for_ms) = pause else { return false };
        let until = self.now.saturating_add(for_ms);
        self.pause(w, until);
        let ws = &mut self.workers[usize::from(w)];
        let inc = ws.inc;
        ws.deferred.push(Action::Timer {
            w,
            inc,
            timer: Timer::Continue { point, write },
        });
        true
    }

    pub(super) fn pause(&mut self, w: u16, until: u64) {
        let ws = &mut self.workers[usize::from(w)];
        if !ws.alive {
            return;
        }
        match ws.paused_until {
            // Already paused: a pause inside a pause extends it.
            Some(u) if u >= until => return,
            Some(_) => ws.paused_until = Some(until),
            None => {
                ws.paused_until = Some(until);
                self.emit(Actor::Worker(w), None, Detail::PauseStart { until });
            }
        }
        self.schedule(until, Action::PauseEnd { w });
    }

    pub(super) fn resume(&mut self, w: u16) {
        let ws = &mut self.workers[usize::from(w)];
        if ws.paused_until != Some(self.now) {
            // Superseded by a longer pause, or the process died meanwhile.
            return;
        }
        ws.paused_until = None;
        let deferred = core::mem::take(&mut ws.deferred);
        self.emit(Actor::Worker(w), None, Detail::PauseEnd);
        for a in deferred {
            self.schedule(self.now, a);
        }
    }

    pub(super) fn crash(&mut self, w: u16, restart_after: Option<u64>) {
        let ws = &mut self.workers[usize::from(w)];
        if !ws.alive {
            return;
        }
        ws.alive = false;
        ws.paused_until = None;
        ws.deferred.clear();
        ws.lease = None;
        ws.phase = Phase::Done;
        // The token of a lease the lock service still gives this process, if any: that lease is
        // left to run out. (A lease past its end is over even before its expiry is noticed.)
        let h = holder_id(w, ws.inc);
        let live = self
            .authority
            .recorded_lease()
            .filter(|l| l.holder == h && l.is_live_at(self.now))
            .map(|l| l.token.get());
        self.emit(Actor::Worker(w), live, Detail::Crash);
        if let Some(r) = restart_after {
            self.schedule(self.now.saturating_add(r), Action::Restart { w });
        }
    }

    pub(super) fn restart(&mut self, w: u16) {
        let ws = &mut self.workers[usize::from(w)];
        ws.inc = ws.inc.wrapping_add(1);
        ws.alive = true;
        ws.phase = Phase::Acquiring;
        // `nth_write` and `nth` count over the worker's whole life, across restarts.
        ws.lease_gen += 1;
        let incarnation = ws.inc;
        self.emit(Actor::Worker(w), None, Detail::Restart { incarnation });
        self.send_acquire(w);
    }
}
