//! What an authority answers: leases, grants, renewals, releases, expiries and refusals.

use core::fmt;

use super::sequence::Reservation;
use crate::token::Token;

/// A live (or last known) lease.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Lease<H> {
    /// Who holds it.
    pub holder: H,
    /// Its fencing token.
    pub token: Token,
    /// When it was first granted.
    pub granted_at: u64,
    /// First instant at which it is no longer held.
    pub expires_at: u64,
    /// Re-entry depth (1 after the first acquire).
    pub depth: u32,
}

impl<H> Lease<H> {
    /// Whether the lease is still held at `now`: live while `now < expires_at` (the rule the
    /// authority applies when it settles an expiry), for callers that look without settling.
    ///
    /// ```
    /// # use fencepost::{Authority, Config};
    /// let mut a: Authority<&str> = Authority::new(Config::new(30_000)).unwrap();
    /// a.try_acquire(&"A", 0).unwrap();
    /// let lease = a.lease(0).unwrap();
    /// assert!(lease.is_live_at(29_999));
    /// assert!(!lease.is_live_at(30_000));
    /// ```
    #[inline]
    pub fn is_live_at(&self, now: u64) -> bool {
        now < self.expires_at
    }
}

/// A successful acquire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Grant {
    /// The fencing token to present to resources.
    pub token: Token,
    /// The authority time of this grant.
    pub granted_at: u64,
    /// First instant at which the lease is no longer held.
    pub expires_at: u64,
    /// Re-entry depth after this acquire (1 for a fresh grant).
    pub depth: u32,
    /// A new token reservation the host must persist before returning this grant.
    pub reservation: Option<Reservation>,
}

impl Grant {
    /// Whether this acquire re-entered a lease the holder already had.
    pub const fn reentered(&self) -> bool {
        self.depth > 1
    }

    /// The last instant, on the holder's own clock, at which it may still *start* a side effect.
    ///
    /// `sent_at` is the holder's clock reading when it sent the acquire request (the grant happened
    /// after that, so counting from it is safe whatever the network did). `drift_ppm` bounds how
    /// much faster the authority's clock may run than the holder's, in parts per million; `margin_ms`
    /// covers how long the side effect takes to reach the resource. The result never exceeds what the
    /// lease allows and saturates at `sent_at` when nothing is left.
    pub fn safe_until(&self, sent_at: u64, drift_ppm: u32, margin_ms: u64) -> u64 {
        let ttl = self.expires_at.saturating_sub(self.granted_at);
        crate::keeper::safe_until(sent_at, ttl, drift_ppm, margin_ms)
    }
}

/// A successful renew.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Renewal {
    /// The unchanged token.
    pub token: Token,
    /// The new expiry.
    pub expires_at: u64,
}

/// A successful release.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Released {
    /// The lock is free (no lock-delay follows a clean release).
    Free,
    /// One re-entry level was released; the holder still holds the lock at this depth.
    Held {
        /// Remaining depth.
        depth: u32,
    },
}

/// A lease that ran out, reported once when the authority notices it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Expired<H> {
    /// Who held it.
    pub holder: H,
    /// Its token.
    pub token: Token,
    /// When it expired (`expires_at`, not when it was noticed).
    pub at: u64,
    /// No new grant before this instant (equal to `at` without lock-delay).
    pub free_at: u64,
}

/// Why an acquire did not grant.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum AcquireError<H> {
    /// Another holder has a live lease.
    Held {
        /// The current holder.
        holder: H,
        /// When its lease expires unless renewed.
        until: u64,
    },
    /// The lock is in its lock-delay after an expiry.
    LockDelay {
        /// First instant a grant is possible.
        until: u64,
    },
    /// The holder re-entered as deep as allowed.
    ReentryLimit {
        /// The configured limit.
        max: u32,
    },
    /// Every token up to `u64::MAX` was issued.
    Exhausted,
}

impl<H> AcquireError<H> {
    /// The earliest instant at which trying again could succeed, if waiting can help.
    pub fn retry_at(&self) -> Option<u64> {
        match self {
            AcquireError::Held { until, .. } | AcquireError::LockDelay { until } => Some(*until),
            AcquireError::ReentryLimit { .. } | AcquireError::Exhausted => None,
        }
    }
}

impl<H: fmt::Debug> fmt::Display for AcquireError<H> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AcquireError::Held { holder, until } => {
                write!(f, "lock is held by {holder:?} until {until}")
            }
            AcquireError::LockDelay { until } => {
                write!(f, "lock is in its lock-delay until {until}")
            }
            AcquireError::ReentryLimit { max } => {
                write!(f, "holder already re-entered {max} times")
            }
            AcquireError::Exhausted => f.write_str("fencing tokens are exhausted"),
        }
    }
}

impl<H: fmt::Debug> core::error::Error for AcquireError<H> {}

/// Why a renew or release failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum LeaseError {
    /// No live lease has this token: it expired, was taken over or was released. Stop acting
    /// as the owner.
    Lost,
    /// The live lease has this token, but another holder holds it: the caller knows the token
    /// without being its holder (a service tells this apart from [`LeaseError::Lost`] to answer
    /// "forbidden" rather than "gone"). Nothing changed.
    NotHolder,
}

impl fmt::Display for LeaseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LeaseError::Lost => "lease lost: no live lease of this lock has this token",
            LeaseError::NotHolder => {
                "not the holder: the live lease of this token is another holder's"
            }
        })
    }
}

impl core::error::Error for LeaseError {}
