//! One random path through the model, for checking the model against the engine.

use alloc::vec::Vec;

use super::model::{Chooser, State};
use super::scope::Scope;
use super::world::{model_of, scenario_with};
use crate::invariants::Invariant;
use crate::rng::SplitMix64;
use crate::scenario::{Scenario, ScenarioError};

/// One random path through the model, for checking the model against the engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Walk {
    /// The world with the faults the walk injected.
    pub scenario: Scenario,
    /// The storage's decisions: (time, writer, token, accepted).
    pub writes: Vec<(u64, u16, u64, bool)>,
    /// Invariants broken.
    pub broken: Vec<Invariant>,
    /// Actions taken.
    pub steps: u32,
}

/// Walks one random path: at each decision point a fault is injected with probability
/// `per_million / 1e6` (within the scope's budget).
pub fn random_walk(
    world: &Scenario,
    scope: &Scope,
    fencing: bool,
    seed: u64,
    per_million: u32,
) -> Result<Walk, ScenarioError> {
    let model = model_of(world, scope, fencing)?;
    let mut state = State::initial(world, &model)?;
    let mut rng = SplitMix64::new(seed);
    let mut writes = Vec::new();
    let mut choices = Vec::new();
    let mut steps = 0;
    loop {
        let mut ch = Chooser::scripted(&[]);
        ch.random = Some((&mut rng, per_million));
        ch.writes = Some(&mut writes);
        if !state.step(&model, &mut ch) {
            break;
        }
        if let Some(c) = ch.chosen {
            choices.push(c);
        }
        steps += 1;
        if state.overflow || steps > 1_000_000 {
            return Err(ScenarioError::new(
                "",
                "the walk is larger than the exhaustive search's model holds",
            ));
        }
    }
    let (_, scenario) = scenario_with(world, fencing, &choices);
    Ok(Walk {
        scenario,
        writes,
        broken: Invariant::ALL
            .into_iter()
            .filter(|i| state.violated & (1 << i.index()) != 0)
            .collect(),
        steps,
    })
}
