//! Any sequence of user actions, with any values, leaves a consistent state and never panics:
//! in the browser a panic would abort the app.
#![cfg(not(target_arch = "wasm32"))]

use fencepost_sim::{Actor, PRESETS, Scenario};
use fencepost_web::address::{AddressBar, Entry, follow_address, landing};
use fencepost_web::model::{
    Playhead, banner_at, end_time, in_flight_at, lane_status_at, storage_at,
};
use fencepost_web::share::{decode_fragment, encode_fragment, tour_chapter};
use fencepost_web::state::{
    Action, Edit, Load, Message, Origin, Play, State, Switch, TourStep, chapter_scenario,
};
use fencepost_web::tour::CHAPTERS;
use fencepost_web::undo::MAX_UNDO;
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
        (0.0f64..5_000.0).prop_map(|ms| Action::Play(Play::Tick(ms))),
        Just(Action::Play(Play::Toggle)),
        Just(Action::Play(Play::Next)),
        Just(Action::Play(Play::Prev)),
        Just(Action::Play(Play::Restart)),
        Just(Action::Play(Play::End)),
        any::<u64>().prop_map(|t| Action::Play(Play::Seek(t))),
        any::<usize>().prop_map(|i| Action::Play(Play::SeekEvent(i))),
        any::<i32>().prop_map(|v| Action::Play(Play::SetSpeed(v))),
        (-3i32..4).prop_map(|d| Action::Play(Play::Zoom(d))),
        (0..PRESETS.len() + 1).prop_map(|i| Action::Load(Load::Preset(
            PRESETS
                .get(i)
                .map_or("nope".to_string(), |p| p.name.to_string())
        ))),
        switch.prop_map(|sw| Action::Edit(Edit::Toggle(sw))),
        any::<u64>().prop_map(|ms| Action::Edit(Edit::SetTtl(ms))),
        any::<u64>().prop_map(|ms| Action::Edit(Edit::SetPauseLength(ms))),
        any::<u64>().prop_map(|ms| Action::Edit(Edit::SetLatency(ms))),
        ".{0,24}".prop_map(|text| Action::Edit(Edit::SetSeed(text))),
        (0usize..4, any::<u64>())
            .prop_map(|(worker, at)| Action::Edit(Edit::InjectPause { worker, at })),
        (0usize..6).prop_map(|i| Action::Edit(Edit::RemoveFault(i))),
        Just(Action::ToggleCompare),
        Just(Action::Tour(TourStep::Start)),
        (0usize..9).prop_map(|i| Action::Tour(TourStep::Go(i))),
        Just(Action::Tour(TourStep::Leave)),
        (0usize..4, prop_oneof![0u64..60_000, any::<u64>()])
            .prop_map(|(worker, at)| Action::Edit(Edit::LaneClick { worker, at })),
        Just(Action::Edit(Edit::Undo)),
        Just(Action::Edit(Edit::Undo)),
        Just(Action::Message(Message::Dismiss)),
        Just(Action::Message(Message::Notice(
            "Link copied to the clipboard.".into()
        ))),
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
            let now = (
                s.story.scenario.clone(),
                s.tour.chapter,
                s.story.entry,
                s.story.origin,
            );
            if self.shown.as_ref() == Some(&now) {
                return Ok(());
            }
            self.shown = Some(now);
            let fragment = self.fragment().to_string();
            let entry = self.bar.follow(
                &s.story.scenario,
                s.tour.chapter,
                s.story.entry,
                s.story.origin,
                &fragment,
            );
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
                match s.tour.chapter {
                    Some(ch) => prop_assert_eq!(tour_chapter(fragment), Some(ch)),
                    None => {
                        prop_assert_eq!(
                            decode_fragment(fragment),
                            Ok(Some(s.story.scenario.clone()))
                        )
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
    prop_assert!(s.play.head.upto <= t.events.len());
    prop_assert!(
        t.events[..s.play.head.upto]
            .iter()
            .all(|e| e.t_ms <= s.play.head.t)
    );
    prop_assert!(
        t.events[s.play.head.upto..]
            .iter()
            .all(|e| e.t_ms >= s.play.head.t)
    );
    prop_assert!(s.play.head.t <= s.end());
    prop_assert!(s.story.scenario.validate().is_ok());
    // Everything the page derives can be derived, from the layout the page draws.
    let tl = &s.run.timeline;
    let beliefs = t.beliefs_after(s.play.head.upto);
    for lane in &tl.lanes {
        let _ = lane_status_at(t, &beliefs, lane.actor, tl.tokens);
    }
    let _ = lane_status_at(t, &beliefs, Actor::Worker(u16::MAX), tl.tokens);
    let _ = storage_at(t, s.play.head.upto);
    let _ = banner_at(t, s.play.head.upto, tl.tokens);
    let _ = in_flight_at(&tl.arrows, s.play.head.t);
    prop_assert!(tl.end >= end_time(t));
    // The link reproduces the scenario.
    prop_assert_eq!(
        decode_fragment(&encode_fragment(&s.story.scenario)).unwrap(),
        Some(s.story.scenario.clone())
    );
    // The tour narrates one timeline, its chapter's story, on a chapter that exists.
    if let Some(ch) = s.tour.chapter {
        prop_assert!(ch < CHAPTERS.len());
        prop_assert!(s.compare.is_none());
        let story = chapter_scenario(CHAPTERS[ch].preset, CHAPTERS[ch].fencing);
        prop_assert_eq!(&s.story.scenario, &story);
    }
    // What Undo would take back is the pause on screen, on a lane that exists.
    prop_assert!(s.story.clicks.len() <= MAX_UNDO);
    if let Some(c) = s.story.clicks.last() {
        prop_assert_eq!(s.story.scenario.faults.last(), Some(&c.pause));
        prop_assert!(c.worker < s.story.scenario.workers.len());
        prop_assert_eq!(
            s.story.clicks.pending(),
            Some((c.worker, c.at().unwrap_or(u64::MAX)))
        );
    } else {
        prop_assert_eq!(s.story.clicks.pending(), None);
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
