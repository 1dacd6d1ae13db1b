//! The lock service: a real [`fencepost::Authority`]. It persists its snapshot whenever a grant
//! carries a reservation (fencepost's host contract), which is what an `authority_restart` with
//! `persisted: true` restores.

use fencepost::{AcquireError, Authority, Token};

use super::queue::Action;
use super::sim::{Holder, InFlight, Sim, holder_id, holder_worker};
use crate::trace::{Actor, Detail, Msg};

impl Sim<'_> {
    pub(super) fn ordinal_of(&self, holder: Holder, token: u64) -> u32 {
        self.grants
            .iter()
            .rev()
            .find(|g| g.0 == holder && g.1 == token)
            .map_or(u32::MAX, |g| g.2)
    }

    pub(super) fn lock_handles(&mut self, m: InFlight) {
        let Actor::Worker(w) = m.from else { return };
        let h = holder_id(w, m.inc);
        match m.what {
            Msg::Acquire => self.acquire(w, h, &m),
            Msg::Renew { check } => self.renew(w, h, &m, check),
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

    /// Worker `w` (holder `h`) asks for the lock: it is granted, or refused until a time.
    fn acquire(&mut self, w: u16, h: Holder, m: &InFlight) {
        let g = match self.authority.try_acquire(&h, self.now) {
            Ok(g) => g,
            Err(e) => return self.deny(w, m, e),
        };
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
            Actor::Worker(w),
            m.inc,
            Msg::Granted {
                expires_at: g.expires_at,
            },
            Some(token),
            ordinal,
        );
    }

    /// The lock service refuses worker `w`'s acquire `m` with `e`.
    fn deny(&mut self, w: u16, m: &InFlight, e: AcquireError<Holder>) {
        let (holder, until) = match e {
            AcquireError::Held { holder, until } => (Some(holder_worker(holder)), until),
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
            Actor::Worker(w),
            m.inc,
            Msg::Denied { retry_at: until },
            None,
            0,
        );
    }

    /// Worker `w` (holder `h`) asks to extend its lease (`check`: the renew before a write).
    fn renew(&mut self, w: u16, h: Holder, m: &InFlight, check: bool) {
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
                    Actor::Worker(w),
                    m.inc,
                    Msg::Renewed {
                        expires_at: r.expires_at,
                        check,
                        asked_ms_ago: u32::try_from(self.now - m.sent_at).unwrap_or(u32::MAX),
                    },
                    m.token,
                    m.ordinal,
                );
            }
            _ => {
                self.emit(Actor::Lock, m.token, Detail::RenewLost { holder: w });
                self.send(
                    Actor::Lock,
                    Actor::Worker(w),
                    m.inc,
                    Msg::Lost,
                    m.token,
                    m.ordinal,
                );
            }
        }
    }

    /// A lease's end may have come: the lock service expires it if so.
    pub(super) fn expiry_check(&mut self) {
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

    pub(super) fn authority_restart(&mut self, persisted: bool) {
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
}
