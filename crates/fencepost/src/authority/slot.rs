//! One lock's state apart from its token sequence, and the rules every lock follows.

use super::config::Config;
use super::outcome::{AcquireError, Expired, Grant, Lease, LeaseError, Released, Renewal};
use super::sequence::TokenSequence;
use crate::token::Token;

/// The state of one lock apart from its token sequence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Slot<H> {
    pub(crate) lease: Option<Lease<H>>,
    /// No grant before this instant (lock-delay after an expiry).
    pub(crate) free_at: u64,
}

impl<H> Default for Slot<H> {
    fn default() -> Slot<H> {
        Slot {
            lease: None,
            free_at: 0,
        }
    }
}

impl<H: Clone + Eq> Slot<H> {
    /// Ends the lease if it ran out by `now`.
    #[inline(never)]
    pub(crate) fn settle(&mut self, now: u64, cfg: &Config) -> Option<Expired<H>> {
        match &self.lease {
            Some(lease) if !lease.is_live_at(now) => {
                let lease = self.lease.take()?;
                let at = lease.expires_at;
                self.free_at = at.saturating_add(cfg.lock_delay_ms);
                Some(Expired {
                    holder: lease.holder,
                    token: lease.token,
                    at,
                    free_at: self.free_at,
                })
            }
            _ => None,
        }
    }

    #[cfg(feature = "alloc")]
    /// Whether the slot holds nothing worth remembering at `now` (no lease, no pending delay).
    pub(crate) fn is_idle(&self, now: u64) -> bool {
        self.lease.is_none() && now >= self.free_at
    }

    #[inline]
    pub(crate) fn acquire(
        &mut self,
        seq: &mut TokenSequence,
        cfg: &Config,
        holder: &H,
        ttl_ms: u64,
        now: u64,
    ) -> Result<Grant, AcquireError<H>> {
        self.settle(now, cfg);
        let expires_at = now.saturating_add(ttl_ms.max(1));
        // The lease after this acquire: the holder's own, re-entered, or a fresh one.
        let (lease, reservation) = match &mut self.lease {
            Some(lease) => {
                if lease.holder != *holder {
                    return Err(AcquireError::Held {
                        holder: lease.holder.clone(),
                        until: lease.expires_at,
                    });
                }
                if lease.depth >= cfg.max_reentry {
                    return Err(AcquireError::ReentryLimit {
                        max: cfg.max_reentry,
                    });
                }
                lease.depth += 1;
                lease.expires_at = lease.expires_at.max(expires_at);
                (lease, None)
            }
            None => {
                if now < self.free_at {
                    return Err(AcquireError::LockDelay {
                        until: self.free_at,
                    });
                }
                let (token, reservation) = seq
                    .issue(cfg.reserve_block)
                    .map_err(|_| AcquireError::Exhausted)?;
                let lease = self.lease.insert(Lease {
                    holder: holder.clone(),
                    token,
                    granted_at: now,
                    expires_at,
                    depth: 1,
                });
                (lease, reservation)
            }
        };
        Ok(Grant {
            token: lease.token,
            granted_at: now,
            expires_at: lease.expires_at,
            depth: lease.depth,
            reservation,
        })
    }

    /// The live lease of `holder` with exactly `token`, after settling expiry.
    fn held_by(
        &mut self,
        holder: &H,
        token: Token,
        now: u64,
        cfg: &Config,
    ) -> Result<&mut Lease<H>, LeaseError> {
        self.settle(now, cfg);
        match self.lease.as_mut() {
            Some(l) if l.token == token && l.holder == *holder => Ok(l),
            Some(l) if l.token == token => Err(LeaseError::NotHolder),
            _ => Err(LeaseError::Lost),
        }
    }

    #[inline]
    pub(crate) fn renew(
        &mut self,
        cfg: &Config,
        holder: &H,
        token: Token,
        ttl_ms: u64,
        now: u64,
    ) -> Result<Renewal, LeaseError> {
        let lease = self.held_by(holder, token, now, cfg)?;
        lease.expires_at = now.saturating_add(ttl_ms.max(1));
        Ok(Renewal {
            token,
            expires_at: lease.expires_at,
        })
    }

    #[inline]
    pub(crate) fn release(
        &mut self,
        cfg: &Config,
        holder: &H,
        token: Token,
        now: u64,
    ) -> Result<Released, LeaseError> {
        let lease = self.held_by(holder, token, now, cfg)?;
        if lease.depth > 1 {
            lease.depth -= 1;
            return Ok(Released::Held { depth: lease.depth });
        }
        self.lease = None;
        // A clean release frees the lock at once: no lock-delay.
        self.free_at = 0;
        Ok(Released::Free)
    }
}
