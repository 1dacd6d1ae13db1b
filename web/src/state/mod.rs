//! The app's state and its reducer.
//!
//! The state is made of parts ([`State`]): the story being edited ([`Story`]: scenario, where it
//! came from, the lane clicks Undo can take back), its run (derived, never edited), playback
//! ([`Playback`]), the tour ([`Tour`]) and messages ([`Messages`]). Actions come in the same
//! groups ([`Action`]), each with its own `apply`: playback and messages reduce their own part;
//! edits, loads and the tour's steps change the story and re-run it. The reducer is pure: side
//! effects (timers, the URL, the clipboard, files) live in the components.
//!
//! Inside this module the arrows point one way: this file (the actions and the dispatch) uses
//! the groups ([`edit`], [`load`], [`tour`], [`recorded`]), which use [`page`] (the assembled state and the
//! steps they share), which uses the parts ([`story`], [`playback`], [`messages`], [`run`]).

pub mod edit;
pub mod load;
pub mod messages;
pub mod page;
pub mod playback;
pub mod recorded;
pub mod run;
pub mod story;
#[cfg(test)]
pub(crate) mod testing;
pub mod tour;

use std::rc::Rc;

use yew::Reducible;

pub use self::edit::{Edit, LATENCY_RANGE, LOCK_DELAY_MS, PAUSE_RANGE, Switch, TTL_RANGE};
pub use self::load::Load;
pub use self::messages::{Field, Message, Messages};
pub use self::page::{State, chapter_scenario, tour_story};
pub use self::playback::{Play, Playback, SPEED_DEFAULT, SPEED_MAX, SPEED_MIN, ZOOM_MAX};
pub use self::recorded::{Recorded, fault_line};
pub use self::run::{MAX_EVENTS, Run};
pub use self::story::{DEFAULT_PAUSE_MS, LaneClick, LaneClicks, Origin, Story};
pub use self::tour::TourStep;
pub use crate::tour::Tour;

/// Everything that can happen, by what it changes.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// Playback: the clock, stepping, seeking, speed, zoom.
    Play(Play),
    /// A change to the story.
    Edit(Edit),
    /// Another story.
    Load(Load),
    /// A step of the tour.
    Tour(TourStep),
    /// A message shown or dismissed.
    Message(Message),
    /// Compare mode on or off.
    ToggleCompare,
    /// Keyboard help.
    ToggleHelp,
}

impl State {
    /// Applies one action.
    pub fn apply(&mut self, action: Action) {
        // A recorded run is shown until the story is changed, another loaded or the tour taken.
        let stays = matches!(
            &action,
            Action::Load(Load::Recorded(..))
                | Action::Play(_)
                | Action::Message(_)
                | Action::ToggleHelp
        );
        if !stays {
            self.leave_recorded();
        }
        match action {
            Action::Play(a) => {
                let end = self.end();
                self.play.apply(a, &self.run.trace, end);
            }
            Action::Edit(a) => self.apply_edit(a),
            Action::Load(a) => self.apply_load(a),
            Action::Tour(a) => self.apply_tour(a),
            Action::Message(a) => {
                // The lane clicks are undone from the notice that offers it: a message that
                // replaces the notice takes the offer with it. Dismissing closes the help too.
                if a.replaces_notice() {
                    self.story.clicks.clear();
                }
                if a == Message::Dismiss {
                    self.help = false;
                }
                self.messages.apply(a);
            }
            Action::ToggleCompare => self.toggle_compare(),
            Action::ToggleHelp => self.help = !self.help,
        }
    }
}

impl Reducible for State {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        // The playback clock ticks while nothing plays too: no copy to find that out.
        if matches!(action, Action::Play(Play::Tick(_))) && !self.play.playing {
            return self;
        }
        let mut next = (*self).clone();
        next.apply(action);
        if next == *self { self } else { Rc::new(next) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::testing::{apply, paused};
    use fencepost_sim::preset;

    #[test]
    fn compare_runs_fencing_off_and_on() {
        let s = apply(paused(), [Action::ToggleCompare, Action::Play(Play::End)]);
        let [off, on] = s.compare.as_ref().unwrap();
        assert!(!off.trace.verdict.ok);
        assert!(on.trace.verdict.ok);
        // Both play to the later end: without fencing, A learns its write went through at 46.15 s.
        assert_eq!(s.play.head.t, 46_150);
        let s = apply(s, [Action::ToggleCompare]);
        assert!(s.compare.is_none());
    }

    #[test]
    fn reduce_keeps_the_same_state_when_nothing_changes() {
        let s = Rc::new(paused());
        let same = s.clone().reduce(Action::Play(Play::Tick(16.0)));
        assert!(Rc::ptr_eq(&s, &same));
        let moved = s.clone().reduce(Action::Play(Play::Next));
        assert!(!Rc::ptr_eq(&s, &moved));
    }

    #[test]
    fn the_run_is_laid_out_in_the_style_of_the_scenarios_tokens() {
        let s = State::new(preset("uuid-token").unwrap().scenario());
        let ids = crate::model::TokenStyle::UniqueId;
        assert_eq!(s.run.timeline.tokens, ids);
        let grant = s.run.timeline.badges.iter().find(|b| b.seq == 2).unwrap();
        assert_eq!(grant.text, format!("{} → A", ids.show(33)));
        let s = apply(s, [Action::Edit(Edit::Toggle(Switch::UuidTokens))]);
        assert_eq!(s.run.timeline.tokens, crate::model::TokenStyle::Number);
        let grant = s.run.timeline.badges.iter().find(|b| b.seq == 2).unwrap();
        assert_eq!(grant.text, "33 → A");
    }

    #[test]
    fn long_runs_are_cut() {
        let mut sc = preset("paused-worker").unwrap().scenario();
        sc.workers[1].job.writes = 1_000;
        let s = State::new(sc);
        assert!(s.trace().truncated);
        // The step that reaches the limit keeps every event it makes: the storage taking B's
        // write #995 makes three (events 4998 to 5000), so the cut is one event past the limit.
        assert_eq!(s.trace().events.len(), MAX_EVENTS + 1);
        assert_eq!(s.trace().events[MAX_EVENTS - 2].t_ms, 1_124_600);
        assert_eq!(s.trace().events[MAX_EVENTS].t_ms, 1_124_600);
    }

    #[test]
    fn a_frame_of_playback_shares_the_clicks_of_the_frame_before() {
        use yew::Reducible;
        let s = Rc::new(apply(
            paused(),
            [
                Action::Edit(Edit::LaneClick {
                    worker: 1,
                    at: 5_000,
                }),
                Action::Play(Play::Toggle),
            ],
        ));
        let next = s.clone().reduce(Action::Play(Play::Tick(16.0)));
        assert!(!Rc::ptr_eq(&s, &next));
        assert_eq!((next.play.head.t, next.story.clicks.len()), (160, 1));
        assert!(s.story.clicks.shares(&next.story.clicks));
    }
}
