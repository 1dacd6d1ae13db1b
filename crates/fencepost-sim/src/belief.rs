//! What a simulated worker believes about its lease: the core's [`Keeper`], fed with the worker's
//! own clock, so the simulator shows the same rule a real holder follows (one rule, not two).
//!
//! A belief counts from when the worker sent its request, by its own clock, and only ever grows
//! with answers: a renewal answered late or out of order does not shorten it. The simulated
//! worker has no drift bound or margin of its own (it believes exactly what its clock says), so
//! what the trace shows is the lease as the worker's clock measures it; scenarios show clock
//! faults by skewing or jumping that clock.

use fencepost::{Answer, Failure, Keeper, KeeperConfig, LeaseState, Loss, Ticket, Token};

/// A worker's clock may read below zero (a clock that starts behind); the keeper counts in `u64`,
/// so readings are shifted up by about 35 years on the way in and back on the way out.
const SHIFT: i128 = 1 << 40;

/// Requests remembered for matching answers: more than a worker ever has in flight at once in
/// any scenario (one acquire, or a timed renewal and a check before a write), with room for
/// held and duplicated messages.
const REMEMBERED: usize = 8;

#[derive(Clone, Debug)]
pub(crate) struct Belief {
    keeper: Keeper,
    ttl_ms: u64,
    /// The latest requests: real send time and ticket, oldest overwritten first.
    sent: [Option<(u64, Ticket)>; REMEMBERED],
    next: usize,
    /// Whether the worker has already been told, by its keeper, that this lease is lost: the
    /// moment is shown once.
    told_lost: bool,
}

fn config() -> KeeperConfig {
    KeeperConfig::new().with_drift_ppm(0).with_margin_ms(0)
}

fn shifted(local: i128) -> u64 {
    u64::try_from((local + SHIFT).max(0)).unwrap_or(u64::MAX)
}

impl Belief {
    /// A worker with no lease yet, for leases of `ttl_ms` (at least 1).
    pub(crate) fn new(ttl_ms: u64) -> Belief {
        let ttl_ms = ttl_ms.max(1);
        Belief {
            keeper: Keeper::new(config(), ttl_ms, 0)
                .expect("no drift, no margin and a TTL of at least 1 is a valid config"),
            ttl_ms,
            sent: [None; REMEMBERED],
            next: 0,
            told_lost: false,
        }
    }

    /// Starts over for a new acquisition (the old lease, if any, is no longer this worker's).
    pub(crate) fn reset(&mut self) {
        *self = Belief::new(self.ttl_ms);
    }

    /// The worker sends an acquire or a renew at real time `now`, its clock reading `local`.
    pub(crate) fn sent(&mut self, now: u64, local: i128) {
        let ticket = self.keeper.send(shifted(local));
        self.sent[self.next] = Some((now, ticket));
        self.next = (self.next + 1) % REMEMBERED;
    }

    /// A grant or a renewal of lease `token` reaches the worker, its clock reading `local`. The
    /// request it answers was sent at real time `asked`; `None` means the worker cannot tell,
    /// and then the oldest request it remembers is assumed (the belief it gives is the shortest).
    pub(crate) fn answered(&mut self, asked: Option<u64>, token: u64, local: i128) {
        let remembered = self.sent.iter().flatten();
        let ticket = asked
            .and_then(|at| remembered.clone().find(|(sent, _)| *sent == at))
            .or_else(|| remembered.min_by_key(|(_, t)| t.sent_at()))
            .map(|&(_, t)| t);
        let (Some(ticket), Some(token)) = (ticket, Token::new(token)) else {
            return;
        };
        let answer = Answer {
            token,
            ttl_ms: self.ttl_ms,
        };
        // An answer for another lease is not this lease's news: the belief stays as it is.
        let _ = self.keeper.granted(ticket, answer, shifted(local));
    }

    /// The lock service refused a renewal, the worker's clock reading `local`. The lock service
    /// says the lease is gone now, whichever request the refusal answers, so the newest request
    /// stands for it (a refusal of an older one would say nothing the keeper counts).
    pub(crate) fn refused(&mut self, local: i128) {
        let newest = self.sent.iter().flatten().max_by_key(|(_, t)| t.sent_at());
        if let Some(&(_, ticket)) = newest {
            let _ = self.keeper.failed(ticket, Failure::Refused, shifted(local));
        }
    }

    /// Asks the keeper, the worker's clock reading `local`, whether the lease it was granted is
    /// lost; says why only the first time (the moment the worker learns it).
    pub(crate) fn newly_lost(&mut self, local: i128) -> Option<Loss> {
        if self.told_lost || self.keeper.token().is_none() {
            return None;
        }
        match self.keeper.state(shifted(local)) {
            LeaseState::Lost { why, .. } => {
                self.told_lost = true;
                Some(why)
            }
            _ => None,
        }
    }

    /// Whether the keeper has told the worker its lease is lost.
    pub(crate) fn lost(&self) -> bool {
        self.told_lost
    }

    /// The worker's clock reading until which it believes it holds the lease.
    pub(crate) fn until_local(&self) -> Option<i128> {
        self.keeper.safe_until().map(|at| i128::from(at) - SHIFT)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_from_the_send_and_never_shrinks() {
        let mut b = Belief::new(1_000);
        assert_eq!(b.until_local(), None);
        b.sent(0, -200);
        b.answered(None, 33, -150);
        assert_eq!(b.until_local(), Some(800));
        // Two renewals; the newer one's answer arrives first.
        b.sent(300, 100);
        b.sent(500, 300);
        b.answered(Some(500), 33, 320);
        assert_eq!(b.until_local(), Some(1_300));
        b.answered(Some(300), 33, 330);
        assert_eq!(b.until_local(), Some(1_300));
        b.reset();
        assert_eq!(b.until_local(), None);
    }

    #[test]
    fn an_answer_whose_request_is_unknown_counts_from_the_oldest_remembered() {
        let mut b = Belief::new(1_000);
        b.sent(0, 0);
        b.sent(100, 100);
        b.answered(Some(7), 5, 150);
        assert_eq!(b.until_local(), Some(1_000));
    }

    #[test]
    fn the_keeper_tells_a_loss_once() {
        let mut b = Belief::new(1_000);
        b.sent(0, 0);
        assert_eq!(
            b.newly_lost(5_000),
            None,
            "nothing granted, nothing to lose"
        );
        b.answered(None, 33, 50);
        assert_eq!(b.newly_lost(999), None);
        assert_eq!(b.newly_lost(1_000), Some(Loss::Expired));
        assert_eq!(b.newly_lost(1_001), None);
        assert_eq!(b.until_local(), Some(1_000));
    }

    #[test]
    fn a_refused_renewal_loses_the_lease_before_its_deadline() {
        let mut b = Belief::new(1_000);
        b.sent(0, 0);
        b.answered(None, 33, 50);
        b.sent(300, 300);
        b.refused(350);
        assert_eq!(b.newly_lost(360), Some(Loss::Refused));
        assert_eq!(b.until_local(), Some(1_000));
    }
}
