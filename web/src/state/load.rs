//! Loading another story: a preset, a scenario from a link, a file or Explore, or the one the
//! address names after Back or Forward. Another story leaves the tour and starts playback over.

use fencepost_sim::{Scenario, preset};

use super::page::State;
use super::story::{DEFAULT_PAUSE_MS, Origin, first_pause_length};

/// Another story.
#[derive(Clone, Debug, PartialEq)]
pub enum Load {
    /// Load a preset by name.
    Preset(String),
    /// Load a scenario (link, import, explorer), playhead at the start.
    Scenario(Box<Scenario>, Origin),
    /// The address changed (Back, Forward, a link pasted in): show what it names, where that
    /// entry says it came from. The address already names it: no history entry is added.
    FollowAddress(Box<Scenario>, Origin),
}

impl State {
    /// Loads another story.
    pub(super) fn apply_load(&mut self, load: Load) {
        match load {
            Load::Preset(name) => match preset(&name) {
                Some(p) => {
                    self.tour.chapter = None;
                    let s = p.scenario();
                    self.story.pause_ms = first_pause_length(&s).unwrap_or(DEFAULT_PAUSE_MS);
                    if self.set_scenario(s, true) {
                        self.story.origin = None;
                        self.story.entry = self.story.entry.wrapping_add(1);
                    }
                }
                None => self.messages.error = Some(format!("There is no preset named `{name}`.")),
            },
            Load::Scenario(s, origin) => self.load(*s, origin, origin != Origin::Address),
            // The address already names what it follows.
            Load::FollowAddress(s, origin) => self.load(*s, origin, false),
        }
    }

    /// Shows `s`, from `origin`, in a history entry of its own if `new_entry`.
    fn load(&mut self, s: Scenario, origin: Origin, new_entry: bool) {
        self.tour.chapter = None;
        self.story.pause_ms = first_pause_length(&s).unwrap_or(self.story.pause_ms);
        if self.set_scenario(s, true) {
            self.story.origin = Some(origin);
            if new_entry {
                self.story.entry = self.story.entry.wrapping_add(1);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Playhead;
    use crate::state::testing::{apply, paused};
    use crate::state::{Action, Edit, Message, Play, Switch};

    #[test]
    fn presets_and_bad_scenarios() {
        let s = apply(
            paused(),
            [
                Action::Play(Play::End),
                Action::Load(Load::Preset("gc-pause".into())),
            ],
        );
        assert_eq!(s.story.scenario.name, "gc-pause");
        assert_eq!(s.play.head, Playhead::default());
        assert_eq!(s.story.pause_ms, 15_000);
        let s = apply(s, [Action::Load(Load::Preset("nope".into()))]);
        assert_eq!(s.story.scenario.name, "gc-pause");
        assert_eq!(
            s.messages.error.as_deref(),
            Some("There is no preset named `nope`.")
        );
        let mut bad = s.story.scenario.clone();
        bad.workers.clear();
        let s = apply(
            s,
            [Action::Load(Load::Scenario(Box::new(bad), Origin::Import))],
        );
        assert_eq!(s.story.scenario.name, "gc-pause");
        assert_eq!(
            s.messages.error.as_deref(),
            Some("That change was not applied: workers: needs at least one worker")
        );
        let s = apply(s, [Action::Message(Message::Dismiss)]);
        assert_eq!(s.messages.error, None);
    }

    #[test]
    fn each_story_loaded_counts_and_says_where_it_came_from() {
        let s = paused();
        assert_eq!((s.story.entry, s.story.origin), (0, None));
        let s = apply(s, [Action::Load(Load::Preset("gc-pause".into()))]);
        assert_eq!((s.story.entry, s.story.origin), (1, None));
        let mut other = s.story.scenario.clone();
        other.seed = 9;
        let s = apply(
            s,
            [Action::Load(Load::Scenario(
                Box::new(other.clone()),
                Origin::Explore,
            ))],
        );
        assert_eq!((s.story.entry, s.story.origin), (2, Some(Origin::Explore)));
        // An edit makes it the learner's own; the address loading a scenario adds no story.
        let s = apply(s, [Action::Edit(Edit::Toggle(Switch::Idempotency))]);
        assert_eq!((s.story.entry, s.story.origin), (2, None));
        let s = apply(
            s,
            [Action::Load(Load::Scenario(
                Box::new(other),
                Origin::Address,
            ))],
        );
        assert_eq!((s.story.entry, s.story.origin), (2, Some(Origin::Address)));
        // Nothing loaded, nothing counted.
        let s = apply(s, [Action::Load(Load::Preset("nope".into()))]);
        assert_eq!(s.story.entry, 2);
    }
}
