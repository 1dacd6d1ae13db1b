//! One simulated run of the scenario and its layout: what the page derives from the story,
//! never edits.

use std::rc::Rc;

use fencepost_sim::{RunOptions, Scenario, Trace, run_with};

use fencepost_sim::Actor;

use crate::model::{Timeline, TokenStyle};

/// Where the app cuts a run and says so: the run stops at the step that reaches this many events
/// (that step's events are kept, so a cut run may hold a few more).
pub const MAX_EVENTS: usize = 5_000;

/// One simulated run and its layout.
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    /// The trace.
    pub trace: Rc<Trace>,
    /// Its layout.
    pub timeline: Rc<Timeline>,
}

impl Run {
    /// `scenario` run with fencing as it says, or as `fencing` overrides it.
    pub fn of(scenario: &Scenario, fencing: Option<bool>) -> Run {
        let trace = run_with(
            scenario,
            RunOptions {
                fencing,
                max_events: MAX_EVENTS,
                ..RunOptions::default()
            },
        );
        let timeline = Timeline::of(&trace, TokenStyle::of(scenario.protections.token_kind));
        Run {
            trace: Rc::new(trace),
            timeline: Rc::new(timeline),
        }
    }

    /// Compare mode's two runs of `scenario`: fencing off, then on.
    pub fn pair(scenario: &Scenario) -> [Run; 2] {
        [
            Run::of(scenario, Some(false)),
            Run::of(scenario, Some(true)),
        ]
    }
}

impl Run {
    /// The run a recorded history was read into: its lanes named after the processes and the
    /// lock drawn.
    pub fn recorded(trace: Trace, lock: &str) -> Run {
        let mut timeline = Timeline::of(&trace, TokenStyle::Number);
        for lane in &mut timeline.lanes {
            lane.label = match lane.actor {
                Actor::Lock => format!("lock {lock}"),
                Actor::Storage => "stores".to_string(),
                w => trace.name(w).to_string(),
            };
        }
        Run {
            trace: Rc::new(trace),
            timeline: Rc::new(timeline),
        }
    }
}
