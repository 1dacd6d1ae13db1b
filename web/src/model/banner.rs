//! The violation banner: what went wrong, in plain words, once an invariant has broken.

use fencepost_sim::{Actor, Detail, Invariant, Trace};

use super::tokens::TokenStyle;

/// The violation banner: what went wrong, in plain words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Banner {
    /// One line, e.g. `stale write accepted: A's old data now sits on top of B's newer write`.
    pub headline: String,
    /// The simulator's sentence for each violation so far.
    pub details: Vec<String>,
    /// Seq of the first violation.
    pub seq: u32,
}

/// The banner after the first `upto` events, if an invariant has broken by then, its tokens
/// written in `tokens` style.
pub fn banner_at(trace: &Trace, upto: usize, tokens: TokenStyle) -> Option<Banner> {
    let seen: Vec<_> = trace
        .verdict
        .violations
        .iter()
        .filter(|v| (v.seq as usize) < upto)
        .collect();
    let seq = seen.first()?.seq;
    // Of the invariants broken by that one event, say the one a reader cares about most: the
    // data, then the tokens.
    let priority = |i: Invariant| match i {
        Invariant::I2 => 0,
        Invariant::I4 => 1,
        Invariant::I3 => 2,
        Invariant::I5 => 3,
        Invariant::I1 => 4,
    };
    let headline = seen
        .iter()
        .filter(|v| v.seq == seq)
        .map(|v| v.invariant)
        .min_by_key(|i| priority(*i))?;
    let details = seen
        .iter()
        .map(|v| format!("{}: {}", v.invariant, tokens.words(&v.because)))
        .collect();
    Some(Banner {
        headline: tokens.words(&plain_words(trace, headline, seq)),
        details,
        seq,
    })
}

fn plain_words(trace: &Trace, inv: Invariant, seq: u32) -> String {
    let e = trace.events.get(seq as usize);
    let name = |w: u16| trace.name(Actor::Worker(w)).to_string();
    // The writer of the event, and the last other writer the storage applied before it.
    let (writer, newer) = match e.map(|e| e.detail) {
        Some(Detail::WriteAccepted { writer, .. }) => {
            let newer = trace
                .events
                .iter()
                .take(seq as usize)
                .rev()
                .find_map(|p| match p.detail {
                    Detail::WriteAccepted { writer: o, .. } if o != writer => Some(o),
                    _ => None,
                });
            (Some(writer), newer)
        }
        _ => (None, None),
    };
    let tok = e.and_then(|e| e.token);
    match (inv, writer, newer) {
        (Invariant::I2 | Invariant::I4, Some(w), Some(n)) => format!(
            "stale write accepted: {}'s old data now sits on top of {}'s newer write",
            name(w),
            name(n)
        ),
        (Invariant::I1, Some(w), _) => format!(
            "stale token accepted: the storage took {}'s token {} after accepting a higher one",
            name(w),
            tok.map_or("?".into(), |t| t.to_string())
        ),
        (Invariant::I2 | Invariant::I4, Some(w), None) => format!(
            "stale write accepted: {}'s old data landed after a newer owner had the lock",
            name(w)
        ),
        (Invariant::I3, _, _) => format!(
            "token reused: the lock service handed out token {} twice, so the storage cannot tell the owners apart",
            tok.map_or("?".into(), |t| t.to_string())
        ),
        (Invariant::I5, Some(w), _) => format!(
            "write applied twice: a second copy of {}'s write was applied",
            name(w)
        ),
        _ => trace
            .verdict
            .violations
            .iter()
            .find(|v| v.seq == seq)
            .map_or_else(|| inv.description().to_string(), |v| v.because.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::testing::{N, paused};
    use fencepost_sim::preset;

    #[test]
    fn the_banner_appears_when_the_violation_happens() {
        let off = paused(false);
        // Event 30 is A's write landing (event 28 being A's keeper telling it, too late, that
        // its lease is lost).
        assert_eq!(banner_at(&off, 30, N), None);
        let b = banner_at(&off, 31, N).unwrap();
        assert_eq!(
            b.headline,
            "stale write accepted: A's old data now sits on top of B's newer write"
        );
        assert_eq!(b.seq, 30);
        assert_eq!(b.details.len(), 3);
        assert!(b.details[1].starts_with("I2: A's write (token 33) landed after B"));
        assert_eq!(banner_at(&paused(true), 1_000, N), None);

        let unpersisted =
            fencepost_sim::run(&preset("authority-restart-unpersisted").unwrap().scenario());
        let b = banner_at(&unpersisted, unpersisted.events.len(), N).unwrap();
        assert!(
            b.headline.starts_with("token reused") || b.headline.starts_with("stale write"),
            "{}",
            b.headline
        );
    }
}
