//! Drawing one lock of a recorded run: the lines of a history, as the checker's reader gives
//! them, turned into the events of a trace (the module `recorded` says what becomes what).

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::faults::{Nemesis, Phase};
use super::parse::{Answer, Event as Line, Outcome, State};
use super::refusal::{self, Over, Refusal};
use crate::invariants::{Invariant, Verdict, Violation};
use crate::trace::{Actor, AppliedWrite, Detail, Event, LossWhy, Msg, RejectReason, Trace};

/// Most events drawn: past them the trace is cut (and says so).
pub const MAX_RUN_EVENTS: usize = 10_000;

/// A fault as the history records it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    /// Which nemesis.
    pub nemesis: Nemesis,
    /// What it struck (a client, a service instance, an engine member, a proxy).
    pub target: String,
    /// When it started.
    pub from: u64,
    /// When it ended (None: not before the history ends).
    pub to: Option<u64>,
}

/// A worker's lease as its keeper sees it, from its first `held` to its end.
#[derive(Clone, Copy)]
struct Lease {
    /// The event where the worker learned it (its token is filled in by the grant).
    learned: usize,
    token: Option<u64>,
    until: u64,
}

/// The highest token a resource accepted, from whom and when.
#[derive(Clone, Copy)]
struct Highest {
    token: u64,
    writer: u16,
    t: u64,
}

/// The second reading: one lock's events.
pub(super) struct Draw<'a> {
    lock: &'a str,
    workers: BTreeMap<&'a str, u16>,
    tokens: &'a BTreeMap<(String, u64), String>,
    trace: Trace,
    leases: Vec<Option<Lease>>,
    /// A grant recorded before its keeper's `held`: its token, and its event (whose lease end
    /// that `held` gives).
    granted: Vec<Option<(u64, usize)>>,
    pauses: Vec<Option<usize>>,
    /// The lock service's holder as far as the history shows (worker, token).
    holder: Option<(u16, u64)>,
    highest: BTreeMap<String, Highest>,
    faults: Vec<Fault>,
    /// The first refused write: its event, resource, and the resource's highest then.
    refusal: Option<(usize, String, Option<Highest>)>,
    /// The last answer to a write (writer, resource, token), and whether it was the store's: a
    /// refusal is in both its client's line and the store's, drawn once, from whichever comes
    /// first; the store's line is drawn when its client has no answer of its own (or unknown).
    answers: BTreeMap<(u16, String, u64), (Answer, bool)>,
    ops: u32,
    msgs: u32,
    last_t: u64,
}

impl<'a> Draw<'a> {
    pub(super) fn new(
        lock: &'a str,
        workers: &'a [String],
        tokens: &'a BTreeMap<(String, u64), String>,
    ) -> Self {
        let n = workers.len();
        Draw {
            lock,
            workers: workers
                .iter()
                .enumerate()
                .map(|(i, w)| (w.as_str(), i as u16))
                .collect(),
            tokens,
            trace: Trace {
                scenario: format!("recorded run, lock {lock}"),
                seed: 0,
                fencing: true,
                workers: workers.to_vec(),
                events: Vec::new(),
                truncated: false,
                verdict: Verdict {
                    ok: true,
                    violations: Vec::new(),
                },
                document: Vec::new(),
            },
            leases: alloc::vec![None; n],
            granted: alloc::vec![None; n],
            pauses: alloc::vec![None; n],
            holder: None,
            highest: BTreeMap::new(),
            faults: Vec::new(),
            refusal: None,
            answers: BTreeMap::new(),
            ops: 0,
            msgs: 0,
            last_t: 0,
        }
    }

    /// Adds an event; None once the trace is full (it is then cut).
    fn push(&mut self, actor: Actor, token: Option<u64>, detail: Detail) -> Option<usize> {
        let i = self.trace.events.len();
        if i >= MAX_RUN_EVENTS {
            self.trace.truncated = true;
            return None;
        }
        self.trace.events.push(Event {
            seq: i as u32,
            t_ms: self.last_t,
            actor,
            token,
            detail,
        });
        Some(i)
    }

    fn msg(&mut self) -> u32 {
        self.msgs += 1;
        self.msgs
    }

    /// The worker of `process`, if it is drawn.
    fn worker(&self, process: &str) -> Option<u16> {
        self.workers.get(process).copied()
    }

    /// Whether `process`'s token was granted on the lock shown.
    fn ours(&self, process: &str, token: u64) -> bool {
        self.tokens
            .get(&(process.to_string(), token))
            .is_some_and(|l| l == self.lock)
    }

    pub(super) fn line(&mut self, line: Line<'_>) {
        let t = match &line {
            Line::Store(l) => l.t,
            Line::Grant { t, .. }
            | Line::Belief { t, .. }
            | Line::Write { t, .. }
            | Line::Final { t, .. }
            | Line::Fault { t, .. }
            | Line::Campaign { t } => *t,
        };
        // A time earlier than one already seen is taken as that one, as the checker does.
        self.last_t = self.last_t.max(t);
        match line {
            Line::Grant {
                process,
                lock,
                token,
                ..
            } if lock == self.lock => {
                if let Some(w) = self.worker(&process) {
                    self.grant(w, token);
                }
            }
            Line::Belief {
                process,
                lock,
                state,
                safe_until,
                ..
            } if lock == self.lock => {
                if let Some(w) = self.worker(&process) {
                    self.belief(w, state, safe_until);
                }
            }
            Line::Write {
                process,
                resource,
                token,
                answer,
                ..
            } if self.ours(&process, token) => {
                if let Some(w) = self.worker(&process) {
                    let key = (w, resource.to_string(), token);
                    let drawn = self.answers.insert(key, (answer, false));
                    if answer != Answer::Rejected || drawn != Some((Answer::Rejected, true)) {
                        self.write(w, &resource, token, answer);
                    }
                }
            }
            Line::Store(l) if l.result == Outcome::Ok && self.ours(&l.writer, l.token) => {
                if let Some(w) = self.worker(&l.writer) {
                    self.accepted(&l.resource, l.token, w);
                }
            }
            // The service's word on a write its client gave up on (its own line says unknown):
            // a request held in the network arrives after the client stopped waiting for it.
            Line::Store(l) if l.result == Outcome::Rejected && self.ours(&l.writer, l.token) => {
                if let Some(w) = self.worker(&l.writer) {
                    let key = (w, l.resource.to_string(), l.token);
                    if matches!(self.answers.get(&key), None | Some((Answer::Unknown, _))) {
                        self.write(w, &l.resource, l.token, Answer::Rejected);
                        self.answers.insert(key, (Answer::Rejected, true));
                    }
                }
            }
            Line::Fault {
                nemesis,
                target,
                phase,
                ..
            } => self.fault(nemesis, &target, phase),
            _ => {}
        }
    }

    fn grant(&mut self, w: u16, token: u64) {
        let lease = self.leases[usize::from(w)].as_mut();
        // The keeper says `held` as the grant's answer arrives, usually before the client
        // records the grant: that lease's token is this one. Otherwise the `held` to come
        // learns the token, and gives the grant its lease end.
        let expires_at = match lease {
            Some(l) => {
                l.token = Some(token);
                if let Some(e) = self.trace.events.get_mut(l.learned) {
                    e.token = Some(token);
                }
                l.until
            }
            None => self.last_t,
        };
        self.holder = Some((w, token));
        let detail = Detail::Grant {
            holder: w,
            expires_at: expires_at.max(self.last_t),
            reentry: false,
        };
        let i = self.push(Actor::Lock, Some(token), detail);
        if self.leases[usize::from(w)].is_none() {
            self.granted[usize::from(w)] = i.map(|i| (token, i));
        }
    }

    fn belief(&mut self, w: u16, state: State, safe_until: u64) {
        let lease = self.leases[usize::from(w)];
        let token = lease.and_then(|l| l.token);
        match (state, lease) {
            (State::Held | State::Uncertain, None) => {
                let granted = self.granted[usize::from(w)].take();
                if let Some(e) = granted.and_then(|(_, i)| self.trace.events.get_mut(i))
                    && let Detail::Grant { expires_at, .. } = &mut e.detail
                {
                    *expires_at = safe_until.max(e.t_ms);
                }
                let token = granted.map(|(k, _)| k);
                let msg = self.msg();
                let detail = Detail::Deliver {
                    msg,
                    from: Actor::Lock,
                    what: Msg::Granted {
                        expires_at: safe_until,
                    },
                    sent_at: self.last_t,
                    believed_until: Some(safe_until),
                };
                if let Some(i) = self.push(Actor::Worker(w), token, detail) {
                    self.leases[usize::from(w)] = Some(Lease {
                        learned: i,
                        token,
                        until: safe_until,
                    });
                }
            }
            (State::Held | State::Uncertain, Some(l)) => {
                let msg = self.msg();
                let detail = Detail::Deliver {
                    msg,
                    from: Actor::Lock,
                    what: Msg::Renewed {
                        expires_at: safe_until,
                        check: false,
                        asked_ms_ago: u32::MAX,
                    },
                    sent_at: self.last_t,
                    believed_until: Some(safe_until),
                };
                self.push(Actor::Worker(w), token, detail);
                self.leases[usize::from(w)] = Some(Lease {
                    until: safe_until,
                    ..l
                });
            }
            (State::Lost, Some(l)) => {
                // Gone before its safe-until: the service said so; at or after it: run out.
                let why = if self.last_t < l.until {
                    LossWhy::Refused
                } else {
                    LossWhy::Expired
                };
                let detail = Detail::LeaseLost {
                    why,
                    believed_until: Some(l.until),
                };
                self.push(Actor::Worker(w), token, detail);
                self.leases[usize::from(w)] = None;
            }
            (State::Released, Some(_)) => self.release(w, token),
            _ => {}
        }
    }

    fn release(&mut self, w: u16, token: Option<u64>) {
        let msg = self.msg();
        let t = self.last_t;
        let send = Detail::Send {
            msg,
            to: Actor::Lock,
            what: Msg::Release,
            deliver_at: t,
            believed_until: None,
        };
        self.push(Actor::Worker(w), token, send);
        let deliver = Detail::Deliver {
            msg,
            from: Actor::Worker(w),
            what: Msg::Release,
            sent_at: t,
            believed_until: None,
        };
        self.push(Actor::Lock, token, deliver);
        self.leases[usize::from(w)] = None;
        if token.is_some() && self.holder == token.map(|k| (w, k)) {
            self.holder = None;
            self.push(
                Actor::Lock,
                token,
                Detail::Release {
                    holder: w,
                    ok: true,
                },
            );
        }
    }

    fn write(&mut self, w: u16, resource: &str, token: u64, answer: Answer) {
        self.ops += 1;
        let op = self.ops;
        let previous = self.highest.get(resource).map(|h| h.token);
        match answer {
            Answer::Ok => {
                let detail = Detail::WriteAccepted {
                    writer: w,
                    op,
                    previous,
                };
                let Some(i) = self.push(Actor::Storage, Some(token), detail) else {
                    return;
                };
                self.trace.document.push(AppliedWrite {
                    writer: w,
                    token,
                    op,
                    t_ms: self.last_t,
                    seq: i as u32,
                });
                if let Some(p) = previous.filter(|&p| p > token) {
                    self.stale_accepted(i, w, resource, token, p);
                }
                self.accepted(resource, token, w);
            }
            Answer::Rejected => {
                let detail = Detail::WriteRejected {
                    writer: w,
                    op,
                    reason: RejectReason::Stale,
                    highest: previous,
                };
                let i = self.push(Actor::Storage, Some(token), detail);
                if let (Some(i), None) = (i, &self.refusal) {
                    let then = self.highest.get(resource).copied();
                    self.refusal = Some((i, resource.to_string(), then));
                }
            }
            Answer::Unknown => {
                let msg = self.msg();
                let detail = Detail::Send {
                    msg,
                    to: Actor::Storage,
                    what: Msg::Write { op, retry: false },
                    deliver_at: self.last_t,
                    believed_until: None,
                };
                self.push(Actor::Worker(w), Some(token), detail);
            }
        }
    }

    /// A write the store applied over a higher token: what the fence is there to stop.
    fn stale_accepted(&mut self, i: usize, w: u16, resource: &str, token: u64, over: u64) {
        let who = self.trace.workers[usize::from(w)].clone();
        self.trace.verdict.ok = false;
        self.trace.verdict.violations.push(Violation {
            invariant: Invariant::I1,
            seq: i as u32,
            t_ms: self.last_t,
            because: format!(
                "`{resource}` accepted token {token} from {who} after it had accepted {over}"
            ),
        });
    }

    /// `resource` applied `token` from `w`.
    fn accepted(&mut self, resource: &str, token: u64, w: u16) {
        let t = self.last_t;
        match self.highest.get_mut(resource) {
            Some(h) if h.token >= token => {}
            Some(h) => {
                *h = Highest {
                    token,
                    writer: w,
                    t,
                }
            }
            None => {
                let h = Highest {
                    token,
                    writer: w,
                    t,
                };
                self.highest.insert(resource.to_string(), h);
            }
        }
    }

    fn fault(&mut self, nemesis: Nemesis, target: &str, phase: Phase) {
        let t = self.last_t;
        let client = (nemesis == Nemesis::PauseClient)
            .then(|| self.worker(target))
            .flatten();
        match phase {
            Phase::Start => {
                self.faults.push(Fault {
                    nemesis,
                    target: target.to_string(),
                    from: t,
                    to: None,
                });
                if let Some(w) = client {
                    let i = self.push(Actor::Worker(w), None, Detail::PauseStart { until: t });
                    self.pauses[usize::from(w)] = i;
                }
            }
            Phase::End => {
                let open = self
                    .faults
                    .iter_mut()
                    .rev()
                    .find(|f| f.nemesis == nemesis && f.target == target && f.to.is_none());
                if let Some(f) = open {
                    f.to = Some(t);
                }
                if let Some(w) = client {
                    self.end_pause(w, t);
                    self.push(Actor::Worker(w), None, Detail::PauseEnd);
                }
            }
        }
    }

    /// The pause `w` is in ends at `t`: its start learns when.
    fn end_pause(&mut self, w: u16, t: u64) {
        let start = self.pauses[usize::from(w)].take();
        if let Some(e) = start.and_then(|i| self.trace.events.get_mut(i)) {
            e.detail = Detail::PauseStart { until: t };
        }
    }

    pub(super) fn finish(mut self) -> (Trace, Vec<Fault>, Option<Refusal>) {
        for w in 0..self.pauses.len() {
            self.end_pause(w as u16, self.last_t);
        }
        let refusal = self.refusal.take().map(|(i, resource, then)| {
            let over = then.map(|h| Over {
                token: h.token,
                writer: h.writer,
                t: h.t,
            });
            let faults = &self.faults;
            // The writer's last pause that started by the write: (from, to).
            let pause_of = |name: &str, t: u64| {
                faults
                    .iter()
                    .rfind(|f| f.nemesis == Nemesis::PauseClient && f.target == name && f.from <= t)
                    .map(|f| (f.from, f.to))
            };
            let sentence = refusal::sentence(&self.trace, i, &resource, pause_of, over);
            Refusal {
                seq: i as u32,
                resource,
                sentence,
            }
        });
        (self.trace, self.faults, refusal)
    }
}
