//! The scenario parser's fuzz check: any bytes either fail with an error that names what is wrong,
//! or give a scenario that round-trips through JSON and runs to the end without a panic.
//! Used by the `scenario` fuzz target and tests/scenario_seeds.rs.

use fencepost_sim::engine::STEP_EVENTS;
use fencepost_sim::{RunOptions, Scenario, run_with};

/// Returns 1 when the bytes were a valid scenario, 0 otherwise.
pub fn scenario(data: &[u8]) -> usize {
    let Ok(text) = core::str::from_utf8(data) else {
        return 0;
    };
    match Scenario::from_json(text) {
        Err(e) => {
            assert!(!e.message.is_empty(), "an error must say what is wrong");
            0
        }
        Ok(s) => {
            let again = Scenario::from_json(&s.to_json()).expect("a valid scenario re-parses");
            assert_eq!(again, s, "a scenario round-trips through JSON");
            // Bounded: the fuzzer must not spend its time on a scenario that runs for long.
            let opts = RunOptions {
                max_events: 20_000,
                ..RunOptions::default()
            };
            let t = run_with(&s, opts);
            // The run stops at the first step that reaches the limit, with all of that step's
            // events (at 20,000 with three, say, it ends with 20,002).
            assert!(t.events.len() <= 20_000 + STEP_EVENTS);
            let json = t.to_json();
            assert!(json.starts_with('{') && json.ends_with('}'));
            for e in t.events.iter().take(200) {
                assert!(!t.explain(e).is_empty());
            }
            1
        }
    }
}
