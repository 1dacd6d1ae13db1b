//! Traces: every event of a run, in order, with a plain sentence for each.
//!
//! An [`Event`] is `{seq, t_ms, actor, kind, token, detail}`. In memory, actors are numbers
//! ([`Actor`]); in JSON they are names (`"lock"`, `"storage"`, or a worker's name).
//! [`Trace::explain`] turns any event into one sentence, and [`Trace::beliefs_at`] answers, for any
//! instant, what each actor believes: the picture of a zombie lease.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use serde::Serialize;
use serde::ser::{SerializeStruct, Serializer};

use crate::invariants::Verdict;

/// Who did something.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Actor {
    /// The lock service (a fencepost authority).
    Lock,
    /// The storage being protected.
    Storage,
    /// A worker, by index in the scenario.
    Worker(u16),
}

/// What a message asks or answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Msg {
    /// Worker -> lock: grant me the lock.
    Acquire,
    /// Worker -> lock: extend my lease (`check`: a check-before-write renew).
    Renew {
        /// Whether this renew is the check before a write.
        check: bool,
    },
    /// Worker -> lock: I am done.
    Release,
    /// Worker -> storage: write, with my token and operation id.
    Write {
        /// Operation id (the worker's write number, from 1).
        op: u32,
        /// Whether this is a resend after a timeout.
        retry: bool,
    },
    /// Lock -> worker: granted.
    Granted {
        /// Lease end, authority time.
        expires_at: u64,
    },
    /// Lock -> worker: not now.
    Denied {
        /// When trying again could succeed.
        retry_at: u64,
    },
    /// Lock -> worker: renewed.
    Renewed {
        /// New lease end.
        expires_at: u64,
        /// Whether it answers a check-before-write renew.
        check: bool,
        /// How long the renew it answers took to reach the lock service, in ms (`u32::MAX`: that
        /// long or longer). The worker counts its renewed lease from when it sent that renew, as
        /// a client matching the answer to its request would.
        asked_ms_ago: u32,
    },
    /// Lock -> worker: you no longer hold the lock.
    Lost,
    /// Lock -> worker: released.
    Released,
    /// Storage -> worker: the write's fate.
    Ack {
        /// Operation id.
        op: u32,
        /// Whether it was applied (or had been, for a deduplicated retry).
        accepted: bool,
    },
}

impl Msg {
    /// For a renewal answer sent by the lock service at `sent_at`: when the renew it answers left
    /// the worker (None: not a renewal answer, or the wait did not fit the message).
    pub fn asked_at(&self, sent_at: u64) -> Option<u64> {
        match *self {
            Msg::Renewed { asked_ms_ago, .. } if asked_ms_ago != u32::MAX => {
                Some(sent_at.saturating_sub(u64::from(asked_ms_ago)))
            }
            _ => None,
        }
    }

    /// A short name for the message.
    pub const fn name(&self) -> &'static str {
        match self {
            Msg::Acquire => "acquire",
            Msg::Renew { check: false } => "renew",
            Msg::Renew { check: true } => "renew (check)",
            Msg::Release => "release",
            Msg::Write { retry: false, .. } => "write",
            Msg::Write { retry: true, .. } => "write (retry)",
            Msg::Granted { .. } => "granted",
            Msg::Denied { .. } => "denied",
            Msg::Renewed { .. } => "renewed",
            Msg::Lost => "lost",
            Msg::Released => "released",
            Msg::Ack { accepted: true, .. } => "ack",
            Msg::Ack {
                accepted: false, ..
            } => "rejected",
        }
    }
}

/// Why the storage refused a write.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RejectReason {
    /// The token is lower than one already accepted.
    Stale,
    /// A unique (unordered) token that was seen before and is not the latest.
    UuidReused,
}

/// How a worker's job ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum JobEnd {
    /// Every write done and the lock released.
    Completed,
    /// The storage refused a write: a newer owner exists.
    FencedOut,
    /// The lock service said the lease was lost.
    LeaseLost,
}

/// How a worker learned, from its keeper, that its lease is gone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LossWhy {
    /// Its clock reached the safe-until of its newest answered request with no newer answer.
    Expired,
    /// The lock service refused a renewal.
    Refused,
}

/// What happened, with its particulars.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Detail {
    /// A message left `actor` for `to`, due at `deliver_at`. (A worker process that has died by
    /// then never gets it: nothing more is recorded of it.)
    Send {
        /// Message id (same in its `Deliver`).
        msg: u32,
        /// Recipient.
        to: Actor,
        /// Content.
        what: Msg,
        /// Arrival time.
        deliver_at: u64,
        /// For a renew a worker sends: until when its keeper counts the lease safe as it sends
        /// (real time; what the renew's answer can extend).
        believed_until: Option<u64>,
    },
    /// A message reached `actor`.
    Deliver {
        /// Message id.
        msg: u32,
        /// Sender.
        from: Actor,
        /// Content.
        what: Msg,
        /// When it was sent.
        sent_at: u64,
        /// For a grant or renewal reaching a worker: until when the worker now believes it holds
        /// the lock (real time, computed from the worker's own clock).
        believed_until: Option<u64>,
    },
    /// The lock service granted the lock.
    Grant {
        /// To whom.
        holder: u16,
        /// Lease end.
        expires_at: u64,
        /// Re-entry of a lease the holder had.
        reentry: bool,
    },
    /// The lock service refused an acquire.
    Deny {
        /// Who asked.
        requester: u16,
        /// Who holds it (none during a lock-delay).
        holder: Option<u16>,
        /// When it could succeed.
        until: u64,
    },
    /// The lock service renewed a lease.
    Renew {
        /// Holder.
        holder: u16,
        /// New lease end.
        expires_at: u64,
    },
    /// The lock service refused a renew: the lease was lost.
    RenewLost {
        /// Who asked.
        holder: u16,
    },
    /// The lock service released a lease (`ok: false`: the caller did not hold it).
    Release {
        /// Who asked.
        holder: u16,
        /// Whether it was held.
        ok: bool,
    },
    /// A lease ran out.
    Expire {
        /// Whose.
        holder: u16,
        /// No new grant before this (lock-delay).
        free_at: u64,
    },
    /// A worker's keeper says, for the first time, that its lease is lost: the moment the worker
    /// knows. (The simulated worker does not stop for it by itself: what it then does is its
    /// job's, which is what the stories show.)
    LeaseLost {
        /// How it knows.
        why: LossWhy,
        /// The safe-until its keeper had counted (real time, from the worker's own clock).
        believed_until: Option<u64>,
    },
    /// A worker froze.
    PauseStart {
        /// When it resumes.
        until: u64,
    },
    /// A worker resumed.
    PauseEnd,
    /// The storage applied a write.
    WriteAccepted {
        /// Who wrote.
        writer: u16,
        /// Operation id.
        op: u32,
        /// The highest token before, if any (ordered tokens with fencing).
        previous: Option<u64>,
    },
    /// The storage refused a write.
    WriteRejected {
        /// Who wrote.
        writer: u16,
        /// Operation id.
        op: u32,
        /// Why.
        reason: RejectReason,
        /// Highest token accepted.
        highest: Option<u64>,
    },
    /// The storage recognised a write it had already applied (by its idempotency key) and did
    /// not apply it again.
    WriteDeduplicated {
        /// Who wrote.
        writer: u16,
        /// Operation id.
        op: u32,
    },
    /// A worker's job ended.
    JobDone {
        /// How.
        end: JobEnd,
    },
    /// A worker process died. The event's token is that of a lease the lock service still gave
    /// it at that instant (left to run out), if any.
    Crash,
    /// A fresh worker process started.
    Restart {
        /// Its incarnation number (1 for the first restart).
        incarnation: u16,
    },
    /// A worker's clock jumped.
    ClockJump {
        /// By how much.
        by_ms: i64,
    },
    /// The lock service restarted.
    AuthorityRestart {
        /// Whether it restored persisted state.
        persisted: bool,
        /// The token its next grant will carry.
        next_token: Option<u64>,
    },
}

/// The kind of an event, as named in JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// See [`Detail::Send`].
    Send,
    /// See [`Detail::Deliver`].
    Deliver,
    /// See [`Detail::Grant`].
    Grant,
    /// See [`Detail::Deny`].
    Deny,
    /// See [`Detail::Renew`].
    Renew,
    /// See [`Detail::RenewLost`].
    RenewLost,
    /// See [`Detail::Release`].
    Release,
    /// See [`Detail::Expire`].
    Expire,
    /// See [`Detail::LeaseLost`].
    LeaseLost,
    /// See [`Detail::PauseStart`].
    PauseStart,
    /// See [`Detail::PauseEnd`].
    PauseEnd,
    /// See [`Detail::WriteAccepted`].
    WriteAccepted,
    /// See [`Detail::WriteRejected`].
    WriteRejected,
    /// See [`Detail::WriteDeduplicated`].
    WriteDeduplicated,
    /// See [`Detail::JobDone`].
    JobDone,
    /// See [`Detail::Crash`].
    Crash,
    /// See [`Detail::Restart`].
    Restart,
    /// See [`Detail::ClockJump`].
    ClockJump,
    /// See [`Detail::AuthorityRestart`].
    AuthorityRestart,
}

impl Detail {
    /// The event kind.
    pub const fn kind(&self) -> Kind {
        match self {
            Detail::Send { .. } => Kind::Send,
            Detail::Deliver { .. } => Kind::Deliver,
            Detail::Grant { .. } => Kind::Grant,
            Detail::Deny { .. } => Kind::Deny,
            Detail::Renew { .. } => Kind::Renew,
            Detail::RenewLost { .. } => Kind::RenewLost,
            Detail::Release { .. } => Kind::Release,
            Detail::Expire { .. } => Kind::Expire,
            Detail::LeaseLost { .. } => Kind::LeaseLost,
            Detail::PauseStart { .. } => Kind::PauseStart,
            Detail::PauseEnd => Kind::PauseEnd,
            Detail::WriteAccepted { .. } => Kind::WriteAccepted,
            Detail::WriteRejected { .. } => Kind::WriteRejected,
            Detail::WriteDeduplicated { .. } => Kind::WriteDeduplicated,
            Detail::JobDone { .. } => Kind::JobDone,
            Detail::Crash => Kind::Crash,
            Detail::Restart { .. } => Kind::Restart,
            Detail::ClockJump { .. } => Kind::ClockJump,
            Detail::AuthorityRestart { .. } => Kind::AuthorityRestart,
        }
    }
}

/// One event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Event {
    /// Position in the trace, from 0.
    pub seq: u32,
    /// Virtual time.
    pub t_ms: u64,
    /// Who did it.
    pub actor: Actor,
    /// The fencing token involved, if any.
    pub token: Option<u64>,
    /// What happened.
    pub detail: Detail,
}

impl Event {
    /// The event kind.
    pub const fn kind(&self) -> Kind {
        self.detail.kind()
    }

    /// For a write the storage applied although its token is below one it had already accepted
    /// (stale data landing): that higher token.
    pub fn stale_over(&self) -> Option<u64> {
        match self.detail {
            Detail::WriteAccepted {
                previous: Some(p), ..
            } if self.token.is_some_and(|t| t < p) => Some(p),
            _ => None,
        }
    }
}

/// A whole run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trace {
    /// Scenario name.
    pub scenario: String,
    /// Seed used.
    pub seed: u64,
    /// Whether the storage checked tokens.
    pub fencing: bool,
    /// Worker names, by index.
    pub workers: Vec<String>,
    /// Every event, in order.
    pub events: Vec<Event>,
    /// Whether the run stopped early (the scenario's `end_ms`, or the event limit).
    pub truncated: bool,
    /// What the invariants say.
    pub verdict: Verdict,
    /// The storage's document at the end: applied writes in order.
    pub document: Vec<AppliedWrite>,
}

/// A write the storage applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AppliedWrite {
    /// Who wrote.
    pub writer: u16,
    /// Token presented.
    pub token: u64,
    /// Operation id.
    pub op: u32,
    /// When.
    pub t_ms: u64,
    /// Event seq.
    pub seq: u32,
}

impl Trace {
    /// An actor's name.
    pub fn name(&self, actor: Actor) -> &str {
        match actor {
            Actor::Lock => "lock",
            Actor::Storage => "storage",
            Actor::Worker(i) => self.workers.get(usize::from(i)).map_or("?", String::as_str),
        }
    }

    fn worker(&self, i: u16) -> &str {
        self.name(Actor::Worker(i))
    }

    /// Most bytes this trace holds from the WebAssembly module's allocator (see
    /// [`crate::block_bytes`]): its events, document, names and verdict. Unlike [`trace_bytes`]
    /// (what a run may take while it records), what a finished trace keeps.
    ///
    /// [`trace_bytes`]: crate::engine::trace_bytes
    pub fn held_bytes(&self) -> u64 {
        use crate::block_bytes as b;
        use core::mem::size_of;
        let vec = |cap: usize, size: usize| b((cap * size) as u64);
        vec(self.events.capacity(), size_of::<Event>())
            + vec(self.document.capacity(), size_of::<AppliedWrite>())
            + vec(self.workers.capacity(), size_of::<String>())
            + self
                .workers
                .iter()
                .map(|w| b(w.capacity() as u64))
                .sum::<u64>()
            + b(self.scenario.capacity() as u64)
            + vec(
                self.verdict.violations.capacity(),
                size_of::<crate::Violation>(),
            )
            + self
                .verdict
                .violations
                .iter()
                .map(|v| b(v.because.capacity() as u64))
                .sum::<u64>()
    }

    /// The trace, verdict and document as JSON (compact, deterministic).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// One plain sentence saying what `event` means.
    pub fn explain(&self, e: &Event) -> String {
        let who = self.name(e.actor);
        let tok = e.token.map_or(String::new(), |t| format!(" {t}"));
        let secs = |ms: u64| fmt_secs(ms);
        match e.detail {
            Detail::Send {
                to,
                what,
                deliver_at,
                believed_until,
                ..
            } => match what {
                Msg::Write { op, retry } => format!(
                    "{who} {} write #{op} with token{tok} to the storage, due at {}",
                    if retry { "resends" } else { "sends" },
                    secs(deliver_at)
                ),
                _ => format!(
                    "{who} sends {} to {}, due at {}{}",
                    what.name(),
                    self.name(to),
                    secs(deliver_at),
                    believed_until.map_or(String::new(), |u| format!(
                        "; its keeper counts the lease safe until {}",
                        secs(u)
                    ))
                ),
            },
            Detail::Deliver {
                from,
                what,
                sent_at,
                believed_until,
                ..
            } => match (what, believed_until) {
                (Msg::Granted { .. }, Some(until)) => format!(
                    "{who} learns it holds the lock with token{tok} and believes it does until {}",
                    secs(until)
                ),
                (Msg::Renewed { .. }, Some(until)) => format!(
                    "{who} learns its lease was renewed and believes it holds the lock until {}",
                    secs(until)
                ),
                (Msg::Denied { retry_at }, _) => format!(
                    "{who} learns it cannot take the lock until {}; it waits {} by its own clock to try again",
                    secs(retry_at),
                    secs(retry_wait(retry_at, e.t_ms))
                ),
                (Msg::Lost, _) => format!("{who} learns it no longer holds the lock"),
                (Msg::Ack { op, accepted: true }, _) => {
                    format!("{who} learns its write #{op} was applied")
                }
                (
                    Msg::Ack {
                        op,
                        accepted: false,
                    },
                    _,
                ) => {
                    format!("{who} learns its write #{op} was refused")
                }
                _ => format!(
                    "{} from {} (sent at {}) reaches {who}",
                    what.name(),
                    self.name(from),
                    secs(sent_at)
                ),
            },
            Detail::Grant {
                holder,
                expires_at,
                reentry: false,
            } => format!(
                "the lock service grants the lock to {} with token{tok}, until {}",
                self.worker(holder),
                secs(expires_at)
            ),
            Detail::Grant {
                holder,
                expires_at,
                reentry: true,
            } => format!(
                "the lock service lets {} re-enter its lease with the same token{tok}, until {}",
                self.worker(holder),
                secs(expires_at)
            ),
            Detail::Deny {
                requester,
                holder: Some(h),
                until,
            } => format!(
                "the lock service refuses {}: {} holds the lock until {}",
                self.worker(requester),
                self.worker(h),
                secs(until)
            ),
            Detail::Deny {
                requester,
                holder: None,
                until,
            } => format!(
                "the lock service refuses {}: the lock is in its lock-delay until {}",
                self.worker(requester),
                secs(until)
            ),
            Detail::Renew { holder, expires_at } => format!(
                "the lock service renews {}'s lease (token{tok}) until {}",
                self.worker(holder),
                secs(expires_at)
            ),
            Detail::RenewLost { holder } => format!(
                "the lock service refuses to renew {}'s token{tok}: that lease is over",
                self.worker(holder)
            ),
            Detail::Release { holder, ok: true } => format!(
                "the lock service releases {}'s lease (token{tok}); the lock is free at once",
                self.worker(holder)
            ),
            Detail::Release { holder, ok: false } => format!(
                "the lock service ignores {}'s release of token{tok}: that lease is already over",
                self.worker(holder)
            ),
            Detail::Expire { holder, free_at } => {
                if free_at > e.t_ms {
                    format!(
                        "{}'s lease with token{tok} expires; lock-delay keeps the lock free until {}",
                        self.worker(holder),
                        secs(free_at)
                    )
                } else {
                    format!(
                        "{}'s lease with token{tok} expires; the lock is free",
                        self.worker(holder)
                    )
                }
            }
            Detail::LeaseLost {
                why: LossWhy::Expired,
                believed_until,
            } => format!(
                "{who}'s keeper says its lease (token{tok}) is lost: its safe-until, {}, has passed with no renewal answered",
                believed_until.map_or(String::from("?"), secs)
            ),
            Detail::LeaseLost {
                why: LossWhy::Refused,
                ..
            } => format!(
                "{who}'s keeper says its lease (token{tok}) is lost: the lock service refused its renewal"
            ),
            Detail::PauseStart { until } => format!(
                "{who} freezes (a GC pause or a suspended VM) until {}; it will not notice",
                secs(until)
            ),
            Detail::PauseEnd => format!("{who} resumes exactly where it stopped"),
            Detail::WriteAccepted { writer, op, .. } => match e.stale_over() {
                Some(p) => format!(
                    "the storage applies {}'s write #{op} with token{tok} even though it already accepted {p}: stale data lands",
                    self.worker(writer)
                ),
                None => format!(
                    "the storage applies {}'s write #{op} with token{tok}",
                    self.worker(writer)
                ),
            },
            Detail::WriteRejected {
                writer,
                reason,
                highest,
                ..
            } => {
                let why = match reason {
                    RejectReason::Stale => {
                        let newer = highest.map_or(String::new(), |h| {
                            let by = self
                                .document
                                .iter()
                                .rev()
                                .find(|w| w.token == h && w.seq < e.seq)
                                .map(|w| format!(" from {}", self.worker(w.writer)))
                                .unwrap_or_default();
                            format!(": it has already accepted {h}{by}")
                        });
                        format!(" with token{tok}{newer}")
                    }
                    RejectReason::UuidReused => {
                        String::from(": its token was seen before and is not the latest")
                    }
                };
                format!("the storage refuses {}'s write{why}", self.worker(writer))
            }
            Detail::WriteDeduplicated { writer, op } => format!(
                "the storage recognises {}'s write #{op} as one it already applied and does not apply it again",
                self.worker(writer)
            ),
            Detail::JobDone {
                end: JobEnd::Completed,
            } => {
                format!("{who} finished its job and let go of the lock")
            }
            Detail::JobDone {
                end: JobEnd::FencedOut,
            } => {
                format!("{who} gives up: the storage fenced it out")
            }
            Detail::JobDone {
                end: JobEnd::LeaseLost,
            } => {
                format!("{who} gives up: it lost its lease")
            }
            Detail::Crash => format!(
                "{who}'s process crashes{}",
                if e.token.is_some() {
                    "; its lease is left to expire"
                } else {
                    ""
                }
            ),
            Detail::Restart { incarnation } => format!(
                "a fresh {who} process starts (incarnation {incarnation}) and begins its job again"
            ),
            Detail::ClockJump { by_ms } => {
                format!(
                    "{who}'s clock jumps {} by {}",
                    if by_ms < 0 { "back" } else { "ahead" },
                    fmt_secs(by_ms.unsigned_abs())
                )
            }
            Detail::AuthorityRestart {
                persisted: true,
                next_token,
            } => format!(
                "the lock service restarts from its persisted state; its next token is {}",
                next_token.map_or(String::from("none (exhausted)"), |t| format!("{t}"))
            ),
            Detail::AuthorityRestart {
                persisted: false,
                next_token,
            } => format!(
                "the lock service restarts with nothing persisted: it forgets every grant and starts again at token {}",
                next_token.map_or(String::from("none"), |t| format!("{t}"))
            ),
        }
    }

    /// What every actor believes at instant `t_ms` (after all events at or before it).
    pub fn beliefs_at(&self, t_ms: u64) -> Beliefs {
        let upto = self.events.partition_point(|e| e.t_ms <= t_ms);
        self.beliefs_after(upto)
    }

    /// What every actor believes after the first `count` events.
    pub fn beliefs_after(&self, count: usize) -> Beliefs {
        let mut b = Beliefs::new(self.workers.len());
        for e in self.events.iter().take(count) {
            b.apply(e);
        }
        b
    }
}

impl Beliefs {
    /// Beliefs before anything happened, for `workers` workers.
    pub fn new(workers: usize) -> Beliefs {
        Beliefs {
            workers: alloc::vec![WorkerBelief::default(); workers],
            authority: None,
            storage_highest: None,
            storage_writes: 0,
            storage_last_writer: None,
        }
    }

    /// Updates the beliefs with one more event of the trace (events must come in order). Folding
    /// a trace event by event gives the same beliefs as [`Trace::beliefs_after`], in linear time.
    pub fn apply(&mut self, e: &Event) {
        let b = self;
        match (e.actor, e.detail) {
            (
                Actor::Worker(w),
                Detail::Deliver {
                    what,
                    believed_until,
                    ..
                },
            ) => {
                let Some(wb) = b.workers.get_mut(usize::from(w)) else {
                    return;
                };
                match what {
                    Msg::Granted { .. } => {
                        wb.holds = e.token;
                        wb.until = believed_until;
                    }
                    Msg::Renewed { .. } => wb.until = believed_until.or(wb.until),
                    Msg::Lost
                    | Msg::Ack {
                        accepted: false, ..
                    } => {
                        wb.holds = None;
                        wb.until = None;
                    }
                    _ => {}
                }
            }
            (
                Actor::Worker(w),
                Detail::Send {
                    what: Msg::Release, ..
                },
            )
            | (Actor::Worker(w), Detail::LeaseLost { .. })
            | (Actor::Worker(w), Detail::Crash) => {
                let Some(wb) = b.workers.get_mut(usize::from(w)) else {
                    return;
                };
                wb.holds = None;
                wb.until = None;
                wb.crashed = matches!(e.detail, Detail::Crash);
            }
            (Actor::Worker(w), Detail::Restart { .. }) => {
                if let Some(wb) = b.workers.get_mut(usize::from(w)) {
                    wb.crashed = false;
                }
            }
            (Actor::Worker(w), Detail::PauseStart { until }) => {
                if let Some(wb) = b.workers.get_mut(usize::from(w)) {
                    wb.paused_until = Some(until);
                }
            }
            (Actor::Worker(w), Detail::PauseEnd) => {
                if let Some(wb) = b.workers.get_mut(usize::from(w)) {
                    wb.paused_until = None;
                }
            }
            (
                Actor::Lock,
                Detail::Grant {
                    holder, expires_at, ..
                },
            ) => {
                b.authority = e.token.map(|token| HolderView {
                    worker: holder,
                    token,
                    until: expires_at,
                });
            }
            (Actor::Lock, Detail::Renew { holder, expires_at }) => {
                if let Some(token) = e.token {
                    b.authority = Some(HolderView {
                        worker: holder,
                        token,
                        until: expires_at,
                    });
                }
            }
            (Actor::Lock, Detail::Expire { .. })
            | (Actor::Lock, Detail::Release { ok: true, .. }) => {
                b.authority = None;
            }
            (
                Actor::Lock,
                Detail::AuthorityRestart {
                    persisted: false, ..
                },
            ) => b.authority = None,
            (Actor::Storage, Detail::WriteAccepted { writer, .. }) => {
                b.storage_writes += 1;
                b.storage_last_writer = Some(writer);
                if let Some(t) = e.token {
                    b.storage_highest = Some(b.storage_highest.map_or(t, |h: u64| h.max(t)));
                }
            }
            _ => {}
        }
    }
}

/// What one worker believes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WorkerBelief {
    /// The token it thinks it holds.
    pub holds: Option<u64>,
    /// Until when it thinks so (real time).
    pub until: Option<u64>,
    /// Frozen until this instant.
    pub paused_until: Option<u64>,
    /// Its process is down.
    pub crashed: bool,
}

/// The authority's real holder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HolderView {
    /// Worker index.
    pub worker: u16,
    /// Token.
    pub token: u64,
    /// Lease end.
    pub until: u64,
}

/// Everyone's view at one instant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Beliefs {
    /// Per worker.
    pub workers: Vec<WorkerBelief>,
    /// The lock service's real holder.
    pub authority: Option<HolderView>,
    /// Highest token the storage accepted.
    pub storage_highest: Option<u64>,
    /// Writes the storage applied.
    pub storage_writes: u32,
    /// Who wrote the document last.
    pub storage_last_writer: Option<u16>,
}

impl Beliefs {
    /// Whether worker `w` believes it holds a lease the lock service no longer gives it: a zombie.
    pub fn is_zombie(&self, w: u16) -> bool {
        let Some(held) = self.workers.get(usize::from(w)).and_then(|b| b.holds) else {
            return false;
        };
        !matches!(self.authority, Some(h) if h.worker == w && h.token == held)
    }
}

/// How long a worker refused at `now` waits, by its own clock, before it asks again: until the
/// `retry_at` the lock service named, as that clock counts (at least 1 ms).
pub(crate) fn retry_wait(retry_at: u64, now: u64) -> u64 {
    retry_at.saturating_sub(now).max(1)
}

/// Seconds with one decimal, e.g. `45.5 s`.
pub fn fmt_secs(ms: u64) -> String {
    if ms.is_multiple_of(1000) {
        format!("{} s", ms / 1000)
    } else if ms.is_multiple_of(100) {
        format!("{}.{} s", ms / 1000, (ms % 1000) / 100)
    } else {
        format!("{}.{:03} s", ms / 1000, ms % 1000)
    }
}

// ---- JSON ---------------------------------------------------------------------------------------

/// The detail of an event as it appears in JSON: actor references become names.
#[derive(Serialize, Default)]
struct DetailJson<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    msg: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    what: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    to: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    from: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    sent_at: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    deliver_at: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    asked_at: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    believed_until: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    why: Option<LossWhy>,
    #[serde(skip_serializing_if = "Option::is_none")]
    holder: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    requester: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    writer: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    op: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    expires_at: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    until: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    retry_at: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    free_at: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    previous: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    highest: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<RejectReason>,
    #[serde(skip_serializing_if = "Option::is_none")]
    accepted: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ok: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reentry: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    end: Option<JobEnd>,
    #[serde(skip_serializing_if = "Option::is_none")]
    incarnation: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    by_ms: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    persisted: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    next_token: Option<u64>,
}

impl<'a> DetailJson<'a> {
    fn of(trace: &'a Trace, d: &Detail) -> DetailJson<'a> {
        let w = |i: u16| Some(trace.worker(i));
        let mut j = DetailJson::default();
        let msg_fields = |j: &mut DetailJson<'a>, what: &Msg| {
            j.what = Some(what.name());
            match *what {
                Msg::Write { op, .. } | Msg::Ack { op, .. } => j.op = Some(op),
                Msg::Granted { expires_at } | Msg::Renewed { expires_at, .. } => {
                    j.expires_at = Some(expires_at);
                }
                Msg::Denied { retry_at } => j.retry_at = Some(retry_at),
                _ => {}
            }
            if let Msg::Ack { accepted, .. } = *what {
                j.accepted = Some(accepted);
            }
        };
        match *d {
            Detail::Send {
                msg,
                to,
                what,
                deliver_at,
                believed_until,
            } => {
                j.msg = Some(msg);
                j.to = Some(trace.name(to));
                j.deliver_at = Some(deliver_at);
                j.believed_until = believed_until;
                msg_fields(&mut j, &what);
            }
            Detail::Deliver {
                msg,
                from,
                what,
                sent_at,
                believed_until,
            } => {
                j.msg = Some(msg);
                j.from = Some(trace.name(from));
                j.sent_at = Some(sent_at);
                j.believed_until = believed_until;
                // The renew it answers left the worker then: the keeper counts from there.
                j.asked_at = what.asked_at(sent_at);
                msg_fields(&mut j, &what);
            }
            Detail::Grant {
                holder,
                expires_at,
                reentry,
            } => {
                j.holder = w(holder);
                j.expires_at = Some(expires_at);
                j.reentry = Some(reentry);
            }
            Detail::Deny {
                requester,
                holder,
                until,
            } => {
                j.requester = w(requester);
                j.holder = holder.and_then(w);
                j.until = Some(until);
            }
            Detail::Renew { holder, expires_at } => {
                j.holder = w(holder);
                j.expires_at = Some(expires_at);
            }
            Detail::RenewLost { holder } => j.holder = w(holder),
            Detail::Release { holder, ok } => {
                j.holder = w(holder);
                j.ok = Some(ok);
            }
            Detail::Expire { holder, free_at } => {
                j.holder = w(holder);
                j.free_at = Some(free_at);
            }
            Detail::LeaseLost {
                why,
                believed_until,
            } => {
                j.why = Some(why);
                j.believed_until = believed_until;
            }
            Detail::PauseStart { until } => j.until = Some(until),
            Detail::PauseEnd | Detail::Crash => {}
            Detail::WriteAccepted {
                writer,
                op,
                previous,
            } => {
                j.writer = w(writer);
                j.op = Some(op);
                j.previous = previous;
            }
            Detail::WriteRejected {
                writer,
                op,
                reason,
                highest,
            } => {
                j.writer = w(writer);
                j.op = Some(op);
                j.reason = Some(reason);
                j.highest = highest;
            }
            Detail::WriteDeduplicated { writer, op } => {
                j.writer = w(writer);
                j.op = Some(op);
            }
            Detail::JobDone { end } => j.end = Some(end),
            Detail::Restart { incarnation } => j.incarnation = Some(incarnation),
            Detail::ClockJump { by_ms } => j.by_ms = Some(by_ms),
            Detail::AuthorityRestart {
                persisted,
                next_token,
            } => {
                j.persisted = Some(persisted);
                j.next_token = next_token;
            }
        }
        j
    }
}

struct EventJson<'a>(&'a Trace, &'a Event);

impl Serialize for EventJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (trace, e) = (self.0, self.1);
        let mut st = s.serialize_struct("Event", 6)?;
        st.serialize_field("seq", &e.seq)?;
        st.serialize_field("t_ms", &e.t_ms)?;
        st.serialize_field("actor", trace.name(e.actor))?;
        st.serialize_field("kind", &e.kind())?;
        st.serialize_field("token", &e.token)?;
        st.serialize_field("detail", &DetailJson::of(trace, &e.detail))?;
        st.end()
    }
}

#[derive(Serialize)]
struct WriteJson<'a> {
    writer: &'a str,
    token: u64,
    op: u32,
    t_ms: u64,
    seq: u32,
}

/// A trace's JSON with only some of its events and applied writes: [`Trace::json_part`].
pub struct TraceJson<'a> {
    trace: &'a Trace,
    events: &'a [Event],
    document: &'a [AppliedWrite],
}

/// Events of a trace as the JSON array its `events` holds: [`Trace::events_json`].
pub struct EventsJson<'a>(&'a Trace, &'a [Event]);

/// Applied writes of a trace as the JSON array its `document` holds: [`Trace::document_json`].
pub struct DocumentJson<'a>(&'a Trace, &'a [AppliedWrite]);

impl Trace {
    /// This trace's JSON shape with `events` and `document` in place of all of its own (slices of
    /// them): a long trace can be written in pieces, the rest with [`Trace::events_json`] and
    /// [`Trace::document_json`].
    pub fn json_part<'a>(
        &'a self,
        events: &'a [Event],
        document: &'a [AppliedWrite],
    ) -> TraceJson<'a> {
        TraceJson {
            trace: self,
            events,
            document,
        }
    }

    /// `events` (some of this trace's) shaped as in its JSON.
    pub fn events_json<'a>(&'a self, events: &'a [Event]) -> EventsJson<'a> {
        EventsJson(self, events)
    }

    /// `writes` (some of this trace's document) shaped as in its JSON.
    pub fn document_json<'a>(&'a self, writes: &'a [AppliedWrite]) -> DocumentJson<'a> {
        DocumentJson(self, writes)
    }
}

impl Serialize for EventsJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.1.iter().map(|e| EventJson(self.0, e)))
    }
}

impl Serialize for DocumentJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let trace = self.0;
        s.collect_seq(self.1.iter().map(|w| WriteJson {
            writer: trace.worker(w.writer),
            token: w.token,
            op: w.op,
            t_ms: w.t_ms,
            seq: w.seq,
        }))
    }
}

impl Serialize for TraceJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let t = self.trace;
        let mut st = s.serialize_struct("Trace", 8)?;
        st.serialize_field("scenario", &t.scenario)?;
        st.serialize_field("seed", &t.seed)?;
        st.serialize_field("fencing", &t.fencing)?;
        st.serialize_field("workers", &t.workers)?;
        st.serialize_field("events", &t.events_json(self.events))?;
        st.serialize_field("truncated", &t.truncated)?;
        st.serialize_field("verdict", &t.verdict)?;
        st.serialize_field("document", &t.document_json(self.document))?;
        st.end()
    }
}

impl Serialize for Trace {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.json_part(&self.events, &self.document).serialize(s)
    }
}
