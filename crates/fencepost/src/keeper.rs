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
    /// changes nothing; one for another token is refused.
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
        let stepped_back = seen.clamped_by > 0;
        // Expiry first: whatever arrives at or after the deadline finds the lease already lost.
        let expired = self.success.is_some_and(|s| now >= s.safe_until);
        if self.lost.is_none() && (stepped_back || expired) {
            self.lost = Some(Loss::Expired);
            self.in_flight = None;
        }
        now
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
mod tests {
    use super::*;

    fn t(v: u64) -> Token {
        Token::new(v).unwrap()
    }

    /// No drift, no margin, renew a third in, retry after 100 ms: the numbers read off directly.
    fn plain() -> KeeperConfig {
        KeeperConfig::new()
            .with_drift_ppm(0)
            .with_margin_ms(0)
            .with_retry_ms(100)
    }

    fn held(token: u64, safe_until: u64) -> LeaseState {
        LeaseState::Held {
            token: t(token),
            safe_until,
        }
    }

    fn answer(token: u64, ttl_ms: u64) -> Answer {
        Answer {
            token: t(token),
            ttl_ms,
        }
    }

    #[test]
    fn acquire_then_renew_on_time() {
        let mut k = Keeper::new(plain(), 3_000, 0).unwrap();
        assert_eq!(k.state(0), LeaseState::Acquiring);
        assert_eq!(k.next_send(), None);
        let a = k.send(0);
        assert_eq!(k.granted(a, answer(33, 3_000), 50), Ok(held(33, 3_000)));
        // A third of 3 s after the acquire was sent.
        assert_eq!(k.next_send(), Some(999));
        let r = k.send(999);
        assert_eq!(k.next_send(), Some(1_099));
        assert_eq!(k.granted(r, answer(33, 3_000), 1_040), Ok(held(33, 3_999)));
        assert_eq!(k.next_send(), Some(1_998));
        assert_eq!(k.state(3_998), held(33, 3_999));
        assert_eq!(
            k.state(3_999),
            LeaseState::Lost {
                token: Some(t(33)),
                why: Loss::Expired
            }
        );
        assert_eq!(k.next_send(), None);
    }

    #[test]
    fn safe_until_counts_from_the_send_time_with_drift_and_margin() {
        let cfg = KeeperConfig::new()
            .with_drift_ppm(10_000)
            .with_margin_ms(200);
        let mut k = Keeper::new(cfg, 30_000, 900).unwrap();
        let a = k.send(900);
        // A slow answer: 30 s lease, 1% drift -> 29.7 s, minus 200 ms, from 900 (not from 2_900).
        assert_eq!(k.granted(a, answer(7, 30_000), 2_900), Ok(held(7, 30_400)));
        assert_eq!(safe_until(900, 30_000, 10_000, 200), 30_400);
        assert_eq!(safe_until(900, 30_000, 2_000_000, 0), 900);
        assert_eq!(safe_until(900, 30_000, 0, 40_000), 900);
        assert_eq!(safe_until(u64::MAX - 5, 30_000, 0, 0), u64::MAX);
    }

    #[test]
    fn an_older_answer_arriving_last_neither_shortens_nor_extends() {
        let mut k = Keeper::new(plain(), 3_000, 0).unwrap();
        let a = k.send(0);
        k.granted(a, answer(5, 3_000), 10).unwrap();
        let r1 = k.send(1_000);
        let r2 = k.send(2_000);
        // The newer renewal's answer comes first ...
        assert_eq!(k.granted(r2, answer(5, 3_000), 2_050), Ok(held(5, 5_000)));
        // ... then the older one: 4_000 would shorten it, so it stays 5_000.
        assert_eq!(k.granted(r1, answer(5, 3_000), 2_100), Ok(held(5, 5_000)));
        // The same answer twice changes nothing.
        assert_eq!(k.granted(r2, answer(5, 3_000), 2_200), Ok(held(5, 5_000)));
    }

    #[test]
    fn a_grant_shorter_than_asked_counts_for_every_request() {
        let mut k = Keeper::new(plain(), 3_000, 0).unwrap();
        let a = k.send(0);
        k.granted(a, answer(5, 3_000), 10).unwrap();
        let r = k.send(1_000);
        // The authority capped this renewal at 1 s: any request of the lease may have been.
        assert_eq!(k.granted(r, answer(5, 1_000), 1_010), Ok(held(5, 2_000)));
        // A grant longer than asked is held to what was asked.
        let r = k.send(1_500);
        assert_eq!(k.granted(r, answer(5, 60_000), 1_510), Ok(held(5, 2_500)));
    }

    #[test]
    fn expiry_is_final_even_if_a_renewal_answer_arrives_after_it() {
        let mut k = Keeper::new(plain(), 3_000, 0).unwrap();
        let a = k.send(0);
        k.granted(a, answer(5, 3_000), 10).unwrap();
        let r = k.send(2_000);
        // The answer (which would give 5_000) arrives at 3_000, when the lease already ran out.
        let lost = LeaseState::Lost {
            token: Some(t(5)),
            why: Loss::Expired,
        };
        assert_eq!(k.granted(r, answer(5, 3_000), 3_000), Ok(lost));
        assert_eq!(k.state(3_001), lost);
        assert_eq!(k.safe_until(), Some(3_000));
    }

    #[test]
    fn failing_renewals_make_it_uncertain_until_one_succeeds() {
        let mut k = Keeper::new(plain(), 3_000, 0).unwrap();
        let a = k.send(0);
        k.granted(a, answer(5, 3_000), 10).unwrap();
        let r1 = k.send(999);
        let uncertain = LeaseState::Uncertain {
            token: t(5),
            safe_until: 3_000,
        };
        assert_eq!(k.failed(r1, Failure::Transient, 1_020), Ok(uncertain));
        assert_eq!(k.next_send(), Some(1_120));
        let r2 = k.send(1_120);
        // Unanswered: still uncertain; resend after the retry interval.
        assert_eq!(k.state(1_500), uncertain);
        assert_eq!(k.next_send(), Some(1_220));
        assert_eq!(k.granted(r2, answer(5, 3_000), 1_600), Ok(held(5, 4_120)));
        // A failure of an older request after a newer success says nothing.
        assert_eq!(k.failed(r1, Failure::Transient, 1_700), Ok(held(5, 4_120)));
    }

    #[test]
    fn an_unanswered_renewal_turns_uncertain_after_the_retry_interval() {
        let mut k = Keeper::new(plain(), 3_000, 0).unwrap();
        let a = k.send(0);
        k.granted(a, answer(5, 3_000), 10).unwrap();
        k.send(999);
        assert_eq!(k.state(1_098), held(5, 3_000));
        assert_eq!(
            k.state(1_099),
            LeaseState::Uncertain {
                token: t(5),
                safe_until: 3_000
            }
        );
    }

    #[test]
    fn a_refused_renewal_loses_the_lease_at_once() {
        let mut k = Keeper::new(plain(), 3_000, 0).unwrap();
        let a = k.send(0);
        k.granted(a, answer(5, 3_000), 10).unwrap();
        let r1 = k.send(500);
        let r2 = k.send(999);
        k.granted(r2, answer(5, 3_000), 1_010).unwrap();
        // r1 was refused before r2 renewed: older news, ignored.
        assert_eq!(k.failed(r1, Failure::Refused, 1_020), Ok(held(5, 3_999)));
        let r3 = k.send(1_998);
        let lost = LeaseState::Lost {
            token: Some(t(5)),
            why: Loss::Refused,
        };
        assert_eq!(k.failed(r3, Failure::Refused, 2_000), Ok(lost));
        assert_eq!(k.next_send(), None);
        // Nothing revives it.
        assert_eq!(k.granted(r3, answer(5, 3_000), 2_001), Ok(lost));
    }

    #[test]
    fn a_refused_acquire_keeps_acquiring_and_release_ends_it() {
        let mut k = Keeper::new(plain(), 3_000, 0).unwrap();
        let a = k.send(0);
        assert_eq!(k.failed(a, Failure::Refused, 5), Ok(LeaseState::Acquiring));
        assert_eq!(
            k.failed(a, Failure::Transient, 6),
            Ok(LeaseState::Acquiring)
        );
        let b = k.send(100);
        k.granted(b, answer(9, 1_000), 110).unwrap();
        let released = LeaseState::Lost {
            token: Some(t(9)),
            why: Loss::Released,
        };
        assert_eq!(k.released(200), released);
        assert_eq!(k.state(201), released);
        let never = Keeper::new(plain(), 3_000, 0).unwrap().released(1);
        assert_eq!(
            never,
            LeaseState::Lost {
                token: None,
                why: Loss::Released
            }
        );
    }

    #[test]
    fn a_clock_that_steps_back_loses_the_lease() {
        let mut k = Keeper::new(plain(), 3_000, 0).unwrap();
        let a = k.send(0);
        k.granted(a, answer(5, 3_000), 10).unwrap();
        assert_eq!(k.state(2_000), held(5, 3_000));
        // The clock steps back by 1_900: counted in its new readings the deadline would come
        // 1_900 ms late, so the lease is given up at once, and nothing revives it.
        let lost = LeaseState::Lost {
            token: Some(t(5)),
            why: Loss::Expired,
        };
        assert_eq!(k.state(100), lost);
        let r = k.send(150);
        assert_eq!(k.granted(r, answer(5, 3_000), 200), Ok(lost));
        assert_eq!(k.state(2_100), lost);
        assert_eq!(k.next_send(), None);
        // Before anything was sent, the clock's new readings are simply the ones counted in.
        let mut fresh = Keeper::new(plain(), 3_000, 500).unwrap();
        assert_eq!(fresh.state(100), LeaseState::Acquiring);
        let a = fresh.send(120);
        assert_eq!(a.sent_at(), 120);
        assert_eq!(fresh.granted(a, answer(6, 3_000), 200), Ok(held(6, 3_120)));
    }

    #[test]
    fn answers_that_do_not_fit_are_refused_and_change_nothing() {
        let mut k = Keeper::new(plain(), 3_000, 0).unwrap();
        let a = k.send(0);
        k.granted(a, answer(5, 3_000), 10).unwrap();
        let r = k.send(100);
        assert_eq!(
            k.granted(r, answer(6, 3_000), 110),
            Err(KeeperError::OtherToken {
                held: t(5),
                answered: t(6)
            })
        );
        let foreign = Keeper::new(plain(), 3_000, 0).unwrap().send(0);
        let mut fresh = Keeper::new(plain(), 3_000, 0).unwrap();
        // An older ticket of another keeper: its number was issued here too, but not the ticket.
        let mut other = Keeper::new(plain(), 3_000, 0).unwrap();
        let older = other.send(0);
        fresh.send(0);
        fresh.send(0);
        assert_eq!(
            fresh.granted(older, answer(1, 10), 1),
            Err(KeeperError::UnknownTicket)
        );
        assert_eq!(
            fresh.granted(foreign, answer(1, 10), 1),
            Err(KeeperError::UnknownTicket)
        );
        assert_eq!(fresh.state(1), LeaseState::Acquiring);
        assert_eq!(
            std::format!(
                "{}",
                KeeperError::OtherToken {
                    held: t(5),
                    answered: t(6)
                }
            ),
            "answer carries token 6, but the lease holds token 5"
        );
    }

    #[test]
    fn configs_out_of_range_are_refused() {
        let bad = [
            (
                KeeperConfig::new().with_drift_ppm(1_000_001),
                KeeperConfigError::DriftOutOfRange,
            ),
            (
                KeeperConfig::new().with_renew_ppm(0),
                KeeperConfigError::RenewOutOfRange,
            ),
            (
                KeeperConfig::new().with_renew_ppm(1_000_001),
                KeeperConfigError::RenewOutOfRange,
            ),
            (
                KeeperConfig::new().with_retry_ms(0),
                KeeperConfigError::ZeroRetry,
            ),
        ];
        for (cfg, want) in bad {
            assert_eq!(Keeper::new(cfg, 1_000, 0).unwrap_err(), want);
        }
        assert_eq!(
            Keeper::new(KeeperConfig::new(), 0, 0).unwrap_err(),
            KeeperConfigError::ZeroTtl
        );
        assert_eq!(KeeperConfig::default(), KeeperConfig::new());
        assert_eq!(Loss::Expired.as_str(), "expired");
    }
}
