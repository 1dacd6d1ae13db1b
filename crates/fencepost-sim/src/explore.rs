//! Exhaustive search of a small scope, breadth-first, for a shortest counterexample.
//!
//! The **world** is a scenario without its faults (clock skew and drift stay: they describe the
//! machines). The **scope** says which faults may be injected, and how many at most:
//!
//! * a worker pauses at one of its decision points (`after_acquire`, `after_renew_check`,
//!   `before_write`), for one of a few lengths around the lease TTL;
//! * a worker's write is held in the network for one of a few lengths;
//! * a worker's clock jumps (by one of a few amounts) while it works: 1 ms after it starts a work
//!   period.
//!
//! The search walks a compact model of the simulator, one pending action per step, exactly as the
//! engine orders them (earliest first, ties in scheduling order), with the real
//! [`fencepost::Authority`] as its lock service and the real [`fencepost::Guard`] as its storage.
//! At each decision point every choice the scope allows (including "nothing happens") is a
//! separate successor. States are deduplicated by a 64-bit hash of their canonical form (only the
//! live part of every fixed-size array), breadth-first, so the first violation found is at the
//! smallest depth (number of actions) there is. It comes back as a plain [`Scenario`], the world
//! plus the chosen faults, which [`crate::run`] replays to the same violation.
//!
//! The model covers what such a scope needs and refuses the rest with an error naming the field:
//! at most four workers, no periodic renewal, no write retries, ordered tokens without idempotency
//! keys. Invariants I1 to I4 are checked (I5 needs retries).
//!
//! The core takes no clock: the caller times [`Search::run`] or the slices of [`Search::step`] and
//! divides the counts in the [`SearchReport`].

use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use core::hash::{Hash, Hasher};

use fencepost::{AcquireError, Admission, Authority, Config, Guard, Token};
use serde::Serialize;

use crate::engine::ClockModel;
use crate::invariants::{Invariant, Marks};
use crate::object::object;
use crate::rng::SplitMix64;
use crate::scenario::{Fault, MAX_TIME_MS, Point, Scenario, ScenarioError, TokenKind};

/// Most workers the model holds.
pub const MAX_MODEL_WORKERS: usize = 4;
/// Most pending actions the model holds.
const MQ: usize = 16;
/// Most actions a paused worker can have waiting.
const MD: usize = 6;
/// Most options at one decision point (no fault + the lengths of one kind).
const MAX_OPTIONS: usize = 9;
/// Most decision points within one action.
const MAX_DECISIONS: usize = 8;

/// Which faults the search may inject, and how many at most.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Scope {
    /// Most faults on one path.
    pub max_faults: u32,
    /// Decision points where a worker may pause.
    pub points: Vec<Point>,
    /// Pause lengths (at most 8).
    pub pause_ms: Vec<u64>,
    /// Extra delays of a held write (at most 8).
    pub hold_ms: Vec<u64>,
    /// Clock jumps (negative: back; at most 8); each worker's clock jumps at most once.
    pub jump_ms: Vec<i64>,
    /// Workers that may be hit (empty: all).
    pub workers: Vec<String>,
}

object!(Scope {
    max_faults,
    points = Point::ALL.to_vec(),
    pause_ms = Vec::new(),
    hold_ms = Vec::new(),
    jump_ms = Vec::new(),
    workers = Vec::new(),
});

impl Scope {
    /// Pauses, holds and backward clock jumps of half, one and one and a half lease TTLs, at every
    /// decision point, at most `max_faults` of them.
    pub fn around_ttl(ttl_ms: u64, max_faults: u32) -> Scope {
        let lens = lengths(ttl_ms);
        Scope {
            max_faults,
            points: Point::ALL.to_vec(),
            pause_ms: lens.clone(),
            hold_ms: lens.clone(),
            jump_ms: lens.iter().map(|l| -(*l as i64)).collect(),
            workers: Vec::new(),
        }
    }

    /// Pauses and holds only (no clock jumps), as [`Scope::around_ttl`].
    pub fn pauses_and_holds(ttl_ms: u64, max_faults: u32) -> Scope {
        Scope {
            jump_ms: Vec::new(),
            ..Scope::around_ttl(ttl_ms, max_faults)
        }
    }

    fn validate(&self, world: &Scenario) -> Result<(), ScenarioError> {
        if self.max_faults > 16 {
            return Err(ScenarioError::new("scope.max_faults", "must be at most 16"));
        }
        for (field, n) in [
            ("scope.pause_ms", self.pause_ms.len()),
            ("scope.hold_ms", self.hold_ms.len()),
            ("scope.jump_ms", self.jump_ms.len()),
        ] {
            if n > MAX_OPTIONS - 1 {
                return Err(ScenarioError::new(field, "at most 8 values"));
            }
        }
        for (field, lens) in [("pause_ms", &self.pause_ms), ("hold_ms", &self.hold_ms)] {
            if let Some(i) = lens.iter().position(|v| *v > MAX_TIME_MS) {
                return Err(ScenarioError::new(
                    format!("scope.{field}[{i}]"),
                    format!("must be at most {MAX_TIME_MS} ms"),
                ));
            }
        }
        if self.jump_ms.iter().any(|j| j.unsigned_abs() > MAX_TIME_MS) {
            return Err(ScenarioError::new("scope.jump_ms", "is out of range"));
        }
        for (i, w) in self.workers.iter().enumerate() {
            if world.worker_index(w).is_none() {
                return Err(ScenarioError::new(
                    format!("scope.workers[{i}]"),
                    format!("no worker is named `{w}`"),
                ));
            }
        }
        Ok(())
    }
}

fn lengths(ttl: u64) -> Vec<u64> {
    let mut v: Vec<u64> = [ttl / 2, ttl, ttl + ttl / 2]
        .into_iter()
        .filter(|l| *l > 0)
        .collect();
    v.dedup();
    v
}

/// How a search runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct SearchOptions {
    /// Force fencing on or off (default: the world's protections).
    pub fencing: Option<bool>,
    /// Do not expand states at this depth (actions from the start).
    pub max_depth: u32,
    /// Stop after this many distinct states.
    pub max_states: u64,
    /// Stop at the first (so shortest) counterexample; otherwise explore the whole scope and
    /// count violating states.
    pub stop_at_first: bool,
}

impl Default for SearchOptions {
    fn default() -> SearchOptions {
        SearchOptions {
            fencing: None,
            max_depth: 10_000,
            max_states: 20_000_000,
            stop_at_first: true,
        }
    }
}

/// A shortest path to a violation, as a scenario.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Counterexample {
    /// Actions from the start to the violating one (the violating one included).
    pub depth: u32,
    /// The invariant it breaks (the lowest-numbered, if several).
    pub invariant: Invariant,
    /// Every invariant the violating action breaks.
    pub broken: Vec<Invariant>,
    /// When.
    pub t_ms: u64,
    /// The faults injected, in the order they struck.
    pub faults: Vec<Fault>,
    /// The world with those faults (and the searched fencing setting): `fencepost sim` replays it.
    pub scenario: Scenario,
}

/// What a search covered and found.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SearchReport {
    /// Whether the storage checked tokens.
    pub fencing: bool,
    /// States taken off the queue and expanded.
    pub states_explored: u64,
    /// Successors generated (duplicates included).
    pub states_generated: u64,
    /// Distinct states (by canonical hash), the initial one included.
    pub distinct_states: u64,
    /// Deepest state reached.
    pub depth: u32,
    /// Distinct violating states seen (not expanded further).
    pub violating_states: u64,
    /// Whether every state of the scope was explored (no depth or state limit cut it short, and
    /// it did not stop at a counterexample).
    pub complete: bool,
    /// Whether the depth limit left states unexpanded.
    pub depth_limited: bool,
    /// The shortest counterexample, if one was found.
    pub counterexample: Option<Counterexample>,
}

impl SearchReport {
    /// The report as JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

// ---- the model ----------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Phase {
    NotStarted,
    Acquiring,
    Working,
    Checking(u16),
    Writing(u16),
    Done,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Dir {
    Lock,
    Storage,
    Worker,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum M {
    Acquire,
    Renew(bool),
    Release,
    Write(u16),
    Granted,
    Denied,
    Renewed(bool),
    Lost,
    Ack(u16, bool),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Act {
    Start(u8),
    WorkDone(u8, u16),
    RetryAcquire(u8),
    Continue(u8, Point, u16),
    PauseEnd(u8),
    ExpiryCheck,
    /// A message between worker `w` and the lock service or storage. `val` is the token, or for
    /// `Denied` the instant a retry could succeed.
    Msg {
        w: u8,
        dir: Dir,
        msg: M,
        val: u64,
    },
}

impl Act {
    fn handled_by(&self) -> Option<u8> {
        match *self {
            Act::Start(w) | Act::WorkDone(w, _) | Act::RetryAcquire(w) | Act::Continue(w, ..) => {
                Some(w)
            }
            Act::Msg {
                w,
                dir: Dir::Worker,
                ..
            } => Some(w),
            _ => None,
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct Pending {
    t: u64,
    act: Act,
}

const FILLER: Pending = Pending {
    t: 0,
    act: Act::ExpiryCheck,
};

#[derive(Clone, Copy, Debug)]
struct Wk {
    phase: Phase,
    lease: u64,
    paused_until: Option<u64>,
    nd: u8,
    deferred: [Act; MD],
    writes_sent: u16,
    points: [u16; 3],
    clock: ClockModel,
    jumped: bool,
}

/// One state of the model.
#[derive(Clone, Debug)]
struct State {
    now: u64,
    nq: u8,
    queue: [Pending; MQ],
    rng: SplitMix64,
    authority: Authority<u8>,
    guard: Guard,
    marks: Marks,
    workers: [Wk; MAX_MODEL_WORKERS],
    faults_used: u8,
    /// Bit i: invariant I(i+1) broken.
    violated: u8,
    /// When the violation happened.
    violated_at: u64,
    /// The model ran out of room (a bigger scope than it holds).
    overflow: bool,
}

/// A fault chosen at a decision point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Choice {
    Pause {
        w: u8,
        point: Point,
        nth: u16,
        ms: u64,
    },
    Hold {
        w: u8,
        nth: u16,
        ms: u64,
    },
    Jump {
        w: u8,
        at: u64,
        ms: i64,
    },
}

/// The fixed part of a search: the world and the scope, flattened.
#[derive(Clone, Debug)]
struct Model {
    fencing: bool,
    check_before_write: bool,
    lat: (u64, u64),
    end_ms: Option<u64>,
    first_token: u64,
    nw: usize,
    work_ms: [u64; MAX_MODEL_WORKERS],
    writes: [u32; MAX_MODEL_WORKERS],
    /// Workers the scope may hit.
    target: [bool; MAX_MODEL_WORKERS],
    points: [bool; 3],
    max_faults: u8,
    pause_ms: Vec<u64>,
    hold_ms: Vec<u64>,
    jump_ms: Vec<i64>,
}

/// Makes the decisions of one action: replays a script of option indices, then takes option 0
/// (no fault), remembering how many options each decision point had.
struct Chooser<'a> {
    script: &'a [u8],
    pos: usize,
    options: [u8; MAX_DECISIONS],
    taken: [u8; MAX_DECISIONS],
    chosen: Option<Choice>,
    /// For random walks: pick at random instead (chance per million to inject a fault).
    random: Option<(&'a mut SplitMix64, u32)>,
    /// For random walks: the storage's decisions, (t, writer, token, accepted).
    writes: Option<&'a mut Vec<(u64, u16, u64, bool)>>,
}

impl<'a> Chooser<'a> {
    fn scripted(script: &'a [u8]) -> Chooser<'a> {
        Chooser {
            script,
            pos: 0,
            options: [0; MAX_DECISIONS],
            taken: [0; MAX_DECISIONS],
            chosen: None,
            random: None,
            writes: None,
        }
    }

    /// Picks one of `n` options (0: no fault).
    fn pick(&mut self, n: usize) -> usize {
        if n <= 1 {
            return 0;
        }
        let c = if let Some((rng, p)) = self.random.as_mut() {
            if rng.chance(*p) {
                rng.range(1, n as u64 - 1) as usize
            } else {
                0
            }
        } else {
            usize::from(self.script.get(self.pos).copied().unwrap_or(0)).min(n - 1)
        };
        if self.pos < MAX_DECISIONS {
            self.options[self.pos] = n as u8;
            self.taken[self.pos] = c as u8;
        }
        self.pos += 1;
        c
    }
}

impl State {
    fn initial(world: &Scenario, m: &Model) -> Result<State, ScenarioError> {
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
    fn fingerprint(&self, nw: usize) -> u64 {
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

    fn schedule(&mut self, t: u64, act: Act) {
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

    fn defer(&mut self, w: u8, act: Act) {
        let wk = &mut self.workers[usize::from(w)];
        let n = usize::from(wk.nd);
        if n >= MD {
            self.overflow = true;
            return;
        }
        wk.deferred[n] = act;
        wk.nd += 1;
    }

    fn is_terminal(&self, m: &Model) -> bool {
        self.nq == 0 || self.overflow || m.end_ms.is_some_and(|end| self.queue[0].t > end)
    }

    /// Takes the next action. Returns false when there is none.
    fn step(&mut self, m: &Model, ch: &mut Chooser<'_>) -> bool {
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

    fn send(&mut self, m: &Model, w: u8, dir: Dir, msg: M, val: u64, extra: u64) {
        let lat = self.rng.range(m.lat.0, m.lat.1);
        let at = self.now.saturating_add(lat).saturating_add(extra);
        self.schedule(at, Act::Msg { w, dir, msg, val });
    }

    fn break_(&mut self, inv: Invariant) {
        if self.violated == 0 {
            self.violated_at = self.now;
        }
        self.violated |= 1 << inv.index();
    }

    fn lock_handles(&mut self, m: &Model, w: u8, msg: M, val: u64) {
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

    fn storage_handles(&mut self, m: &Model, ch: &mut Chooser<'_>, w: u8, msg: M, token: u64) {
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

    fn worker_handles(&mut self, m: &Model, ch: &mut Chooser<'_>, w: u8, msg: M, val: u64) {
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

    fn finish_job(&mut self, w: u8) {
        let wk = &mut self.workers[usize::from(w)];
        wk.phase = Phase::Done;
        wk.lease = 0;
    }

    fn timer(&mut self, w: u8, local_delay: u64, act: Act) {
        let at = self.workers[usize::from(w)]
            .clock
            .after(self.now, local_delay);
        self.schedule(at, act);
    }

    fn budget_left(&self, m: &Model, w: u8) -> bool {
        self.faults_used < m.max_faults && m.target[usize::from(w)]
    }

    /// A decision point: maybe pause here. Returns whether the worker paused.
    fn point(&mut self, m: &Model, ch: &mut Chooser<'_>, w: u8, point: Point, write: u16) -> bool {
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

    fn start_work(&mut self, m: &Model, ch: &mut Chooser<'_>, w: u8, write: u16) {
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

    fn before_write(&mut self, m: &Model, ch: &mut Chooser<'_>, w: u8, write: u16) {
        if !self.point(m, ch, w, Point::BeforeWrite, write) {
            self.send_write(m, ch, w, write);
        }
    }

    fn send_write(&mut self, m: &Model, ch: &mut Chooser<'_>, w: u8, write: u16) {
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

/// A fast hasher for fingerprints (multiply-rotate, finished by SplitMix64's mixer).
struct Fx(u64);

impl Hasher for Fx {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut b = [0u8; 8];
            b[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(b));
        }
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.write_u64(u64::from(i));
    }
    #[inline]
    fn write_u16(&mut self, i: u16) {
        self.write_u64(u64::from(i));
    }
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.write_u64(u64::from(i));
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0.rotate_left(5) ^ i).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.write_u64(i as u64);
    }
    #[inline]
    fn finish(&self) -> u64 {
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// A set of 64-bit fingerprints: open addressing, linear probing, 0 stands for empty.
struct Seen {
    slots: Vec<u64>,
    len: usize,
}

impl Seen {
    const FIRST: usize = 1 << 12;

    fn new() -> Seen {
        Seen {
            slots: vec![0; Seen::FIRST],
            len: 0,
        }
    }

    /// Inserts; returns whether it was new.
    #[inline]
    fn insert(&mut self, fp: u64) -> bool {
        let fp = fp.max(1);
        if (self.len + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let mask = self.slots.len() - 1;
        let mut i = (fp as usize) & mask;
        loop {
            let s = self.slots[i];
            if s == fp {
                return false;
            }
            if s == 0 {
                self.slots[i] = fp;
                self.len += 1;
                return true;
            }
            i = (i + 1) & mask;
        }
    }

    fn grow(&mut self) {
        let bigger = vec![0; self.slots.len() * 2];
        let old = core::mem::replace(&mut self.slots, bigger);
        let mask = self.slots.len() - 1;
        for fp in old.into_iter().filter(|f| *f != 0) {
            let mut i = (fp as usize) & mask;
            while self.slots[i] != 0 {
                i = (i + 1) & mask;
            }
            self.slots[i] = fp;
        }
    }
}

/// Builds the model of a world; errors name what the model does not cover.
fn model_of(world: &Scenario, scope: &Scope, fencing: bool) -> Result<Model, ScenarioError> {
    world.validate()?;
    scope.validate(world)?;
    if world.workers.len() > MAX_MODEL_WORKERS {
        return Err(ScenarioError::new(
            "workers",
            format!("the exhaustive search models at most {MAX_MODEL_WORKERS} workers"),
        ));
    }
    if world.protections.token_kind != TokenKind::Ordered {
        return Err(ScenarioError::new(
            "protections.token_kind",
            "the exhaustive search models ordered tokens only",
        ));
    }
    if world.protections.idempotency_keys {
        return Err(ScenarioError::new(
            "protections.idempotency_keys",
            "the exhaustive search does not model idempotency keys",
        ));
    }
    let mut work_ms = [0; MAX_MODEL_WORKERS];
    let mut writes = [0; MAX_MODEL_WORKERS];
    let mut target = [scope.workers.is_empty(); MAX_MODEL_WORKERS];
    for (i, w) in world.workers.iter().enumerate() {
        if w.job.renew_every_ms.is_some() {
            return Err(ScenarioError::new(
                format!("workers[{i}].job.renew_every_ms"),
                "the exhaustive search does not model periodic renewal",
            ));
        }
        if w.job.retry_after_ms.is_some() {
            return Err(ScenarioError::new(
                format!("workers[{i}].job.retry_after_ms"),
                "the exhaustive search does not model write retries",
            ));
        }
        if w.job.writes > u32::from(u16::MAX) {
            return Err(ScenarioError::new(
                format!("workers[{i}].job.writes"),
                "too many writes for the exhaustive search",
            ));
        }
        work_ms[i] = w.job.work_ms;
        writes[i] = w.job.writes;
        if scope.workers.contains(&w.name) {
            target[i] = true;
        }
    }
    let mut points = [false; 3];
    for p in &scope.points {
        points[*p as usize] = true;
    }
    Ok(Model {
        fencing,
        check_before_write: world.protections.check_before_write,
        lat: (world.latency_ms.min, world.latency_ms.max),
        end_ms: world.end_ms,
        first_token: world.first_token,
        nw: world.workers.len(),
        work_ms,
        writes,
        target,
        points,
        max_faults: scope.max_faults.min(u32::from(u8::MAX)) as u8,
        pause_ms: scope.pause_ms.clone(),
        hold_ms: scope.hold_ms.clone(),
        jump_ms: scope.jump_ms.clone(),
    })
}

/// The world of a scenario: the scenario without its faults, but with its clock skew and drift.
pub fn world_of(scenario: &Scenario) -> Scenario {
    let mut w = scenario.clone();
    w.faults = scenario
        .faults
        .iter()
        .filter_map(|f| match f {
            Fault::Clock {
                worker,
                skew_ms,
                drift_ppm,
                ..
            } if *skew_ms != 0 || *drift_ppm != 0 => Some(Fault::Clock {
                worker: worker.clone(),
                skew_ms: *skew_ms,
                drift_ppm: *drift_ppm,
                jump_at: None,
                jump_ms: 0,
            }),
            _ => None,
        })
        .collect();
    w
}

/// The world plus the chosen faults, as a scenario the engine replays.
fn scenario_with(world: &Scenario, fencing: bool, choices: &[Choice]) -> (Vec<Fault>, Scenario) {
    let mut s = world.clone();
    s.protections.fencing = fencing;
    let name = |w: u8| {
        world
            .workers
            .get(usize::from(w))
            .map(|x| x.name.clone())
            .unwrap_or_default()
    };
    let mut faults = Vec::new();
    for c in choices {
        let f = match *c {
            Choice::Pause { w, point, nth, ms } => Fault::PauseAt {
                worker: name(w),
                point,
                nth: u32::from(nth),
                for_ms: ms,
            },
            Choice::Hold { w, nth, ms } => Fault::Hold {
                worker: name(w),
                nth_write: u32::from(nth),
                for_ms: ms,
            },
            Choice::Jump { w, at, ms } => {
                // One clock per worker: the jump joins the world's skew and drift.
                let (skew_ms, drift_ppm) = world
                    .faults
                    .iter()
                    .find_map(|f| match f {
                        Fault::Clock {
                            worker,
                            skew_ms,
                            drift_ppm,
                            ..
                        } if *worker == name(w) => Some((*skew_ms, *drift_ppm)),
                        _ => None,
                    })
                    .unwrap_or((0, 0));
                s.faults
                    .retain(|f| !matches!(f, Fault::Clock { worker, .. } if *worker == name(w)));
                Fault::Clock {
                    worker: name(w),
                    skew_ms,
                    drift_ppm,
                    jump_at: Some(at),
                    jump_ms: ms,
                }
            }
        };
        faults.push(f);
    }
    s.faults.extend(faults.iter().cloned());
    if !s.name.ends_with("-counterexample") {
        s.name = format!("{}-counterexample", s.name);
        s.name.truncate(64);
    }
    (faults, s)
}

#[derive(Clone, Copy, Debug)]
struct Meta {
    parent: u32,
    choice: Option<Choice>,
}

/// A state waiting to be expanded: the state, its index in `metas`, its depth.
type Entry = (State, u32, u32);

/// States per chunk of the frontier: as many as fit in 64 KiB.
const CHUNK: usize = {
    let n = (1 << 16) / core::mem::size_of::<Entry>();
    if n == 0 { 1 } else { n }
};

/// The frontier, first in first out, in chunks of [`CHUNK`] states (each emptied once read): it
/// grows and shrinks by blocks of one size, which the WebAssembly module's allocator reuses,
/// instead of one table that doubles (and would need twice its size while it moves).
struct Frontier {
    chunks: Vec<Vec<Entry>>,
    pushed: usize,
    popped: usize,
}

impl Frontier {
    fn push(&mut self, e: Entry) {
        if self.pushed.is_multiple_of(CHUNK) {
            self.chunks.push(Vec::with_capacity(CHUNK));
        }
        if let Some(c) = self.chunks.last_mut() {
            c.push(e);
        }
        self.pushed += 1;
    }

    fn pop(&mut self) -> Option<Entry> {
        let c = self.chunks.get_mut(self.popped / CHUNK)?;
        let e = c.get(self.popped % CHUNK)?.clone();
        self.popped += 1;
        if self.popped.is_multiple_of(CHUNK) {
            *c = Vec::new();
        }
        Some(e)
    }
}

/// A breadth-first search that can be advanced in slices.
pub struct Search {
    world: Scenario,
    model: Model,
    opts: SearchOptions,
    frontier: Frontier,
    seen: Seen,
    metas: Vec<Meta>,
    report: SearchReport,
    done: bool,
}

impl Search {
    /// A search of `world` (see [`world_of`]) within `scope`.
    pub fn new(
        world: &Scenario,
        scope: &Scope,
        opts: SearchOptions,
    ) -> Result<Search, ScenarioError> {
        let fencing = opts.fencing.unwrap_or(world.protections.fencing);
        let model = model_of(world, scope, fencing)?;
        let init = State::initial(world, &model)?;
        let mut seen = Seen::new();
        seen.insert(init.fingerprint(model.nw));
        let mut frontier = Frontier {
            chunks: Vec::new(),
            pushed: 0,
            popped: 0,
        };
        frontier.push((init, 0, 0));
        Ok(Search {
            world: world.clone(),
            model,
            opts,
            frontier,
            seen,
            metas: vec![Meta {
                parent: u32::MAX,
                choice: None,
            }],
            report: SearchReport {
                fencing,
                distinct_states: 1,
                ..SearchReport::default()
            },
            done: false,
        })
    }

    /// Whether the search has finished (scope exhausted, a limit hit, or a counterexample found).
    pub fn finished(&self) -> bool {
        self.done
    }

    /// What it covered and found so far.
    pub fn report(&self) -> &SearchReport {
        &self.report
    }

    /// Runs to the end.
    pub fn run(mut self) -> Result<SearchReport, ScenarioError> {
        while !self.step(1 << 16)? {}
        Ok(self.report)
    }

    /// Expands up to `budget` states. Returns whether the search has finished.
    pub fn step(&mut self, budget: u64) -> Result<bool, ScenarioError> {
        let mut left = budget;
        while left > 0 && !self.done {
            let Some((state, idx, depth)) = self.frontier.pop() else {
                self.report.complete = !self.report.depth_limited;
                self.done = true;
                break;
            };
            left -= 1;
            if depth >= self.opts.max_depth {
                self.report.depth_limited = true;
                continue;
            }
            self.report.states_explored += 1;
            self.expand(&state, idx, depth)?;
        }
        Ok(self.done)
    }

    fn expand(&mut self, state: &State, idx: u32, depth: u32) -> Result<(), ScenarioError> {
        let mut script = [0u8; MAX_DECISIONS];
        let mut len = 0usize;
        loop {
            let mut next = state.clone();
            let mut ch = Chooser::scripted(&script[..len]);
            if !next.step(&self.model, &mut ch) {
                return Ok(());
            }
            if ch.pos > MAX_DECISIONS || next.overflow {
                return Err(ScenarioError::new(
                    "",
                    "the scope is larger than the exhaustive search's model holds",
                ));
            }
            self.report.states_generated += 1;
            let fp = next.fingerprint(self.model.nw);
            if self.seen.insert(fp) {
                self.report.distinct_states += 1;
                let d = depth + 1;
                self.report.depth = self.report.depth.max(d);
                let me = self.metas.len() as u32;
                self.metas.push(Meta {
                    parent: idx,
                    choice: ch.chosen,
                });
                if next.violated != 0 {
                    self.report.violating_states += 1;
                    if self.report.counterexample.is_none() {
                        self.report.counterexample = Some(self.counterexample(me, d, &next));
                    }
                    if self.opts.stop_at_first {
                        self.done = true;
                        return Ok(());
                    }
                } else if !next.is_terminal(&self.model) {
                    self.frontier.push((next, me, d));
                }
                if self.report.distinct_states >= self.opts.max_states {
                    self.done = true;
                    return Ok(());
                }
            }
            // Next combination of choices: the last decision with an option left moves on.
            let (taken, options, n) = (ch.taken, ch.options, ch.pos.min(MAX_DECISIONS));
            let mut i = n;
            loop {
                if i == 0 {
                    return Ok(());
                }
                i -= 1;
                if taken[i] + 1 < options[i] {
                    break;
                }
            }
            script[..i].copy_from_slice(&taken[..i]);
            script[i] = taken[i] + 1;
            len = i + 1;
        }
    }

    fn counterexample(&self, idx: u32, depth: u32, state: &State) -> Counterexample {
        let mut choices = Vec::new();
        let mut i = idx;
        while let Some(m) = self.metas.get(i as usize) {
            if let Some(c) = m.choice {
                choices.push(c);
            }
            i = m.parent;
        }
        choices.reverse();
        let broken: Vec<Invariant> = Invariant::ALL
            .into_iter()
            .filter(|inv| state.violated & (1 << inv.index()) != 0)
            .collect();
        let invariant = broken.first().copied().unwrap_or(Invariant::I1);
        let (faults, scenario) = scenario_with(&self.world, self.model.fencing, &choices);
        Counterexample {
            depth,
            invariant,
            broken,
            t_ms: state.violated_at,
            faults,
            scenario,
        }
    }
}

/// Most bytes of memory a search that stops at `max_states` distinct states can take from the
/// WebAssembly module's allocator (see [`crate::growth_bytes`]): its frontier (every distinct
/// state at most once, in chunks of 64 KiB, the first and last partly used), the parent of each
/// state, the fingerprint table (at most half full) and a megabyte for the world, the scope and
/// the counterexample. The same for every world: states have a fixed size.
pub fn search_bytes(max_states: u64) -> u64 {
    use crate::growth_bytes as g;
    use core::mem::size_of;
    let n = max_states.max(2);
    let chunks = n / CHUNK as u64 + 2;
    let chunk = (CHUNK * size_of::<Entry>()).next_power_of_two() as u64;
    let mut slots = Seen::FIRST as u64;
    let mut seen = 0;
    loop {
        seen += slots * 8;
        if slots >= 2 * n {
            break;
        }
        slots *= 2;
    }
    chunks * chunk + g(chunks, size_of::<Vec<Entry>>()) + g(n, size_of::<Meta>()) + seen + (1 << 20)
}

/// Searches `world` within `scope` to the end.
pub fn search(
    world: &Scenario,
    scope: &Scope,
    opts: SearchOptions,
) -> Result<SearchReport, ScenarioError> {
    Search::new(world, scope, opts)?.run()
}

/// One random path through the model, for checking the model against the engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Walk {
    /// The world with the faults the walk injected.
    pub scenario: Scenario,
    /// The storage's decisions: (time, writer, token, accepted).
    pub writes: Vec<(u64, u16, u64, bool)>,
    /// Invariants broken.
    pub broken: Vec<Invariant>,
    /// Actions taken.
    pub steps: u32,
}

/// Walks one random path: at each decision point a fault is injected with probability
/// `per_million / 1e6` (within the scope's budget).
pub fn random_walk(
    world: &Scenario,
    scope: &Scope,
    fencing: bool,
    seed: u64,
    per_million: u32,
) -> Result<Walk, ScenarioError> {
    let model = model_of(world, scope, fencing)?;
    let mut state = State::initial(world, &model)?;
    let mut rng = SplitMix64::new(seed);
    let mut writes = Vec::new();
    let mut choices = Vec::new();
    let mut steps = 0;
    loop {
        let mut ch = Chooser::scripted(&[]);
        ch.random = Some((&mut rng, per_million));
        ch.writes = Some(&mut writes);
        if !state.step(&model, &mut ch) {
            break;
        }
        if let Some(c) = ch.chosen {
            choices.push(c);
        }
        steps += 1;
        if state.overflow || steps > 1_000_000 {
            return Err(ScenarioError::new(
                "",
                "the walk is larger than the exhaustive search's model holds",
            ));
        }
    }
    let (_, scenario) = scenario_with(world, fencing, &choices);
    Ok(Walk {
        scenario,
        writes,
        broken: Invariant::ALL
            .into_iter()
            .filter(|i| state.violated & (1 << i.index()) != 0)
            .collect(),
        steps,
    })
}
