//! Resources as the clients saw them: their writes and answers, and the rows left at the end
//! (acknowledged writes lost).

use alloc::collections::BTreeMap;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::counts::ResourceCounts;
use super::faults::Nemeses;
use super::finding::{About, Finding, FindingKind};
use super::parse::Answer;
use super::{entry_bytes, name_bytes};

/// Distinct acknowledged tokens counted per resource, the highest ones: how many acknowledged
/// writes a final row lost is exact when no more distinct tokens than this are above it.
pub const ACKED_TOKENS: usize = 8;

/// One resource, as the clients saw it.
#[derive(Clone, Debug, Default)]
pub(crate) struct Doc {
    pub(crate) counts: ResourceCounts,
    /// The highest token acknowledged.
    highest: u64,
    /// The highest acknowledged tokens, highest first, with how many writes each.
    top: [(u64, u64); ACKED_TOKENS],
    top_len: u8,
    /// Whether an acknowledged token fell out of `top`.
    dropped: bool,
    /// The first acknowledged write with the highest token: its client and line.
    top_process: String,
    top_line: u64,
    /// The final row's token, once read.
    final_token: Option<u64>,
}

impl Doc {
    /// Counts an acknowledged write of `token`.
    fn acknowledge(&mut self, no: u64, process: &str, token: u64) -> i64 {
        let n = usize::from(self.top_len);
        let top = &mut self.top[..n];
        if let Some(e) = top.iter_mut().find(|e| e.0 == token) {
            e.1 += 1;
            return 0;
        }
        let at = top.iter().position(|e| e.0 < token).unwrap_or(n);
        if at == ACKED_TOKENS {
            self.dropped = true;
            return 0;
        }
        if n == ACKED_TOKENS {
            self.dropped = true;
        } else {
            self.top_len += 1;
        }
        let end = usize::from(self.top_len);
        self.top.copy_within(at..end - 1, at + 1);
        self.top[at] = (token, 1);
        if at > 0 {
            return 0;
        }
        let held = name_bytes(process.len()) as i64 - name_bytes(self.top_process.len()) as i64;
        self.highest = token;
        self.top_process = process.to_string();
        self.top_line = no;
        held
    }

    /// Acknowledged writes above `final_token`, and whether that is a lower bound.
    fn lost(&self, final_token: u64) -> (u64, bool) {
        let top = &self.top[..usize::from(self.top_len)];
        let lost = top.iter().filter(|e| e.0 > final_token).map(|e| e.1).sum();
        let at_least =
            self.dropped && top.len() == ACKED_TOKENS && top[top.len() - 1].0 > final_token;
        (lost, at_least)
    }

    fn finding(
        &self,
        no: u64,
        t: u64,
        resource: &str,
        lost: (u64, bool),
        fin: Option<u64>,
        active: Nemeses,
    ) -> Finding {
        Finding {
            line: no,
            kind: FindingKind::AckLost,
            t,
            nemeses: active,
            about: About::AckLost {
                resource: resource.to_string(),
                writes: lost.0,
                at_least: lost.1,
                process: self.top_process.clone(),
                token: self.highest,
                write_line: self.top_line,
                final_token: fin,
            },
        }
    }
}

/// Every resource a client wrote to.
#[derive(Clone, Debug, Default)]
pub(crate) struct Docs {
    pub(crate) docs: BTreeMap<String, Doc>,
}

impl Docs {
    /// Bytes one resource's entry takes besides its names.
    pub(crate) fn entry_bytes() -> u64 {
        entry_bytes(size_of::<(String, Doc)>())
    }

    /// The resource's entry, made if new; the bytes that took.
    pub(crate) fn doc(&mut self, resource: &str) -> (&mut Doc, u64) {
        let mut added = 0;
        if !self.docs.contains_key(resource) {
            self.docs.insert(resource.into(), Doc::default());
            added = Docs::entry_bytes() + name_bytes(resource.len());
        }
        (self.docs.get_mut(resource).expect("inserted above"), added)
    }

    /// A client's write (line `no`); `store_highest` is the highest token the store's own log
    /// shows accepted. Returns what it added to the resource's counts, and the change in bytes
    /// held.
    pub(crate) fn write(
        &mut self,
        no: u64,
        process: &str,
        resource: &str,
        token: u64,
        answer: Answer,
        store_highest: u64,
    ) -> (ResourceCounts, i64) {
        let (doc, added) = self.doc(resource);
        let highest = doc.highest.max(store_highest);
        let mut d = ResourceCounts {
            writes: 1,
            ..ResourceCounts::default()
        };
        let mut held = added as i64;
        match answer {
            Answer::Rejected => {
                d.stale_attempted = 1;
                d.stale_refused = 1;
            }
            Answer::Unknown => d.stale_attempted = u64::from(token < highest),
            Answer::Ok => {
                d.acknowledged = 1;
                held += doc.acknowledge(no, process, token);
            }
        }
        doc.counts.add(&d);
        (d, held)
    }

    /// A final row (line `no`): the finding if acknowledged writes were above its token. Only a
    /// resource's first final row counts.
    pub(crate) fn final_row(
        &mut self,
        no: u64,
        t: u64,
        resource: &str,
        token: u64,
        active: Nemeses,
    ) -> Option<Finding> {
        let doc = self.docs.get_mut(resource)?;
        if doc.final_token.is_some() {
            return None;
        }
        doc.final_token = Some(token);
        let lost = doc.lost(token);
        if lost.0 == 0 {
            return None;
        }
        doc.counts.acknowledged_lost += lost.0;
        Some(doc.finding(no, t, resource, lost, Some(token), active))
    }

    /// At the end (time `t`): every resource with acknowledged writes and no final row lost them
    /// all.
    pub(crate) fn finish(&mut self, t: u64, active: Nemeses, out: &mut Vec<Finding>) {
        for (resource, doc) in &mut self.docs {
            if doc.final_token.is_some() || doc.counts.acknowledged == 0 {
                continue;
            }
            let lost = doc.counts.acknowledged;
            doc.counts.acknowledged_lost += lost;
            // Counted as final row 0, so that finishing again finds nothing more.
            doc.final_token = Some(0);
            out.push(doc.finding(0, t, resource, (lost, false), None, active));
        }
    }
}
