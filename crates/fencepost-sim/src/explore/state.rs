//! One step of the model: the earliest pending action, as the engine orders them.

use alloc::format;
use core::hash::{Hash, Hasher};

use fencepost::{Authority, Config, Guard, Token};

use super::model::{
    Act, Chooser, Dir, FILLER, M, MAX_MODEL_WORKERS, MD, MQ, Model, Pending, Phase, State, Wk,
};
use super::seen::Fx;
use crate::engine::ClockModel;
use crate::invariants::{Invariant, Marks};
use crate::rng::SplitMix64;
use crate::scenario::{Fault, Point, Scenario, ScenarioError};

impl State {
    pub(super) fn initial(world: &Scenario, m: &Model) -> Result<State, ScenarioError> {
        let first = Token::new(world.first_token).unwrap_or(Token::MIN);
        let cfg = Config::new(world.lease_ttl_ms.max(1))
            .with_lock_delay(world.lock_delay_ms)
            .with_first_token(first);
        let authority =
            Authority::new(cfg).map_err(|e| ScenarioError::new("lease_ttl_ms", format!("{e}")))?;
        let wk = Wk {
            phase: Phase::NotStarted,
            lease: 0,
            paused_until: None,
            nd: 0,
            deferred: [Act::ExpiryCheck; MD],
            writes_sent: 0,
            points: [0; 3],
            clock: ClockModel::default(),
            jumped: false,
        };
        let mut s = State {
            now: 0,
            nq: 0,
            queue: [FILLER; MQ],
            rng: SplitMix64::new(world.seed),
            authority,
            guard: Guard::new(),
            marks: Marks::default(),
            workers: [wk; MAX_MODEL_WORKERS],
            faults_used: 0,
            violated: 0,
            violated_at: 0,
            overflow: false,
        };
        for f in &world.faults {
            if let Fault::Clock {
                worker,
                skew_ms,
                drift_ppm,
                ..
            } = f
                && let Some(i) = world.worker_index(worker)
            {
                s.workers[i].clock = ClockModel {
                    skew_ms: *skew_ms,
                    drift_ppm: *drift_ppm,
                    jump_at: None,
                    jump_ms: 0,
                };
            }
        }
        for (i, w) in world.workers.iter().enumerate().take(m.nw) {
            s.schedule(w.start_ms, Act::Start(i as u8));
        }
        Ok(s)
    }

    /// The canonical hash: every live field, nothing of the unused array slots.
    pub(super) fn fingerprint(&self, nw: usize) -> u64 {
        let mut h = Fx(0);
        self.now.hash(&mut h);
        self.nq.hash(&mut h);
        for p in &self.queue[..usize::from(self.nq)] {
            p.t.hash(&mut h);
            p.act.hash(&mut h);
        }
        self.rng.hash(&mut h);
        match self.authority.recorded_lease() {
            Some(l) => {
                (l.holder, l.token.get(), l.granted_at, l.expires_at, l.depth).hash(&mut h);
            }
            None => 0u8.hash(&mut h),
        }
        self.authority.free_at().hash(&mut h);
        self.authority.next_token().map(Token::get).hash(&mut h);
        self.authority.reserved_through().hash(&mut h);
        self.authority.timeline().latest().hash(&mut h);
        self.authority.timeline().clamps().hash(&mut h);
        self.guard.hash(&mut h);
        self.marks.hash(&mut h);
        for w in &self.workers[..nw] {
            w.phase.hash(&mut h);
            w.lease.hash(&mut h);
            w.paused_until.hash(&mut h);
            w.nd.hash(&mut h);
            w.deferred[..usize::from(w.nd)].hash(&mut h);
            w.writes_sent.hash(&mut h);
            w.points.hash(&mut h);
            w.clock.hash(&mut h);
            w.jumped.hash(&mut h);
        }
        (self.faults_used, self.violated, self.violated_at).hash(&mut h);
        h.finish()
    }

    pub(super) fn schedule(&mut self, t: u64, act: Act) {
        let t = t.max(self.now);
        let n = usize::from(self.nq);
        if n >= MQ {
            self.overflow = true;
            return;
        }
        // After every entry due at or before `t`: the engine's (time, scheduling order).
        let mut i = n;
        while i > 0 && self.queue[i - 1].t > t {
            i -= 1;
        }
        self.queue.copy_within(i..n, i + 1);
        self.queue[i] = Pending { t, act };
        self.nq += 1;
    }

    pub(super) fn defer(&mut self, w: u8, act: Act) {
        let wk = &mut self.workers[usize::from(w)];
        let n = usize::from(wk.nd);
        if n >= MD {
            self.overflow = true;
            return;
        }
        wk.deferred[n] = act;
        wk.nd += 1;
    }

    pub(super) fn is_terminal(&self, m: &Model) -> bool {
        self.nq == 0 || self.overflow || m.end_ms.is_some_and(|end| self.queue[0].t > end)
    }

    /// Takes the next action. Returns false when there is none.
    pub(super) fn step(&mut self, m: &Model, ch: &mut Chooser<'_>) -> bool {
        if self.is_terminal(m) {
            return false;
        }
        let Pending { t, act } = self.queue[0];
        let n = usize::from(self.nq);
        self.queue.copy_within(1..n, 0);
        self.nq -= 1;
        self.now = t;
        if let Some(w) = act.handled_by()
            && self.workers[usize::from(w)].paused_until.is_some()
        {
            self.defer(w, act);
            return true;
        }
        match act {
            Act::Start(w) => {
                let wk = &mut self.workers[usize::from(w)];
                if wk.phase == Phase::NotStarted {
                    wk.phase = Phase::Acquiring;
                    self.send(m, w, Dir::Lock, M::Acquire, 0, 0);
                }
            }
            Act::WorkDone(w, write) => {
                if self.workers[usize::from(w)].phase == Phase::Working {
                    if m.check_before_write {
                        let wk = &mut self.workers[usize::from(w)];
                        wk.phase = Phase::Checking(write);
                        let lease = wk.lease;
                        if lease != 0 {
                            self.send(m, w, Dir::Lock, M::Renew(true), lease, 0);
                        }
                    } else {
                        self.before_write(m, ch, w, write);
                    }
                }
            }
            Act::RetryAcquire(w) => {
                if self.workers[usize::from(w)].phase == Phase::Acquiring {
                    self.send(m, w, Dir::Lock, M::Acquire, 0, 0);
                }
            }
            Act::Continue(w, point, write) => match point {
                Point::AfterAcquire => self.start_work(m, ch, w, write),
                Point::AfterRenewCheck => self.before_write(m, ch, w, write),
                Point::BeforeWrite => self.send_write(m, ch, w, write),
            },
            Act::PauseEnd(w) => {
                let wk = &mut self.workers[usize::from(w)];
                if wk.paused_until == Some(self.now) {
                    wk.paused_until = None;
                    let nd = usize::from(wk.nd);
                    let deferred = wk.deferred;
                    wk.nd = 0;
                    for a in &deferred[..nd] {
                        self.schedule(self.now, *a);
                    }
                }
            }
            Act::ExpiryCheck => {
                let _ = self.authority.expire(self.now);
            }
            Act::Msg { w, dir, msg, val } => match dir {
                Dir::Lock => self.lock_handles(m, w, msg, val),
                Dir::Storage => self.storage_handles(m, ch, w, msg, val),
                Dir::Worker => self.worker_handles(m, ch, w, msg, val),
            },
        }
        true
    }

    pub(super) fn send(&mut self, m: &Model, w: u8, dir: Dir, msg: M, val: u64, extra: u64) {
        let lat = self.rng.range(m.lat.0, m.lat.1);
        let at = self.now.saturating_add(lat).saturating_add(extra);
        self.schedule(at, Act::Msg { w, dir, msg, val });
    }

    pub(super) fn break_(&mut self, inv: Invariant) {
        if self.violated == 0 {
            self.violated_at = self.now;
        }
        self.violated |= 1 << inv.index();
    }
}
