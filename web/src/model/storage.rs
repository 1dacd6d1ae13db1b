//! The storage at the playhead: its document and the highest token it accepted.

use fencepost_sim::{Actor, Beliefs, Detail, Trace};

/// One applied write in the storage's document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DocLine {
    /// Writer's name.
    pub writer: String,
    /// Token presented.
    pub token: Option<u64>,
    /// Operation id.
    pub op: u32,
    /// When.
    pub t: u64,
    /// Whether it landed with a token lower than one already accepted.
    pub stale: bool,
}

/// The storage at the playhead.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoragePanel {
    /// Highest token accepted so far.
    pub highest: Option<u64>,
    /// Whether the storage checks tokens.
    pub fencing: bool,
    /// Applied writes, oldest first; the last is the current value.
    pub document: Vec<DocLine>,
    /// Writes refused so far.
    pub refused: u32,
}

/// What the storage holds after the first `upto` events: the writes as the trace lists them, the
/// highest token as [`Beliefs`] folds it.
pub fn storage_at(trace: &Trace, upto: usize) -> StoragePanel {
    let mut beliefs = Beliefs::new(trace.workers.len());
    let mut document = Vec::new();
    let mut refused = 0;
    for e in trace.events.iter().take(upto) {
        beliefs.apply(e);
        match e.detail {
            Detail::WriteAccepted { writer, op, .. } => document.push(DocLine {
                writer: trace.name(Actor::Worker(writer)).to_string(),
                token: e.token,
                op,
                t: e.t_ms,
                stale: e.stale_over().is_some(),
            }),
            Detail::WriteRejected { .. } => refused += 1,
            _ => {}
        }
    }
    StoragePanel {
        highest: beliefs.storage_highest,
        fencing: trace.fencing,
        document,
        refused,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Playhead;
    use crate::model::testing::paused;

    #[test]
    fn storage_panel_follows_the_playhead() {
        let t = paused(true);
        let before = storage_at(&t, Playhead::at_time(&t, 31_000).upto);
        assert_eq!(before.highest, None);
        assert!(before.document.is_empty());
        let end = storage_at(&t, t.events.len());
        assert_eq!(end.highest, Some(34));
        assert_eq!(end.refused, 1);
        let doc: Vec<(&str, Option<u64>, bool)> = end
            .document
            .iter()
            .map(|d| (d.writer.as_str(), d.token, d.stale))
            .collect();
        assert_eq!(doc, [("B", Some(34), false)]);

        let off = paused(false);
        let end = storage_at(&off, off.events.len());
        let doc: Vec<(&str, Option<u64>, bool)> = end
            .document
            .iter()
            .map(|d| (d.writer.as_str(), d.token, d.stale))
            .collect();
        assert_eq!(doc, [("B", Some(34), false), ("A", Some(33), true)]);
        assert!(!end.fencing);
    }
}
