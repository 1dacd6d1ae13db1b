//! The discrete-event engine.
//!
//! Everything happens at virtual milliseconds. Pending actions sit in one priority queue ordered by
//! `(time, insertion number)`, so two actions at the same instant run in the order they were
//! scheduled: the run is a pure function of the scenario and its seed.
//!
//! The actors:
//!
//! * the **lock service** is a real [`fencepost::Authority`]; it persists its snapshot whenever a
//!   grant carries a reservation (fencepost's host contract), which is what an
//!   `authority_restart` with `persisted: true` restores;
//! * the **storage** is a real [`fencepost::Guard`] (with a [`fencepost::FencedResource`] when
//!   idempotency keys are on) when fencing is on with ordered tokens; plain last-writer-wins when
//!   fencing is off; and an equality-only check for `uuid` tokens (a token seen before that is not
//!   the latest is refused, a never-seen one is taken as a new owner);
//! * **workers** acquire (retrying when refused), then for each write: work, optionally renew as a
//!   check, send the write with their token, wait for the acknowledgement; then release. A worker
//!   whose write is refused, or who hears its lease was lost, gives up its job;
//! * the **network** delays each message by a latency drawn from the scenario's range.
//!
//! A paused worker handles nothing: its timers and incoming messages wait, and run in their original
//! order when it resumes, exactly where it stopped. A worker's durations are measured on its own
//! clock, which faults can skew, drift or make jump.

mod clock;
mod faults;
mod lock;
mod memory;
mod network;
mod options;
mod queue;
mod sim;
mod storage;
mod store;
mod worker;

pub(crate) use clock::ClockModel;
pub use memory::{run_bytes, trace_bytes};
pub use options::{RunOptions, STEP_EVENTS};

use crate::scenario::Scenario;
use crate::trace::Trace;
use sim::Sim;

/// Runs a scenario (already validated) and returns its trace.
pub fn run(scenario: &Scenario) -> Trace {
    run_with(scenario, RunOptions::default())
}

/// Runs a scenario with overrides.
pub fn run_with(scenario: &Scenario, opts: RunOptions) -> Trace {
    let mut sim = Sim::new(scenario, opts);
    sim.run();
    sim.finish()
}

#[cfg(test)]
mod tests {
    use alloc::vec::Vec;

    use super::*;

    /// `truncated` says exactly whether the run lost events: cut short by the event limit or
    /// `end_ms`, a run is truncated when, and only when, it has fewer events than the whole run.
    #[test]
    fn truncated_means_events_were_cut_off() {
        let mut scenarios: Vec<Scenario> = crate::PRESETS.iter().map(|p| p.scenario()).collect();
        scenarios.push(
            Scenario::from_json(
                r#"{"version":1,"lease_ttl_ms":1000,"workers":[{"name":"A","job":{"work_ms":10}}]}"#,
            )
            .unwrap(),
        );
        for sc in &scenarios {
            for fencing in [Some(true), Some(false)] {
                let opts = RunOptions {
                    fencing,
                    ..RunOptions::default()
                };
                let full = run_with(sc, opts);
                assert!(!full.truncated, "{}", sc.name);
                let n = full.events.len();
                for max_events in 1..=n + 2 {
                    let t = run_with(sc, RunOptions { max_events, ..opts });
                    assert_eq!(t.truncated, t.events.len() < n, "{} {max_events}", sc.name);
                }
                let last = full.events[n - 1].t_ms;
                for end in full
                    .events
                    .iter()
                    .map(|e| e.t_ms)
                    .chain([last + 1, last + 5000])
                {
                    for end_ms in [end.saturating_sub(1), end] {
                        let mut cut = sc.clone();
                        cut.end_ms = Some(end_ms);
                        let t = run_with(&cut, opts);
                        assert_eq!(t.truncated, t.events.len() < n, "{} end {end_ms}", sc.name);
                    }
                }
            }
        }
    }
}
