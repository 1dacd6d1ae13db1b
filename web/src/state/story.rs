//! The story being edited: its scenario, where it came from, and the lane clicks Undo can take
//! back, each with the story as it was before it.

use fencepost_sim::{Fault, Scenario};

use crate::undo::Undo;

/// Pause length for injected pauses when the scenario has none to copy.
pub const DEFAULT_PAUSE_MS: u64 = 45_000;

/// The story on screen, as the learner edits it: what Undo puts back, in one piece.
#[derive(Clone, Debug, PartialEq)]
pub struct Story {
    /// The scenario being shown.
    pub scenario: Scenario,
    /// Where the scenario came from, while it is unchanged since (a preset's own scenario needs
    /// none).
    pub origin: Option<Origin>,
    /// Length of injected pauses.
    pub pause_ms: u64,
    /// Counts the stories loaded (a preset, an import, a seed from Explore): each gets an entry
    /// of its own in the browser's history, so that Back returns to the one before.
    pub entry: u32,
    /// The last lane clicks (the latest last), while the notice offers to undo them: Undo
    /// takes back one click at a time. Empty in the copy a click keeps of the story before it:
    /// the stack below a click is the one Undo leaves.
    pub clicks: LaneClicks,
}

impl Story {
    /// A story of `scenario`, loaded from nowhere in particular.
    pub fn new(scenario: Scenario) -> Story {
        Story {
            pause_ms: first_pause_length(&scenario).unwrap_or(DEFAULT_PAUSE_MS),
            scenario,
            origin: None,
            entry: 0,
            clicks: LaneClicks::default(),
        }
    }
}

/// The length of the scenario's first pause, which injected pauses copy.
pub fn first_pause_length(s: &Scenario) -> Option<u64> {
    s.faults.iter().find_map(|f| match f {
        Fault::Pause { for_ms, .. } | Fault::PauseAt { for_ms, .. } => Some(*for_ms),
        _ => None,
    })
}

/// Where a loaded scenario came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// The address: a shared link, or Back and Forward.
    Address,
    /// An imported file.
    Import,
    /// A seed or counterexample of the Explore panel.
    Explore,
    /// The tour, which turns fencing off in its last chapter.
    Tour,
    /// The learner's own edits, come back to by Back, Forward or a reload.
    Edited,
}

impl Origin {
    /// How the story picker names a scenario of this origin.
    pub fn label(self) -> &'static str {
        match self {
            Origin::Address => "from the link",
            Origin::Import => "imported",
            Origin::Explore => "from Explore",
            Origin::Tour => "as the tour left it",
            Origin::Edited => "edited",
        }
    }

    /// The name kept in a history entry, so that Back and Forward say where its story came from.
    pub fn key(self) -> &'static str {
        match self {
            Origin::Address => "link",
            Origin::Import => "import",
            Origin::Explore => "explore",
            Origin::Tour => "tour",
            Origin::Edited => "edited",
        }
    }

    /// The origin [`Origin::key`] names.
    pub fn from_key(key: &str) -> Option<Origin> {
        [
            Origin::Address,
            Origin::Import,
            Origin::Explore,
            Origin::Tour,
            Origin::Edited,
        ]
        .into_iter()
        .find(|o| o.key() == key)
    }
}

/// The lane clicks Undo can take back, the latest last.
pub type LaneClicks = Undo<LaneClick>;

/// One lane click: the pause it added, and the page before it.
#[derive(Clone, Debug, PartialEq)]
pub struct LaneClick {
    /// The index of the worker whose lane was clicked.
    pub worker: usize,
    /// The pause it added (the scenario's last fault while the click can be undone).
    pub pause: Fault,
    /// The story before it: what Undo puts back.
    pub before: Story,
    /// The tour chapter it was on, if the click left the tour.
    pub tour: Option<usize>,
}

impl LaneClick {
    /// When its pause starts.
    pub fn at(&self) -> Option<u64> {
        match self.pause {
            Fault::Pause { at, .. } => Some(at),
            _ => None,
        }
    }
}

impl Undo<LaneClick> {
    /// Where the latest click's pause is (worker index, time): the timeline marks it until the
    /// playhead reaches it.
    pub fn pending(&self) -> Option<(usize, u64)> {
        let click = self.last()?;
        Some((click.worker, click.at()?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fencepost_sim::preset;

    #[test]
    fn a_story_copies_its_first_pause_length() {
        let s = Story::new(preset("gc-pause").unwrap().scenario());
        assert_eq!((s.pause_ms, s.origin, s.entry), (15_000, None, 0));
        let mut none = s.scenario.clone();
        none.faults.clear();
        assert_eq!(Story::new(none).pause_ms, DEFAULT_PAUSE_MS);
    }

    #[test]
    fn origins_round_trip_through_their_keys() {
        for o in [
            Origin::Address,
            Origin::Import,
            Origin::Explore,
            Origin::Tour,
            Origin::Edited,
        ] {
            assert_eq!(Origin::from_key(o.key()), Some(o));
        }
        assert_eq!(Origin::from_key("nonsense"), None);
    }
}
