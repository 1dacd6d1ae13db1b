//! The page's state, assembled from its parts, and the steps the action groups share: re-running
//! a changed scenario, moving the playhead, opening a tour chapter, compare mode.
//!
//! The scenario is the one thing the user edits; the trace and its layout are derived from it by
//! running the simulator (never edited). Everything else is view state.

use std::rc::Rc;

use fencepost_sim::{PRESETS, Scenario, Trace, preset};

use super::messages::Messages;
use super::playback::Playback;
use super::recorded::Recorded;
use super::run::Run;
use super::story::{DEFAULT_PAUSE_MS, Origin, Story, first_pause_length};
use crate::model::{Playhead, end_time};
use crate::tour::{CHAPTERS, TOUR_PRESET, Tour};

/// Everything the page shows, or can derive.
#[derive(Clone, Debug, PartialEq)]
pub struct State {
    /// The story being edited.
    pub story: Story,
    /// Its run.
    pub run: Run,
    /// Compare mode: the same scenario with fencing off, then on.
    pub compare: Option<[Run; 2]>,
    /// Playback of the run.
    pub play: Playback,
    /// Where the learner is in the tour.
    pub tour: Tour,
    /// Errors, notices, a link to copy.
    pub messages: Messages,
    /// Keyboard help open.
    pub help: bool,
    /// Embedded in another page: timeline and play controls only.
    pub embed: bool,
    /// A recorded run shown in place of the story's run.
    pub recorded: Option<Rc<Recorded>>,
}

impl State {
    /// The state for `scenario` (validated by the caller or by [`Scenario::from_json`]).
    pub fn new(scenario: Scenario) -> State {
        let run = Run::of(&scenario, None);
        State {
            story: Story::new(scenario),
            run,
            compare: None,
            play: Playback::default(),
            tour: Tour::default(),
            messages: Messages::default(),
            help: false,
            embed: false,
            recorded: None,
        }
    }

    /// The first thing a visitor sees: the tour, on its first chapter.
    pub fn with_tour() -> State {
        let mut s = State::new(tour_scenario(true));
        s.go_to_chapter(0);
        s
    }

    /// The trace being narrated.
    pub fn trace(&self) -> &Trace {
        &self.run.trace
    }

    /// Where playback ends.
    pub fn end(&self) -> u64 {
        let main = end_time(&self.run.trace);
        match &self.compare {
            Some(pair) => pair.iter().map(|r| end_time(&r.trace)).fold(main, u64::max),
            None => main,
        }
    }

    /// The name of the preset the scenario is, if it is one unchanged.
    pub fn preset_name(&self) -> Option<&'static str> {
        let scenario = &self.story.scenario;
        PRESETS
            .iter()
            .find(|p| p.name == scenario.name && p.scenario() == *scenario)
            .map(|p| p.name)
    }

    /// The playhead to time `t` (at most the end).
    pub(super) fn seek(&mut self, t: u64) {
        let end = self.end();
        self.play.seek(&self.run.trace, end, t);
    }

    /// Runs `scenario` in place of the story's (after validating it); keeps the playhead's time
    /// unless `reset`. False, with the error shown, if it is refused; the caller then leaves
    /// the story as it is.
    pub(super) fn rerun(&mut self, scenario: &Scenario, reset: bool) -> bool {
        if let Err(e) = scenario.validate() {
            self.messages.error = Some(format!("That change was not applied: {e}"));
            return false;
        }
        self.run = Run::of(scenario, None);
        if self.compare.is_some() {
            self.compare = Some(Run::pair(scenario));
        }
        self.messages.error = None;
        self.messages.field_error = None;
        // The lane click's notice describes the change it offers to undo: once the scenario
        // changes again, both are out of date.
        if self.story.clicks.clear() {
            self.messages.notice = None;
        }
        if reset {
            self.play.playing = false;
            self.play.head = Playhead::default();
        } else {
            self.seek(self.play.head.t);
        }
        true
    }

    /// Replaces the story's scenario (see [`State::rerun`]); says whether it was taken.
    pub(super) fn set_scenario(&mut self, scenario: Scenario, reset: bool) -> bool {
        let taken = self.rerun(&scenario, reset);
        if taken {
            self.story.scenario = scenario;
        }
        taken
    }

    /// Opens tour chapter `i` (nothing if there is none).
    pub(super) fn go_to_chapter(&mut self, i: usize) {
        let Some(ch) = CHAPTERS.get(i) else { return };
        // The chapters narrate one timeline, however the page got here (the button, an Undo, the
        // browser's Back to a `#tour=` address).
        self.compare = None;
        // Each chapter narrates its own story ("30 seconds", token 33): an edited copy of it
        // would show another trace than the text describes.
        let story = chapter_scenario(ch.preset, ch.fencing);
        if self.story.scenario != story {
            self.story.pause_ms = first_pause_length(&story).unwrap_or(DEFAULT_PAUSE_MS);
            self.set_scenario(story, false);
        }
        // The story picker says where the story came from, not that the learner edited it.
        self.story.origin = Some(Origin::Tour);
        self.tour.chapter = Some(i);
        self.play.playing = false;
        self.play.head = ch.playhead(&self.run.trace);
    }

    /// Compare mode on or off; it leaves the tour, whose chapters narrate one timeline.
    pub(super) fn toggle_compare(&mut self) {
        self.tour.chapter = None;
        self.compare = match self.compare {
            Some(_) => None,
            None => Some(Run::pair(&self.story.scenario)),
        };
        self.seek(self.play.head.t);
    }
}

/// The tour's story as its preset has it; also what a visitor sees without a link.
pub fn tour_story() -> Scenario {
    preset(TOUR_PRESET)
        .map(|p| p.scenario())
        .unwrap_or_else(|| {
            // Unreachable: the tour preset exists (tested); fall back to the first preset.
            PRESETS[0].scenario()
        })
}

/// The tour's first story, fencing as a chapter has it.
pub fn tour_scenario(fencing: bool) -> Scenario {
    chapter_scenario(TOUR_PRESET, fencing)
}

/// A chapter's story: preset `name` (the tour's first if there is none such), fencing as the
/// chapter has it.
pub fn chapter_scenario(name: &str, fencing: bool) -> Scenario {
    let mut s = preset(name).map_or_else(tour_story, |p| p.scenario());
    s.protections.fencing = fencing;
    s
}
