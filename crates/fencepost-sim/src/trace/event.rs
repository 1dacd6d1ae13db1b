//! What happens in a run: who acts, the messages they exchange, and each event with its
//! particulars.

use serde::Serialize;

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
