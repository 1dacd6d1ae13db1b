//! The simulation's state: each actor's, the queue and the trace being recorded; how a run is
//! set up from its scenario, and the loop that takes its actions in order.

use alloc::collections::BinaryHeap;
use alloc::string::String;
use alloc::vec::Vec;

use fencepost::{Authority, AuthoritySnapshot, Config, Token};

use super::clock::ClockModel;
use super::options::RunOptions;
// Only the debug-build checks of the run loop use these bounds.
#[cfg(debug_assertions)]
use super::options::{STEP_EVENTS, live_actions};
use super::queue::{Action, Scheduled, Timer};
use super::store::Store;
use crate::belief::Belief;
use crate::invariants::Checker;
use crate::rng::SplitMix64;
use crate::scenario::{Fault, Scenario};
use crate::trace::{Actor, AppliedWrite, Detail, Event, Msg, Trace};

/// Holder identity at the lock service: worker index and incarnation.
pub(super) type Holder = u32;

/// The holder of worker `w`'s incarnation `inc`.
pub(super) fn holder_id(w: u16, inc: u16) -> Holder {
    (u32::from(w) << 16) | u32::from(inc)
}

/// The worker of holder `h`.
pub(super) fn holder_worker(h: Holder) -> u16 {
    (h >> 16) as u16
}

/// A message on its way (or delivered): the network's record of it, by id.
#[derive(Clone, Copy, Debug)]
pub(super) struct InFlight {
    pub(super) from: Actor,
    pub(super) to: Actor,
    /// Incarnation of the worker end (sender or recipient).
    pub(super) inc: u16,
    pub(super) what: Msg,
    pub(super) token: Option<u64>,
    /// Grant ordinal of the lease a write or grant belongs to.
    pub(super) ordinal: u32,
    pub(super) sent_at: u64,
}

/// Where a worker is in its job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Phase {
    NotStarted,
    Acquiring,
    Working,
    Checking { write: u32 },
    Writing { write: u32 },
    Done,
}

/// The lease a worker holds: its token and grant ordinal.
#[derive(Clone, Copy, Debug)]
pub(super) struct Lease {
    pub(super) token: u64,
    pub(super) ordinal: u32,
}

/// One worker's process and job.
#[derive(Clone, Debug)]
pub(super) struct WorkerState {
    pub(super) inc: u16,
    pub(super) alive: bool,
    pub(super) paused_until: Option<u64>,
    pub(super) deferred: Vec<Action>,
    pub(super) phase: Phase,
    pub(super) lease: Option<Lease>,
    /// Lease generation, so a renew tick of an old lease stops.
    pub(super) lease_gen: u32,
    /// What the worker believes about its lease, by its own clock.
    pub(super) belief: Belief,
    /// The real instant its belief ends, as worked out when it last took an answer (a deadline
    /// already passed cannot be worked out again from a clock that has moved on).
    pub(super) believed: Option<u64>,
    pub(super) writes_sent: u32,
    pub(super) points_reached: [u32; 3],
    pub(super) clock: ClockModel,
}

/// One run: every actor's state, the queue of pending actions and what is recorded.
pub(super) struct Sim<'s> {
    pub(super) sc: &'s Scenario,
    pub(super) opts: RunOptions,
    pub(super) fencing: bool,
    pub(super) cfg: Config,
    pub(super) now: u64,
    pub(super) queue: BinaryHeap<Scheduled>,
    pub(super) n: u64,
    pub(super) rng: SplitMix64,
    pub(super) authority: Authority<Holder>,
    pub(super) persisted: Option<AuthoritySnapshot<Holder>>,
    /// Ordinals of fresh grants, by (holder, token), for the current authority incarnation.
    pub(super) grants: Vec<(Holder, u64, u32)>,
    pub(super) next_ordinal: u32,
    pub(super) store: Store,
    pub(super) workers: Vec<WorkerState>,
    pub(super) msgs: Vec<InFlight>,
    pub(super) events: Vec<Event>,
    pub(super) event_count: u32,
    pub(super) truncated: bool,
    pub(super) checker: Checker,
    pub(super) names: Vec<String>,
    pub(super) document: Vec<AppliedWrite>,
}

impl<'s> Sim<'s> {
    /// A run of `sc` about to start: every worker's start and every fault scheduled.
    pub(super) fn new(sc: &'s Scenario, opts: RunOptions) -> Sim<'s> {
        let fencing = opts.fencing.unwrap_or(sc.protections.fencing);
        let first = Token::new(sc.first_token).unwrap_or(Token::MIN);
        let cfg = Config::new(sc.lease_ttl_ms.max(1))
            .with_lock_delay(sc.lock_delay_ms)
            .with_first_token(first);
        let authority = Authority::new(cfg).unwrap_or_else(|_| {
            // validate() guarantees a usable config; fall back to the plainest one regardless.
            Authority::new(Config::new(1)).expect("a 1 ms lease is a valid config")
        });
        let store = Store::new(
            fencing,
            sc.protections.token_kind,
            sc.protections.idempotency_keys,
        );
        // Allocated before the queue and the trace, as the order of allocations decides which
        // of the run's growing tables the allocator can extend in place.
        let workers = workers_of(sc);
        let mut sim = Sim {
            sc,
            opts,
            fencing,
            cfg,
            now: 0,
            queue: BinaryHeap::with_capacity(64),
            n: 0,
            rng: SplitMix64::new(opts.seed.unwrap_or(sc.seed)),
            authority,
            persisted: None,
            grants: Vec::new(),
            next_ordinal: 0,
            store,
            workers,
            msgs: Vec::new(),
            events: Vec::with_capacity(if opts.record { 64 } else { 0 }),
            event_count: 0,
            truncated: false,
            checker: Checker::default(),
            names: sc.workers.iter().map(|w| w.name.clone()).collect(),
            document: Vec::new(),
        };
        for (i, w) in sc.workers.iter().enumerate() {
            sim.schedule(w.start_ms, Action::Start { w: i as u16 });
        }
        sim.schedule_faults();
        sim
    }

    /// Schedules the faults that happen at an instant of their own (the others act when what
    /// they wait for happens).
    fn schedule_faults(&mut self) {
        let sc = self.sc;
        for f in &sc.faults {
            let widx = |name: &str| sc.worker_index(name).unwrap_or(0) as u16;
            match f {
                Fault::Pause { worker, at, for_ms } => {
                    let until = at.saturating_add(*for_ms);
                    self.schedule(
                        *at,
                        Action::PauseStart {
                            w: widx(worker),
                            until,
                        },
                    );
                }
                Fault::Crash {
                    worker,
                    at,
                    restart_after,
                } => self.schedule(
                    *at,
                    Action::Crash {
                        w: widx(worker),
                        restart_after: *restart_after,
                    },
                ),
                Fault::Clock {
                    worker,
                    jump_at: Some(j),
                    jump_ms,
                    ..
                } if *jump_ms != 0 => self.schedule(
                    *j,
                    Action::ClockJump {
                        w: widx(worker),
                        by_ms: *jump_ms,
                    },
                ),
                Fault::AuthorityRestart { at, persisted } => self.schedule(
                    *at,
                    Action::AuthorityRestart {
                        persisted: *persisted,
                    },
                ),
                _ => {}
            }
        }
    }

    pub(super) fn schedule(&mut self, t: u64, action: Action) {
        self.n += 1;
        self.queue.push(Scheduled {
            // Nothing is ever scheduled in the past: time only moves forward.
            t: t.max(self.now),
            n: self.n,
            action,
        });
    }

    pub(super) fn emit(&mut self, actor: Actor, token: Option<u64>, detail: Detail) -> u32 {
        let seq = self.event_count;
        self.event_count += 1;
        if self.opts.record {
            self.events.push(Event {
                seq,
                t_ms: self.now,
                actor,
                token,
                detail,
            });
        }
        seq
    }

    pub(super) fn run(&mut self) {
        while let Some(s) = self.queue.pop() {
            if self.sc.end_ms.is_some_and(|end| s.t > end)
                || self.event_count as usize >= self.opts.max_events
            {
                // Cut short only if something left would still have made an event.
                self.truncated = !self.idle(&s) || self.queue.iter().any(|q| !self.idle(q));
                break;
            }
            self.now = s.t;
            #[cfg(debug_assertions)]
            {
                let held: usize = self.workers.iter().map(|w| w.deferred.len()).sum();
                let live = (self.queue.len() + 1 + held) as u64;
                debug_assert!(
                    live <= live_actions(u64::from(self.event_count)),
                    "{live} actions"
                );
            }
            if let Some(w) = self.handled_by(&s.action) {
                let ws = &mut self.workers[usize::from(w)];
                if ws.paused_until.is_some() && ws.alive {
                    ws.deferred.push(s.action);
                    continue;
                }
            }
            #[cfg(debug_assertions)]
            let before = self.event_count;
            self.step(s.action);
            #[cfg(debug_assertions)]
            debug_assert!(
                (self.event_count - before) as usize <= STEP_EVENTS,
                "{} events in one step",
                self.event_count - before
            );
        }
    }

    /// Whether taking `s` would make no event and change nothing another action depends on: an
    /// expiry check before its lease ends, a timer or message for a process that has died since
    /// (or a timer, but for carrying on after a pause, of a worker whose job is over), the end of
    /// a pause that is already over, the start of a worker that has started. A run stopped with
    /// only such actions left has cut nothing off. (Others may make no event either: they count
    /// as cut off.)
    pub(super) fn idle(&self, s: &Scheduled) -> bool {
        let ws = |w: u16| self.workers.get(usize::from(w));
        let gone = |w: u16, inc: u16| ws(w).is_none_or(|ws| !ws.alive || ws.inc != inc);
        match s.action {
            Action::ExpiryCheck => self
                .authority
                .recorded_lease()
                .is_none_or(|l| l.is_live_at(s.t)),
            Action::Timer { w, inc, timer } => {
                gone(w, inc)
                    || (!matches!(timer, Timer::Continue { .. })
                        && ws(w).is_some_and(|ws| ws.phase == Phase::Done))
            }
            Action::Deliver { msg } => self
                .msgs
                .get(msg as usize)
                .is_some_and(|m| matches!(m.to, Actor::Worker(w) if gone(w, m.inc))),
            Action::PauseEnd { w } => ws(w).is_some_and(|ws| ws.paused_until != Some(s.t)),
            Action::Start { w } => ws(w).is_some_and(|ws| ws.phase != Phase::NotStarted),
            _ => false,
        }
    }

    pub(super) fn step(&mut self, action: Action) {
        match action {
            Action::Start { w } => self.start(w),
            Action::Timer { w, inc, timer } => {
                let ws = &self.workers[usize::from(w)];
                if ws.alive && ws.inc == inc {
                    self.timer(w, timer);
                }
            }
            Action::Deliver { msg } => self.deliver(msg),
            Action::PauseStart { w, until } => self.pause(w, until),
            Action::PauseEnd { w } => self.resume(w),
            Action::Crash { w, restart_after } => self.crash(w, restart_after),
            Action::Restart { w } => self.restart(w),
            Action::ClockJump { w, by_ms } => {
                self.emit(Actor::Worker(w), None, Detail::ClockJump { by_ms });
            }
            Action::AuthorityRestart { persisted } => self.authority_restart(persisted),
            Action::ExpiryCheck => self.expiry_check(),
        }
    }

    pub(super) fn finish(self) -> Trace {
        Trace {
            scenario: self.sc.name.clone(),
            seed: self.opts.seed.unwrap_or(self.sc.seed),
            fencing: self.fencing,
            workers: self.names,
            events: self.events,
            truncated: self.truncated,
            verdict: self.checker.finish(),
            document: self.document,
        }
    }

    /// The worker whose process handles `action`, if any (paused workers defer it).
    fn handled_by(&self, action: &Action) -> Option<u16> {
        match *action {
            Action::Start { w } | Action::Timer { w, .. } => Some(w),
            Action::Deliver { msg } => match self.msgs[msg as usize].to {
                Actor::Worker(w) => Some(w),
                _ => None,
            },
            _ => None,
        }
    }
}

/// Every worker of `sc` before it starts, each with the clock its faults give it.
fn workers_of(sc: &Scenario) -> Vec<WorkerState> {
    let mut workers: Vec<WorkerState> = sc
        .workers
        .iter()
        .map(|_| WorkerState {
            inc: 0,
            alive: true,
            paused_until: None,
            deferred: Vec::new(),
            phase: Phase::NotStarted,
            lease: None,
            lease_gen: 0,
            belief: Belief::new(sc.lease_ttl_ms),
            believed: None,
            writes_sent: 0,
            points_reached: [0; 3],
            clock: ClockModel::default(),
        })
        .collect();
    for f in &sc.faults {
        if let Fault::Clock {
            worker,
            skew_ms,
            drift_ppm,
            jump_at,
            jump_ms,
        } = f
            && let Some(i) = sc.worker_index(worker)
        {
            workers[i].clock = ClockModel {
                skew_ms: *skew_ms,
                drift_ppm: *drift_ppm,
                jump_at: *jump_at,
                jump_ms: *jump_ms,
            };
        }
    }
    workers
}
