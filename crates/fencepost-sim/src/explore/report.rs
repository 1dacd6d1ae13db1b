//! How a search runs, and what it covered and found.

use alloc::string::String;
use alloc::vec::Vec;

use serde::Serialize;

use crate::invariants::Invariant;
use crate::scenario::{Fault, Scenario};

/// How a search runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct SearchOptions {
    /// Force fencing on or off (default: the world's protections).
    pub fencing: Option<bool>,
    /// Do not expand states at this depth (actions from the start).
    pub max_depth: u32,
    /// Stop after this many distinct states.
    pub max_states: u64,
    /// Stop at the first (so shortest) counterexample; otherwise explore the whole scope and
    /// count violating states.
    pub stop_at_first: bool,
}

impl Default for SearchOptions {
    fn default() -> SearchOptions {
        SearchOptions {
            fencing: None,
            max_depth: 10_000,
            max_states: 20_000_000,
            stop_at_first: true,
        }
    }
}

/// A shortest path to a violation, as a scenario.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Counterexample {
    /// Actions from the start to the violating one (the violating one included).
    pub depth: u32,
    /// The invariant it breaks (the lowest-numbered, if several).
    pub invariant: Invariant,
    /// Every invariant the violating action breaks.
    pub broken: Vec<Invariant>,
    /// When.
    pub t_ms: u64,
    /// The faults injected, in the order they struck.
    pub faults: Vec<Fault>,
    /// The world with those faults (and the searched fencing setting): `fencepost sim` replays it.
    pub scenario: Scenario,
}

/// What a search covered and found.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SearchReport {
    /// Whether the storage checked tokens.
    pub fencing: bool,
    /// States taken off the queue and expanded.
    pub states_explored: u64,
    /// Successors generated (duplicates included).
    pub states_generated: u64,
    /// Distinct states (by canonical hash), the initial one included.
    pub distinct_states: u64,
    /// Deepest state reached.
    pub depth: u32,
    /// Distinct violating states seen (not expanded further).
    pub violating_states: u64,
    /// Whether every state of the scope was explored (no depth or state limit cut it short, and
    /// it did not stop at a counterexample).
    pub complete: bool,
    /// Whether the depth limit left states unexpanded.
    pub depth_limited: bool,
    /// The shortest counterexample, if one was found.
    pub counterexample: Option<Counterexample>,
}

impl SearchReport {
    /// The report as JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}
