//! What Undo takes back, and what the browser's history holds.
//!
//! [`LaneClicks`]: the lane clicks Undo can take back, one at a time, each with the pause it added
//! and the page as it was before it (the tour chapter it may have left included). [`AddressBar`]:
//! which history entry each change of the page gets (a new one per story, the same one for an
//! edit, a step back when an Undo returns to the story before). [`landing`] and
//! [`follow_address`]: what the page shows for the address it is opened at, and what it does when
//! the address changes. Plain data, tested natively: the reducer ([`crate::state`]) keeps the
//! clicks, the app component asks the rest what to do and does it.

use std::rc::Rc;

use fencepost_sim::{Fault, Scenario};

use crate::components::panels::sentence_case;
use crate::share::{decode_fragment, encode_fragment, tour_chapter, tour_fragment};
use crate::state::{Action, Origin, State, tour_story};

/// Lane clicks that Undo can take back, one at a time.
pub const MAX_UNDO: usize = 20;

/// The page as it was before a lane click: what Undo puts back.
#[derive(Clone, Debug, PartialEq)]
pub struct Before {
    /// The scenario.
    pub scenario: Scenario,
    /// The tour chapter it was on, if the click left the tour.
    pub tour: Option<usize>,
    /// Where the scenario came from.
    pub origin: Option<Origin>,
    /// The length of injected pauses.
    pub pause_ms: u64,
    /// The story counter (a click that leaves the tour starts a story of its own).
    pub story: u32,
}

/// One lane click: the pause it added, and the page before it.
#[derive(Clone, Debug, PartialEq)]
pub struct LaneClick {
    /// The index of the worker whose lane was clicked.
    pub worker: usize,
    /// The pause it added (the scenario's last fault while the click can be undone).
    pub pause: Fault,
    /// What Undo puts back.
    pub before: Before,
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

/// The lane clicks Undo can take back, the latest last.
///
/// Shared between the states of a page rather than copied: every frame of playback makes a new
/// state, and copying the scenarios kept here on each one would cost more than the frame.
#[derive(Clone, Debug, Default)]
pub struct LaneClicks(Rc<Vec<LaneClick>>);

impl PartialEq for LaneClicks {
    fn eq(&self, other: &LaneClicks) -> bool {
        Rc::ptr_eq(&self.0, &other.0) || self.0 == other.0
    }
}

impl LaneClicks {
    /// No click to take back.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// How many clicks Undo can take back.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// The latest click.
    pub fn last(&self) -> Option<&LaneClick> {
        self.0.last()
    }

    /// Records a click; past [`MAX_UNDO`], the oldest can no longer be taken back.
    pub fn push(&mut self, click: LaneClick) {
        let stack = Rc::make_mut(&mut self.0);
        if stack.len() >= MAX_UNDO {
            stack.remove(0);
        }
        stack.push(click);
    }

    /// Takes the latest click back.
    pub fn pop(&mut self) -> Option<LaneClick> {
        if self.0.is_empty() {
            return None;
        }
        Rc::make_mut(&mut self.0).pop()
    }

    /// Forgets every click; says whether there was one.
    pub fn clear(&mut self) -> bool {
        !std::mem::take(self).is_empty()
    }

    /// Where the latest click's pause is (worker index, time): the timeline marks it until the
    /// playhead reaches it.
    pub fn pending(&self) -> Option<(usize, u64)> {
        let click = self.last()?;
        Some((click.worker, click.at()?))
    }
}

/// What the address bar does after a change of the page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Entry {
    /// Nothing: it already says this, or it holds a link that failed to load, which stays
    /// there for the learner to fix until they change something.
    Keep,
    /// The current entry gets this fragment and note (an edit, a tour chapter).
    Replace {
        /// The fragment, without `#`.
        fragment: String,
        /// Where its story came from ([`Origin::key`]).
        note: &'static str,
    },
    /// A new entry, so that Back returns to the one before (another story).
    Push {
        /// The fragment, without `#`.
        fragment: String,
        /// Where its story came from ([`Origin::key`]).
        note: &'static str,
    },
    /// Back one entry: an Undo put back the story of the entry before the last one pushed.
    Back,
}

/// The page's side of the browser's history: which story the current entry shows, and what
/// the last entry this page pushed replaced.
#[derive(Clone, Debug, PartialEq)]
pub struct AddressBar {
    /// The story counter the current entry shows.
    story: u32,
    /// The story counter before the last entry this page pushed.
    before_push: Option<u32>,
    /// A scenario from a link that failed to load, while the page still shows it.
    failed_link: Option<Scenario>,
}

impl AddressBar {
    /// The address bar of a page that starts with `state`, the address holding `fragment`.
    pub fn new(state: &State, fragment: &str) -> AddressBar {
        let failed = state.error.is_some() && !fragment.trim_start_matches('#').is_empty();
        AddressBar {
            story: state.story,
            before_push: None,
            failed_link: failed.then(|| state.scenario.clone()),
        }
    }

    /// What to do after the page changed to show `scenario` (story counter `story`, from
    /// `origin`, on tour chapter `tour`), the address holding `fragment`.
    pub fn follow(
        &mut self,
        scenario: &Scenario,
        tour: Option<usize>,
        story: u32,
        origin: Option<Origin>,
        fragment: &str,
    ) -> Entry {
        // Back and Forward read where the entry's story came from in its note; a story the
        // learner changed says so, not that it came from the link.
        let note = origin.map_or(Origin::Edited.key(), Origin::key);
        let last = std::mem::replace(&mut self.story, story);
        let new_story = last != story;
        if new_story && self.before_push == Some(story) {
            self.before_push = None;
            return Entry::Back;
        }
        let current = fragment.trim_start_matches('#');
        // During the tour the address names the chapter, so that a reload stays there.
        if let Some(ch) = tour {
            let fragment = tour_fragment(ch);
            return if current == fragment {
                Entry::Keep
            } else {
                Entry::Replace { fragment, note }
            };
        }
        if self.failed_link.as_ref() == Some(scenario) {
            return Entry::Keep;
        }
        self.failed_link = None;
        let fragment = encode_fragment(scenario);
        if current == fragment {
            Entry::Keep
        } else if new_story {
            self.before_push = Some(last);
            Entry::Push { fragment, note }
        } else {
            Entry::Replace { fragment, note }
        }
    }
}

/// The page a visitor lands on, from the address's `fragment` and the `note` its history entry
/// keeps: the scenario in the link, else the tour (unless `tour_seen`), else the tour's story. A
/// broken link is reported, not fatal. An `embed` shows no tour card.
pub fn landing(fragment: &str, note: Option<&str>, embed: bool, tour_seen: bool) -> State {
    // A reload in the middle of the tour comes back to its chapter; an embed of a chapter shows
    // its story at its moment (without the card: an embed is the timeline and its controls).
    if let Some(ch) = tour_chapter(fragment) {
        let mut state = State::with_tour();
        state.apply(Action::TourGo(ch));
        state.embed = embed;
        return state;
    }
    let mut state = match decode_fragment(fragment) {
        Ok(Some(s)) => {
            let mut state = State::new(s);
            // A preset link names its preset; any other is "from the link", unless this
            // history entry says where its story came from (a reload).
            if state.preset_name().is_none() {
                state.origin = Some(note.and_then(Origin::from_key).unwrap_or(Origin::Address));
            }
            state
        }
        Ok(None) if !embed && !tour_seen => State::with_tour(),
        Ok(None) => State::new(tour_story()),
        Err(e) => {
            let mut s = State::new(tour_story());
            s.error = Some(format!(
                "{} — showing the {} story instead.",
                sentence_case(&e),
                crate::tour::TOUR_PRESET
            ));
            s
        }
    };
    state.embed = embed;
    if embed {
        state.tour = None;
    }
    state
}

/// What the page does when its address changes to `fragment` (Back, Forward, a link pasted into
/// the address bar), the entry keeping `note`: go to the chapter or the scenario it names, or say
/// that it names neither. `None`: it names nothing.
pub fn follow_address(fragment: &str, note: Option<&str>) -> Option<Action> {
    if let Some(ch) = tour_chapter(fragment) {
        return Some(Action::TourGo(ch));
    }
    match decode_fragment(fragment) {
        Ok(Some(s)) => {
            let origin = note.and_then(Origin::from_key).unwrap_or(Origin::Address);
            Some(Action::FollowAddress(Box::new(s), origin))
        }
        Ok(None) => None,
        // The link stays in the address bar for the learner to fix or copy; the message says
        // that the page did not follow it.
        Err(e) => Some(Action::Error(format!(
            "{} — still showing the scenario from before.",
            sentence_case(&e)
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::Switch;
    use fencepost_sim::preset;

    fn paused() -> State {
        State::new(preset("paused-worker").unwrap().scenario())
    }

    fn click(worker: usize, at: u64) -> Action {
        Action::LaneClick { worker, at }
    }

    #[test]
    fn a_visit_lands_where_its_address_says() {
        // A chapter of the tour (as people count them, from 1).
        let s = landing("#tour=3", None, false, false);
        assert_eq!(
            (s.tour, s.origin, s.embed),
            (Some(2), Some(Origin::Tour), false)
        );
        assert_eq!(s.head, crate::tour::CHAPTERS[2].playhead(s.trace()));
        let s = landing("#tour=3", None, true, true);
        assert_eq!((s.tour, s.embed), (Some(2), true));
        // No address: the tour the first time, its story after.
        let s = landing("", None, false, false);
        assert_eq!((s.tour, s.scenario.clone()), (Some(0), tour_story()));
        let s = landing("", None, false, true);
        assert_eq!((s.tour, s.scenario.clone()), (None, tour_story()));
        let s = landing("", None, true, false);
        assert_eq!((s.tour, s.embed), (None, true));
        // A shared scenario, from where its entry says.
        let mut shared = tour_story();
        shared.seed = 5;
        let link = format!("#{}", encode_fragment(&shared));
        let s = landing(&link, None, false, false);
        assert_eq!(
            (s.scenario.clone(), s.origin, s.tour),
            (shared.clone(), Some(Origin::Address), None)
        );
        let s = landing(&link, Some("explore"), false, false);
        assert_eq!(s.origin, Some(Origin::Explore));
        let s = landing("#preset=gc-pause", Some("explore"), false, false);
        assert_eq!((s.preset_name(), s.origin), (Some("gc-pause"), None));
        // A broken one says so and shows the tour's story.
        let s = landing("#s=!!", None, false, false);
        assert_eq!((s.tour, s.scenario.clone()), (None, tour_story()));
        assert_eq!(
            s.error.as_deref(),
            Some(
                "The link's scenario is garbled (not valid base64url) — showing the \
                 paused-worker story instead."
            )
        );
    }

    #[test]
    fn a_changed_address_becomes_the_action_the_page_takes() {
        assert_eq!(follow_address("#tour=7", None), Some(Action::TourGo(6)));
        assert_eq!(follow_address("#", None), None);
        assert_eq!(follow_address("", Some("tour")), None);
        let mut shared = tour_story();
        shared.seed = 5;
        let link = format!("#{}", encode_fragment(&shared));
        assert_eq!(
            follow_address(&link, Some("import")),
            Some(Action::FollowAddress(
                Box::new(shared.clone()),
                Origin::Import
            ))
        );
        assert_eq!(
            follow_address(&link, Some("nonsense")),
            Some(Action::FollowAddress(Box::new(shared), Origin::Address))
        );
        assert_eq!(
            follow_address("#tour=8", None),
            Some(Action::Error(
                "The tour has no chapter `8`: its chapters are #tour=1 to #tour=7 — still \
                 showing the scenario from before."
                    .into()
            ))
        );
    }

    #[test]
    fn a_lane_click_records_the_pause_it_added_and_the_chapter_it_left() {
        let mut s = apply_all(State::with_tour(), [Action::TourGo(5)]);
        let chapter = s.scenario.clone();
        s.apply(click(1, 21_200));
        assert_eq!(s.undo.len(), 1);
        let c = s.undo.last().unwrap();
        assert_eq!(c.worker, 1);
        assert_eq!(
            c.pause,
            Fault::Pause {
                worker: "B".into(),
                at: 21_200,
                for_ms: 45_000
            }
        );
        assert_eq!(s.scenario.faults.last(), Some(&c.pause));
        assert_eq!(c.before.tour, Some(5));
        assert_eq!(c.before.scenario, chapter);
        assert_eq!(c.before.origin, Some(Origin::Tour));
        assert_eq!(s.undo.pending(), Some((1, 21_200)));
        // A second click outside the tour remembers that it left none.
        s.apply(click(0, 2_000));
        let c = s.undo.last().unwrap();
        assert_eq!((c.worker, c.at(), c.before.tour), (0, Some(2_000), None));
        assert_eq!(s.undo.pending(), Some((0, 2_000)));
        // Undo takes back the second, then the first, which returns to chapter 5 (shown as 6).
        s.apply(Action::Undo);
        assert_eq!((s.undo.len(), s.undo.pending()), (1, Some((1, 21_200))));
        assert_eq!(s.tour, None);
        s.apply(Action::Undo);
        assert_eq!((s.tour, s.undo.pending()), (Some(5), None));
        assert_eq!(s.scenario, chapter);
    }

    #[test]
    fn past_the_limit_the_oldest_click_is_forgotten() {
        let mut s = paused();
        for i in 0..=MAX_UNDO as u64 {
            s.apply(click(1, 1_000 + i * 100));
        }
        assert_eq!(s.undo.len(), MAX_UNDO);
        // The oldest left is the second click: its page had the first click's pause.
        let mut clicks = s.undo.clone();
        let mut oldest = None;
        while let Some(c) = clicks.pop() {
            oldest = Some(c);
        }
        let oldest = oldest.unwrap();
        assert_eq!(oldest.at(), Some(1_100));
        assert_eq!(oldest.before.scenario.faults.len(), 2);
        assert!(clicks.is_empty());
        // Popping a copy left the page's own clicks alone.
        assert_eq!(s.undo.len(), MAX_UNDO);
    }

    #[test]
    fn copies_of_the_clicks_share_them_until_one_changes() {
        let s = apply_all(paused(), [click(1, 5_000)]);
        let copy = s.clone();
        assert!(Rc::ptr_eq(&s.undo.0, &copy.undo.0));
        let mut other = copy.undo.clone();
        assert!(other.clear());
        assert!(!other.clear());
        assert_eq!(copy.undo.len(), 1);
        assert_ne!(other, copy.undo);
    }

    #[test]
    fn a_frame_of_playback_shares_the_clicks_of_the_frame_before() {
        use yew::Reducible;
        let s = Rc::new(apply_all(paused(), [click(1, 5_000), Action::TogglePlay]));
        let next = s.clone().reduce(Action::Tick(16.0));
        assert!(!Rc::ptr_eq(&s, &next));
        assert_eq!((next.head.t, next.undo.len()), (160, 1));
        assert!(Rc::ptr_eq(&s.undo.0, &next.undo.0));
    }

    fn apply_all(mut s: State, actions: impl IntoIterator<Item = Action>) -> State {
        for a in actions {
            s.apply(a);
        }
        s
    }

    /// The page's address bar: the fragment it holds after doing what each entry says.
    struct Browser {
        bar: AddressBar,
        fragment: String,
    }

    impl Browser {
        fn new(s: &State, fragment: &str) -> Browser {
            Browser {
                bar: AddressBar::new(s, fragment),
                fragment: fragment.into(),
            }
        }

        fn show(&mut self, s: &State) -> Entry {
            let entry = self
                .bar
                .follow(&s.scenario, s.tour, s.story, s.origin, &self.fragment);
            if let Entry::Replace { fragment, .. } | Entry::Push { fragment, .. } = &entry {
                self.fragment = fragment.clone();
            }
            entry
        }
    }

    #[test]
    fn stories_get_entries_edits_replace_them_and_undo_steps_back() {
        let mut s = paused();
        let mut b = Browser::new(&s, "");
        let push = |s: &State, note| Entry::Push {
            fragment: encode_fragment(&s.scenario),
            note,
        };
        let replace = |s: &State, note| Entry::Replace {
            fragment: encode_fragment(&s.scenario),
            note,
        };
        assert_eq!(b.show(&s), replace(&s, "edited"));
        assert_eq!(b.show(&s), Entry::Keep);
        s.apply(Action::LoadPreset("gc-pause".into()));
        assert_eq!(b.show(&s), push(&s, "edited"));
        s.apply(Action::Toggle(Switch::Fencing));
        assert_eq!(b.show(&s), replace(&s, "edited"));
        let mut explored = s.scenario.clone();
        explored.seed = 7;
        s.apply(Action::LoadScenario(Box::new(explored), Origin::Explore));
        assert_eq!(b.show(&s), push(&s, "explore"));

        // The tour: each chapter names itself in the address, in the same entry.
        s.apply(Action::TourGo(5));
        assert_eq!(
            b.show(&s),
            Entry::Replace {
                fragment: "tour=6".into(),
                note: "tour"
            }
        );
        // A lane click leaves the tour in an entry of its own; its Undo goes back to the
        // chapter's entry instead of adding one more.
        s.apply(click(1, 21_200));
        assert_eq!(s.tour, None);
        assert_eq!(b.show(&s), push(&s, "edited"));
        s.apply(Action::Undo);
        assert_eq!(s.tour, Some(5));
        assert_eq!(b.show(&s), Entry::Back);
        // The browser went back to `#tour=6`; the page shows that chapter: nothing more to do.
        b.fragment = "#tour=6".into();
        s.apply(Action::TourGo(5));
        assert_eq!(b.show(&s), Entry::Keep);
        // Out of the tour, a click and its Undo stay in one entry, which says where its
        // story came from each time.
        s.apply(Action::TourLeave);
        assert_eq!(b.show(&s), replace(&s, "tour"));
        let left = b.fragment.clone();
        s.apply(click(0, 2_000));
        assert_eq!(b.show(&s), replace(&s, "edited"));
        s.apply(Action::Undo);
        assert_eq!(b.show(&s), replace(&s, "tour"));
        assert_eq!(b.fragment, left);
    }

    #[test]
    fn a_link_that_failed_to_load_stays_until_the_learner_changes_something() {
        let mut s = paused();
        s.apply(Action::Error("The link is not a scenario.".into()));
        let mut b = Browser::new(&s, "#s=broken");
        assert_eq!(b.show(&s), Entry::Keep);
        s.apply(Action::Next);
        assert_eq!(b.show(&s), Entry::Keep);
        assert_eq!(b.fragment, "#s=broken");
        s.apply(Action::SetTtl(10_000));
        assert_eq!(
            b.show(&s),
            Entry::Replace {
                fragment: encode_fragment(&s.scenario),
                note: "edited"
            }
        );
        // Once replaced, the scenario of the failed link is an ordinary one again.
        s.apply(Action::SetTtl(30_000));
        assert_eq!(s.scenario, paused().scenario);
        assert_eq!(
            b.show(&s),
            Entry::Replace {
                fragment: encode_fragment(&s.scenario),
                note: "edited"
            }
        );
        // Without an error, the address is the page's from the start.
        let s = paused();
        let mut b = Browser::new(&s, "#s=whatever");
        assert_eq!(
            b.show(&s),
            Entry::Replace {
                fragment: encode_fragment(&s.scenario),
                note: "edited"
            }
        );
    }
}
