//! What a check reports: findings, malformed lines, and what one line gave.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use serde::Serialize;
use serde::ser::{SerializeStruct, Serializer};

use super::faults::Nemeses;
use super::{MAX_NAME, name_bytes};

/// The kind of a finding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FindingKind {
    /// I1: an accepted token lower than one accepted before.
    TokenRegression,
    /// I2: an accepted write from an owner after a newer owner's write.
    StaleOwner,
    /// A grant of a lock whose token is not above an earlier grant's.
    GrantOrder,
    /// Acknowledged writes above their resource's final token: the store lost them.
    AckLost,
    /// Two processes believed they held one lock at the same instant.
    BeliefOverlap,
}

/// What a finding is about, by kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum About {
    /// A token regression or a stale owner: a write the store applied.
    Write {
        /// The resource.
        resource: String,
        /// The writer of the offending write.
        writer: String,
        /// Its token.
        token: u64,
        /// The newer write it came after: for a regression the first acceptance of the highest
        /// token, for a stale owner the newest owner's first write.
        newer_writer: String,
        /// That write's token.
        newer_token: u64,
        /// That write's line.
        newer_line: u64,
    },
    /// A grant not above an earlier one.
    Grant {
        /// The lock.
        lock: String,
        /// Who received it.
        process: String,
        /// Its token.
        token: u64,
        /// Who received the earlier grant with the highest token.
        earlier_process: String,
        /// Its token.
        earlier_token: u64,
        /// Its line.
        earlier_line: u64,
    },
    /// Acknowledged writes lost.
    AckLost {
        /// The resource.
        resource: String,
        /// How many acknowledged writes had a token above the final one.
        writes: u64,
        /// Whether `writes` is a lower bound (more distinct tokens were above the final one than
        /// the checker keeps per resource).
        at_least: bool,
        /// The client of the highest lost write (the first acknowledged with its token).
        process: String,
        /// Its token.
        token: u64,
        /// Its line.
        write_line: u64,
        /// The final row's token, None when the history has no final row for the resource.
        final_token: Option<u64>,
    },
    /// A belief overlap.
    Overlap {
        /// The lock.
        lock: String,
        /// The processes that believed they held it during the overlap (the first few).
        processes: Vec<String>,
        /// When it began (ms on the history's timeline).
        from: u64,
        /// When it ended.
        to: u64,
        /// Whether a clock skewed beyond its drift bound was at work on one of the processes.
        beyond_drift: bool,
        /// The belief line that began it.
        began_line: u64,
    },
}

/// Something that should not have happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// The line that showed it (1-based): the offending write or grant, the final row, or the
    /// line at which an overlap was known to have ended (0: at the end of the history).
    pub line: u64,
    /// What is wrong.
    pub kind: FindingKind,
    /// The line's time (for an overlap, its start).
    pub t: u64,
    /// The nemeses active at that instant.
    pub nemeses: Nemeses,
    /// The details.
    pub about: About,
}

impl Finding {
    /// How many violations it stands for: the writes lost for [`FindingKind::AckLost`], else 1.
    pub fn count(&self) -> u64 {
        match self.about {
            About::AckLost { writes, .. } => writes,
            _ => 1,
        }
    }

    /// Whether it is a belief overlap with a clock skewed beyond its drift bound.
    pub fn beyond_drift(&self) -> bool {
        matches!(
            self.about,
            About::Overlap {
                beyond_drift: true,
                ..
            }
        )
    }

    /// Most bytes its names take from the module's allocator.
    pub(crate) fn held_bytes(&self) -> u64 {
        match &self.about {
            About::Overlap { processes, .. } => {
                name_bytes(MAX_NAME)
                    + crate::block_bytes((processes.capacity() * size_of::<String>()) as u64)
                    + processes.len() as u64 * name_bytes(MAX_NAME)
            }
            _ => 3 * name_bytes(MAX_NAME),
        }
    }
}

/// Today's findings keep their fields in their order; the others write theirs; `nemeses` is
/// written only when one was active.
impl Serialize for Finding {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut o = s.serialize_struct("Finding", 10)?;
        o.serialize_field("line", &self.line)?;
        o.serialize_field("kind", &self.kind)?;
        match &self.about {
            About::Write {
                resource,
                writer,
                token,
                newer_writer,
                newer_token,
                newer_line,
            } => {
                o.serialize_field("resource", resource)?;
                o.serialize_field("writer", writer)?;
                o.serialize_field("token", token)?;
                o.serialize_field("t", &self.t)?;
                o.serialize_field("newer_writer", newer_writer)?;
                o.serialize_field("newer_token", newer_token)?;
                o.serialize_field("newer_line", newer_line)?;
            }
            About::Grant {
                lock,
                process,
                token,
                earlier_process,
                earlier_token,
                earlier_line,
            } => {
                o.serialize_field("lock", lock)?;
                o.serialize_field("process", process)?;
                o.serialize_field("token", token)?;
                o.serialize_field("t", &self.t)?;
                o.serialize_field("earlier_process", earlier_process)?;
                o.serialize_field("earlier_token", earlier_token)?;
                o.serialize_field("earlier_line", earlier_line)?;
            }
            About::AckLost {
                resource,
                writes,
                at_least,
                process,
                token,
                write_line,
                final_token,
            } => {
                o.serialize_field("resource", resource)?;
                o.serialize_field("t", &self.t)?;
                o.serialize_field("writes", writes)?;
                o.serialize_field("at_least", at_least)?;
                o.serialize_field("process", process)?;
                o.serialize_field("token", token)?;
                o.serialize_field("write_line", write_line)?;
                o.serialize_field("final_token", final_token)?;
            }
            About::Overlap {
                lock,
                processes,
                from,
                to,
                beyond_drift,
                began_line,
            } => {
                o.serialize_field("lock", lock)?;
                o.serialize_field("processes", processes)?;
                o.serialize_field("t", &self.t)?;
                o.serialize_field("from", from)?;
                o.serialize_field("to", to)?;
                o.serialize_field("beyond_drift", beyond_drift)?;
                o.serialize_field("began_line", began_line)?;
            }
        }
        if !self.nemeses.is_empty() {
            o.serialize_field("nemeses", &self.nemeses)?;
        }
        o.end()
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let line = self.line;
        match &self.about {
            About::Write {
                resource,
                writer,
                token,
                newer_writer,
                newer_token,
                newer_line,
            } => match self.kind {
                FindingKind::TokenRegression => write!(
                    f,
                    "line {line}: `{resource}` accepted token {token} from {writer} after it had accepted {newer_token} from {newer_writer} (line {newer_line})"
                )?,
                _ => write!(
                    f,
                    "line {line}: {writer}'s write to `{resource}` (token {token}) was accepted after {newer_writer}, a newer owner (token {newer_token}), had written (line {newer_line})"
                )?,
            },
            About::Grant {
                lock,
                process,
                token,
                earlier_process,
                earlier_token,
                earlier_line,
            } => write!(
                f,
                "line {line}: {process} was granted `{lock}` with token {token}, not above {earlier_token} granted to {earlier_process} (line {earlier_line})"
            )?,
            About::AckLost {
                resource,
                writes,
                at_least,
                process,
                token,
                write_line,
                final_token,
            } => {
                let n = if *at_least { "at least " } else { "" };
                match final_token {
                    Some(ft) => write!(f, "line {line}: `{resource}` ends with token {ft}")?,
                    None => write!(f, "end: `{resource}` has no final row")?,
                }
                write!(
                    f,
                    ", yet {n}{writes} acknowledged writes were above it, the highest {process}'s with token {token} (line {write_line})"
                )?;
            }
            About::Overlap {
                lock,
                processes,
                from,
                to,
                beyond_drift,
                began_line,
            } => {
                let at = if line == 0 {
                    "end".into()
                } else {
                    alloc::format!("line {line}")
                };
                write!(
                    f,
                    "{at}: {} believed they held `{lock}` at once from t={from} to t={to} (from line {began_line}), {}",
                    processes.join(", "),
                    if *beyond_drift {
                        "a clock skewed beyond its drift bound"
                    } else {
                        "clocks within their drift bound"
                    }
                )?;
            }
        }
        if !self.nemeses.is_empty() {
            write!(f, " [during {}]", self.nemeses)?;
        }
        Ok(())
    }
}

/// A line that could not be read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Malformed {
    /// Its number (1-based).
    pub line: u64,
    /// Why.
    pub message: String,
}

impl fmt::Display for Malformed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}: malformed, skipped: {}",
            self.line, self.message
        )
    }
}

/// What one line gave.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct LineReport {
    /// Set when the line was malformed.
    pub malformed: Option<Malformed>,
    /// Findings (none, one, or two for a write both stale and regressing).
    pub findings: Vec<Finding>,
}
