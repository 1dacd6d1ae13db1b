//! The address bar: what the page shows for the address it is opened at ([`landing`]), what it
//! does when the address changes ([`follow_address`]), and which history entry each change of
//! the page gets ([`AddressBar`]: a new one per story, the same one for an edit, a step back
//! when an Undo returns to the story before). Plain data, tested natively: the app component
//! asks what to do and does it.
//!
//! It sits above the state: it reads states and makes actions, and the reducer knows nothing
//! of addresses.

use fencepost_sim::Scenario;

use crate::share::{decode_fragment, encode_fragment, tour_chapter, tour_fragment};
use crate::state::{Action, Load, Message, Origin, State, TourStep, tour_story};
use crate::text::sentence_case;

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
        let failed = state.messages.error.is_some() && !fragment.trim_start_matches('#').is_empty();
        AddressBar {
            story: state.story.entry,
            before_push: None,
            failed_link: failed.then(|| state.story.scenario.clone()),
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
        state.apply(Action::Tour(TourStep::Go(ch)));
        state.embed = embed;
        return state;
    }
    let mut state = match decode_fragment(fragment) {
        Ok(Some(s)) => {
            let mut state = State::new(s);
            // A preset link names its preset; any other is "from the link", unless this
            // history entry says where its story came from (a reload).
            if state.preset_name().is_none() {
                state.story.origin =
                    Some(note.and_then(Origin::from_key).unwrap_or(Origin::Address));
            }
            state
        }
        Ok(None) if !embed && !tour_seen => State::with_tour(),
        Ok(None) => State::new(tour_story()),
        Err(e) => {
            let mut s = State::new(tour_story());
            s.messages.error = Some(format!(
                "{} — showing the {} story instead.",
                sentence_case(&e),
                crate::tour::TOUR_PRESET
            ));
            s
        }
    };
    state.embed = embed;
    if embed {
        state.tour.chapter = None;
    }
    state
}

/// What the page does when its address changes to `fragment` (Back, Forward, a link pasted into
/// the address bar), the entry keeping `note`: go to the chapter or the scenario it names, or say
/// that it names neither. `None`: it names nothing.
pub fn follow_address(fragment: &str, note: Option<&str>) -> Option<Action> {
    if let Some(ch) = tour_chapter(fragment) {
        return Some(Action::Tour(TourStep::Go(ch)));
    }
    match decode_fragment(fragment) {
        Ok(Some(s)) => {
            let origin = note.and_then(Origin::from_key).unwrap_or(Origin::Address);
            Some(Action::Load(Load::FollowAddress(Box::new(s), origin)))
        }
        Ok(None) => None,
        // The link stays in the address bar for the learner to fix or copy; the message says
        // that the page did not follow it.
        Err(e) => Some(Action::Message(Message::Error(format!(
            "{} — still showing the scenario from before.",
            sentence_case(&e)
        )))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::testing::{click, paused};
    use crate::state::{Edit, Play, Switch};

    #[test]
    fn a_visit_lands_where_its_address_says() {
        // A chapter of the tour (as people count them, from 1).
        let s = landing("#tour=3", None, false, false);
        assert_eq!(
            (s.tour.chapter, s.story.origin, s.embed),
            (Some(2), Some(Origin::Tour), false)
        );
        assert_eq!(s.play.head, crate::tour::CHAPTERS[2].playhead(s.trace()));
        let s = landing("#tour=3", None, true, true);
        assert_eq!((s.tour.chapter, s.embed), (Some(2), true));
        // No address: the tour the first time, its story after.
        let s = landing("", None, false, false);
        assert_eq!(
            (s.tour.chapter, s.story.scenario.clone()),
            (Some(0), tour_story())
        );
        let s = landing("", None, false, true);
        assert_eq!(
            (s.tour.chapter, s.story.scenario.clone()),
            (None, tour_story())
        );
        let s = landing("", None, true, false);
        assert_eq!((s.tour.chapter, s.embed), (None, true));
        // A shared scenario, from where its entry says.
        let mut shared = tour_story();
        shared.seed = 5;
        let link = format!("#{}", encode_fragment(&shared));
        let s = landing(&link, None, false, false);
        assert_eq!(
            (s.story.scenario.clone(), s.story.origin, s.tour.chapter),
            (shared.clone(), Some(Origin::Address), None)
        );
        let s = landing(&link, Some("explore"), false, false);
        assert_eq!(s.story.origin, Some(Origin::Explore));
        let s = landing("#preset=gc-pause", Some("explore"), false, false);
        assert_eq!((s.preset_name(), s.story.origin), (Some("gc-pause"), None));
        // A broken one says so and shows the tour's story.
        let s = landing("#s=!!", None, false, false);
        assert_eq!(
            (s.tour.chapter, s.story.scenario.clone()),
            (None, tour_story())
        );
        assert_eq!(
            s.messages.error.as_deref(),
            Some(
                "The link's scenario is garbled (not valid base64url) — showing the \
                 paused-worker story instead."
            )
        );
    }

    #[test]
    fn a_changed_address_becomes_the_action_the_page_takes() {
        assert_eq!(
            follow_address("#tour=9", None),
            Some(Action::Tour(TourStep::Go(8)))
        );
        assert_eq!(follow_address("#", None), None);
        assert_eq!(follow_address("", Some("tour")), None);
        let mut shared = tour_story();
        shared.seed = 5;
        let link = format!("#{}", encode_fragment(&shared));
        assert_eq!(
            follow_address(&link, Some("import")),
            Some(Action::Load(Load::FollowAddress(
                Box::new(shared.clone()),
                Origin::Import
            )))
        );
        assert_eq!(
            follow_address(&link, Some("nonsense")),
            Some(Action::Load(Load::FollowAddress(
                Box::new(shared),
                Origin::Address
            )))
        );
        assert_eq!(
            follow_address("#tour=10", None),
            Some(Action::Message(Message::Error(
                "The tour has no chapter `10`: its chapters are #tour=1 to #tour=9 — still \
                 showing the scenario from before."
                    .into()
            )))
        );
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
            let entry = self.bar.follow(
                &s.story.scenario,
                s.tour.chapter,
                s.story.entry,
                s.story.origin,
                &self.fragment,
            );
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
            fragment: encode_fragment(&s.story.scenario),
            note,
        };
        let replace = |s: &State, note| Entry::Replace {
            fragment: encode_fragment(&s.story.scenario),
            note,
        };
        assert_eq!(b.show(&s), replace(&s, "edited"));
        assert_eq!(b.show(&s), Entry::Keep);
        s.apply(Action::Load(Load::Preset("gc-pause".into())));
        assert_eq!(b.show(&s), push(&s, "edited"));
        s.apply(Action::Edit(Edit::Toggle(Switch::Fencing)));
        assert_eq!(b.show(&s), replace(&s, "edited"));
        let mut explored = s.story.scenario.clone();
        explored.seed = 7;
        s.apply(Action::Load(Load::Scenario(
            Box::new(explored),
            Origin::Explore,
        )));
        assert_eq!(b.show(&s), push(&s, "explore"));

        // The tour: each chapter names itself in the address, in the same entry.
        s.apply(Action::Tour(TourStep::Go(5)));
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
        assert_eq!(s.tour.chapter, None);
        assert_eq!(b.show(&s), push(&s, "edited"));
        s.apply(Action::Edit(Edit::Undo));
        assert_eq!(s.tour.chapter, Some(5));
        assert_eq!(b.show(&s), Entry::Back);
        // The browser went back to `#tour=6`; the page shows that chapter: nothing more to do.
        b.fragment = "#tour=6".into();
        s.apply(Action::Tour(TourStep::Go(5)));
        assert_eq!(b.show(&s), Entry::Keep);
        // Out of the tour, a click and its Undo stay in one entry, which says where its
        // story came from each time.
        s.apply(Action::Tour(TourStep::Leave));
        assert_eq!(b.show(&s), replace(&s, "tour"));
        let left = b.fragment.clone();
        s.apply(click(0, 2_000));
        assert_eq!(b.show(&s), replace(&s, "edited"));
        s.apply(Action::Edit(Edit::Undo));
        assert_eq!(b.show(&s), replace(&s, "tour"));
        assert_eq!(b.fragment, left);
    }

    #[test]
    fn a_link_that_failed_to_load_stays_until_the_learner_changes_something() {
        let mut s = paused();
        s.apply(Action::Message(Message::Error(
            "The link is not a scenario.".into(),
        )));
        let mut b = Browser::new(&s, "#s=broken");
        assert_eq!(b.show(&s), Entry::Keep);
        s.apply(Action::Play(Play::Next));
        assert_eq!(b.show(&s), Entry::Keep);
        assert_eq!(b.fragment, "#s=broken");
        s.apply(Action::Edit(Edit::SetTtl(10_000)));
        assert_eq!(
            b.show(&s),
            Entry::Replace {
                fragment: encode_fragment(&s.story.scenario),
                note: "edited"
            }
        );
        // Once replaced, the scenario of the failed link is an ordinary one again.
        s.apply(Action::Edit(Edit::SetTtl(30_000)));
        assert_eq!(s.story.scenario, paused().story.scenario);
        assert_eq!(
            b.show(&s),
            Entry::Replace {
                fragment: encode_fragment(&s.story.scenario),
                note: "edited"
            }
        );
        // Without an error, the address is the page's from the start.
        let s = paused();
        let mut b = Browser::new(&s, "#s=whatever");
        assert_eq!(
            b.show(&s),
            Entry::Replace {
                fragment: encode_fragment(&s.story.scenario),
                note: "edited"
            }
        );
    }
}
