//! Any sequence of user actions, with any values, leaves a consistent state and never panics:
//! in the browser a panic would abort the app.
#![cfg(not(target_arch = "wasm32"))]

use fencepost_sim::{Actor, PRESETS, Scenario};
use fencepost_web::history::{AddressBar, Entry, MAX_UNDO, follow_address, landing};
use fencepost_web::model::{
    Playhead, banner_at, end_time, in_flight_at, lane_status_at, storage_at,
};
use fencepost_web::share::{decode_fragment, encode_fragment, tour_chapter};
use fencepost_web::state::{Action, Origin, State, Switch, tour_story};
use fencepost_web::tour::CHAPTERS;
use proptest::prelude::*;

fn action() -> impl Strategy<Value = Action> {
    let switch = prop_oneof![
        Just(Switch::Fencing),
        Just(Switch::UuidTokens),
        Just(Switch::Idempotency),
        Just(Switch::LockDelay),
        Just(Switch::CheckBeforeWrite),
    ];
    prop_oneof![
        (0.0f64..5_000.0).prop_map(Action::Tick),
        Just(Action::TogglePlay),
        Just(Action::Next),
        Just(Action::Prev),
        Just(Action::Restart),
        Just(Action::End),
        any::<u64>().prop_map(Action::Seek),
        any::<usize>().prop_map(Action::SeekEvent),
        any::<i32>().prop_map(Action::SetSpeed),
        (-3i32..4).prop_map(Action::Zoom),
        (0..PRESETS.len() + 1).prop_map(|i| Action::LoadPreset(
            PRESETS
                .get(i)
                .map_or("nope".to_string(), |p| p.name.to_string())
        )),
        switch.prop_map(Action::Toggle),
        any::<u64>().prop_map(Action::SetTtl),
        any::<u64>().prop_map(Action::SetPauseLength),
        any::<u64>().prop_map(Action::SetLatency),
        ".{0,24}".prop_map(Action::SetSeed),
        (0usize..4, any::<u64>()).prop_map(|(worker, at)| Action::InjectPause { worker, at }),
        (0usize..6).prop_map(Action::RemoveFault),
        Just(Action::ToggleCompare),
        Just(Action::TourStart),
        (0usize..9).prop_map(Action::TourGo),
        Just(Action::TourLeave),
        (0usize..4, prop_oneof![0u64..60_000, any::<u64>()])
            .prop_map(|(worker, at)| Action::LaneClick { worker, at }),
        Just(Action::Undo),
        Just(Action::Undo),
        Just(Action::Dismiss),
        Just(Action::Notice("Link copied to the clipboard.".into())),
    ]
}

/// An address: a tour chapter (some that do not exist), a preset, a shared scenario, nothing,
/// or anything at all.
fn address() -> impl Strategy<Value = String> {
    prop_oneof![
        (0usize..10).prop_map(|n| format!("#tour={n}")),
        (0..PRESETS.len()).prop_map(|i| format!("#preset={}", PRESETS[i].name)),
        (0..PRESETS.len(), any::<u64>(), any::<bool>()).prop_map(|(i, seed, fencing)| {
            let mut s = PRESETS[i].scenario();
            s.seed = seed;
            s.protections.fencing = fencing;
            format!("#{}", encode_fragment(&s))
        }),
        Just(String::new()),
        Just("#".to_string()),
        ".{0,40}",
        ".{0,40}".prop_map(|t| format!("#s={t}")),
    ]
}

/// One thing a visitor does.
#[derive(Clone, Debug)]
enum Step {
    /// Something on the page: a click, a key, a slider.
    Act(Action),
    /// A link pasted into the address bar of the open page.
    Address(String),
    /// The browser's Back button.
    Back,
    /// The browser's Forward button.
    Forward,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        6 => action().prop_map(Step::Act),
        1 => address().prop_map(Step::Address),
        1 => Just(Step::Back),
        1 => Just(Step::Forward),
    ]
}

/// What the address-bar effect of the page depends on.
type Shown = (Scenario, Option<usize>, u32, Option<Origin>);

/// The browser's history of one tab, and the page's address bar in it, doing what the app
/// component does with them.
struct Browser {
    entries: Vec<(String, Option<&'static str>)>,
    at: usize,
    bar: AddressBar,
    shown: Option<Shown>,
}

impl Browser {
    fn new(s: &State, fragment: &str) -> Browser {
        Browser {
            entries: vec![(fragment.to_string(), None)],
            at: 0,
            bar: AddressBar::new(s, fragment),
            shown: None,
        }
    }

    fn fragment(&self) -> &str {
        &self.entries[self.at].0
    }

    /// Moves to entry `to`; the page follows its address if the fragment changed.
    fn go(&mut self, s: &mut State, to: usize) {
        let before = self.fragment().to_string();
        self.at = to;
        if self.fragment() != before {
            let (fragment, note) = self.entries[self.at].clone();
            if let Some(a) = follow_address(&fragment, note) {
                s.apply(a);
            }
        }
    }

    /// The page's address-bar effect, run after every change of what it depends on, until
    /// the page and the address agree.
    fn settle(&mut self, s: &mut State) -> Result<(), TestCaseError> {
        for _ in 0..8 {
            let now = (s.scenario.clone(), s.tour, s.story, s.origin);
            if self.shown.as_ref() == Some(&now) {
                return Ok(());
            }
            self.shown = Some(now);
            let fragment = self.fragment().to_string();
            let entry = self
                .bar
                .follow(&s.scenario, s.tour, s.story, s.origin, &fragment);
            let named = matches!(entry, Entry::Replace { .. } | Entry::Push { .. });
            match entry {
                Entry::Keep => {}
                Entry::Replace { fragment, note } => self.entries[self.at] = (fragment, Some(note)),
                Entry::Push { fragment, note } => {
                    self.entries.truncate(self.at + 1);
                    self.entries.push((fragment, Some(note)));
                    self.at += 1;
                }
                Entry::Back => {
                    if self.at > 0 {
                        self.go(s, self.at - 1);
                    }
                }
            }
            if named {
                // What the address now says is what the page shows.
                let fragment = self.fragment();
                match s.tour {
                    Some(ch) => prop_assert_eq!(tour_chapter(fragment), Some(ch)),
                    None => {
                        prop_assert_eq!(decode_fragment(fragment), Ok(Some(s.scenario.clone())))
                    }
                }
            }
        }
        Err(TestCaseError::fail("the page and its address never agreed"))
    }

    fn take(&mut self, s: &mut State, step: Step) {
        match step {
            Step::Act(a) => s.apply(a),
            Step::Address(fragment) => {
                self.entries.truncate(self.at + 1);
                self.entries.push((fragment.clone(), None));
                self.at += 1;
                if let Some(a) = follow_address(&fragment, None) {
                    s.apply(a);
                }
            }
            Step::Back if self.at > 0 => self.go(s, self.at - 1),
            Step::Forward if self.at + 1 < self.entries.len() => self.go(s, self.at + 1),
            Step::Back | Step::Forward => {}
        }
    }
}

/// What holds of every state the page can reach.
fn check(s: &State) -> Result<(), TestCaseError> {
    let t = s.trace();
    prop_assert!(s.head.upto <= t.events.len());
    prop_assert!(t.events[..s.head.upto].iter().all(|e| e.t_ms <= s.head.t));
    prop_assert!(t.events[s.head.upto..].iter().all(|e| e.t_ms >= s.head.t));
    prop_assert!(s.head.t <= s.end());
    prop_assert!(s.scenario.validate().is_ok());
    // Everything the page derives can be derived, from the layout the page draws.
    let tl = &s.run.timeline;
    let beliefs = t.beliefs_after(s.head.upto);
    for lane in &tl.lanes {
        let _ = lane_status_at(t, &beliefs, lane.actor, tl.tokens);
    }
    let _ = lane_status_at(t, &beliefs, Actor::Worker(u16::MAX), tl.tokens);
    let _ = storage_at(t, s.head.upto);
    let _ = banner_at(t, s.head.upto, tl.tokens);
    let _ = in_flight_at(tl, s.head.t);
    prop_assert!(tl.end >= end_time(t));
    // The link reproduces the scenario.
    prop_assert_eq!(
        decode_fragment(&encode_fragment(&s.scenario)).unwrap(),
        Some(s.scenario.clone())
    );
    // The tour narrates one timeline, on a chapter that exists.
    if let Some(ch) = s.tour {
        prop_assert!(ch < CHAPTERS.len());
        prop_assert!(s.compare.is_none());
        let mut story = tour_story();
        story.protections.fencing = CHAPTERS[ch].fencing;
        prop_assert_eq!(&s.scenario, &story);
    }
    // What Undo would take back is the pause on screen, on a lane that exists.
    prop_assert!(s.undo.len() <= MAX_UNDO);
    if let Some(c) = s.undo.last() {
        prop_assert_eq!(s.scenario.faults.last(), Some(&c.pause));
        prop_assert!(c.worker < s.scenario.workers.len());
        prop_assert_eq!(
            s.undo.pending(),
            Some((c.worker, c.at().unwrap_or(u64::MAX)))
        );
    } else {
        prop_assert_eq!(s.undo.pending(), None);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn any_actions_keep_the_state_consistent(actions in proptest::collection::vec(action(), 1..24)) {
        let mut s = State::new(PRESETS[0].scenario());
        for a in actions {
            s.apply(a);
            check(&s)?;
        }
        let _ = Playhead::at_time(s.trace(), u64::MAX);
    }

    /// Lane clicks, Undo, tour chapters and shared links, from the address bar and the
    /// browser's Back and Forward, in any order, landing on any address.
    #[test]
    fn any_visit_keeps_the_page_and_its_address_consistent(
        start in address(),
        embed in any::<bool>(),
        tour_seen in any::<bool>(),
        steps in proptest::collection::vec(step(), 1..32),
    ) {
        let mut s = landing(&start, None, embed, tour_seen);
        let mut browser = Browser::new(&s, &start);
        check(&s)?;
        browser.settle(&mut s)?;
        for step in steps {
            browser.take(&mut s, step);
            check(&s)?;
            browser.settle(&mut s)?;
            check(&s)?;
        }
    }

    #[test]
    fn any_fragment_is_a_scenario_or_an_error(text in ".{0,200}") {
        let _ = decode_fragment(&text);
        let _ = decode_fragment(&format!("#s={text}"));
    }
}
