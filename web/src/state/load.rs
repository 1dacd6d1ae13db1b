//! Loading another story: a preset, a scenario from a link, a file or Explore, or the one the
//! address names after Back or Forward. Another story leaves the tour and starts playback over.

use std::rc::Rc;

use fencepost_sim::history::recorded::RecordedRun;
use fencepost_sim::{Scenario, preset};

use super::page::State;
use super::recorded::{Recorded, notes, zoom_for};
use super::run::Run;
use super::story::{DEFAULT_PAUSE_MS, Origin, first_pause_length};
use crate::model::Playhead;

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
    /// Show a recorded run (read from the file named) in place of the story's.
    Recorded(Rc<RecordedRun>, String),
    /// Show the story's own run again.
    LeaveRecorded,
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
            Load::Recorded(run, name) => {
                self.open_recorded(Rc::unwrap_or_clone(run), name);
            }
            // Done before any action that is not this one (see `State::apply`).
            Load::LeaveRecorded => {}
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

impl State {
    /// Shows the recorded `run` read from file `name`, the playhead on its first refused stale
    /// write (else at its start).
    pub(super) fn open_recorded(&mut self, run: RecordedRun, name: String) {
        let notes = notes(&run);
        let RecordedRun {
            trace,
            lock,
            locks,
            faults,
            refusal,
            ..
        } = run;
        self.tour.chapter = None;
        self.compare = None;
        self.run = Run::recorded(trace, &lock);
        self.play.playing = false;
        self.play.zoom = zoom_for(self.end());
        self.play.head = match &refusal {
            Some(r) => Playhead::at_event(&self.run.trace, r.seq as usize),
            None => Playhead::default(),
        };
        self.messages.error = None;
        self.story.clicks.clear();
        self.recorded = Some(Rc::new(Recorded {
            name,
            lock,
            locks: locks.len(),
            refusal,
            faults: Rc::new(faults),
            notes,
        }));
    }

    /// Shows the story's own run again, from its start.
    pub(super) fn leave_recorded(&mut self) {
        if self.recorded.take().is_some() {
            self.run = Run::of(&self.story.scenario, None);
            self.play.playing = false;
            self.play.zoom = 0;
            self.play.head = Playhead::default();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Playhead;
    use crate::state::recorded::fault_line;
    use crate::state::testing::{apply, paused};
    use crate::state::{Action, Edit, Message, Play, Switch};
    use fencepost_sim::Actor;

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

    /// The checker's own small campaign: client-1 paused past its lease, refused at 1.6 s.
    const STORY: &str = include_str!("../../../crates/fencepost-cli/tests/histories/clean.jsonl");

    fn opened() -> State {
        let run = RecordedRun::read(STORY).unwrap();
        apply(
            paused(),
            [Action::Load(Load::Recorded(
                Rc::new(run),
                "clean.jsonl".into(),
            ))],
        )
    }

    #[test]
    fn a_recorded_run_opens_on_its_first_refused_write() {
        let s = opened();
        let r = s.recorded.as_ref().unwrap();
        assert_eq!(
            (r.name.as_str(), r.lock.as_str(), r.locks),
            ("clean.jsonl", "L", 1)
        );
        assert_eq!(r.refusal.as_ref().map(|r| r.seq), Some(9));
        assert_eq!(s.play.head, Playhead { t: 1_600, upto: 10 });
        assert_eq!(s.play.zoom, 0);
        assert!(r.notes.is_empty());
        let labels: Vec<&str> = s
            .run
            .timeline
            .lanes
            .iter()
            .map(|l| l.label.as_str())
            .collect();
        assert_eq!(labels, ["lock L", "client-1", "client-2", "stores"]);
        assert_eq!(s.run.timeline.lanes[1].actor, Actor::Worker(0));
        // Laid out as a simulated run is: the refusal's mark, both bands, the pause, no zombie
        // stretch but client-1's while paused past its lease.
        let tl = &s.run.timeline;
        let mark = tl.badges.iter().find(|b| b.seq == 9).unwrap();
        assert_eq!(
            (mark.actor, mark.text.as_str()),
            (Actor::Storage, "✗ 1 < 2")
        );
        let bands: Vec<_> = tl
            .safe_bands
            .iter()
            .map(|b| (b.worker, b.token, b.from))
            .collect();
        assert_eq!(bands, [(0, 1, 100), (1, 2, 1_200)]);
        assert_eq!(
            tl.pauses
                .iter()
                .map(|p| (p.worker, p.from, p.to))
                .collect::<Vec<_>>(),
            [(0, 300, 1_500)]
        );
        let zombies: Vec<_> = tl
            .zombies
            .iter()
            .map(|z| (z.worker, z.token, z.from, z.to))
            .collect();
        assert_eq!(zombies, [(0, 1, 1_200, 1_500)]);
        assert_eq!(
            fault_line(&r.faults[0]),
            "pause-client client-1, 0.3 s to 1.5 s"
        );
    }

    #[test]
    fn playback_moves_on_the_recorded_run_and_an_edit_leaves_it() {
        let s = apply(opened(), [Action::Play(Play::Next)]);
        assert!(s.recorded.is_some());
        assert_eq!(s.play.head, Playhead { t: 2_000, upto: 11 });
        let s = apply(s, [Action::Edit(Edit::Toggle(Switch::Fencing))]);
        assert!(s.recorded.is_none());
        assert_eq!(s.run.trace.scenario, "paused-worker");
        let left = apply(opened(), [Action::Load(Load::LeaveRecorded)]);
        assert_eq!(
            (left.recorded.is_none(), left.play.head),
            (true, Playhead::default())
        );
        assert_eq!(left.run, paused().run);
    }
}
