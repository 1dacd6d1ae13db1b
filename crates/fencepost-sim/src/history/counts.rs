//! The figures a check adds up: today's write-log summary, and a campaign's totals per lock, per
//! resource, per nemesis and for the whole history.

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};

use super::faults::{NEMESES, Nemeses, Nemesis};
use super::finding::{Finding, FindingKind};

/// Totals so far: lines and malformed lines of any kind; writes, findings and resources of the
/// storage's own write log (lines without `kind`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Lines seen, blank and malformed included.
    pub lines: u64,
    /// Accepted writes.
    pub accepted: u64,
    /// Rejected writes.
    pub rejected: u64,
    /// Malformed lines.
    pub malformed: u64,
    /// Token regressions found.
    pub token_regressions: u64,
    /// Stale-owner writes found.
    pub stale_owners: u64,
    /// Distinct resources.
    pub resources: u64,
}

impl Summary {
    /// Whether any violation was found.
    pub const fn violated(&self) -> bool {
        self.token_regressions + self.stale_owners > 0
    }
}

/// What happened to one lock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct LockCounts {
    /// Grants received.
    pub grants: u64,
    /// Grants whose token was not above an earlier grant's (must be 0).
    pub grant_order_violations: u64,
    /// Times two processes believed they held it at once with clocks within their drift bound
    /// (must be 0).
    pub overlaps_within_drift: u64,
    /// The same with a clock skewed beyond its bound (allowed: the fence must still hold).
    pub overlaps_beyond_drift: u64,
}

/// What happened to one resource.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ResourceCounts {
    /// Clients' write attempts.
    pub writes: u64,
    /// Stale writes: refused, accepted, and unanswered ones below the highest token accepted.
    pub stale_attempted: u64,
    /// Stale writes the store refused.
    pub stale_refused: u64,
    /// Stale writes the store applied: its token regressions (must be 0).
    pub stale_accepted: u64,
    /// Writes acknowledged to their client.
    pub acknowledged: u64,
    /// Acknowledged writes whose token is above the resource's final token (must be 0).
    pub acknowledged_lost: u64,
}

impl ResourceCounts {
    pub(crate) fn add(&mut self, o: &ResourceCounts) {
        self.writes += o.writes;
        self.stale_attempted += o.stale_attempted;
        self.stale_refused += o.stale_refused;
        self.stale_accepted += o.stale_accepted;
        self.acknowledged += o.acknowledged;
        self.acknowledged_lost += o.acknowledged_lost;
    }
}

/// One row of the table per nemesis: its faults, and what was found while it was active.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct NemesisRow {
    /// Faults started.
    pub faults: u64,
    /// Stale writes refused while it was active (the fence at work).
    pub stale_refused: u64,
    /// Token regressions (stale writes accepted) while it was active.
    pub token_regressions: u64,
    /// Stale-owner writes while it was active.
    pub stale_owners: u64,
    /// Grant order violations while it was active.
    pub grant_order_violations: u64,
    /// Acknowledged writes lost, found while it was active.
    pub acknowledged_lost: u64,
    /// Belief overlaps within drift that began while it was active.
    pub overlaps_within_drift: u64,
    /// Belief overlaps beyond drift that began while it was active.
    pub overlaps_beyond_drift: u64,
}

impl NemesisRow {
    /// Counts a finding.
    fn count(&mut self, f: &Finding) {
        match f.kind {
            FindingKind::TokenRegression => self.token_regressions += 1,
            FindingKind::StaleOwner => self.stale_owners += 1,
            FindingKind::GrantOrder => self.grant_order_violations += 1,
            FindingKind::AckLost => self.acknowledged_lost += f.count(),
            FindingKind::BeliefOverlap if f.beyond_drift() => self.overlaps_beyond_drift += 1,
            FindingKind::BeliefOverlap => self.overlaps_within_drift += 1,
        }
    }
}

/// A row per nemesis, written as an object keyed by the nemeses' names.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ByNemesis(pub [NemesisRow; NEMESES]);

impl ByNemesis {
    /// The row of `n`.
    pub fn get(&self, n: Nemesis) -> &NemesisRow {
        &self.0[n as usize]
    }
}

impl Serialize for ByNemesis {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(NEMESES))?;
        for n in Nemesis::ALL {
            m.serialize_entry(n.name(), self.get(n))?;
        }
        m.end()
    }
}

/// A campaign history's totals: its lines with a `kind`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Totals {
    /// Whether any line had a `kind` (a campaign history, not a bare write log).
    pub campaign: bool,
    /// Clients' operations: grants received and writes attempted.
    pub operations: u64,
    /// Belief lines.
    pub beliefs: u64,
    /// Final rows.
    pub finals: u64,
    /// Faults started.
    pub faults: u64,
    /// Distinct locks.
    pub locks: u64,
    /// Over every lock.
    #[serde(flatten)]
    pub lock: LockCounts,
    /// Over every resource.
    #[serde(flatten)]
    pub resource: ResourceCounts,
    /// Per nemesis.
    pub by_nemesis: ByNemesis,
    /// Findings while no nemesis was active.
    pub without_faults: NemesisRow,
}

impl Totals {
    /// Whether a figure that must be 0 is not: stale writes accepted, grant order violations,
    /// acknowledged writes lost, belief overlaps within drift.
    pub const fn violated(&self) -> bool {
        self.resource.stale_accepted
            + self.lock.grant_order_violations
            + self.resource.acknowledged_lost
            + self.lock.overlaps_within_drift
            > 0
    }

    pub(crate) fn add_resource(&mut self, c: &ResourceCounts) {
        self.resource.add(c);
    }

    /// Counts a finding in the rows of the nemeses active at its instant.
    pub(crate) fn count(&mut self, f: &Finding) {
        if f.nemeses.is_empty() {
            self.without_faults.count(f);
        }
        for n in f.nemeses.iter() {
            self.by_nemesis.0[n as usize].count(f);
        }
    }

    /// Counts a stale write refused while `active` were.
    pub(crate) fn refused(&mut self, active: Nemeses) {
        if active.is_empty() {
            self.without_faults.stale_refused += 1;
        }
        for n in active.iter() {
            self.by_nemesis.0[n as usize].stale_refused += 1;
        }
    }
}
