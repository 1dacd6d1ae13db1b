//! The resource side: refuse tokens older than the newest one accepted.
//!
//! A [`Guard`] remembers the highest token it admitted. For a presented token it answers:
//!
//! * higher than the highest (or the first token ever): [`Admission::Advanced`], and `admit` makes
//!   it the new highest;
//! * equal to the highest: [`Admission::Current`], the same owner writing again;
//! * lower: [`Admission::Stale`] with both numbers, the write must be refused;
//! * 0 (raw input only): [`Admission::Invalid`], never a token.
//!
//! `check` only looks; `admit` is the compare-and-advance a resource runs atomically with its write.

use core::fmt;

use crate::token::Token;

/// What a guard says about a presented token.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[must_use]
pub enum Admission {
    /// A newer owner: accepted, and (for `admit`) now the highest.
    Advanced {
        /// The highest token before, if any.
        previous: Option<Token>,
    },
    /// The current owner again: accepted.
    Current,
    /// An older owner: refused.
    Stale {
        /// The token presented.
        presented: Token,
        /// The highest token already accepted.
        highest: Token,
    },
    /// Token 0: refused, it is never granted.
    Invalid,
}

impl Admission {
    /// Whether the write may go ahead.
    #[inline]
    pub const fn is_accepted(&self) -> bool {
        matches!(self, Admission::Advanced { .. } | Admission::Current)
    }
}

impl fmt::Display for Admission {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Admission::Advanced { previous: None } => f.write_str("accepted: first token seen"),
            Admission::Advanced { previous: Some(p) } => write!(f, "accepted: newer than {p}"),
            Admission::Current => f.write_str("accepted: same owner as the last write"),
            Admission::Stale { presented, highest } => {
                write!(
                    f,
                    "stale: token {presented} < {highest}, which was already accepted"
                )
            }
            Admission::Invalid => f.write_str("invalid: token 0 is never granted"),
        }
    }
}

/// The high-water mark of one resource.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Guard {
    highest: Option<Token>,
}

impl Guard {
    /// A guard that has accepted nothing yet.
    pub const fn new() -> Guard {
        Guard { highest: None }
    }

    /// A guard resuming from a persisted high-water mark.
    pub const fn with_highest(highest: Option<Token>) -> Guard {
        Guard { highest }
    }

    /// The highest token accepted.
    #[inline]
    pub const fn highest(&self) -> Option<Token> {
        self.highest
    }

    /// What `admit` would answer, without changing anything.
    #[inline(always)]
    pub const fn check(&self, presented: Token) -> Admission {
        match self.highest {
            None => Admission::Advanced { previous: None },
            Some(h) if presented.get() > h.get() => Admission::Advanced { previous: Some(h) },
            Some(h) if presented.get() == h.get() => Admission::Current,
            Some(h) => Admission::Stale {
                presented,
                highest: h,
            },
        }
    }

    /// Compare-and-advance: answers like `check`, and a newer token becomes the highest.
    #[inline(always)]
    pub fn admit(&mut self, presented: Token) -> Admission {
        let verdict = self.check(presented);
        if let Admission::Advanced { .. } = verdict {
            self.highest = Some(presented);
        }
        verdict
    }

    /// `check` for a raw number off the wire (0 is [`Admission::Invalid`]).
    #[inline(always)]
    pub const fn check_raw(&self, presented: u64) -> Admission {
        match Token::new(presented) {
            Some(t) => self.check(t),
            None => Admission::Invalid,
        }
    }

    /// `admit` for a raw number off the wire (0 is [`Admission::Invalid`]).
    #[inline(always)]
    pub fn admit_raw(&mut self, presented: u64) -> Admission {
        match Token::new(presented) {
            Some(t) => self.admit(t),
            None => Admission::Invalid,
        }
    }
}

/// One guard per resource key.
#[cfg(feature = "alloc")]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GuardMap<K> {
    guards: alloc::collections::BTreeMap<K, Guard>,
}

#[cfg(feature = "alloc")]
impl<K: Ord> Default for GuardMap<K> {
    fn default() -> GuardMap<K> {
        GuardMap {
            guards: alloc::collections::BTreeMap::new(),
        }
    }
}

#[cfg(feature = "alloc")]
impl<K: Ord> GuardMap<K> {
    /// An empty map.
    pub fn new() -> GuardMap<K> {
        GuardMap::default()
    }

    /// What `admit` would answer for `resource`.
    pub fn check<Q>(&self, resource: &Q, presented: Token) -> Admission
    where
        K: core::borrow::Borrow<Q>,
        Q: Ord + ?Sized,
    {
        self.guards
            .get(resource)
            .copied()
            .unwrap_or_default()
            .check(presented)
    }

    /// Compare-and-advance for `resource`.
    pub fn admit(&mut self, resource: K, presented: Token) -> Admission {
        self.guards.entry(resource).or_default().admit(presented)
    }

    /// The highest token accepted for `resource`.
    pub fn highest<Q>(&self, resource: &Q) -> Option<Token>
    where
        K: core::borrow::Borrow<Q>,
        Q: Ord + ?Sized,
    {
        self.guards.get(resource).and_then(|g| g.highest())
    }

    /// Forgets `resource`'s guard and returns it. Only for a resource that no longer exists: a
    /// resource whose guard is forgotten admits any token again, a stale owner's included.
    pub fn remove<Q>(&mut self, resource: &Q) -> Option<Guard>
    where
        K: core::borrow::Borrow<Q>,
        Q: Ord + ?Sized,
    {
        self.guards.remove(resource)
    }

    /// Number of resources with a guard.
    pub fn len(&self) -> usize {
        self.guards.len()
    }

    /// Whether no resource has a guard yet.
    pub fn is_empty(&self) -> bool {
        self.guards.is_empty()
    }

    /// Every resource with its highest token, in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&K, Option<Token>)> {
        self.guards.iter().map(|(k, g)| (k, g.highest()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(v: u64) -> Token {
        Token::new(v).unwrap()
    }

    #[test]
    fn the_story_at_the_resource() {
        let mut g = Guard::new();
        assert_eq!(g.admit(t(34)), Admission::Advanced { previous: None });
        assert_eq!(
            g.admit(t(33)),
            Admission::Stale {
                presented: t(33),
                highest: t(34)
            }
        );
        assert_eq!(g.highest(), Some(t(34)));
        assert_eq!(
            std::format!("{}", g.check(t(33))),
            "stale: token 33 < 34, which was already accepted"
        );
    }

    #[test]
    fn equal_is_the_same_owner() {
        let mut g = Guard::with_highest(Some(t(7)));
        assert_eq!(g.admit(t(7)), Admission::Current);
        assert!(g.admit(t(7)).is_accepted());
        assert_eq!(
            g.admit(t(8)),
            Admission::Advanced {
                previous: Some(t(7))
            }
        );
        assert!(!g.check(t(7)).is_accepted());
    }

    #[test]
    fn check_does_not_advance() {
        let g = Guard::new();
        assert!(g.check(t(5)).is_accepted());
        assert_eq!(g.highest(), None);
    }

    #[test]
    fn zero_is_invalid() {
        let mut g = Guard::new();
        assert_eq!(g.admit_raw(0), Admission::Invalid);
        assert_eq!(g.check_raw(0), Admission::Invalid);
        assert!(!Admission::Invalid.is_accepted());
        assert_eq!(g.highest(), None);
        assert_eq!(g.admit_raw(3), Admission::Advanced { previous: None });
        assert_eq!(
            g.check_raw(2),
            Admission::Stale {
                presented: t(2),
                highest: t(3)
            }
        );
    }

    #[test]
    fn guard_map_keeps_resources_apart() {
        let mut m: GuardMap<std::string::String> = GuardMap::new();
        assert!(m.is_empty());
        assert!(m.admit("a".into(), t(10)).is_accepted());
        assert!(m.admit("b".into(), t(3)).is_accepted());
        assert_eq!(
            m.admit("a".into(), t(9)),
            Admission::Stale {
                presented: t(9),
                highest: t(10)
            }
        );
        assert_eq!(m.check("c", t(1)), Admission::Advanced { previous: None });
        assert_eq!(m.highest("a"), Some(t(10)));
        assert_eq!(m.highest("b"), Some(t(3)));
        assert_eq!(m.highest("c"), None);
        assert_eq!(m.len(), 2);
        let all: std::vec::Vec<_> = m.iter().map(|(k, h)| (k.clone(), h)).collect();
        assert_eq!(all, [("a".into(), Some(t(10))), ("b".into(), Some(t(3)))]);
        // A removed resource's mark is gone with it.
        assert_eq!(m.remove("a").and_then(|g| g.highest()), Some(t(10)));
        assert_eq!(m.remove("a"), None);
        assert_eq!(m.len(), 1);
        assert_eq!(m.check("a", t(1)), Admission::Advanced { previous: None });
    }
}
