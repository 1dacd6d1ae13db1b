//! Any sequence of user actions, with any values, leaves a consistent state and never panics:
//! in the browser a panic would abort the app.
#![cfg(not(target_arch = "wasm32"))]

use fencepost_sim::{Actor, PRESETS};
use fencepost_web::model::{
    Playhead, banner_at, end_time, in_flight_at, lane_status_at, storage_at,
};
use fencepost_web::share::{decode_fragment, encode_fragment};
use fencepost_web::state::{Action, State, Switch};
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
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn any_actions_keep_the_state_consistent(actions in proptest::collection::vec(action(), 1..24)) {
        let mut s = State::new(PRESETS[0].scenario());
        for a in actions {
            s.apply(a);
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
            prop_assert_eq!(decode_fragment(&encode_fragment(&s.scenario)).unwrap(), Some(s.scenario.clone()));
        }
        let _ = Playhead::at_time(s.trace(), u64::MAX);
    }

    #[test]
    fn any_fragment_is_a_scenario_or_an_error(text in ".{0,200}") {
        let _ = decode_fragment(&text);
        let _ = decode_fragment(&format!("#s={text}"));
    }
}
