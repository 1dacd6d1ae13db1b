//! The holder's side of a lease: whether it is still safe to act on it, and when to renew.
//!
//! A [`Keeper`] never reads a clock and never sends anything. Its host tells it when a request
//! (acquire or renew) went out ([`Keeper::send`], which hands back a [`Ticket`]), what came back
//! ([`Keeper::granted`], [`Keeper::failed`]), when the holder let go ([`Keeper::released`]), and
//! what time it is; it answers the lease's [`LeaseState`], when to send the next renewal
//! ([`Keeper::next_send`]) and the deadline ([`Keeper::safe_until`]).
//!
//! The rule it exists for: the lease is reported held at `t` only while `t` is before the
//! safe-until of the newest successful answer, counted from the time that answer's request was
//! **sent** (the authority granted it later than that, whatever the network did), minus the clock
//! drift bound and the margin ([`safe_until`]). Answers may arrive late, twice or out of order: an
//! answer can move safe-until only as far as its own send time allows, and never back from what a
//! newer answer gave (safe-until is the maximum over answers). Once the lease is lost it stays
//! lost: an answer that arrives after safe-until has passed revives nothing, because the holder
//! may already have stopped, and a late renewal cannot tell whether another holder came between.
//! Every answer is judged at the time it arrives, and what the call returns is the state at that
//! time: a first grant that arrives at or after the safe-until it gives is lost as it arrives
//! (its token stays known, so the holder can give the lease back and ask again).
//!
//! Every request of one lease asks for the same TTL ([`Keeper::ttl_ms`]). That is what makes the
//! maximum safe: the authority sets the expiry to "when it processed the request + TTL", so
//! whichever request it processed last, the expiry is at least the newest successful send time
//! plus the TTL. A renewal asking for a shorter TTL could shorten the lease at the authority
//! even if its answer never arrived. For the same reason, if the authority grants less than was
//! asked (a deployer's ceiling), the keeper counts every request with the least TTL granted.
//!
//! ```
//! use fencepost::{Answer, Keeper, KeeperConfig, LeaseState, Loss, Token};
//!
//! // A 30 s lease, 0.1% drift and a 100 ms margin (the defaults).
//! let mut keeper = Keeper::new(KeeperConfig::new(), 30_000, 0)?;
//! let sent = keeper.send(0); // the acquire goes out at 0 ...
//! let answer = Answer { token: Token::new(33).unwrap(), ttl_ms: 30_000 };
//! let state = keeper.granted(sent, answer, 400)?; // ... and is answered at 400
//! // Counted from the send: 30 s less 0.1% (30 ms) and the margin.
//! assert_eq!(state, LeaseState::Held { token: answer.token, safe_until: 29_870 });
//! assert_eq!(keeper.next_send(), Some(9_999)); // renew a third of the way in
//!
//! // The holder freezes for 45 s. Waking, it asks before writing: the lease is gone.
//! assert_eq!(
//!     keeper.state(45_000),
//!     LeaseState::Lost { token: Some(answer.token), why: Loss::Expired }
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use core::fmt;
use core::sync::atomic::{AtomicU32, Ordering};

use crate::time::Timeline;
use crate::token::Token;

/// The last instant, on the holder's clock, at which it may still start a side effect under a
/// lease of `ttl_ms` whose request was sent at `sent_at`.
///
/// `drift_ppm` bounds how much faster the authority's clock may run than the holder's, in parts
/// per million (capped at 1,000,000); `margin_ms` covers how long a side effect takes to reach
/// the resource. The result saturates at `sent_at` when nothing is left.
pub fn safe_until(sent_at: u64, ttl_ms: u64, drift_ppm: u32, margin_ms: u64) -> u64 {
    let drift = u128::from(drift_ppm.min(1_000_000));
    // Rounded down: the holder's clock may measure a lease-length interval as only
    // ttl * (1 - drift) long.
    let budget = u128::from(ttl_ms) * (1_000_000 - drift) / 1_000_000;
    let budget = u64::try_from(budget).unwrap_or(u64::MAX);
    sent_at.saturating_add(budget.saturating_sub(margin_ms))
}

/// How a keeper judges a lease.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct KeeperConfig {
    /// Bound on how much faster the authority's clock runs than the holder's (ppm, <= 1,000,000).
    pub drift_ppm: u32,
    /// Time a side effect may take to reach the resource, taken off every safe-until (ms).
    pub margin_ms: u64,
    /// When to renew, as a fraction of the TTL in ppm (1..=1,000,000), counted from the send time
    /// of the newest successful request.
    pub renew_ppm: u32,
    /// How long to wait before sending again after a failure, or when a request has had no answer
    /// (ms, >= 1).
    pub retry_ms: u64,
}

impl KeeperConfig {
    /// Defaults: a 0.1% drift bound (ten times what ordinary clock crystals drift), a 100 ms
    /// margin, a renewal a third of the way into the lease (two more tries fit before it runs
    /// out), and a retry every 250 ms.
    pub const fn new() -> KeeperConfig {
        KeeperConfig {
            drift_ppm: 1_000,
            margin_ms: 100,
            renew_ppm: 333_333,
            retry_ms: 250,
        }
    }

    /// Sets the drift bound.
    pub const fn with_drift_ppm(mut self, ppm: u32) -> KeeperConfig {
        self.drift_ppm = ppm;
        self
    }

    /// Sets the margin.
    pub const fn with_margin_ms(mut self, ms: u64) -> KeeperConfig {
        self.margin_ms = ms;
        self
    }

    /// Sets when to renew, as a fraction of the TTL in ppm.
    pub const fn with_renew_ppm(mut self, ppm: u32) -> KeeperConfig {
        self.renew_ppm = ppm;
        self
    }

    /// Sets the retry interval.
    pub const fn with_retry_ms(mut self, ms: u64) -> KeeperConfig {
        self.retry_ms = ms;
        self
    }

    fn check(&self) -> Result<(), KeeperConfigError> {
        if self.drift_ppm > 1_000_000 {
            return Err(KeeperConfigError::DriftOutOfRange);
        }
        if self.renew_ppm == 0 || self.renew_ppm > 1_000_000 {
            return Err(KeeperConfigError::RenewOutOfRange);
        }
        if self.retry_ms == 0 {
            return Err(KeeperConfigError::ZeroRetry);
        }
        Ok(())
    }
}

impl Default for KeeperConfig {
    fn default() -> KeeperConfig {
        KeeperConfig::new()
    }
}

/// Why a keeper config was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum KeeperConfigError {
    /// `drift_ppm` is over 1,000,000.
    DriftOutOfRange,
    /// `renew_ppm` is 0 or over 1,000,000.
    RenewOutOfRange,
    /// `retry_ms` is 0.
    ZeroRetry,
    /// The lease's TTL is 0.
    ZeroTtl,
}

impl fmt::Display for KeeperConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            KeeperConfigError::DriftOutOfRange => "drift_ppm must be at most 1000000",
            KeeperConfigError::RenewOutOfRange => "renew_ppm must be between 1 and 1000000",
            KeeperConfigError::ZeroRetry => "retry_ms must be at least 1",
            KeeperConfigError::ZeroTtl => "the lease's TTL must be at least 1 ms",
        })
    }
}

impl core::error::Error for KeeperConfigError {}

/// A request the keeper knows was sent, and when: the host hands it back with the answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ticket {
    /// The keeper that handed it out (see [`Keeper`]'s `id`).
    keeper: u32,
    seq: u64,
    sent_at: u64,
}

impl Ticket {
    /// When the request was sent, on the holder's clock (after clamping).
    pub const fn sent_at(&self) -> u64 {
        self.sent_at
    }
}

/// A successful answer to an acquire or a renew.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Answer {
    /// The lease's fencing token.
    pub token: Token,
    /// The lease length the authority granted, counted from when it granted it.
    pub ttl_ms: u64,
}

/// What went wrong with a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Failure {
    /// No answer that says anything about the lease (network error, timeout, a server error):
    /// the lease may still be held; send again.
    Transient,
    /// The authority says this holder does not hold the lease (any more). During acquisition it
    /// means the lock is held by someone else, and the keeper keeps acquiring.
    Refused,
}

/// Why a lease is lost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Loss {
    /// Safe-until passed without a successful renewal, or the holder's clock stepped back so
    /// that it can no longer tell whether it did.
    Expired,
    /// The authority refused a renewal: the lease is gone.
    Refused,
    /// The holder released it.
    Released,
}

impl Loss {
    /// One lowercase word for logs and `AbortSignal` reasons.
    pub const fn as_str(&self) -> &'static str {
        match self {
            Loss::Expired => "expired",
            Loss::Refused => "refused",
            Loss::Released => "released",
        }
    }
}

/// What the keeper says about the lease.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum LeaseState {
    /// No grant yet.
    Acquiring,
    /// Held: side effects may start before `safe_until`.
    Held {
        /// The fencing token.
        token: Token,
        /// The deadline.
        safe_until: u64,
    },
    /// Still held until `safe_until`, but renewals are failing: the holder should finish or stop.
    Uncertain {
        /// The fencing token.
        token: Token,
        /// The deadline.
        safe_until: u64,
    },
    /// Lost for good.
    Lost {
        /// The token it had, if it was ever granted.
        token: Option<Token>,
        /// Why.
        why: Loss,
    },
}

impl LeaseState {
    /// Whether a side effect may start now (held or uncertain).
    pub const fn is_safe(&self) -> bool {
        matches!(self, LeaseState::Held { .. } | LeaseState::Uncertain { .. })
    }
}

/// An answer the keeper could not take; the state is unchanged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum KeeperError {
    /// The ticket was not handed out by this keeper.
    UnknownTicket,
    /// The answer carries another token than the lease's.
    OtherToken {
        /// The lease's token.
        held: Token,
        /// The answer's token.
        answered: Token,
    },
}

impl fmt::Display for KeeperError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KeeperError::UnknownTicket => f.write_str("ticket was not issued by this keeper"),
            KeeperError::OtherToken { held, answered } => write!(
                f,
                "answer carries token {answered}, but the lease holds token {held}"
            ),
        }
    }
}

impl core::error::Error for KeeperError {}

/// What the successful answers so far add up to.
#[derive(Clone, Copy, Debug)]
struct Success {
    token: Token,
    /// The latest send time of a request answered successfully.
    sent_at: u64,
    /// The least TTL granted (at most the TTL asked).
    ttl_ms: u64,
    safe_until: u64,
    /// Sequence number of the newest request answered successfully.
    seq: u64,
}

/// A number for a new keeper, different from the last 2^32 - 1 keepers' (no clock, randomness
/// or allocation needed; a 32-bit atomic exists on every target the core builds for).
fn next_keeper_id() -> u32 {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// The state machine of one lease, on the holder's side. See the [module docs](self).
#[derive(Clone, Debug)]
pub struct Keeper {
    /// Told apart from every other keeper of the process, so a ticket handed to the wrong one
    /// is refused whatever its number. A clone keeps it: a clone is the same lease, forked.
    id: u32,
    cfg: KeeperConfig,
    ttl_ms: u64,
    time: Timeline,
    next_seq: u64,
    success: Option<Success>,
    /// The newest request sent, if no answer or failure has settled it yet.
    in_flight: Option<Ticket>,
    /// The newest transient failure not yet followed by a newer success: its request's sequence
    /// number and when it was reported.
    failing: Option<(u64, u64)>,
    lost: Option<Loss>,
}

impl Keeper {
    /// A keeper for a lease of `ttl_ms` about to be acquired, with the clock at `now`.
    pub fn new(cfg: KeeperConfig, ttl_ms: u64, now: u64) -> Result<Keeper, KeeperConfigError> {
        cfg.check()?;
        if ttl_ms == 0 {
            return Err(KeeperConfigError::ZeroTtl);
        }
        Ok(Keeper {
            id: next_keeper_id(),
            cfg,
            ttl_ms,
            time: Timeline::starting_at(now),
            next_seq: 0,
            success: None,
            in_flight: None,
            failing: None,
            lost: None,
        })
    }

    /// The config.
    pub const fn config(&self) -> &KeeperConfig {
        &self.cfg
    }

    /// The TTL every request of this lease asks for.
    pub const fn ttl_ms(&self) -> u64 {
        self.ttl_ms
    }

    /// Records that an acquire or a renew is being sent at `now`; pass the ticket back with its
    /// answer. Sending after the lease is lost is allowed (a release, say) and changes nothing.
    pub fn send(&mut self, now: u64) -> Ticket {
        let now = self.observe(now);
        let ticket = Ticket {
            keeper: self.id,
            seq: self.next_seq,
            sent_at: now,
        };
        self.next_seq += 1;
        if self.lost.is_none() {
            self.in_flight = Some(ticket);
        }
        ticket
    }

    /// A successful answer to `ticket`, received at `now`. An answer after the lease is lost
    /// changes nothing; one for another token is refused; one that leaves `now` at or past the
    /// deadline loses the lease (for a first grant: answered too late to act on).
    pub fn granted(
        &mut self,
        ticket: Ticket,
        answer: Answer,
        now: u64,
    ) -> Result<LeaseState, KeeperError> {
        self.known(ticket)?;
        let now = self.observe(now);
        if self.lost.is_some() {
            return Ok(self.state_at(now));
        }
        if let Some(s) = self.success
            && s.token != answer.token
        {
            return Err(KeeperError::OtherToken {
                held: s.token,
                answered: answer.token,
            });
        }
        let (cfg, asked) = (self.cfg, self.ttl_ms);
        let s = self.success.get_or_insert(Success {
            token: answer.token,
            sent_at: ticket.sent_at,
            ttl_ms: asked,
            safe_until: 0,
            seq: ticket.seq,
        });
        s.sent_at = s.sent_at.max(ticket.sent_at);
        s.ttl_ms = s.ttl_ms.min(answer.ttl_ms);
        s.safe_until = safe_until(s.sent_at, s.ttl_ms, cfg.drift_ppm, cfg.margin_ms);
        s.seq = s.seq.max(ticket.seq);
        if self.failing.is_some_and(|(seq, _)| ticket.seq > seq) {
            self.failing = None;
        }
        self.settle(ticket);
        // The answer is judged at the time it arrived, like everything else: a first grant
        // whose deadline passed on the way, or a renewal granting less than was counted on, can
        // leave nothing to act on. The host acts on what this call returns.
        self.expire_if_due(now);
        Ok(self.state_at(now))
    }

    /// A failed request, reported at `now`. A refusal of a renewal loses the lease; a refused
    /// acquire leaves the keeper acquiring; a transient failure makes a held lease uncertain.
    pub fn failed(
        &mut self,
        ticket: Ticket,
        failure: Failure,
        now: u64,
    ) -> Result<LeaseState, KeeperError> {
        self.known(ticket)?;
        let now = self.observe(now);
        if self.lost.is_some() {
            return Ok(self.state_at(now));
        }
        match (failure, self.success) {
            (Failure::Refused, Some(s)) if ticket.seq >= s.seq => self.lost = Some(Loss::Refused),
            // An older request refused after a newer one succeeded says nothing new.
            (Failure::Refused, _) => {}
            // Only a failure newer than the newest success (and than the last failure) counts.
            (Failure::Transient, Some(s)) if ticket.seq < s.seq => {}
            (Failure::Transient, _) => {
                if self.failing.is_none_or(|(seq, _)| ticket.seq >= seq) {
                    self.failing = Some((ticket.seq, now));
                }
            }
        }
        self.settle(ticket);
        Ok(self.state_at(now))
    }

    /// The holder lets go (or gives up acquiring) at `now`: the lease is lost for good.
    pub fn released(&mut self, now: u64) -> LeaseState {
        let now = self.observe(now);
        self.lost.get_or_insert(Loss::Released);
        self.in_flight = None;
        self.state_at(now)
    }

    /// The state at `now`.
    pub fn state(&mut self, now: u64) -> LeaseState {
        let now = self.observe(now);
        self.state_at(now)
    }

    /// The deadline: side effects may start only before it. `None` before the first grant.
    pub fn safe_until(&self) -> Option<u64> {
        self.success.map(|s| s.safe_until)
    }

    /// The token, once granted.
    pub fn token(&self) -> Option<Token> {
        self.success.map(|s| s.token)
    }

    /// When to send the next renewal: a fraction of the TTL after the send time of the answer
    /// that gave the current deadline, or a retry interval after a failure or after a request
    /// still unanswered. `None` when nothing more is worth sending: not yet granted, lost, or the
    /// time would not come before the deadline.
    pub fn next_send(&self) -> Option<u64> {
        let s = self.success.filter(|_| self.lost.is_none())?;
        let renew = u128::from(s.ttl_ms) * u128::from(self.cfg.renew_ppm) / 1_000_000;
        let due = s
            .sent_at
            .saturating_add(u64::try_from(renew).unwrap_or(u64::MAX));
        let at = match (self.in_flight, self.failing) {
            (Some(t), _) => t.sent_at.saturating_add(self.cfg.retry_ms).max(due),
            (None, Some((_, at))) => at.saturating_add(self.cfg.retry_ms),
            (None, None) => due,
        };
        (at < s.safe_until).then_some(at)
    }

    fn observe(&mut self, now: u64) -> u64 {
        let seen = self.time.observe(now);
        if seen.clamped_by > 0 && self.next_seq == 0 {
            // Nothing was measured yet: the clock's new readings are the ones to count in.
            self.time = Timeline::starting_at(now);
            return now;
        }
        let now = seen.now;
        // A clock that stepped back can no longer measure anything sent before the step: the
        // clamped time stands still while real time passes, so a deadline counted in the old
        // readings would be reached late. Once a request is out, the holder must assume the
        // worst and give the lease up, as if it ran out.
        if seen.clamped_by > 0 {
            self.expire();
        }
        // Expiry first: whatever arrives at or after the deadline finds the lease already lost.
        self.expire_if_due(now);
        now
    }

    /// The lease is lost at `now` if `now` is at or past the deadline of the grants so far.
    fn expire_if_due(&mut self, now: u64) {
        if self.success.is_some_and(|s| now >= s.safe_until) {
            self.expire();
        }
    }

    fn expire(&mut self) {
        if self.lost.is_none() {
            self.lost = Some(Loss::Expired);
            self.in_flight = None;
        }
    }

    fn known(&self, ticket: Ticket) -> Result<(), KeeperError> {
        if ticket.keeper == self.id && ticket.seq < self.next_seq {
            Ok(())
        } else {
            Err(KeeperError::UnknownTicket)
        }
    }

    fn settle(&mut self, ticket: Ticket) {
        if self.in_flight.is_some_and(|t| t.seq <= ticket.seq) {
            self.in_flight = None;
        }
    }

    fn state_at(&self, now: u64) -> LeaseState {
        let token = self.success.map(|s| s.token);
        if let Some(why) = self.lost {
            return LeaseState::Lost { token, why };
        }
        let Some(s) = self.success else {
            return LeaseState::Acquiring;
        };
        let overdue = self
            .in_flight
            .is_some_and(|t| now >= t.sent_at.saturating_add(self.cfg.retry_ms));
        if self.failing.is_some() || overdue {
            LeaseState::Uncertain {
                token: s.token,
                safe_until: s.safe_until,
            }
        } else {
            LeaseState::Held {
                token: s.token,
                safe_until: s.safe_until,
            }
        }
    }
}

#[cfg(test)]
mod tests;
