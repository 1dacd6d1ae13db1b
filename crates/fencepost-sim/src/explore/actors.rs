//! What the model's lock service, storage and workers do with an action.

use fencepost::{AcquireError, Admission, Token};

use super::model::{Act, Choice, Chooser, Dir, M, Model, Phase, State};
use crate::invariants::Invariant;
use crate::scenario::{MAX_TIME_MS, Point};

impl State {
    pub(super) fn lock_handles(&mut self, m: &Model, w: u8, msg: M, val: u64) {
        match msg {
            M::Acquire => match self.authority.try_acquire(&w, self.now) {
                Ok(g) => {
                    let token = g.token.get();
                    if !g.reentered() && self.marks.grant(token) {
                        self.break_(Invariant::I3);
                    }
                    self.schedule(g.expires_at, Act::ExpiryCheck);
                    self.send(m, w, Dir::Worker, M::Granted, token, 0);
                }
                Err(e) => {
                    let until = match e {
                        AcquireError::Held { until, .. } | AcquireError::LockDelay { until } => {
                            until
                        }
                        _ => u64::MAX,
                    };
                    self.send(m, w, Dir::Worker, M::Denied, until, 0);
                }
            },
            M::Renew(check) => {
                let renewed = Token::new(val).map(|t| self.authority.renew(&w, t, self.now));
                match renewed {
                    Some(Ok(r)) => {
                        self.schedule(r.expires_at, Act::ExpiryCheck);
                        self.send(m, w, Dir::Worker, M::Renewed(check), val, 0);
                    }
                    _ => self.send(m, w, Dir::Worker, M::Lost, val, 0),
                }
            }
            M::Release => {
                if let Some(t) = Token::new(val) {
                    let _ = self.authority.release(&w, t, self.now);
                }
            }
            _ => {}
        }
    }

    pub(super) fn storage_handles(
        &mut self,
        m: &Model,
        ch: &mut Chooser<'_>,
        w: u8,
        msg: M,
        token: u64,
    ) {
        let M::Write(op) = msg else { return };
        let accepted = if m.fencing {
            matches!(
                self.guard.admit_raw(token),
                Admission::Advanced { .. } | Admission::Current
            )
        } else {
            true
        };
        if accepted {
            let ordinal = token.saturating_sub(m.first_token) as u32;
            let b = self.marks.write(ordinal, token);
            if b.i1 {
                self.break_(Invariant::I1);
            }
            if b.i2 {
                self.break_(Invariant::I2);
            }
            if b.i4 {
                self.break_(Invariant::I4);
            }
        }
        if let Some(log) = ch.writes.as_mut() {
            log.push((self.now, u16::from(w), token, accepted));
        }
        self.send(m, w, Dir::Worker, M::Ack(op, accepted), token, 0);
    }

    pub(super) fn worker_handles(
        &mut self,
        m: &Model,
        ch: &mut Chooser<'_>,
        w: u8,
        msg: M,
        val: u64,
    ) {
        let wi = usize::from(w);
        let phase = self.workers[wi].phase;
        let holds = self.workers[wi].lease != 0 && self.workers[wi].lease == val;
        match (msg, phase) {
            (M::Granted, Phase::Acquiring) => {
                let wk = &mut self.workers[wi];
                wk.lease = val;
                wk.phase = Phase::Working;
                if !self.point(m, ch, w, Point::AfterAcquire, 1) {
                    self.start_work(m, ch, w, 1);
                }
            }
            (M::Denied, Phase::Acquiring) if val != u64::MAX => {
                let wait = val.saturating_sub(self.now).max(1);
                self.timer(w, wait, Act::RetryAcquire(w));
            }
            (M::Renewed(check), _) if holds => {
                if let (true, Phase::Checking(write)) = (check, phase)
                    && !self.point(m, ch, w, Point::AfterRenewCheck, write)
                {
                    self.before_write(m, ch, w, write);
                }
            }
            (M::Lost, _) if holds => self.finish_job(w),
            (M::Ack(op, accepted), Phase::Writing(write)) if op == write => {
                if !accepted {
                    self.finish_job(w);
                } else if u32::from(write) >= m.writes[wi] {
                    let lease = self.workers[wi].lease;
                    let token = if lease == 0 { 0 } else { lease };
                    self.send(m, w, Dir::Lock, M::Release, token, 0);
                    self.finish_job(w);
                } else {
                    self.workers[wi].phase = Phase::Working;
                    self.start_work(m, ch, w, write + 1);
                }
            }
            _ => {}
        }
    }

    pub(super) fn finish_job(&mut self, w: u8) {
        let wk = &mut self.workers[usize::from(w)];
        wk.phase = Phase::Done;
        wk.lease = 0;
    }

    pub(super) fn timer(&mut self, w: u8, local_delay: u64, act: Act) {
        let at = self.workers[usize::from(w)]
            .clock
            .after(self.now, local_delay);
        self.schedule(at, act);
    }

    pub(super) fn budget_left(&self, m: &Model, w: u8) -> bool {
        self.faults_used < m.max_faults && m.target[usize::from(w)]
    }

    /// A decision point: maybe pause here. Returns whether the worker paused.
    pub(super) fn point(
        &mut self,
        m: &Model,
        ch: &mut Chooser<'_>,
        w: u8,
        point: Point,
        write: u16,
    ) -> bool {
        let wi = usize::from(w);
        let idx = point as usize;
        self.workers[wi].points[idx] = self.workers[wi].points[idx].saturating_add(1);
        let options = if m.points[idx] && self.budget_left(m, w) {
            1 + m.pause_ms.len()
        } else {
            1
        };
        let c = ch.pick(options);
        if c == 0 {
            return false;
        }
        let ms = m.pause_ms[c - 1];
        self.faults_used += 1;
        ch.chosen = Some(Choice::Pause {
            w,
            point,
            nth: self.workers[wi].points[idx],
            ms,
        });
        let until = self.now.saturating_add(ms);
        self.workers[wi].paused_until = Some(until);
        self.schedule(until, Act::PauseEnd(w));
        self.defer(w, Act::Continue(w, point, write));
        true
    }

    pub(super) fn start_work(&mut self, m: &Model, ch: &mut Chooser<'_>, w: u8, write: u16) {
        let wi = usize::from(w);
        // The jump comes 1 ms later: not past the latest instant a scenario may name, so that
        // the counterexample stays a scenario `run` accepts.
        let options = if !m.jump_ms.is_empty()
            && !self.workers[wi].jumped
            && self.now < MAX_TIME_MS
            && self.budget_left(m, w)
        {
            1 + m.jump_ms.len()
        } else {
            1
        };
        let c = ch.pick(options);
        if c > 0 {
            let ms = m.jump_ms[c - 1];
            let at = self.now.saturating_add(1);
            self.faults_used += 1;
            let wk = &mut self.workers[wi];
            wk.jumped = true;
            wk.clock.jump_at = Some(at);
            wk.clock.jump_ms = ms;
            ch.chosen = Some(Choice::Jump { w, at, ms });
        }
        self.timer(w, m.work_ms[wi], Act::WorkDone(w, write));
    }

    pub(super) fn before_write(&mut self, m: &Model, ch: &mut Chooser<'_>, w: u8, write: u16) {
        if !self.point(m, ch, w, Point::BeforeWrite, write) {
            self.send_write(m, ch, w, write);
        }
    }

    pub(super) fn send_write(&mut self, m: &Model, ch: &mut Chooser<'_>, w: u8, write: u16) {
        let wi = usize::from(w);
        let lease = self.workers[wi].lease;
        if lease == 0 {
            return;
        }
        let wk = &mut self.workers[wi];
        wk.writes_sent = wk.writes_sent.saturating_add(1);
        wk.phase = Phase::Writing(write);
        let nth = wk.writes_sent;
        let options = if !m.hold_ms.is_empty() && self.budget_left(m, w) {
            1 + m.hold_ms.len()
        } else {
            1
        };
        let c = ch.pick(options);
        let extra = if c > 0 {
            let ms = m.hold_ms[c - 1];
            self.faults_used += 1;
            ch.chosen = Some(Choice::Hold { w, nth, ms });
            ms
        } else {
            0
        };
        self.send(m, w, Dir::Storage, M::Write(write), lease, extra);
    }
}
