//! Invariants, checked after every event of a run.
//!
//! * **I1** the storage never accepts a token lower than one it accepted;
//! * **I2** no write from an owner lands after a newer owner's write (owners are ordered by when the
//!   lock service granted them, the ground truth whatever the tokens say): the corruption fencing
//!   prevents;
//! * **I3** tokens issued by the lock service strictly increase (re-entry keeps a token; that is
//!   not a new issue);
//! * **I4** no write the storage acknowledged is lost: a newer owner's applied write is never
//!   overwritten by an older owner's. The storage sends its ack in the step that applies a write,
//!   so every applied write counts, whether or not the ack ever reaches the writer (it may crash
//!   first, or hear only later): what is lost is data the storage said it kept;
//! * **I5** no operation is applied twice (a retried write applies at most once).
//!
//! Each violation names the invariant, the event, and says in one sentence what went wrong.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use serde::Serialize;

/// One of the invariants.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Invariant {
    /// Storage never accepts a token lower than one it accepted.
    I1,
    /// No write from an owner lands after a newer owner's write.
    I2,
    /// Issued tokens strictly increase.
    I3,
    /// No write the storage acknowledged is lost.
    I4,
    /// No operation is applied twice.
    I5,
}

impl Invariant {
    /// Every invariant.
    pub const ALL: [Invariant; 5] = [
        Invariant::I1,
        Invariant::I2,
        Invariant::I3,
        Invariant::I4,
        Invariant::I5,
    ];

    /// What it promises.
    pub const fn description(self) -> &'static str {
        match self {
            Invariant::I1 => "storage never accepts a token lower than one it accepted",
            Invariant::I2 => "no write from an owner lands after a newer owner's write",
            Invariant::I3 => "tokens issued by the lock service strictly increase",
            Invariant::I4 => "no write the storage acknowledged is lost",
            Invariant::I5 => "no operation is applied twice",
        }
    }

    /// Index 0..5.
    pub const fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for Invariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

/// One broken invariant.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Violation {
    /// Which.
    pub invariant: Invariant,
    /// The event that broke it.
    pub seq: u32,
    /// When.
    pub t_ms: u64,
    /// Why, in one sentence.
    pub because: String,
}

/// The outcome of a run's checks.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Verdict {
    /// Whether every invariant held.
    pub ok: bool,
    /// Each violation, in event order.
    pub violations: Vec<Violation>,
}

impl Verdict {
    /// Whether `inv` was violated.
    pub fn violated(&self, inv: Invariant) -> bool {
        self.violations.iter().any(|v| v.invariant == inv)
    }

    /// The first violation of `inv`.
    pub fn first(&self, inv: Invariant) -> Option<&Violation> {
        self.violations.iter().find(|v| v.invariant == inv)
    }

    /// The distinct invariants violated, in order I1..I5.
    pub fn broken(&self) -> Vec<Invariant> {
        Invariant::ALL
            .into_iter()
            .filter(|i| self.violated(*i))
            .collect()
    }
}

/// Who wrote what, for the checks.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Owner {
    /// Grant ordinal: 0 for the first grant of the run, then 1, 2, ...
    pub(crate) ordinal: u32,
    pub(crate) worker: u16,
    /// Process incarnation of the worker (0 until its first restart).
    pub(crate) inc: u16,
    pub(crate) token: u64,
}

impl Owner {
    fn describe(&self, names: &[String]) -> String {
        match self.inc {
            0 => String::from(name(names, self.worker)),
            1 => format!("the restarted {}", name(names, self.worker)),
            n => format!("{} (restarted {n} times)", name(names, self.worker)),
        }
    }
}

/// The few numbers the invariants I1-I4 are decided on. The engine's [`Checker`] and the
/// explorer's compact model both keep one, so a violation means the same thing in both.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct Marks {
    /// Highest token the storage accepted.
    pub(crate) highest_accepted: Option<u64>,
    /// Highest token the lock service issued.
    pub(crate) last_issued: Option<u64>,
    /// Grant ordinal of the newest owner that has had a write applied.
    pub(crate) newest_writer: Option<u32>,
    /// Grant ordinal of the owner of the document's current value.
    pub(crate) current_value: Option<u32>,
}

/// Which of I1, I2, I4 an accepted write breaks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct WriteBreaks {
    pub(crate) i1: bool,
    pub(crate) i2: bool,
    pub(crate) i4: bool,
}

impl Marks {
    /// A fresh grant of `token`: whether it breaks I3.
    #[inline]
    pub(crate) fn grant(&mut self, token: u64) -> bool {
        let broken = self.last_issued.is_some_and(|last| token <= last);
        self.last_issued = Some(self.last_issued.map_or(token, |l| l.max(token)));
        broken
    }

    /// An applied write by the owner of grant `ordinal` with `token`: what it breaks.
    #[inline]
    pub(crate) fn write(&mut self, ordinal: u32, token: u64) -> WriteBreaks {
        let b = WriteBreaks {
            i1: self.highest_accepted.is_some_and(|h| token < h),
            i2: self.newest_writer.is_some_and(|n| n > ordinal),
            i4: self.current_value.is_some_and(|c| c > ordinal),
        };
        self.highest_accepted = Some(self.highest_accepted.map_or(token, |h| h.max(token)));
        if self.newest_writer.is_none_or(|n| ordinal > n) {
            self.newest_writer = Some(ordinal);
        }
        self.current_value = Some(ordinal);
        b
    }
}

/// Incremental checker.
#[derive(Debug, Default)]
pub(crate) struct Checker {
    marks: Marks,
    /// Newest owner that has had a write applied.
    newest_writer: Option<Owner>,
    /// Owner of the document's current value.
    current_value: Option<Owner>,
    /// Applied operations: (worker, incarnation, op).
    applied_ops: Vec<(u16, u16, u32)>,
    /// Already reported, per invariant: report each invariant at most this many times.
    reported: [u8; 5],
    pub(crate) violations: Vec<Violation>,
}

/// Each invariant is reported at most this many times per run (the first ones are what matter).
const MAX_REPORTS: u8 = 8;

impl Checker {
    fn report(
        &mut self,
        invariant: Invariant,
        seq: u32,
        t_ms: u64,
        because: impl FnOnce() -> String,
    ) {
        let n = &mut self.reported[invariant.index()];
        if *n < MAX_REPORTS {
            *n += 1;
            self.violations.push(Violation {
                invariant,
                seq,
                t_ms,
                because: because(),
            });
        }
    }

    /// A fresh (non re-entry) grant.
    pub(crate) fn on_grant(
        &mut self,
        seq: u32,
        t_ms: u64,
        token: u64,
        names: &[String],
        holder: u16,
    ) {
        let last = self.marks.last_issued.unwrap_or(0);
        if self.marks.grant(token) {
            self.report(Invariant::I3, seq, t_ms, || {
                format!(
                    "the lock service granted token {token} to {} after it had already issued {last}",
                    name(names, holder)
                )
            });
        }
    }

    /// A write the storage applied.
    pub(crate) fn on_write_accepted(
        &mut self,
        seq: u32,
        t_ms: u64,
        owner: Owner,
        op: u32,
        names: &[String],
    ) {
        let who = owner.describe(names);
        let who = who.as_str();
        let h = self.marks.highest_accepted.unwrap_or(0);
        let breaks = self.marks.write(owner.ordinal, owner.token);
        if breaks.i1 {
            self.report(Invariant::I1, seq, t_ms, || {
                format!(
                    "the storage accepted {who}'s token {} after it had accepted {h}",
                    owner.token
                )
            });
        }
        if let Some(newer) = self.newest_writer.filter(|_| breaks.i2) {
            self.report(Invariant::I2, seq, t_ms, || {
                format!(
                    "{who}'s write (token {}) landed after {} (a newer owner, token {}) had written: stale data now sits on top",
                    owner.token,
                    newer.describe(names),
                    newer.token
                )
            });
        }
        if let Some(cur) = self.current_value.filter(|_| breaks.i4) {
            self.report(Invariant::I4, seq, t_ms, || {
                format!(
                    "{}'s write (token {}), acknowledged by the storage, was overwritten by {who}'s older one (token {})",
                    cur.describe(names),
                    cur.token,
                    owner.token
                )
            });
        }
        let key = (owner.worker, owner.inc, op);
        if self.applied_ops.contains(&key) {
            self.report(Invariant::I5, seq, t_ms, || {
                format!("{who}'s write #{op} was applied a second time")
            });
        } else {
            self.applied_ops.push(key);
        }
        if self.newest_writer.is_none_or(|n| owner.ordinal > n.ordinal) {
            self.newest_writer = Some(owner);
        }
        self.current_value = Some(owner);
    }

    pub(crate) fn finish(self) -> Verdict {
        Verdict {
            ok: self.violations.is_empty(),
            violations: self.violations,
        }
    }
}

fn name(names: &[String], w: u16) -> &str {
    names.get(usize::from(w)).map_or("?", String::as_str)
}
