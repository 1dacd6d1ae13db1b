//! Idempotency: stop a retry from applying twice.
//!
//! An [`IdempotencyLedger`] remembers the outcome of the last `N` operations, keyed by
//! `(token, operation id)`, in a fixed array (no allocation). When it is full, recording a new
//! operation evicts the **oldest** one; a retry of an evicted operation looks fresh again, so pick
//! `N` larger than the number of operations that can be retried at once. Lookups scan the array,
//! which is fast for the few dozen entries a ledger usually holds.
//!
//! A ledger does not stop a stale owner: a paused owner's *new* operation has a new id and sails
//! through. [`FencedResource`] puts a ledger and a [`Guard`] together, in this order:
//!
//! 1. **Ledger first.** A retry of an operation already applied gets the first outcome back and
//!    nothing is applied again, even if its token has become stale since: the operation did happen,
//!    and answering "stale" would tell the caller it did not.
//! 2. **Then the guard.** Anything else must present a token that is not stale; only then is the
//!    operation applied and its outcome recorded.

use crate::guard::{Admission, Guard};
use crate::token::Token;

/// What a ledger knows about an operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Idempotency<O> {
    /// Never recorded (or evicted): it may be applied.
    Fresh,
    /// Already applied, with this outcome.
    Duplicate(O),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Entry<O> {
    token: Token,
    op: u64,
    outcome: O,
}

/// The outcomes of the last `N` operations, by `(token, operation id)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IdempotencyLedger<O, const N: usize> {
    entries: [Option<Entry<O>>; N],
    /// Slot the next record goes to; also the oldest entry once the ledger is full.
    cursor: usize,
    len: usize,
}

impl<O: Copy, const N: usize> Default for IdempotencyLedger<O, N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<O: Copy, const N: usize> IdempotencyLedger<O, N> {
    /// An empty ledger. `N` must be at least 1 (checked at compile time).
    pub const fn new() -> Self {
        const { assert!(N > 0, "an idempotency ledger needs room for one entry") };
        IdempotencyLedger {
            entries: [const { None }; N],
            cursor: 0,
            len: 0,
        }
    }

    /// What the ledger knows about `(token, op)`.
    pub fn lookup(&self, token: Token, op: u64) -> Idempotency<O> {
        self.entries
            .iter()
            .flatten()
            .find(|e| e.token == token && e.op == op)
            .map_or(Idempotency::Fresh, |e| Idempotency::Duplicate(e.outcome))
    }

    /// Records an outcome. Returns the `(token, op)` evicted to make room, if any. Recording a key
    /// that is already present replaces nothing and returns `None`: the first outcome stands.
    pub fn record(&mut self, token: Token, op: u64, outcome: O) -> Option<(Token, u64)> {
        if let Idempotency::Duplicate(_) = self.lookup(token, op) {
            return None;
        }
        self.push(token, op, outcome)
    }

    /// Records an outcome for a key the caller has just looked up and found fresh; returns the
    /// key evicted to make room, if any.
    fn push(&mut self, token: Token, op: u64, outcome: O) -> Option<(Token, u64)> {
        // `cursor` is always below N; taken modulo N again so indexing needs no bounds check.
        let at = self.cursor % N;
        let evicted = self.entries[at].map(|e| (e.token, e.op));
        self.entries[at] = Some(Entry { token, op, outcome });
        self.cursor = (at + 1) % N;
        self.len = (self.len + 1).min(N);
        evicted
    }

    /// Number of entries held.
    pub const fn len(&self) -> usize {
        self.len
    }

    /// Whether nothing is recorded.
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Capacity.
    pub const fn capacity(&self) -> usize {
        N
    }
}

/// What happened to one write to a [`FencedResource`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WriteOutcome<O> {
    /// Applied now; this is its outcome.
    Applied(O),
    /// A retry of an operation already applied: not applied again; this was its first outcome.
    Duplicate(O),
    /// Refused: an owner with a newer token has written.
    Stale {
        /// The token presented.
        presented: Token,
        /// The highest token already accepted.
        highest: Token,
    },
    /// Refused: token 0 is never granted.
    Invalid,
}

/// A guard plus an idempotency ledger, for a resource whose writes can be retried.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FencedResource<O, const N: usize> {
    guard: Guard,
    ledger: IdempotencyLedger<O, N>,
}

impl<O: Copy, const N: usize> Default for FencedResource<O, N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<O: Copy, const N: usize> FencedResource<O, N> {
    /// A resource that has accepted nothing.
    pub const fn new() -> Self {
        FencedResource {
            guard: Guard::new(),
            ledger: IdempotencyLedger::new(),
        }
    }

    /// Runs `apply` at most once per `(token, op)`, and never for a stale token. See the module
    /// docs for the order of the two checks.
    pub fn write(&mut self, token: u64, op: u64, apply: impl FnOnce() -> O) -> WriteOutcome<O> {
        let ledger = &self.ledger;
        let recorded = |token| match ledger.lookup(token, op) {
            Idempotency::Duplicate(first) => Some(first),
            Idempotency::Fresh => None,
        };
        match decide(token, recorded, &mut self.guard) {
            Ok(token) => {
                let outcome = apply();
                // Looked up in `decide`, and fresh: the guard does not touch the ledger.
                self.ledger.push(token, op, outcome);
                WriteOutcome::Applied(outcome)
            }
            Err(refusal) => refusal,
        }
    }

    /// The guard.
    pub const fn guard(&self) -> &Guard {
        &self.guard
    }

    /// The ledger.
    pub const fn ledger(&self) -> &IdempotencyLedger<O, N> {
        &self.ledger
    }
}

/// What a [`FencedResource`] would decide for a write to a resource whose mark and ledger live in
/// a store (a row's fence column, a key-value entry) rather than in this process.
///
/// `highest` is the mark the store read for the key; `recorded` the token the store holds beside
/// the data for this write's idempotency key (`None`: the write has no key, or the store has not
/// seen it). The order is [`FencedResource::write`]'s: the ledger first, then the guard. Only on
/// [`WriteOutcome::Applied`] may the store write its data, with the presented token as the new
/// mark, in the same atomic step as the read this decision came from.
pub fn decide_stored(
    highest: Option<Token>,
    recorded: Option<Token>,
    token: u64,
) -> WriteOutcome<()> {
    let retry = |token| (recorded == Some(token)).then_some(());
    match decide(token, retry, &mut Guard::with_highest(highest)) {
        Ok(_) => WriteOutcome::Applied(()),
        Err(refusal) => refusal,
    }
}

/// The order every fenced write follows, in memory or in a store: token 0 is invalid; a retry of
/// an operation already applied (`recorded` answers its first outcome) is a duplicate, even if its
/// token is stale by now; anything else passes `guard` or is refused. `Ok`: the token was
/// admitted (the guard has moved), and the write may be applied.
fn decide<O>(
    token: u64,
    recorded: impl FnOnce(Token) -> Option<O>,
    guard: &mut Guard,
) -> Result<Token, WriteOutcome<O>> {
    let Some(token) = Token::new(token) else {
        return Err(WriteOutcome::Invalid);
    };
    if let Some(first) = recorded(token) {
        return Err(WriteOutcome::Duplicate(first));
    }
    match guard.admit(token) {
        Admission::Advanced { .. } | Admission::Current => Ok(token),
        Admission::Stale { presented, highest } => Err(WriteOutcome::Stale { presented, highest }),
        Admission::Invalid => Err(WriteOutcome::Invalid),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(v: u64) -> Token {
        Token::new(v).unwrap()
    }

    #[test]
    fn duplicate_returns_first_outcome() {
        let mut l: IdempotencyLedger<u32, 4> = IdempotencyLedger::new();
        assert_eq!(l.lookup(t(1), 7), Idempotency::Fresh);
        assert_eq!(l.record(t(1), 7, 100), None);
        assert_eq!(l.record(t(1), 7, 999), None);
        assert_eq!(l.lookup(t(1), 7), Idempotency::Duplicate(100));
        // Same op id under another token is another key.
        assert_eq!(l.lookup(t(2), 7), Idempotency::Fresh);
        assert_eq!(l.len(), 1);
    }

    #[test]
    fn oldest_is_evicted_first() {
        let mut l: IdempotencyLedger<u8, 3> = IdempotencyLedger::new();
        assert!(l.is_empty());
        assert_eq!(l.record(t(1), 1, 1), None);
        assert_eq!(l.record(t(1), 2, 2), None);
        assert_eq!(l.record(t(1), 3, 3), None);
        assert_eq!(l.len(), 3);
        assert_eq!(l.record(t(1), 4, 4), Some((t(1), 1)));
        assert_eq!(l.lookup(t(1), 1), Idempotency::Fresh);
        assert_eq!(l.lookup(t(1), 2), Idempotency::Duplicate(2));
        assert_eq!(l.record(t(1), 5, 5), Some((t(1), 2)));
        assert_eq!(l.len(), 3);
        assert_eq!(l.capacity(), 3);
    }

    #[test]
    fn fenced_resource_checks_ledger_then_guard() {
        let mut r: FencedResource<u32, 8> = FencedResource::new();
        let mut applied = std::vec::Vec::new();
        // A (33) applies op 1.
        assert_eq!(
            r.write(33, 1, || {
                applied.push("A:1");
                10
            }),
            WriteOutcome::Applied(10)
        );
        // B (34) takes over and writes.
        assert_eq!(
            r.write(34, 2, || {
                applied.push("B:2");
                20
            }),
            WriteOutcome::Applied(20)
        );
        // A retries op 1 (it never saw the ack): the first outcome, nothing applied again.
        assert_eq!(
            r.write(33, 1, || {
                applied.push("A:1 again");
                11
            }),
            WriteOutcome::Duplicate(10)
        );
        // A's new op 3 is stale: the ledger alone would have let it in.
        assert_eq!(
            r.write(33, 3, || {
                applied.push("A:3");
                30
            }),
            WriteOutcome::Stale {
                presented: t(33),
                highest: t(34)
            }
        );
        // B retries op 2: duplicate.
        assert_eq!(r.write(34, 2, || 21), WriteOutcome::Duplicate(20));
        assert_eq!(r.write(0, 9, || 0), WriteOutcome::Invalid);
        assert_eq!(applied, ["A:1", "B:2"]);
        assert_eq!(r.guard().highest(), Some(t(34)));
        assert_eq!(r.ledger().len(), 2);
    }

    #[test]
    fn ledger_alone_lets_a_stale_owner_in() {
        // What idempotency keys cannot do, shown with the ledger by itself.
        let mut l: IdempotencyLedger<(), 8> = IdempotencyLedger::new();
        l.record(t(34), 1, ());
        assert_eq!(l.lookup(t(33), 2), Idempotency::Fresh);
    }

    #[test]
    fn stored_decisions_follow_the_resource() {
        // The story against a mark read from a store: 34 written, 33 refused.
        assert_eq!(decide_stored(None, None, 34), WriteOutcome::Applied(()));
        assert_eq!(
            decide_stored(Some(t(34)), None, 33),
            WriteOutcome::Stale {
                presented: t(33),
                highest: t(34)
            }
        );
        assert_eq!(
            decide_stored(Some(t(34)), None, 34),
            WriteOutcome::Applied(())
        );
        // A retry recorded under its own token is a duplicate, even once it has become stale.
        assert_eq!(
            decide_stored(Some(t(34)), Some(t(33)), 33),
            WriteOutcome::Duplicate(())
        );
        // The same idempotency key under another token is another operation.
        assert_eq!(
            decide_stored(Some(t(34)), Some(t(34)), 35),
            WriteOutcome::Applied(())
        );
        assert_eq!(decide_stored(Some(t(34)), None, 0), WriteOutcome::Invalid);
        assert_eq!(decide_stored(None, Some(t(1)), 0), WriteOutcome::Invalid);
        let top = u64::MAX;
        assert_eq!(
            decide_stored(Some(t(top - 1)), None, top),
            WriteOutcome::Applied(())
        );
        assert_eq!(
            decide_stored(Some(t(top)), None, top - 1),
            WriteOutcome::Stale {
                presented: t(top - 1),
                highest: t(top)
            }
        );
    }
}
