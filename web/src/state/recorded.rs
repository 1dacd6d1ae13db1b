//! A recorded run shown in place of the story's: a fault campaign's history, read into a trace by
//! the simulator ([`RecordedRun`]) and drawn like a simulated one. This part says what the page
//! tells of it besides the timeline; opening and leaving it are the loads' (`load.rs`).

use std::rc::Rc;

use fencepost_sim::history::recorded::{Fault, MAX_RUN_EVENTS, RecordedRun, Refusal};
use fencepost_sim::trace::fmt_secs;

use super::playback::ZOOM_MAX;

/// About this much of a recorded run is in view when it opens, around its first refusal.
const VIEW_MS: u64 = 15_000;

/// What the page says of a recorded run besides its timeline.
#[derive(Clone, Debug, PartialEq)]
pub struct Recorded {
    /// The file it came from.
    pub name: String,
    /// The lock drawn.
    pub lock: String,
    /// How many locks the run granted.
    pub locks: usize,
    /// Its first write refused as stale.
    pub refusal: Option<Refusal>,
    /// Every fault of the run.
    pub faults: Rc<Vec<Fault>>,
    /// What was left out or skipped, one sentence each.
    pub notes: Vec<String>,
}

/// What was left out of `run` or skipped, one sentence each.
pub(super) fn notes(run: &RecordedRun) -> Vec<String> {
    let mut notes = Vec::new();
    if run.refusal.is_none() {
        notes.push(format!(
            "No write with lock {}'s tokens was refused as stale in this run.",
            run.lock
        ));
    }
    if run.malformed > 0 {
        let first = run
            .first_malformed
            .first()
            .map_or(String::new(), |m| format!(" (first: {m})"));
        notes.push(format!(
            "{} of {} lines could not be read and were skipped{first}.",
            run.malformed, run.lines
        ));
    }
    if run.trace.truncated {
        notes.push(format!(
            "Only the first {MAX_RUN_EVENTS} events of lock {} are drawn.",
            run.lock
        ));
    }
    if run.processes_left_out > 0 {
        notes.push(format!(
            "{} client processes are left out: the page draws {} lanes at most.",
            run.processes_left_out,
            run.trace.workers.len()
        ));
    }
    notes
}

/// The zoom at which about [`VIEW_MS`] of a run ending at `end` fills the view.
pub(super) fn zoom_for(end: u64) -> u32 {
    let mut zoom = 0;
    let mut shown = end as f64;
    while shown > VIEW_MS as f64 && zoom < ZOOM_MAX {
        zoom += 1;
        shown /= 1.5;
    }
    zoom
}

/// A fault as a line of the list: `pause-client client-1, 0.3 s to 1.5 s`.
pub fn fault_line(f: &Fault) -> String {
    let to = f.to.map_or("the end".to_string(), fmt_secs);
    format!(
        "{} {}, {} to {to}",
        f.nemesis.name(),
        f.target,
        fmt_secs(f.from)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_run_opens_zoomed_in() {
        assert_eq!(zoom_for(10_000), 0);
        assert_eq!(zoom_for(60_000), 4);
        assert_eq!(zoom_for(u64::MAX), ZOOM_MAX);
    }

    #[test]
    fn what_was_skipped_is_said() {
        let story = include_str!("../../../crates/fencepost-cli/tests/histories/clean.jsonl");
        let run = RecordedRun::read(&format!("junk\n{story}")).unwrap();
        assert_eq!(
            notes(&run),
            [
                "1 of 16 lines could not be read and were skipped (first: line 1: malformed, skipped: expected a JSON object)."
            ]
        );
    }
}
