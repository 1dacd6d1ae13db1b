//! The discrete-event engine.
//!
//! Everything happens at virtual milliseconds. Pending actions sit in one priority queue ordered by
//! `(time, insertion number)`, so two actions at the same instant run in the order they were
//! scheduled: the run is a pure function of the scenario and its seed.
//!
//! The actors:
//!
//! * the **lock service** is a real [`fencepost::Authority`]; it persists its snapshot whenever a
//!   grant carries a reservation (fencepost's host contract), which is what an
//!   `authority_restart` with `persisted: true` restores;
//! * the **storage** is a real [`fencepost::Guard`] (with a [`fencepost::FencedResource`] when
//!   idempotency keys are on) when fencing is on with ordered tokens; plain last-writer-wins when
//!   fencing is off; and an equality-only check for `uuid` tokens (a token seen before that is not
//!   the latest is refused, a never-seen one is taken as a new owner);
//! * **workers** acquire (retrying when refused), then for each write: work, optionally renew as a
//!   check, send the write with their token, wait for the acknowledgement; then release. A worker
//!   whose write is refused, or who hears its lease was lost, gives up its job;
//! * the **network** delays each message by a latency drawn from the scenario's range.
//!
//! A paused worker handles nothing: its timers and incoming messages wait, and run in their original
//! order when it resumes, exactly where it stopped. A worker's durations are measured on its own
//! clock, which faults can skew, drift or make jump.

use alloc::collections::BinaryHeap;
use alloc::string::String;
use alloc::vec::Vec;
use core::cmp::Ordering;

use fencepost::{
    AcquireError, Admission, Authority, AuthoritySnapshot, Config, FencedResource, Guard,
    Idempotency, IdempotencyLedger, Token, WriteOutcome,
};

use crate::belief::Belief;
use crate::invariants::{Checker, Owner};
use crate::rng::SplitMix64;
use crate::scenario::{Fault, MAX_FAULTS, MAX_WORKERS, Point, Scenario, TokenKind};
use crate::trace::{Actor, AppliedWrite, Detail, Event, JobEnd, LossWhy, Msg, RejectReason, Trace};

/// Options that override a scenario for one run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunOptions {
    /// Force fencing on or off.
    pub fencing: Option<bool>,
    /// Use this seed instead of the scenario's.
    pub seed: Option<u64>,
    /// Stop at the first step that reaches this many events (the trace says it was truncated).
    /// The events of that step are all kept, so a trace may hold up to [`STEP_EVENTS`] more.
    pub max_events: usize,
    /// Record the events (off: only the verdict and document are kept; faster for sweeps).
    pub record: bool,
}

impl Default for RunOptions {
    fn default() -> RunOptions {
        RunOptions {
            fencing: None,
            seed: None,
            max_events: 1_000_000,
            record: true,
        }
    }
}

/// Most events one step of a run can emit. A step is one scheduled action: a delivery, say, with
/// what it causes (a grant, an applied write) and the message it sends makes three, the most any
/// step emits today; the bound leaves room, and debug builds check it after every step.
pub const STEP_EVENTS: usize = 16;

/// Runs a scenario (already validated) and returns its trace.
pub fn run(scenario: &Scenario) -> Trace {
    run_with(scenario, RunOptions::default())
}

/// Runs a scenario with overrides.
pub fn run_with(scenario: &Scenario, opts: RunOptions) -> Trace {
    let mut sim = Sim::new(scenario, opts);
    sim.run();
    sim.finish()
}

/// Most actions a run with `events` events so far has queued or held back for paused workers:
/// each event schedules at most two on average (a grant schedules its expiry check, and the send
/// and delivery of its answer, two events, the delivery and then the holder's work, renewal and
/// deadline timers: five actions for three events; a deadline timer that finds the deadline moved
/// takes its own place), each fault two more (a pause and its end), and each worker its start.
const fn live_actions(events: u64) -> u64 {
    2 * events + 2 * MAX_FAULTS as u64 + MAX_WORKERS as u64 + 16
}

/// Most bytes of memory a run stopped at `max_events` events can take from the WebAssembly
/// module's allocator (see [`crate::growth_bytes`]) while it runs: every table that grows with
/// its events (each event sends at most one message and applies at most one write and one fresh
/// grant), its queued and held-back actions (one table per worker for those), and its trace
/// (see [`trace_bytes`]) when it records one. The last step may emit up to [`STEP_EVENTS`] events
/// past the limit.
pub fn run_bytes(max_events: usize, record: bool) -> u64 {
    use crate::growth_bytes as g;
    use core::mem::size_of;
    let n = (max_events + STEP_EVENTS) as u64;
    let q = live_actions(n);
    // Per worker at most 8 bytes per action and a few blocks of growth (see growth_bytes).
    let held = 8 * q * size_of::<Action>() as u64 + MAX_WORKERS as u64 * 1024;
    let tables = g(n, size_of::<InFlight>())
        + g(n, size_of::<(Holder, u64, u32)>())
        + g(n, size_of::<u32>())
        + g(n, size_of::<(u16, u16, u32)>())
        + g(q, size_of::<Scheduled>())
        + held;
    tables
        + if record {
            trace_bytes(n)
        } else {
            g(n, size_of::<AppliedWrite>())
        }
}

/// Most bytes of memory a recorded trace of `events` events holds while it grows (its events, and
/// its document, which has fewer writes than the trace has events). Writing it out takes no
/// memory of its size: the events are written one by one, and the WebAssembly package reads a
/// long trace in pieces.
pub fn trace_bytes(events: u64) -> u64 {
    use crate::growth_bytes as g;
    use core::mem::size_of;
    g(events, size_of::<Event>()) + g(events, size_of::<AppliedWrite>()) + 64 * 1024
}

/// Holder identity at the lock service: worker index and incarnation.
type Holder = u32;

fn holder_id(w: u16, inc: u16) -> Holder {
    (u32::from(w) << 16) | u32::from(inc)
}

fn holder_worker(h: Holder) -> u16 {
    (h >> 16) as u16
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Timer {
    WorkDone {
        write: u32,
    },
    RenewTick {
        lease: u32,
    },
    AckTimeout {
        write: u32,
        attempt: u32,
    },
    RetryAcquire,
    /// The worker's keeper deadline may have come: ask it (and look again later if a renewal
    /// moved it).
    SafeUntil {
        lease: u32,
    },
    /// Carry on after a pause injected at a decision point.
    Continue {
        point: Point,
        write: u32,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Action {
    Start { w: u16 },
    Timer { w: u16, inc: u16, timer: Timer },
    Deliver { msg: u32 },
    PauseStart { w: u16, until: u64 },
    PauseEnd { w: u16 },
    Crash { w: u16, restart_after: Option<u64> },
    Restart { w: u16 },
    ClockJump { w: u16, by_ms: i64 },
    AuthorityRestart { persisted: bool },
    ExpiryCheck,
}

impl Action {
    /// The worker whose process handles this action, if any (paused workers defer it).
    fn handled_by(&self, msgs: &[InFlight]) -> Option<u16> {
        match *self {
            Action::Start { w } | Action::Timer { w, .. } => Some(w),
            Action::Deliver { msg } => match msgs[msg as usize].to {
                Actor::Worker(w) => Some(w),
                _ => None,
            },
            _ => None,
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct Scheduled {
    t: u64,
    n: u64,
    action: Action,
}

impl PartialEq for Scheduled {
    fn eq(&self, o: &Self) -> bool {
        (self.t, self.n) == (o.t, o.n)
    }
}
impl Eq for Scheduled {}
impl PartialOrd for Scheduled {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Scheduled {
    fn cmp(&self, o: &Self) -> Ordering {
        // BinaryHeap is a max-heap: reverse so the earliest (then first scheduled) pops first.
        (o.t, o.n).cmp(&(self.t, self.n))
    }
}

#[derive(Clone, Copy, Debug)]
struct InFlight {
    from: Actor,
    to: Actor,
    /// Incarnation of the worker end (sender or recipient).
    inc: u16,
    what: Msg,
    token: Option<u64>,
    /// Grant ordinal of the lease a write or grant belongs to.
    ordinal: u32,
    sent_at: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    NotStarted,
    Acquiring,
    Working,
    Checking { write: u32 },
    Writing { write: u32 },
    Done,
}

#[derive(Clone, Copy, Debug)]
struct Lease {
    token: u64,
    ordinal: u32,
}

/// A worker's clock: skew, drift and one jump. The explorer's model times its workers with the
/// same code.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct ClockModel {
    pub(crate) skew_ms: i64,
    pub(crate) drift_ppm: i32,
    pub(crate) jump_at: Option<u64>,
    pub(crate) jump_ms: i64,
}

impl ClockModel {
    /// Local reading without the jump.
    fn linear(&self, t: u64) -> i128 {
        // t + skew + floor(t * drift / 10^6), with t split as q * 10^6 + r so that the one
        // division left is of 64-bit integers (a 128-bit division costs the WebAssembly
        // simulator a kilobyte of code): floor((q * 10^6 + r) * d / 10^6) = q * d + floor(r * d / 10^6).
        let d = i64::from(self.drift_ppm);
        let (q, r) = (t / 1_000_000, (t % 1_000_000) as i64);
        i128::from(t)
            + i128::from(self.skew_ms)
            + i128::from(q) * i128::from(d)
            + i128::from((r * d).div_euclid(1_000_000))
    }

    /// The worker's clock reading at real time `t`.
    fn local(&self, t: u64) -> i128 {
        let jump = match self.jump_at {
            Some(j) if t >= j => i128::from(self.jump_ms),
            _ => 0,
        };
        self.linear(t) + jump
    }

    /// Smallest real `t >= from` with `linear(t) >= target`.
    fn linear_reach(&self, from: u64, target: i128) -> u64 {
        if self.linear(from) >= target {
            return from;
        }
        // linear(t) ~= t * (1 + d) + skew: start from an estimate and step to the exact answer.
        // The estimate is only where the steps start (they find the same t from anywhere), so
        // floating point does. Its error is that of a few roundings of t to a double's 53 bits:
        // at most 2 steps below 2^53, then growing with t to some thousands near 2^64 (up to
        // about t / 2^50, measured). A target past what the estimate can hold saturates it to
        // u64::MAX; one below any reading makes it 0.
        let x = target - i128::from(self.skew_ms);
        let x = match i64::try_from(x) {
            Ok(x) => x as f64,
            Err(_) if x < 0 => -1.0,
            Err(_) => i64::try_from(x >> 16)
                .map_or(f64::MAX, |h| h as f64 * 65_536.0 + f64::from(x as u16)),
        };
        let est = x * 1_000_000.0 / (1_000_000.0 + f64::from(self.drift_ppm));
        // `as` saturates: a negative or NaN estimate becomes 0, one past u64::MAX becomes MAX.
        let mut t = (est as u64).max(from);
        while t > from && self.linear(t - 1) >= target {
            t -= 1;
        }
        while self.linear(t) < target && t < u64::MAX {
            t += 1;
        }
        t
    }

    /// The real instant at or after `from` when the local clock first reads `target`.
    fn real_at_local(&self, from: u64, target: i128) -> u64 {
        match self.jump_at {
            Some(j) if j > from => {
                // Before the jump the clock is linear; after it, shifted by jump_ms.
                let before = self.linear_reach(from, target);
                if before < j {
                    before
                } else {
                    self.linear_reach(j, target - i128::from(self.jump_ms))
                }
            }
            Some(_) => self.linear_reach(from, target - i128::from(self.jump_ms)),
            None => self.linear_reach(from, target),
        }
    }

    /// The real instant at which `d` local milliseconds have passed since real time `from`.
    pub(crate) fn after(&self, from: u64, d: u64) -> u64 {
        let target = self.local(from) + i128::from(d);
        self.real_at_local(from, target).max(from)
    }
}

#[derive(Clone, Debug)]
struct WorkerState {
    inc: u16,
    alive: bool,
    paused_until: Option<u64>,
    deferred: Vec<Action>,
    phase: Phase,
    lease: Option<Lease>,
    /// Lease generation, so a renew tick of an old lease stops.
    lease_gen: u32,
    /// What the worker believes about its lease, by its own clock.
    belief: Belief,
    /// The real instant its belief ends, as worked out when it last took an answer (a deadline
    /// already passed cannot be worked out again from a clock that has moved on).
    believed: Option<u64>,
    writes_sent: u32,
    points_reached: [u32; 3],
    clock: ClockModel,
}

enum Store {
    /// Fencing with ordered tokens and idempotency keys.
    FencedIdem(FencedResource<(), 64>),
    /// Fencing with ordered tokens.
    Fenced(Guard),
    /// Unique, unordered tokens: equality checks only.
    Uuid {
        seen: Vec<u32>,
        last: Option<u32>,
        ledger: Option<IdempotencyLedger<(), 64>>,
    },
    /// No fencing: last writer wins (with an optional idempotency ledger).
    LastWriterWins(Option<IdempotencyLedger<(), 64>>),
}

struct Sim<'s> {
    sc: &'s Scenario,
    opts: RunOptions,
    fencing: bool,
    cfg: Config,
    now: u64,
    queue: BinaryHeap<Scheduled>,
    n: u64,
    rng: SplitMix64,
    authority: Authority<Holder>,
    persisted: Option<AuthoritySnapshot<Holder>>,
    /// Ordinals of fresh grants, by (holder, token), for the current authority incarnation.
    grants: Vec<(Holder, u64, u32)>,
    next_ordinal: u32,
    store: Store,
    workers: Vec<WorkerState>,
    msgs: Vec<InFlight>,
    events: Vec<Event>,
    event_count: u32,
    truncated: bool,
    checker: Checker,
    names: Vec<String>,
    document: Vec<AppliedWrite>,
}

impl<'s> Sim<'s> {
    fn new(sc: &'s Scenario, opts: RunOptions) -> Sim<'s> {
        let fencing = opts.fencing.unwrap_or(sc.protections.fencing);
        let first = Token::new(sc.first_token).unwrap_or(Token::MIN);
        let cfg = Config::new(sc.lease_ttl_ms.max(1))
            .with_lock_delay(sc.lock_delay_ms)
            .with_first_token(first);
        let authority = Authority::new(cfg).unwrap_or_else(|_| {
            // validate() guarantees a usable config; fall back to the plainest one regardless.
            Authority::new(Config::new(1)).expect("a 1 ms lease is a valid config")
        });
        let idem = sc.protections.idempotency_keys;
        let store = match (fencing, sc.protections.token_kind) {
            (true, TokenKind::Ordered) if idem => Store::FencedIdem(FencedResource::new()),
            (true, TokenKind::Ordered) => Store::Fenced(Guard::new()),
            (true, TokenKind::Uuid) => Store::Uuid {
                seen: Vec::new(),
                last: None,
                ledger: idem.then(IdempotencyLedger::new),
            },
            (false, _) => Store::LastWriterWins(idem.then(IdempotencyLedger::new)),
        };
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
        for f in &sc.faults {
            let widx = |name: &str| sc.worker_index(name).unwrap_or(0) as u16;
            match f {
                Fault::Pause { worker, at, for_ms } => {
                    let until = at.saturating_add(*for_ms);
                    sim.schedule(
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
                } => sim.schedule(
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
                } if *jump_ms != 0 => sim.schedule(
                    *j,
                    Action::ClockJump {
                        w: widx(worker),
                        by_ms: *jump_ms,
                    },
                ),
                Fault::AuthorityRestart { at, persisted } => sim.schedule(
                    *at,
                    Action::AuthorityRestart {
                        persisted: *persisted,
                    },
                ),
                _ => {}
            }
        }
        sim
    }

    fn schedule(&mut self, t: u64, action: Action) {
        self.n += 1;
        self.queue.push(Scheduled {
            // Nothing is ever scheduled in the past: time only moves forward.
            t: t.max(self.now),
            n: self.n,
            action,
        });
    }

    fn emit(&mut self, actor: Actor, token: Option<u64>, detail: Detail) -> u32 {
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

    fn run(&mut self) {
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
            if let Some(w) = s.action.handled_by(&self.msgs) {
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
    fn idle(&self, s: &Scheduled) -> bool {
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

    fn step(&mut self, action: Action) {
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
            Action::ExpiryCheck => {
                if let Some(e) = self.authority.expire(self.now) {
                    self.emit(
                        Actor::Lock,
                        Some(e.token.get()),
                        Detail::Expire {
                            holder: holder_worker(e.holder),
                            free_at: e.free_at,
                        },
                    );
                }
            }
        }
    }

    // ---- network ------------------------------------------------------------------------------

    fn send(
        &mut self,
        from: Actor,
        to: Actor,
        inc: u16,
        what: Msg,
        token: Option<u64>,
        ordinal: u32,
    ) {
        let lat = self
            .rng
            .range(self.sc.latency_ms.min, self.sc.latency_ms.max);
        let mut deliver_at = self.now.saturating_add(lat);
        let worker = match (from, to) {
            (Actor::Worker(w), _) | (_, Actor::Worker(w)) => Some(w),
            _ => None,
        };
        if let Some(w) = worker {
            for f in &self.sc.faults {
                match f {
                    Fault::Partition {
                        worker,
                        from: p_from,
                        to: p_to,
                    } if self.names[usize::from(w)] == *worker
                        && (*p_from..*p_to).contains(&self.now) =>
                    {
                        deliver_at = deliver_at.max(p_to.saturating_add(lat));
                    }
                    Fault::Hold {
                        worker,
                        nth_write,
                        for_ms,
                    } if matches!(what, Msg::Write { .. })
                        && matches!(from, Actor::Worker(_))
                        && self.names[usize::from(w)] == *worker
                        && self.workers[usize::from(w)].writes_sent == *nth_write =>
                    {
                        deliver_at = deliver_at.saturating_add(*for_ms);
                    }
                    _ => {}
                }
            }
        }
        let id = self.msgs.len() as u32;
        self.msgs.push(InFlight {
            from,
            to,
            inc,
            what,
            token,
            ordinal,
            sent_at: self.now,
        });
        // A renew carries the safe-until it may extend, while there is one: once the keeper has
        // said the lease is lost, a renew the job still sends extends nothing.
        let believed_until = match (from, what) {
            (Actor::Worker(w), Msg::Renew { .. }) => {
                let ws = &self.workers[usize::from(w)];
                if ws.belief.lost() { None } else { ws.believed }
            }
            _ => None,
        };
        self.emit(
            from,
            token,
            Detail::Send {
                msg: id,
                to,
                what,
                deliver_at,
                believed_until,
            },
        );
        self.schedule(deliver_at, Action::Deliver { msg: id });
    }

    fn deliver(&mut self, id: u32) {
        let m = self.msgs[id as usize];
        match m.to {
            Actor::Lock => {
                self.emit(Actor::Lock, m.token, self.deliver_detail(id, &m, None));
                self.lock_handles(m);
            }
            Actor::Storage => {
                self.emit(Actor::Storage, m.token, self.deliver_detail(id, &m, None));
                self.storage_handles(m);
            }
            Actor::Worker(w) => {
                let ws = &self.workers[usize::from(w)];
                if !ws.alive || ws.inc != m.inc {
                    // The process it was meant for is gone; nobody reads it.
                    return;
                }
                self.worker_handles(w, id, m);
            }
        }
    }

    fn deliver_detail(&self, id: u32, m: &InFlight, believed_until: Option<u64>) -> Detail {
        Detail::Deliver {
            msg: id,
            from: m.from,
            what: m.what,
            sent_at: m.sent_at,
            believed_until,
        }
    }

    // ---- lock service -------------------------------------------------------------------------

    fn ordinal_of(&self, holder: Holder, token: u64) -> u32 {
        self.grants
            .iter()
            .rev()
            .find(|g| g.0 == holder && g.1 == token)
            .map_or(u32::MAX, |g| g.2)
    }

    fn lock_handles(&mut self, m: InFlight) {
        let Actor::Worker(w) = m.from else { return };
        let h = holder_id(w, m.inc);
        let reply_to = Actor::Worker(w);
        match m.what {
            Msg::Acquire => match self.authority.try_acquire(&h, self.now) {
                Ok(g) => {
                    let token = g.token.get();
                    let reentry = g.reentered();
                    if g.reservation.is_some() {
                        // fencepost's contract: persist the reservation before returning the grant.
                        self.persisted = Some(self.authority.snapshot());
                    }
                    let ordinal = if reentry {
                        self.ordinal_of(h, token)
                    } else {
                        let o = self.next_ordinal;
                        self.next_ordinal += 1;
                        self.grants.push((h, token, o));
                        o
                    };
                    let seq = self.emit(
                        Actor::Lock,
                        Some(token),
                        Detail::Grant {
                            holder: w,
                            expires_at: g.expires_at,
                            reentry,
                        },
                    );
                    if !reentry {
                        self.checker.on_grant(seq, self.now, token, &self.names, w);
                    }
                    self.schedule(g.expires_at, Action::ExpiryCheck);
                    self.send(
                        Actor::Lock,
                        reply_to,
                        m.inc,
                        Msg::Granted {
                            expires_at: g.expires_at,
                        },
                        Some(token),
                        ordinal,
                    );
                }
                Err(e) => {
                    let (holder, until) = match e {
                        AcquireError::Held { holder, until } => {
                            (Some(holder_worker(holder)), until)
                        }
                        AcquireError::LockDelay { until } => (None, until),
                        // Neither happens in a simulation (holders never re-enter; validation
                        // keeps tokens far from the end), but a refusal is the honest answer.
                        _ => (None, u64::MAX),
                    };
                    self.emit(
                        Actor::Lock,
                        None,
                        Detail::Deny {
                            requester: w,
                            holder,
                            until,
                        },
                    );
                    self.send(
                        Actor::Lock,
                        reply_to,
                        m.inc,
                        Msg::Denied { retry_at: until },
                        None,
                        0,
                    );
                }
            },
            Msg::Renew { check } => {
                let token = m.token.and_then(Token::new);
                let renewed = token.map(|t| self.authority.renew(&h, t, self.now));
                match renewed {
                    Some(Ok(r)) => {
                        self.emit(
                            Actor::Lock,
                            m.token,
                            Detail::Renew {
                                holder: w,
                                expires_at: r.expires_at,
                            },
                        );
                        self.schedule(r.expires_at, Action::ExpiryCheck);
                        self.send(
                            Actor::Lock,
                            reply_to,
                            m.inc,
                            Msg::Renewed {
                                expires_at: r.expires_at,
                                check,
                                asked_ms_ago: u32::try_from(self.now - m.sent_at)
                                    .unwrap_or(u32::MAX),
                            },
                            m.token,
                            m.ordinal,
                        );
                    }
                    _ => {
                        self.emit(Actor::Lock, m.token, Detail::RenewLost { holder: w });
                        self.send(Actor::Lock, reply_to, m.inc, Msg::Lost, m.token, m.ordinal);
                    }
                }
            }
            Msg::Release => {
                let ok = m
                    .token
                    .and_then(Token::new)
                    .is_some_and(|t| self.authority.release(&h, t, self.now).is_ok());
                self.emit(Actor::Lock, m.token, Detail::Release { holder: w, ok });
            }
            _ => {}
        }
    }

    fn authority_restart(&mut self, persisted: bool) {
        let restored = if persisted {
            self.persisted
                .clone()
                .and_then(|s| Authority::restore(self.cfg, s).ok())
        } else {
            None
        };
        self.authority = match restored {
            Some(a) => a,
            None => {
                // Nothing persisted (or nothing to restore): a brand new authority. Its clock
                // starts at the present instant.
                let mut a = Authority::new(self.cfg).unwrap_or_else(|_| self.authority.clone());
                a.expire(self.now);
                a
            }
        };
        if !persisted {
            self.persisted = None;
        }
        // The new service re-arms its expiry check for a lease it restored.
        if let Some(l) = self.authority.recorded_lease() {
            let at = l.expires_at;
            self.schedule(at, Action::ExpiryCheck);
        }
        let next = self.authority.next_token().map(Token::get);
        self.emit(
            Actor::Lock,
            None,
            Detail::AuthorityRestart {
                persisted,
                next_token: next,
            },
        );
    }

    // ---- storage ------------------------------------------------------------------------------

    fn storage_handles(&mut self, m: InFlight) {
        let Actor::Worker(w) = m.from else { return };
        let Msg::Write { op, .. } = m.what else {
            return;
        };
        let token = m.token.unwrap_or(0);
        let op_id = (u64::from(w) << 48) | (u64::from(m.inc) << 32) | u64::from(op);
        let idem_token = Token::new(token).unwrap_or(Token::MIN);
        enum Fate {
            Apply(Option<u64>),
            Reject(RejectReason, Option<u64>),
            Dedup,
        }
        let fate = match &mut self.store {
            Store::FencedIdem(r) => {
                let before = r.guard().highest().map(Token::get);
                match r.write(token, op_id, || ()) {
                    WriteOutcome::Applied(()) => Fate::Apply(before),
                    WriteOutcome::Duplicate(()) => Fate::Dedup,
                    WriteOutcome::Stale { highest, .. } => {
                        Fate::Reject(RejectReason::Stale, Some(highest.get()))
                    }
                    _ => Fate::Reject(RejectReason::Stale, before),
                }
            }
            Store::Fenced(g) => match g.admit_raw(token) {
                Admission::Advanced { previous } => Fate::Apply(previous.map(Token::get)),
                Admission::Current => Fate::Apply(g.highest().map(Token::get)),
                Admission::Stale { highest, .. } => {
                    Fate::Reject(RejectReason::Stale, Some(highest.get()))
                }
                _ => Fate::Reject(RejectReason::Stale, g.highest().map(Token::get)),
            },
            Store::Uuid { seen, last, ledger } => {
                if ledger
                    .as_ref()
                    .is_some_and(|l| l.lookup(idem_token, op_id) != Idempotency::Fresh)
                {
                    Fate::Dedup
                } else if *last == Some(m.ordinal) || !seen.contains(&m.ordinal) {
                    seen.push(m.ordinal);
                    *last = Some(m.ordinal);
                    if let Some(l) = ledger {
                        l.record(idem_token, op_id, ());
                    }
                    Fate::Apply(None)
                } else {
                    Fate::Reject(RejectReason::UuidReused, None)
                }
            }
            Store::LastWriterWins(ledger) => {
                if ledger
                    .as_ref()
                    .is_some_and(|l| l.lookup(idem_token, op_id) != Idempotency::Fresh)
                {
                    Fate::Dedup
                } else {
                    if let Some(l) = ledger {
                        l.record(idem_token, op_id, ());
                    }
                    Fate::Apply(None)
                }
            }
        };
        let accepted = match fate {
            Fate::Apply(previous) => {
                // Without fencing the storage keeps no high-water mark; record the one that would
                // have been there so the trace can say the stale write landed.
                let previous = previous.or_else(|| self.document.iter().map(|d| d.token).max());
                let seq = self.emit(
                    Actor::Storage,
                    m.token,
                    Detail::WriteAccepted {
                        writer: w,
                        op,
                        previous,
                    },
                );
                self.document.push(AppliedWrite {
                    writer: w,
                    token,
                    op,
                    t_ms: self.now,
                    seq,
                });
                self.checker.on_write_accepted(
                    seq,
                    self.now,
                    Owner {
                        ordinal: m.ordinal,
                        worker: w,
                        inc: m.inc,
                        token,
                    },
                    op,
                    &self.names,
                );
                true
            }
            Fate::Reject(reason, highest) => {
                self.emit(
                    Actor::Storage,
                    m.token,
                    Detail::WriteRejected {
                        writer: w,
                        op,
                        reason,
                        highest,
                    },
                );
                false
            }
            Fate::Dedup => {
                self.emit(
                    Actor::Storage,
                    m.token,
                    Detail::WriteDeduplicated { writer: w, op },
                );
                true
            }
        };
        self.send(
            Actor::Storage,
            Actor::Worker(w),
            m.inc,
            Msg::Ack { op, accepted },
            m.token,
            m.ordinal,
        );
    }

    // ---- workers ------------------------------------------------------------------------------

    fn start(&mut self, w: u16) {
        let ws = &mut self.workers[usize::from(w)];
        if !ws.alive || ws.phase != Phase::NotStarted {
            return;
        }
        ws.phase = Phase::Acquiring;
        self.send_acquire(w);
    }

    fn send_acquire(&mut self, w: u16) {
        let ws = &mut self.workers[usize::from(w)];
        ws.belief.reset();
        ws.believed = None;
        ws.belief.sent(self.now, ws.clock.local(self.now));
        let inc = ws.inc;
        self.send(Actor::Worker(w), Actor::Lock, inc, Msg::Acquire, None, 0);
    }

    fn worker_timer(&mut self, w: u16, local_delay: u64, timer: Timer) {
        let ws = &self.workers[usize::from(w)];
        let at = ws.clock.after(self.now, local_delay);
        let inc = ws.inc;
        self.schedule(at, Action::Timer { w, inc, timer });
    }

    /// The real instant until which the worker believes its lease holds.
    fn believed_until(&self, w: u16) -> u64 {
        let ws = &self.workers[usize::from(w)];
        // No grant believed (an answer without a token): the belief ends now, not at a sentinel
        // the clock arithmetic could overflow on.
        match ws.belief.until_local() {
            Some(target) => ws.clock.real_at_local(self.now, target),
            None => self.now,
        }
    }

    /// A decision point: pauses the worker here if a `pause_at` fault says so. Returns whether
    /// it paused (the continuation then runs on resume).
    fn point(&mut self, w: u16, point: Point, write: u32) -> bool {
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

    fn pause(&mut self, w: u16, until: u64) {
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

    fn resume(&mut self, w: u16) {
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

    fn crash(&mut self, w: u16, restart_after: Option<u64>) {
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

    fn restart(&mut self, w: u16) {
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

    fn finish_job(&mut self, w: u16, end: JobEnd) {
        let ws = &mut self.workers[usize::from(w)];
        ws.phase = Phase::Done;
        ws.lease = None;
        ws.lease_gen += 1;
        self.emit(Actor::Worker(w), None, Detail::JobDone { end });
    }

    fn worker_handles(&mut self, w: u16, id: u32, m: InFlight) {
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
                let asked = what.asked_at(m.sent_at);
                let ws = &mut self.workers[usize::from(w)];
                let local = ws.clock.local(self.now);
                ws.belief.answered(asked, m.token.unwrap_or(0), local);
                let until = self.believed_until(w);
                self.workers[usize::from(w)].believed = Some(until);
                self.emit(
                    Actor::Worker(w),
                    m.token,
                    self.deliver_detail(id, &m, Some(until)),
                );
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
    fn granted(&mut self, w: u16, id: u32, m: &InFlight) {
        let ws = &mut self.workers[usize::from(w)];
        let local = ws.clock.local(self.now);
        ws.belief.answered(None, m.token.unwrap_or(0), local);
        let until = self.believed_until(w);
        self.workers[usize::from(w)].believed = Some(until);
        self.emit(
            Actor::Worker(w),
            m.token,
            self.deliver_detail(id, m, Some(until)),
        );
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

    /// Wakes the worker when its keeper's deadline comes, so the trace shows the moment the
    /// worker knows its lease ran out (a paused worker learns it when it resumes).
    /// Nothing to watch once the keeper has said the lease is lost, or if it never counted a
    /// deadline (a grant it could not take); and a deadline already reached was told at once.
    fn watch_safe_until(&mut self, w: u16) {
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
    fn safe_until_reached(&mut self, w: u16) {
        if !self.tell_if_lost(w) {
            self.watch_safe_until(w);
        }
    }

    /// Asks the worker's keeper whether its lease is lost; the first time it is, records the
    /// moment. Whether the keeper says so (now or before).
    fn tell_if_lost(&mut self, w: u16) -> bool {
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

    fn holds(&self, w: u16, token: Option<u64>) -> bool {
        let ws = &self.workers[usize::from(w)];
        ws.lease.is_some_and(|l| Some(l.token) == token)
    }

    fn start_work(&mut self, w: u16, write: u32) {
        let work = self.sc.workers[usize::from(w)].job.work_ms;
        self.worker_timer(w, work, Timer::WorkDone { write });
    }

    fn before_write(&mut self, w: u16, write: u32) {
        if !self.point(w, Point::BeforeWrite, write) {
            self.send_write(w, write, 1);
        }
    }

    /// Sends write `write`; `attempt` counts sends of it (1 for the first).
    fn send_write(&mut self, w: u16, write: u32, attempt: u32) {
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
    fn send_renew(&mut self, w: u16, check: bool) {
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

    fn timer(&mut self, w: u16, timer: Timer) {
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

    fn finish(self) -> Trace {
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_model_inverts() {
        let c = ClockModel {
            skew_ms: 0,
            drift_ppm: -500_000,
            jump_at: None,
            jump_ms: 0,
        };
        // Half speed: 1000 local ms take 2000 real ms.
        assert_eq!(c.after(0, 1000), 2000);
        assert_eq!(c.after(1000, 1000), 3000);
        let fast = ClockModel {
            drift_ppm: 1_000_000,
            ..ClockModel::default()
        };
        assert_eq!(fast.after(0, 1000), 500);
        let jump = ClockModel {
            jump_at: Some(500),
            jump_ms: 400,
            ..ClockModel::default()
        };
        // The clock leaps 400 ms at t=500: a 1000 ms timer set at 0 fires at 600.
        assert_eq!(jump.after(0, 1000), 600);
        assert_eq!(jump.after(0, 300), 300);
        let back = ClockModel {
            jump_at: Some(500),
            jump_ms: -400,
            ..ClockModel::default()
        };
        assert_eq!(back.after(0, 1000), 1400);
        let skew = ClockModel {
            skew_ms: -5_000,
            ..ClockModel::default()
        };
        assert_eq!(skew.after(100, 1000), 1100);
    }

    /// The clock's reading as a plain 128-bit formula.
    fn linear_by_formula(c: &ClockModel, t: u64) -> i128 {
        let t = i128::from(t);
        t + i128::from(c.skew_ms) + (t * i128::from(c.drift_ppm)).div_euclid(1_000_000)
    }

    /// `linear_reach(from, target)` is the smallest instant at or after `from` whose reading
    /// reaches `target`, or u64::MAX when none does.
    fn reaches_first(
        c: &ClockModel,
        from: u64,
        target: i128,
    ) -> Result<(), proptest::test_runner::TestCaseError> {
        let t = c.linear_reach(from, target);
        proptest::prop_assert!(t >= from);
        if t < u64::MAX {
            proptest::prop_assert!(c.linear(t) >= target);
        }
        if t > from {
            proptest::prop_assert!(c.linear(t - 1) < target);
        }
        Ok(())
    }

    /// Instants worth trying: small ones, ones near the 10^6 boundaries of the split, and huge
    /// ones near 2^63 and 2^64.
    fn instant() -> impl proptest::strategy::Strategy<Value = u64> {
        use proptest::prelude::*;
        prop_oneof![
            0u64..5_000_000,
            (0u64..18_446_744_073_709).prop_map(|q| q * 1_000_000),
            (0u64..18_446_744_073_709).prop_map(|q| q * 1_000_000 + 999_999),
            any::<u64>(),
            (u64::MAX - 5_000_000)..=u64::MAX,
            (1u64 << 63) - 5_000_000..(1u64 << 63) + 5_000_000,
        ]
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(20_000))]

        /// The split computation of the reading equals the formula everywhere, for every drift
        /// a scenario may have and for any drift at all.
        #[test]
        fn linear_equals_the_formula(
            t in instant(),
            skew_ms in proptest::prelude::any::<i64>(),
            drift_ppm in proptest::prop_oneof![-900_000i32..=1_000_000, proptest::prelude::any::<i32>()],
        ) {
            let c = ClockModel { skew_ms, drift_ppm, jump_at: None, jump_ms: 0 };
            proptest::prop_assert_eq!(c.linear(t), linear_by_formula(&c, t));
        }

        /// `linear_reach` finds the smallest instant at or after `from` whose reading reaches
        /// the target (or u64::MAX when none does), wherever its estimate starts it.
        #[test]
        fn linear_reach_is_the_first_instant(
            from in instant(),
            ahead in proptest::prop_oneof![0u64..5_000_000, proptest::prelude::any::<u64>()],
            skew_ms in -1_000_000i64..=1_000_000,
            drift_ppm in -900_000i32..=1_000_000,
        ) {
            let c = ClockModel { skew_ms, drift_ppm, jump_at: None, jump_ms: 0 };
            reaches_first(&c, from, c.linear(from) + i128::from(ahead))?;
        }
    }

    proptest::proptest! {
        // Fewer cases: a target near 2^64 takes thousands of steps from its estimate.
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(10_000))]

        /// The same for any target: below the reading at `from`, below any reading (the
        /// estimate's negative branch), beyond 2^79 (its `f64::MAX` branch), near 2^63 and
        /// 2^64, and near or past the reading at u64::MAX.
        #[test]
        fn linear_reach_is_the_first_instant_for_any_target(
            from in instant(),
            target in proptest::prop_oneof![
                -5_000_000i128..5_000_000,
                proptest::strategy::Strategy::prop_map(proptest::prelude::any::<i64>(), i128::from),
                -(1i128 << 100)..(1i128 << 100),
                -(1i128 << 66)..(1i128 << 66),
                (1i128 << 63) - 5_000_000..(1i128 << 63) + 5_000_000,
                (1i128 << 64) - 5_000_000..(1i128 << 64) + 5_000_000,
            ],
            from_end in proptest::option::of(-5_000_000i128..5_000_000),
            skew_ms in -1_000_000i64..=1_000_000,
            drift_ppm in -900_000i32..=1_000_000,
        ) {
            let c = ClockModel { skew_ms, drift_ppm, jump_at: None, jump_ms: 0 };
            let target = from_end.map_or(target, |d| c.linear(u64::MAX) + d);
            reaches_first(&c, from, target)?;
        }
    }
    /// `truncated` says exactly whether the run lost events: cut short by the event limit or
    /// `end_ms`, a run is truncated when, and only when, it has fewer events than the whole run.
    #[test]
    fn truncated_means_events_were_cut_off() {
        let mut scenarios: Vec<Scenario> = crate::PRESETS.iter().map(|p| p.scenario()).collect();
        scenarios.push(
            Scenario::from_json(
                r#"{"version":1,"lease_ttl_ms":1000,"workers":[{"name":"A","job":{"work_ms":10}}]}"#,
            )
            .unwrap(),
        );
        for sc in &scenarios {
            for fencing in [Some(true), Some(false)] {
                let opts = RunOptions {
                    fencing,
                    ..RunOptions::default()
                };
                let full = run_with(sc, opts);
                assert!(!full.truncated, "{}", sc.name);
                let n = full.events.len();
                for max_events in 1..=n + 2 {
                    let t = run_with(sc, RunOptions { max_events, ..opts });
                    assert_eq!(t.truncated, t.events.len() < n, "{} {max_events}", sc.name);
                }
                let last = full.events[n - 1].t_ms;
                for end in full
                    .events
                    .iter()
                    .map(|e| e.t_ms)
                    .chain([last + 1, last + 5000])
                {
                    for end_ms in [end.saturating_sub(1), end] {
                        let mut cut = sc.clone();
                        cut.end_ms = Some(end_ms);
                        let t = run_with(&cut, opts);
                        assert_eq!(t.truncated, t.events.len() < n, "{} end {end_ms}", sc.name);
                    }
                }
            }
        }
    }
}
