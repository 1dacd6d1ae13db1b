//! One plain sentence for each event.

use alloc::format;
use alloc::string::String;

use super::event::{Detail, Event, JobEnd, LossWhy, Msg, RejectReason};
use super::record::Trace;
use crate::secs::fmt_secs;

impl Trace {
    /// One plain sentence saying what `event` means.
    pub fn explain(&self, e: &Event) -> String {
        let who = self.name(e.actor);
        let tok = e.token.map_or(String::new(), |t| format!(" {t}"));
        // Each kind of event is told by exactly one of these.
        self.explain_message(e, who, &tok)
            .or_else(|| self.explain_lock(e, &tok))
            .or_else(|| self.explain_lock_end(e, &tok))
            .or_else(|| self.explain_storage(e, &tok))
            .or_else(|| explain_worker(e, who, &tok))
            .unwrap_or_default()
    }

    /// A message sent or delivered.
    fn explain_message(&self, e: &Event, who: &str, tok: &str) -> Option<String> {
        Some(match e.detail {
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
                    fmt_secs(deliver_at)
                ),
                _ => format!(
                    "{who} sends {} to {}, due at {}{}",
                    what.name(),
                    self.name(to),
                    fmt_secs(deliver_at),
                    believed_until.map_or(String::new(), |u| format!(
                        "; its keeper counts the lease safe until {}",
                        fmt_secs(u)
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
                    fmt_secs(until)
                ),
                (Msg::Renewed { .. }, Some(until)) => format!(
                    "{who} learns its lease was renewed and believes it holds the lock until {}",
                    fmt_secs(until)
                ),
                (Msg::Denied { retry_at }, _) => format!(
                    "{who} learns it cannot take the lock until {}; it waits {} by its own clock to try again",
                    fmt_secs(retry_at),
                    fmt_secs(retry_wait(retry_at, e.t_ms))
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
                    fmt_secs(sent_at)
                ),
            },
            _ => return None,
        })
    }

    /// What the lock service did.
    fn explain_lock(&self, e: &Event, tok: &str) -> Option<String> {
        Some(match e.detail {
            Detail::Grant {
                holder,
                expires_at,
                reentry: false,
            } => format!(
                "the lock service grants the lock to {} with token{tok}, until {}",
                self.worker(holder),
                fmt_secs(expires_at)
            ),
            Detail::Grant {
                holder,
                expires_at,
                reentry: true,
            } => format!(
                "the lock service lets {} re-enter its lease with the same token{tok}, until {}",
                self.worker(holder),
                fmt_secs(expires_at)
            ),
            Detail::Deny {
                requester,
                holder: Some(h),
                until,
            } => format!(
                "the lock service refuses {}: {} holds the lock until {}",
                self.worker(requester),
                self.worker(h),
                fmt_secs(until)
            ),
            Detail::Deny {
                requester,
                holder: None,
                until,
            } => format!(
                "the lock service refuses {}: the lock is in its lock-delay until {}",
                self.worker(requester),
                fmt_secs(until)
            ),
            Detail::Renew { holder, expires_at } => format!(
                "the lock service renews {}'s lease (token{tok}) until {}",
                self.worker(holder),
                fmt_secs(expires_at)
            ),
            Detail::RenewLost { holder } => format!(
                "the lock service refuses to renew {}'s token{tok}: that lease is over",
                self.worker(holder)
            ),
            _ => return None,
        })
    }

    /// A lease the lock service let go of, or the lock service itself restarting.
    fn explain_lock_end(&self, e: &Event, tok: &str) -> Option<String> {
        Some(match e.detail {
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
                        fmt_secs(free_at)
                    )
                } else {
                    format!(
                        "{}'s lease with token{tok} expires; the lock is free",
                        self.worker(holder)
                    )
                }
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
            _ => return None,
        })
    }

    /// What the storage did.
    fn explain_storage(&self, e: &Event, tok: &str) -> Option<String> {
        Some(match e.detail {
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
            _ => return None,
        })
    }
}

/// What befell a worker, or what it did or learned of its own.
fn explain_worker(e: &Event, who: &str, tok: &str) -> Option<String> {
    Some(match e.detail {
        Detail::LeaseLost {
            why: LossWhy::Expired,
            believed_until,
        } => format!(
            "{who}'s keeper says its lease (token{tok}) is lost: its safe-until, {}, has passed with no renewal answered",
            believed_until.map_or(String::from("?"), fmt_secs)
        ),
        Detail::LeaseLost {
            why: LossWhy::Refused,
            ..
        } => format!(
            "{who}'s keeper says its lease (token{tok}) is lost: the lock service refused its renewal"
        ),
        Detail::PauseStart { until } => format!(
            "{who} freezes (a GC pause or a suspended VM) until {}; it will not notice",
            fmt_secs(until)
        ),
        Detail::PauseEnd => format!("{who} resumes exactly where it stopped"),
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
        _ => return None,
    })
}

/// How long a worker refused at `now` waits, by its own clock, before it asks again: until the
/// `retry_at` the lock service named, as that clock counts (at least 1 ms).
pub(crate) fn retry_wait(retry_at: u64, now: u64) -> u64 {
    retry_at.saturating_sub(now).max(1)
}
