//! Workers: acquire (retrying when refused), then for each write: work, optionally renew as a
//! check, send the write with their token, wait for the acknowledgement; then release. A worker
//! whose write is refused, or who hears its lease was lost, gives up its job.

use super::queue::{Action, Timer};
use super::sim::{InFlight, Lease, Phase, Sim};
use crate::scenario::Point;
use crate::trace::{Actor, Detail, JobEnd, LossWhy, Msg};

impl Sim<'_> {
    pub(super) fn start(&mut self, w: u16) {
        let ws = &mut self.workers[usize::from(w)];
        if !ws.alive || ws.phase != Phase::NotStarted {
            return;
        }
        ws.phase = Phase::Acquiring;
        self.send_acquire(w);
    }

    pub(super) fn send_acquire(&mut self, w: u16) {
        let ws = &mut self.workers[usize::from(w)];
        ws.belief.reset();
        ws.believed = None;
        ws.belief.sent(self.now, ws.clock.local(self.now));
        let inc = ws.inc;
        self.send(Actor::Worker(w), Actor::Lock, inc, Msg::Acquire, None, 0);
    }

    pub(super) fn worker_timer(&mut self, w: u16, local_delay: u64, timer: Timer) {
        let ws = &self.workers[usize::from(w)];
        let at = ws.clock.after(self.now, local_delay);
        let inc = ws.inc;
        self.schedule(at, Action::Timer { w, inc, timer });
    }

    /// The real instant until which the worker believes its lease holds.
    pub(super) fn believed_until(&self, w: u16) -> u64 {
        let ws = &self.workers[usize::from(w)];
        // No grant believed (an answer without a token): the belief ends now, not at a sentinel
        // the clock arithmetic could overflow on.
        match ws.belief.until_local() {
            Some(target) => ws.clock.real_at_local(self.now, target),
            None => self.now,
        }
    }

    pub(super) fn finish_job(&mut self, w: u16, end: JobEnd) {
        let ws = &mut self.workers[usize::from(w)];
        ws.phase = Phase::Done;
        ws.lease = None;
        ws.lease_gen += 1;
        self.emit(Actor::Worker(w), None, Detail::JobDone { end });
    }

    pub(super) fn worker_handles(&mut self, w: u16, id: u32, m: InFlight) {
        let phase = self.workers[usize::from(w)].phase;
        match (m.what, phase) {
            (Msg::Granted { .. }, Phase::Acquiring) => self.granted(w, id, &m),
            (Msg::Denied { retry_at }, Phase::Acquiring) => {
                self.emit(Actor::Worker(w), None, self.deliver_detail(id, &m, None));
                if retry_at != u64::MAX {
                    let wait = crate::trace::retry_wait(retry_at, self.now);
                    self.worker_timer(w, wait, Timer::RetryAcquire);
                }
            }
            (what @ Msg::Renewed { check, .. }, _) if self.holds(w, m.token) => {
                // The lease now runs from when the renew was sent (as long ago as the worker can
                // tell: from its oldest request when the wait did not fit the message).
                self.take_answer(w, id, &m, what.asked_at(m.sent_at));
                self.tell_if_lost(w);
                if let (true, Phase::Checking { write }) = (check, phase)
                    && !self.point(w, Point::AfterRenewCheck, write)
                {
                    self.before_write(w, write);
                }
            }
            (Msg::Lost, _) if self.holds(w, m.token) => {
                self.emit(Actor::Worker(w), m.token, self.deliver_detail(id, &m, None));
                let ws = &mut self.workers[usize::from(w)];
                let local = ws.clock.local(self.now);
                ws.belief.refused(local);
                self.tell_if_lost(w);
                self.finish_job(w, JobEnd::LeaseLost);
            }
            (Msg::Ack { op, accepted }, Phase::Writing { write }) if op == write => {
                self.emit(Actor::Worker(w), m.token, self.deliver_detail(id, &m, None));
                if !accepted {
                    self.finish_job(w, JobEnd::FencedOut);
                } else if write >= self.sc.workers[usize::from(w)].job.writes {
                    let (inc, token, ordinal) = {
                        let ws = &self.workers[usize::from(w)];
                        let l = ws.lease.map_or((None, 0), |l| (Some(l.token), l.ordinal));
                        (ws.inc, l.0, l.1)
                    };
                    self.send(
                        Actor::Worker(w),
                        Actor::Lock,
                        inc,
                        Msg::Release,
                        token,
                        ordinal,
                    );
                    self.finish_job(w, JobEnd::Completed);
                } else {
                    self.workers[usize::from(w)].phase = Phase::Working;
                    self.start_work(w, write + 1);
                }
            }
            _ => {
                // A late or duplicate answer the worker no longer waits for: it still arrives.
                self.emit(Actor::Worker(w), m.token, self.deliver_detail(id, &m, None));
            }
        }
    }

    /// The grant of an acquire reaches worker `w`, which starts its job. A grant that arrived
    /// after the safe-until it gives (held on the way, or waiting for a paused worker) is lost
    /// as it arrives, and the trace says so there; the worker carries on regardless, as it does
    /// when its deadline passes later, so that what the fence alone stops stays visible.
    pub(super) fn granted(&mut self, w: u16, id: u32, m: &InFlight) {
        self.take_answer(w, id, m, None);
        let job = self.sc.workers[usize::from(w)].job;
        let ws = &mut self.workers[usize::from(w)];
        ws.lease = Some(Lease {
            token: m.token.unwrap_or(0),
            ordinal: m.ordinal,
        });
        ws.lease_gen += 1;
        ws.phase = Phase::Working;
        let lease = ws.lease_gen;
        self.tell_if_lost(w);
        if let Some(every) = job.renew_every_ms {
            self.worker_timer(w, every, Timer::RenewTick { lease });
        }
        self.watch_safe_until(w);
        if !self.point(w, Point::AfterAcquire, 1) {
            self.start_work(w, 1);
        }
    }

    /// A grant or renewal (message `id`, `m`) reaches worker `w`: its keeper takes the answer,
    /// counting the lease from `asked` (when the request it answers left; none: from the grant),
    /// and the worker works out by its own clock until when it believes it holds the lock, which
    /// its delivery records.
    fn take_answer(&mut self, w: u16, id: u32, m: &InFlight, asked: Option<u64>) {
        let ws = &mut self.workers[usize::from(w)];
        let local = ws.clock.local(self.now);
        ws.belief.answered(asked, m.token.unwrap_or(0), local);
        let until = self.believed_until(w);
        self.workers[usize::from(w)].believed = Some(until);
        self.emit(
            Actor::Worker(w),
            m.token,
            self.deliver_detail(id, m, Some(until)),
        );
    }

    /// Wakes the worker when its keeper's deadline comes, so the trace shows the moment the
    /// worker knows its lease ran out (a paused worker learns it when it resumes).
    /// Nothing to watch once the keeper has said the lease is lost, or if it never counted a
    /// deadline (a grant it could not take); and a deadline already reached was told at once.
    pub(super) fn watch_safe_until(&mut self, w: u16) {
        let ws = &self.workers[usize::from(w)];
        let Some(target) = ws.belief.until_local().filter(|_| !ws.belief.lost()) else {
            return;
        };
        let at = ws.clock.real_at_local(self.now, target);
        if at <= self.now {
            return;
        }
        let (inc, lease) = (ws.inc, ws.lease_gen);
        self.schedule(
            at,
            Action::Timer {
                w,
                inc,
                timer: Timer::SafeUntil { lease },
            },
        );
    }

    /// The worker's deadline came: its keeper says the lease is lost, unless a renewal answered
    /// since moved the deadline on (then it is watched again).
    pub(super) fn safe_until_reached(&mut self, w: u16) {
        if !self.tell_if_lost(w) {
            self.watch_safe_until(w);
        }
    }

    /// Asks the worker's keeper whether its lease is lost; the first time it is, records the
    /// moment. Whether the keeper says so (now or before).
    pub(super) fn tell_if_lost(&mut self, w: u16) -> bool {
        let ws = &mut self.workers[usize::from(w)];
        let local = ws.clock.local(self.now);
        let why = match ws.belief.newly_lost(local) {
            Some(fencepost::Loss::Expired) => LossWhy::Expired,
            Some(fencepost::Loss::Refused) => LossWhy::Refused,
            // The simulated worker never tells its keeper it let go.
            Some(_) => return true,
            None => return ws.belief.lost(),
        };
        let token = ws.lease.map(|l| l.token);
        let believed_until = ws.believed;
        self.emit(
            Actor::Worker(w),
            token,
            Detail::LeaseLost {
                why,
                believed_until,
            },
        );
        true
    }

    pub(super) fn holds(&self, w: u16, token: Option<u64>) -> bool {
        let ws = &self.workers[usize::from(w)];
        ws.lease.is_some_and(|l| Some(l.token) == token)
    }

    pub(super) fn start_work(&mut self, w: u16, write: u32) {
        let work = self.sc.workers[usize::from(w)].job.work_ms;
        self.worker_timer(w, work, Timer::WorkDone { write });
    }

    pub(super) fn before_write(&mut self, w: u16, write: u32) {
        if !self.point(w, Point::BeforeWrite, write) {
            self.send_write(w, write, 1);
        }
    }

    /// Sends write `write`; `attempt` counts sends of it (1 for the first).
    pub(super) fn send_write(&mut self, w: u16, write: u32, attempt: u32) {
        let retry = attempt > 1;
        let job = self.sc.workers[usize::from(w)].job;
        let ws = &mut self.workers[usize::from(w)];
        let Some(lease) = ws.lease else { return };
        ws.writes_sent += 1;
        ws.phase = Phase::Writing { write };
        let inc = ws.inc;
        self.send(
            Actor::Worker(w),
            Actor::Storage,
            inc,
            Msg::Write { op: write, retry },
            Some(lease.token),
            lease.ordinal,
        );
        if let Some(after) = job.retry_after_ms {
            self.worker_timer(w, after, Timer::AckTimeout { write, attempt });
        }
    }

    /// Sends a renew of the worker's lease (`check`: the renew before a write).
    pub(super) fn send_renew(&mut self, w: u16, check: bool) {
        let ws = &mut self.workers[usize::from(w)];
        if let Some(l) = ws.lease {
            ws.belief.sent(self.now, ws.clock.local(self.now));
            self.tell_if_lost(w);
            let ws = &self.workers[usize::from(w)];
            let inc = ws.inc;
            self.send(
                Actor::Worker(w),
                Actor::Lock,
                inc,
                Msg::Renew { check },
                Some(l.token),
                l.ordinal,
            );
        }
    }

    pub(super) fn timer(&mut self, w: u16, timer: Timer) {
        let ws = &self.workers[usize::from(w)];
        let phase = ws.phase;
        match timer {
            Timer::WorkDone { write } if phase == Phase::Working => {
                if self.sc.protections.check_before_write {
                    self.workers[usize::from(w)].phase = Phase::Checking { write };
                    self.send_renew(w, true);
                } else {
                    self.before_write(w, write);
                }
            }
            Timer::RenewTick { lease } if ws.lease_gen == lease && ws.lease.is_some() => {
                self.send_renew(w, false);
                if let Some(every) = self.sc.workers[usize::from(w)].job.renew_every_ms {
                    self.worker_timer(w, every, Timer::RenewTick { lease });
                }
            }
            // Resend the same operation, at most three sends in all.
            Timer::AckTimeout { write, attempt }
                if phase == (Phase::Writing { write }) && attempt < 3 =>
            {
                self.send_write(w, write, attempt + 1);
            }
            Timer::RetryAcquire if phase == Phase::Acquiring => self.send_acquire(w),
            Timer::SafeUntil { lease } if ws.lease_gen == lease && ws.lease.is_some() => {
                self.safe_until_reached(w);
            }
            Timer::Continue { point, write } => match point {
                Point::AfterAcquire => self.start_work(w, write),
                Point::AfterRenewCheck => self.before_write(w, write),
                Point::BeforeWrite => self.send_write(w, write, 1),
            },
            _ => {}
        }
    }
}
