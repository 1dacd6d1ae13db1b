//! The tour's actions: open it, go to a chapter, leave it. The chapters themselves are
//! [`crate::tour`]'s; opening one is a step the page shares with Undo (see
//! [`super::page::State`]).

use super::page::State;
use crate::tour::CHAPTERS;

/// Moving through the tour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TourStep {
    /// Open the tour at its first chapter.
    Start,
    /// Go to a chapter.
    Go(usize),
    /// Leave the tour.
    Leave,
}

impl State {
    /// Applies one step of the tour.
    pub(super) fn apply_tour(&mut self, step: TourStep) {
        match step {
            TourStep::Start => {
                self.help = false;
                self.go_to_chapter(0);
            }
            TourStep::Go(i) => {
                if i < CHAPTERS.len() {
                    self.go_to_chapter(i);
                }
            }
            TourStep::Leave => self.tour.chapter = None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::page::tour_scenario;
    use crate::state::testing::{apply, paused};
    use crate::state::{Action, Edit, Load};
    use crate::tour::TOUR_PRESET;
    use fencepost_sim::preset;

    #[test]
    fn the_tour_walks_its_chapters_and_one_click_leaves_it() {
        let s = State::with_tour();
        assert_eq!(s.tour.chapter, Some(0));
        assert_eq!(s.play.head.t, 100);
        let mut s = s;
        for (i, ch) in CHAPTERS.iter().enumerate().skip(1) {
            s.apply(Action::Tour(TourStep::Go(i)));
            assert_eq!(s.tour.chapter, Some(i));
            // Each chapter shows its own story, fencing as it says.
            assert_eq!(s.story.scenario.name, ch.preset);
            assert_eq!(s.story.scenario.protections.fencing, ch.fencing);
            // Only the fencing-off chapter breaks an invariant.
            assert_eq!(s.trace().verdict.ok, ch.fencing, "chapter {i}");
        }
        // The last chapter: a pause past safe-until, refused by the fence.
        assert_eq!(s.story.scenario.name, "renewal-long-pause");
        assert!(s.trace().verdict.ok);
        assert_eq!(s.preset_name(), Some("renewal-long-pause"));
        s.apply(Action::Tour(TourStep::Go(5)));
        assert!(s.story.scenario.protections.fencing);
        s.apply(Action::Tour(TourStep::Go(99)));
        assert_eq!(s.tour.chapter, Some(5));
        s.apply(Action::Tour(TourStep::Leave));
        assert_eq!(s.tour.chapter, None);
        // Picking another story leaves the tour.
        let mut t = State::with_tour();
        t.apply(Action::Load(Load::Preset("gc-pause".into())));
        assert_eq!(t.tour.chapter, None);
        // Starting the tour from another preset brings the story back.
        let s = apply(
            State::new(preset("gc-pause").unwrap().scenario()),
            [Action::Tour(TourStep::Start)],
        );
        assert_eq!(s.story.scenario.name, TOUR_PRESET);
        assert_eq!(s.tour.chapter, Some(0));
    }

    #[test]
    fn the_tour_tells_its_own_story_even_after_the_story_was_edited() {
        let story = State::with_tour();
        let edited = apply(
            paused(),
            [
                Action::Edit(Edit::SetTtl(10_000)),
                Action::Edit(Edit::SetPauseLength(20_000)),
                Action::Edit(Edit::InjectPause {
                    worker: 1,
                    at: 5_000,
                }),
                Action::Tour(TourStep::Start),
            ],
        );
        assert_eq!(edited.tour.chapter, Some(0));
        assert_eq!(edited.story.scenario, story.story.scenario);
        assert_eq!(edited.preset_name(), Some(TOUR_PRESET));
        assert_eq!(edited.trace(), story.trace());
        assert_eq!(edited.play.head, story.play.head);
        assert_eq!(edited.story.pause_ms, story.story.pause_ms);
        // An edit during the tour leaves it (the card would no longer match the timeline);
        // going to a chapter again brings the story back.
        let s = apply(story, [Action::Edit(Edit::SetTtl(10_000))]);
        assert_eq!(s.tour.chapter, None);
        assert!(
            s.messages
                .notice
                .as_deref()
                .unwrap()
                .starts_with("You left the tour")
        );
        let s = apply(s, [Action::Tour(TourStep::Go(1))]);
        assert_eq!(s.story.scenario, tour_scenario(CHAPTERS[1].fencing));
        assert_eq!(s.tour.chapter, Some(1));
    }

    #[test]
    fn the_tour_never_shares_the_page_with_compare_mode() {
        // Into the tour by an Undo, with compare switched on after the click.
        let touring = apply(State::with_tour(), [Action::Tour(TourStep::Go(5))]);
        let s = apply(
            touring,
            [
                Action::Edit(Edit::LaneClick {
                    worker: 1,
                    at: 21_200,
                }),
                Action::ToggleCompare,
                Action::Edit(Edit::Undo),
            ],
        );
        assert_eq!((s.tour.chapter, s.compare.is_some()), (Some(5), false));
        // And by an address (the browser's Back to `#tour=3`).
        let s = apply(
            paused(),
            [Action::ToggleCompare, Action::Tour(TourStep::Go(2))],
        );
        assert_eq!((s.tour.chapter, s.compare.is_some()), (Some(2), false));
    }
}
