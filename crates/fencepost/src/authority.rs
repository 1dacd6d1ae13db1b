//! The lease authority: who holds a lock, until when, and with which fencing token.
//!
//! The rules, in one place (an [`Authority`] guards one lock; a `LockTable` many, with the same
//! rules):
//!
//! * A grant issues the next token of a strictly increasing sequence. Past [`Token::MAX`] nothing
//!   more is issued: [`AcquireError::Exhausted`], never a wrap.
//! * A lease is live while `now < expires_at`; at `now >= expires_at` it has expired.
//! * After an **expiry** (not after a clean release) an optional lock-delay keeps the lock free of
//!   new grants until `expires_at + lock_delay_ms`, giving a paused holder's in-flight requests time
//!   to drain.
//! * A holder that acquires again while its lease is live re-enters: it keeps its token, the depth
//!   counts up to [`Config::max_reentry`], and the expiry is refreshed.
//! * Renew and release need the holder **and** the token to match a live lease; otherwise ownership
//!   was lost ([`LeaseError::Lost`]). An expired lease can never be renewed back to life.
//! * Time only moves forward: an earlier `now` than one already seen is clamped (see
//!   [`crate::time::Timeline`]).
//! * Expiries saturate at `u64::MAX`, the end of the timeline: a lease granted so late that
//!   `now + ttl` would pass it expires at `u64::MAX`, and one granted *at* `u64::MAX` is already
//!   over (each such acquire takes a fresh token). Keep the timeline's origin well below that:
//!   milliseconds since the Unix epoch leave about 584 million years.
//!
//! ## Persisting: the host's contract
//!
//! Tokens are reserved in blocks of [`Config::reserve_block`]. When a grant needs a new block it
//! carries a [`Reservation`] in [`Grant::reservation`]. **The host must persist that reservation (or
//! a snapshot taken after the grant) durably before it hands the grant to the holder.** A restore
//! then resumes above the whole reserved block, so no token that may have been handed out is ever
//! issued again, even if every grant after the last persisted snapshot was lost. A block of 1
//! means "persist on every grant"; larger blocks trade skipped token numbers after a crash for
//! fewer writes.

mod config;
mod outcome;
mod sequence;
mod slot;

pub use config::{Config, ConfigError};
pub use outcome::{AcquireError, Expired, Grant, Lease, LeaseError, Released, Renewal};
pub(crate) use sequence::TokenSequence;
pub use sequence::{Exhausted, Reservation};
pub(crate) use slot::Slot;

use crate::time::{Clock, Timeline};
use crate::token::Token;

/// The lease authority for one lock.
///
/// `H` identifies holders: anything `Clone + Eq` (a worker number, a name, a session id).
///
/// ```
/// use fencepost::{Authority, Config, Token, AcquireError};
///
/// let mut auth = Authority::new(Config::new(30_000).with_first_token(Token::new(33).unwrap())).unwrap();
/// let a = auth.try_acquire(&"A", 0).unwrap();
/// assert_eq!(a.token.get(), 33);
/// assert_eq!(auth.try_acquire(&"B", 10_000), Err(AcquireError::Held { holder: "A", until: 30_000 }));
/// let b = auth.try_acquire(&"B", 45_000).unwrap();
/// assert_eq!(b.token.get(), 34);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Authority<H> {
    pub(crate) cfg: Config,
    pub(crate) seq: TokenSequence,
    pub(crate) slot: Slot<H>,
    pub(crate) time: Timeline,
}

impl<H: Clone + Eq> Authority<H> {
    /// A fresh authority. Its first grant issues `cfg.first_token`.
    pub fn new(cfg: Config) -> Result<Authority<H>, ConfigError> {
        cfg.validate()?;
        Ok(Authority {
            cfg,
            seq: TokenSequence::starting_at(cfg.first_token),
            slot: Slot::default(),
            time: Timeline::default(),
        })
    }

    /// The config.
    pub const fn config(&self) -> &Config {
        &self.cfg
    }

    /// Acquires with the default TTL, without waiting.
    #[inline]
    pub fn try_acquire(&mut self, holder: &H, now: u64) -> Result<Grant, AcquireError<H>> {
        self.try_acquire_for(holder, self.cfg.ttl_ms, now)
    }

    /// Acquires with a TTL of `ttl_ms` (0 is treated as 1), without waiting.
    #[inline]
    pub fn try_acquire_for(
        &mut self,
        holder: &H,
        ttl_ms: u64,
        now: u64,
    ) -> Result<Grant, AcquireError<H>> {
        let now = self.time.now(now);
        self.slot
            .acquire(&mut self.seq, &self.cfg, holder, ttl_ms, now)
    }

    /// Acquires, waiting for the lock until `deadline` on `clock`.
    ///
    /// Whenever the lock is held or in lock-delay, `wait(until)` is called with the instant to wait
    /// for (never past `deadline`); it should sleep (or, in a test, move the clock). Gives up with the
    /// last refusal once the clock reaches `deadline`.
    pub fn acquire<C: Clock>(
        &mut self,
        holder: &H,
        clock: &C,
        deadline: u64,
        mut wait: impl FnMut(u64),
    ) -> Result<Grant, AcquireError<H>> {
        loop {
            let now = clock.now_ms();
            match self.try_acquire(holder, now) {
                Ok(grant) => return Ok(grant),
                Err(err) => match err.retry_at() {
                    Some(_) if now >= deadline => return Err(err),
                    Some(at) => wait(at.min(deadline).max(now)),
                    None => return Err(err),
                },
            }
        }
    }

    /// Extends the holder's live lease to `now + ttl` (default TTL). Same token.
    #[inline]
    pub fn renew(&mut self, holder: &H, token: Token, now: u64) -> Result<Renewal, LeaseError> {
        self.renew_for(holder, token, self.cfg.ttl_ms, now)
    }

    /// Extends the holder's live lease to `now + ttl_ms`. Same token.
    #[inline]
    pub fn renew_for(
        &mut self,
        holder: &H,
        token: Token,
        ttl_ms: u64,
        now: u64,
    ) -> Result<Renewal, LeaseError> {
        let now = self.time.now(now);
        self.slot.renew(&self.cfg, holder, token, ttl_ms, now)
    }

    /// Releases one level of the holder's live lease.
    #[inline]
    pub fn release(&mut self, holder: &H, token: Token, now: u64) -> Result<Released, LeaseError> {
        let now = self.time.now(now);
        self.slot.release(&self.cfg, holder, token, now)
    }

    /// Notices an expiry: returns it once, the first time it is asked at or after `expires_at`.
    pub fn expire(&mut self, now: u64) -> Option<Expired<H>> {
        let now = self.time.now(now);
        self.slot.settle(now, &self.cfg)
    }

    /// The live lease at `now`, if any (settles an expiry first).
    pub fn lease(&mut self, now: u64) -> Option<&Lease<H>> {
        self.expire(now);
        self.slot.lease.as_ref()
    }

    /// The lease as last recorded, without looking at the time (it may have expired since).
    pub const fn recorded_lease(&self) -> Option<&Lease<H>> {
        self.slot.lease.as_ref()
    }

    /// When the next grant could happen if the lock is free (end of a lock-delay).
    pub const fn free_at(&self) -> u64 {
        self.slot.free_at
    }

    /// The token the next fresh grant will carry, or `None` when exhausted.
    pub const fn next_token(&self) -> Option<Token> {
        self.seq.next
    }

    /// The highest token that may have been issued: the one before [`Authority::next_token`].
    ///
    /// After a restore this covers the whole reservation the snapshot recorded (tokens a
    /// crashed authority may have handed out), so it can be above the last token actually
    /// granted; it is `None` only when no token can have been issued.
    pub fn last_issued(&self) -> Option<Token> {
        self.seq.last_issued(self.cfg.first_token)
    }

    /// Highest token covered by the current reservation.
    pub const fn reserved_through(&self) -> u64 {
        self.seq.reserved_through
    }

    /// The authority's view of time: latest instant seen and clamp count.
    pub const fn timeline(&self) -> &Timeline {
        &self.time
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::ManualClock;

    fn t(v: u64) -> Token {
        Token::new(v).unwrap()
    }

    fn auth(cfg: Config) -> Authority<&'static str> {
        Authority::new(cfg).unwrap()
    }

    #[test]
    fn the_story_tokens() {
        let mut a = auth(Config::new(30_000).with_first_token(t(33)));
        let ga = a.try_acquire(&"A", 0).unwrap();
        assert_eq!((ga.token, ga.expires_at, ga.depth), (t(33), 30_000, 1));
        assert_eq!(
            a.try_acquire(&"B", 29_999),
            Err(AcquireError::Held {
                holder: "A",
                until: 30_000
            })
        );
        let gb = a.try_acquire(&"B", 45_000).unwrap();
        assert_eq!((gb.token, gb.expires_at), (t(34), 75_000));
        assert_eq!(a.last_issued(), Some(t(34)));
    }

    #[test]
    fn expiry_is_at_expires_at() {
        let mut a = auth(Config::new(100));
        a.try_acquire(&"A", 0).unwrap();
        assert!(a.try_acquire(&"B", 99).is_err());
        assert_eq!(a.try_acquire(&"B", 100).unwrap().token, t(2));
    }

    #[test]
    fn expire_reports_once() {
        let mut a = auth(Config::new(100).with_lock_delay(50));
        a.try_acquire(&"A", 10).unwrap();
        assert_eq!(a.expire(109), None);
        assert_eq!(
            a.expire(500),
            Some(Expired {
                holder: "A",
                token: t(1),
                at: 110,
                free_at: 160
            })
        );
        assert_eq!(a.expire(600), None);
    }

    #[test]
    fn config_errors() {
        assert_eq!(
            Authority::<u8>::new(Config::new(0)).unwrap_err(),
            ConfigError::ZeroTtl
        );
        assert_eq!(
            Authority::<u8>::new(Config::new(1).with_max_reentry(0)).unwrap_err(),
            ConfigError::ZeroReentry
        );
        assert_eq!(
            Authority::<u8>::new(Config::new(1).with_reserve_block(0)).unwrap_err(),
            ConfigError::ZeroReserveBlock
        );
        assert_eq!(
            std::format!("{}", ConfigError::ZeroTtl),
            "ttl_ms must be greater than 0"
        );
    }

    #[test]
    fn lock_delay_after_expiry_only() {
        let mut a = auth(Config::new(100).with_lock_delay(1_000));
        a.try_acquire(&"A", 0).unwrap();
        assert_eq!(
            a.try_acquire(&"B", 150),
            Err(AcquireError::LockDelay { until: 1_100 })
        );
        assert_eq!(
            a.try_acquire(&"B", 1_099),
            Err(AcquireError::LockDelay { until: 1_100 })
        );
        let gb = a.try_acquire(&"B", 1_100).unwrap();
        assert_eq!(gb.token, t(2));
        // A clean release has no delay.
        assert_eq!(a.release(&"B", t(2), 1_150), Ok(Released::Free));
        assert_eq!(a.try_acquire(&"C", 1_150).unwrap().token, t(3));
    }

    #[test]
    fn reentry_keeps_token_and_counts_depth() {
        let mut a = auth(Config::new(100).with_max_reentry(2));
        let g1 = a.try_acquire(&"A", 0).unwrap();
        let g2 = a.try_acquire(&"A", 50).unwrap();
        assert_eq!(g2.token, g1.token);
        assert_eq!((g2.depth, g2.expires_at), (2, 150));
        assert!(g2.reentered());
        assert_eq!(
            a.try_acquire(&"A", 60),
            Err(AcquireError::ReentryLimit { max: 2 })
        );
        assert_eq!(
            a.release(&"A", g1.token, 70),
            Ok(Released::Held { depth: 1 })
        );
        assert!(matches!(
            a.try_acquire(&"B", 70),
            Err(AcquireError::Held { .. })
        ));
        assert_eq!(a.release(&"A", g1.token, 71), Ok(Released::Free));
        assert_eq!(a.try_acquire(&"B", 72).unwrap().token, t(2));
    }

    #[test]
    fn not_reentrant_when_max_is_one() {
        let mut a = auth(Config::new(100).with_max_reentry(1));
        a.try_acquire(&"A", 0).unwrap();
        assert_eq!(
            a.try_acquire(&"A", 1),
            Err(AcquireError::ReentryLimit { max: 1 })
        );
    }

    #[test]
    fn first_token_from_the_clock_starts_above_an_earlier_authority() {
        // 2026-12-02T00:00:00Z.
        let start = 1_796_169_600_000u64;
        let first = Config::new(1).with_first_token_at(start).first_token;
        assert_eq!(first.get(), 1_883_420_334_489_600_000);
        assert_eq!(first.get(), start << 20);
        // One millisecond later, above the 2^20 tokens the first could issue in it.
        let later = Config::new(1).with_first_token_at(start + 1).first_token;
        assert_eq!(later.get() - first.get(), 1 << 20);
        assert_eq!(
            Config::new(1).with_first_token_at(0).first_token,
            Token::MIN
        );
        // Past the year 2527: the last start that leaves 2^20 tokens.
        let last = Config::new(1).with_first_token_at(u64::MAX).first_token;
        assert_eq!(last.get(), u64::MAX - (1 << 20) + 1);
        assert_eq!(u64::MAX - last.get() + 1, 1 << 20);
    }

    #[test]
    fn renew_extends_live_lease_only() {
        let mut a = auth(Config::new(100));
        let g = a.try_acquire(&"A", 0).unwrap();
        assert_eq!(
            a.renew(&"A", g.token, 60),
            Ok(Renewal {
                token: g.token,
                expires_at: 160
            })
        );
        // B knows A's token but is not A: refused as such, and A's lease is untouched.
        assert_eq!(a.renew(&"B", g.token, 61), Err(LeaseError::NotHolder));
        assert_eq!(a.release(&"B", g.token, 61), Err(LeaseError::NotHolder));
        assert_eq!(
            a.lease(61).map(|l| (l.holder, l.expires_at)),
            Some(("A", 160))
        );
        assert_eq!(a.renew(&"A", t(9), 61), Err(LeaseError::Lost));
        // Expired: cannot be revived, even though nobody took it.
        assert_eq!(a.renew(&"A", g.token, 160), Err(LeaseError::Lost));
        assert_eq!(a.release(&"A", g.token, 161), Err(LeaseError::Lost));
    }

    #[test]
    fn renew_and_release_after_takeover_are_lost() {
        let mut a = auth(Config::new(100));
        let ga = a.try_acquire(&"A", 0).unwrap();
        let gb = a.try_acquire(&"B", 100).unwrap();
        assert_eq!(a.renew(&"A", ga.token, 101), Err(LeaseError::Lost));
        assert_eq!(a.release(&"A", ga.token, 101), Err(LeaseError::Lost));
        // A with B's token: the live lease has it, but A is not its holder.
        assert_eq!(a.release(&"A", gb.token, 101), Err(LeaseError::NotHolder));
        assert_eq!(a.release(&"B", gb.token, 101), Ok(Released::Free));
        assert_eq!(
            std::format!("{}", LeaseError::Lost),
            "lease lost: no live lease of this lock has this token"
        );
        assert_eq!(
            std::format!("{}", LeaseError::NotHolder),
            "not the holder: the live lease of this token is another holder's"
        );
    }

    #[test]
    fn backwards_clock_cannot_revive_or_extend() {
        let mut a = auth(Config::new(100));
        let g = a.try_acquire(&"A", 1_000).unwrap();
        // Time jumps far ahead: the lease expires.
        assert!(a.expire(5_000).is_some());
        // The clock steps back inside the old lease: still expired, and renew is refused.
        assert_eq!(a.renew(&"A", g.token, 1_050), Err(LeaseError::Lost));
        assert_eq!(a.timeline().clamps(), 1);
        // A grant made with a backwards clock is measured from the latest instant.
        let gb = a.try_acquire(&"B", 10).unwrap();
        assert_eq!((gb.granted_at, gb.expires_at), (5_000, 5_100));
        assert_eq!(a.timeline().clamps(), 2);
        assert_eq!(a.timeline().latest(), 5_000);
    }

    #[test]
    fn exhausted_never_wraps() {
        let mut a = auth(Config::new(10).with_first_token(t(u64::MAX - 1)));
        assert_eq!(a.try_acquire(&"A", 0).unwrap().token, t(u64::MAX - 1));
        assert_eq!(a.try_acquire(&"B", 10).unwrap().token, Token::MAX);
        assert_eq!(a.next_token(), None);
        assert_eq!(a.last_issued(), Some(Token::MAX));
        assert_eq!(a.try_acquire(&"C", 20), Err(AcquireError::Exhausted));
        assert_eq!(AcquireError::<u8>::Exhausted.retry_at(), None);
        assert_eq!(
            std::format!("{}", AcquireError::<u8>::Exhausted),
            "fencing tokens are exhausted"
        );
    }

    #[test]
    fn reservations_come_in_blocks() {
        let mut a = auth(Config::new(10).with_reserve_block(3));
        let r: std::vec::Vec<_> = (0..7)
            .map(|i| a.try_acquire(&"A", i * 10).unwrap().reservation)
            .collect();
        assert_eq!(
            r,
            [
                Some(Reservation { through: 3 }),
                None,
                None,
                Some(Reservation { through: 6 }),
                None,
                None,
                Some(Reservation { through: 9 })
            ]
        );
        assert_eq!(a.reserved_through(), 9);
    }

    #[test]
    fn reservation_near_max_saturates() {
        let mut a = auth(
            Config::new(10)
                .with_first_token(Token::MAX)
                .with_reserve_block(100),
        );
        let g = a.try_acquire(&"A", 0).unwrap();
        assert_eq!(g.reservation, Some(Reservation { through: u64::MAX }));
    }

    #[test]
    fn safe_until_subtracts_drift_and_margin() {
        let g = Grant {
            token: t(1),
            granted_at: 1_000,
            expires_at: 31_000,
            depth: 1,
            reservation: None,
        };
        // 30 s lease, 1% drift (10_000 ppm) -> 29.7 s, minus 200 ms margin, from sent_at 900.
        assert_eq!(g.safe_until(900, 10_000, 200), 900 + 29_500);
        assert_eq!(g.safe_until(900, 0, 0), 30_900);
        assert_eq!(g.safe_until(900, 2_000_000, 0), 900);
        assert_eq!(g.safe_until(900, 0, 40_000), 900);
        assert_eq!(g.safe_until(u64::MAX - 5, 0, 0), u64::MAX);
    }

    #[test]
    fn blocking_acquire_waits_for_expiry_and_lock_delay() {
        let mut a = auth(Config::new(100).with_lock_delay(50));
        a.try_acquire(&"A", 0).unwrap();
        let clock = ManualClock::new(10);
        let mut waits = std::vec::Vec::new();
        let g = a
            .acquire(&"B", &clock, 1_000, |until| {
                waits.push(until);
                clock.set(until);
            })
            .unwrap();
        assert_eq!(waits, [100, 150]);
        assert_eq!((g.token, g.granted_at), (t(2), 150));
    }

    #[test]
    fn blocking_acquire_gives_up_at_deadline() {
        let mut a = auth(Config::new(100));
        a.try_acquire(&"A", 0).unwrap();
        let clock = ManualClock::new(10);
        let mut waits = std::vec::Vec::new();
        let err = a
            .acquire(&"B", &clock, 40, |until| {
                waits.push(until);
                clock.set(until);
            })
            .unwrap_err();
        assert_eq!(waits, [40]);
        assert_eq!(
            err,
            AcquireError::Held {
                holder: "A",
                until: 100
            }
        );
    }

    #[test]
    fn ttl_zero_request_means_one_ms() {
        let mut a = auth(Config::new(100));
        let g = a.try_acquire_for(&"A", 0, 5).unwrap();
        assert_eq!(g.expires_at, 6);
    }

    #[test]
    fn expiry_saturates_at_the_end_of_time() {
        let mut a = auth(Config::new(u64::MAX).with_lock_delay(u64::MAX));
        let g = a.try_acquire(&"A", 10).unwrap();
        assert_eq!(g.expires_at, u64::MAX);
        assert!(a.lease(u64::MAX - 1).is_some());
        assert!(a.lease(u64::MAX).is_none());
        assert_eq!(a.free_at(), u64::MAX);
    }
}
