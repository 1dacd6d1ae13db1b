//! The storage's rule: a real [`fencepost::Guard`] (with a [`fencepost::FencedResource`] when
//! idempotency keys are on) when fencing is on with ordered tokens; plain last-writer-wins when
//! fencing is off; and an equality-only check for `uuid` tokens (a token seen before that is not
//! the latest is refused, a never-seen one is taken as a new owner).

use alloc::vec::Vec;

use fencepost::{
    Admission, FencedResource, Guard, Idempotency, IdempotencyLedger, Token, WriteOutcome,
};

use crate::scenario::TokenKind;
use crate::trace::RejectReason;

pub(super) enum Store {
    /// Fencing with ordered tokens and idempotency keys.
    FencedIdem(FencedResource<(), 64>),
    /// Fencing with ordered tokens.
    Fenced(Guard),
    /// Unique, unordered tokens: equality checks only.
    Uuid {
        seen: Vec<u32>,
        last: Option<u32>,
        ledger: Option<IdempotencyLedger<(), 64>>,
    },
    /// No fencing: last writer wins (with an optional idempotency ledger).
    LastWriterWins(Option<IdempotencyLedger<(), 64>>),
}

/// What the storage does with one write.
pub(super) enum Fate {
    /// Applies it; the highest token it had accepted before, if it keeps one.
    Apply(Option<u64>),
    /// Refuses it, and why; the highest token it had accepted, if it keeps one.
    Reject(RejectReason, Option<u64>),
    /// Recognises it as one it already applied.
    Dedup,
}

impl Store {
    /// The storage a run with these protections writes to.
    pub(super) fn new(fencing: bool, kind: TokenKind, idempotency_keys: bool) -> Store {
        let idem = idempotency_keys;
        match (fencing, kind) {
            (true, TokenKind::Ordered) if idem => Store::FencedIdem(FencedResource::new()),
            (true, TokenKind::Ordered) => Store::Fenced(Guard::new()),
            (true, TokenKind::Uuid) => Store::Uuid {
                seen: Vec::new(),
                last: None,
                ledger: idem.then(IdempotencyLedger::new),
            },
            (false, _) => Store::LastWriterWins(idem.then(IdempotencyLedger::new)),
        }
    }

    /// Takes a write with `token` (0: none), idempotency key `op_id`, of the lease with grant
    /// ordinal `ordinal`: what the storage does with it.
    pub(super) fn take(&mut self, token: u64, op_id: u64, ordinal: u32) -> Fate {
        let idem_token = Token::new(token).unwrap_or(Token::MIN);
        match self {
            Store::FencedIdem(r) => {
                let before = r.guard().highest().map(Token::get);
                match r.write(token, op_id, || ()) {
                    WriteOutcome::Applied(()) => Fate::Apply(before),
                    WriteOutcome::Duplicate(()) => Fate::Dedup,
                    WriteOutcome::Stale { highest, .. } => {
                        Fate::Reject(RejectReason::Stale, Some(highest.get()))
                    }
                    _ => Fate::Reject(RejectReason::Stale, before),
                }
            }
            Store::Fenced(g) => match g.admit_raw(token) {
                Admission::Advanced { previous } => Fate::Apply(previous.map(Token::get)),
                Admission::Current => Fate::Apply(g.highest().map(Token::get)),
                Admission::Stale { highest, .. } => {
                    Fate::Reject(RejectReason::Stale, Some(highest.get()))
                }
                _ => Fate::Reject(RejectReason::Stale, g.highest().map(Token::get)),
            },
            Store::Uuid { seen, last, ledger } => {
                if ledger
                    .as_ref()
                    .is_some_and(|l| l.lookup(idem_token, op_id) != Idempotency::Fresh)
                {
                    Fate::Dedup
                } else if *last == Some(ordinal) || !seen.contains(&ordinal) {
                    seen.push(ordinal);
                    *last = Some(ordinal);
                    if let Some(l) = ledger {
                        l.record(idem_token, op_id, ());
                    }
                    Fate::Apply(None)
                } else {
                    Fate::Reject(RejectReason::UuidReused, None)
                }
            }
            Store::LastWriterWins(ledger) => {
                if ledger
                    .as_ref()
                    .is_some_and(|l| l.lookup(idem_token, op_id) != Idempotency::Fresh)
                {
                    Fate::Dedup
                } else {
                    if let Some(l) = ledger {
                        l.record(idem_token, op_id, ());
                    }
                    Fate::Apply(None)
                }
            }
        }
    }
}
