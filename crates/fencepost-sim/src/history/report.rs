//! A whole check's result, as kept by a host that reads a history in pieces.

use alloc::vec::Vec;

use serde::Serialize;

use super::counts::{Summary, Totals};
use super::finding::{Finding, Malformed};
use super::{MAX_MESSAGE, name_bytes};

/// A whole check's result (see [`HistoryChecker::check_text`](super::HistoryChecker::check_text)).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct HistoryReport {
    /// Totals of the store's write log.
    pub summary: Summary,
    /// A campaign's totals.
    pub totals: Totals,
    /// The first findings.
    pub findings: Vec<Finding>,
    /// The first malformed lines.
    pub malformed: Vec<Malformed>,
}

impl HistoryReport {
    /// Adds `found` while there are fewer than `keep` findings.
    pub(crate) fn keep(&mut self, found: Vec<Finding>, keep: usize) {
        for f in found {
            if self.findings.len() < keep {
                self.findings.push(f);
            }
        }
    }

    /// Most bytes the report holds: its vectors, and their names and messages, each block counted
    /// as an allocator that rounds up to powers of two would take it.
    pub fn held_bytes(&self) -> u64 {
        let vec = |cap: usize, size: usize| crate::block_bytes(cap as u64 * size as u64);
        let findings = vec(self.findings.capacity(), size_of::<Finding>())
            + self.findings.iter().map(Finding::held_bytes).sum::<u64>();
        let malformed = vec(self.malformed.capacity(), size_of::<Malformed>())
            + self.malformed.len() as u64 * name_bytes(MAX_MESSAGE);
        findings + malformed
    }
}
