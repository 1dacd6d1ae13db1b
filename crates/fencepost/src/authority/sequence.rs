//! The token sequence: strictly increasing, reserved in blocks the host persists.

use crate::token::Token;

/// Tokens up to and including `through` may have been handed out. Persist it before returning the
/// grant that carried it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Reservation {
    /// Highest token covered by the reservation.
    pub through: u64,
}

/// The strictly increasing token sequence, with its persisted reservation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TokenSequence {
    /// The next token to issue; `None` once [`Token::MAX`] was issued.
    pub(crate) next: Option<Token>,
    /// Highest token covered by a reservation (0: none yet).
    pub(crate) reserved_through: u64,
}

impl TokenSequence {
    pub(crate) const fn starting_at(first: Token) -> TokenSequence {
        TokenSequence {
            next: Some(first),
            reserved_through: first.get() - 1,
        }
    }

    /// Resumes above everything a persisted reservation may have covered (and not below a
    /// configured first token).
    pub(crate) fn resume(reserved_through: u64, first: Token) -> TokenSequence {
        if reserved_through < first.get() {
            return TokenSequence::starting_at(first);
        }
        TokenSequence {
            next: reserved_through.checked_add(1).and_then(Token::new),
            reserved_through,
        }
    }

    /// The highest token that may have been issued, if any.
    pub(crate) fn last_issued(&self, first: Token) -> Option<Token> {
        match self.next {
            Some(next) if next <= first => None,
            Some(next) => Token::new(next.get() - 1),
            None => Some(Token::MAX),
        }
    }

    #[inline]
    pub(crate) fn issue(&mut self, block: u64) -> Result<(Token, Option<Reservation>), Exhausted> {
        let token = self.next.ok_or(Exhausted)?;
        let reservation = if token.get() > self.reserved_through {
            self.reserved_through = token.get().saturating_add(block - 1);
            Some(Reservation {
                through: self.reserved_through,
            })
        } else {
            None
        };
        self.next = token.next();
        Ok((token, reservation))
    }
}

/// The token sequence ran past `u64::MAX`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Exhausted;
