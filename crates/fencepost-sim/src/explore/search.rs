//! The breadth-first search, advanced in slices.

use alloc::vec;
use alloc::vec::Vec;

use super::model::{Choice, Chooser, MAX_DECISIONS, Model, State};
use super::report::{Counterexample, SearchOptions, SearchReport};
use super::scope::Scope;
use super::seen::Seen;
use super::world::{model_of, scenario_with};
use crate::invariants::Invariant;
use crate::scenario::{Scenario, ScenarioError};

#[derive(Clone, Copy, Debug)]
pub(super) struct Meta {
    pub(super) parent: u32,
    pub(super) choice: Option<Choice>,
}

/// A state waiting to be expanded: the state, its index in `metas`, its depth.
pub(super) type Entry = (State, u32, u32);

/// States per chunk of the frontier: as many as fit in 64 KiB.
pub(super) const CHUNK: usize = {
    let n = (1 << 16) / core::mem::size_of::<Entry>();
    if n == 0 { 1 } else { n }
};

/// The frontier, first in first out, in chunks of [`CHUNK`] states (each emptied once read): it
/// grows and shrinks by blocks of one size, which the WebAssembly module's allocator reuses,
/// instead of one table that doubles (and would need twice its size while it moves).
pub(super) struct Frontier {
    pub(super) chunks: Vec<Vec<Entry>>,
    pub(super) pushed: usize,
    pub(super) popped: usize,
}

impl Frontier {
    pub(super) fn push(&mut self, e: Entry) {
        if self.pushed.is_multiple_of(CHUNK) {
            self.chunks.push(Vec::with_capacity(CHUNK));
        }
        if let Some(c) = self.chunks.last_mut() {
            c.push(e);
        }
        self.pushed += 1;
    }

    pub(super) fn pop(&mut self) -> Option<Entry> {
        let c = self.chunks.get_mut(self.popped / CHUNK)?;
        let e = c.get(self.popped % CHUNK)?.clone();
        self.popped += 1;
        if self.popped.is_multiple_of(CHUNK) {
            *c = Vec::new();
        }
        Some(e)
    }
}

/// A breadth-first search that can be advanced in slices.
pub struct Search {
    pub(super) world: Scenario,
    pub(super) model: Model,
    pub(super) opts: SearchOptions,
    pub(super) frontier: Frontier,
    pub(super) seen: Seen,
    pub(super) metas: Vec<Meta>,
    pub(super) report: SearchReport,
    pub(super) done: bool,
}

impl Search {
    /// A search of `world` (see [`world_of`](super::world::world_of)) within `scope`.
    pub fn new(
        world: &Scenario,
        scope: &Scope,
        opts: SearchOptions,
    ) -> Result<Search, ScenarioError> {
        let fencing = opts.fencing.unwrap_or(world.protections.fencing);
        let model = model_of(world, scope, fencing)?;
        let init = State::initial(world, &model)?;
        let mut seen = Seen::new();
        seen.insert(init.fingerprint(model.nw));
        let mut frontier = Frontier {
            chunks: Vec::new(),
            pushed: 0,
            popped: 0,
        };
        frontier.push((init, 0, 0));
        Ok(Search {
            world: world.clone(),
            model,
            opts,
            frontier,
            seen,
            metas: vec![Meta {
                parent: u32::MAX,
                choice: None,
            }],
            report: SearchReport {
                fencing,
                distinct_states: 1,
                ..SearchReport::default()
            },
            done: false,
        })
    }

    /// Whether the search has finished (scope exhausted, a limit hit, or a counterexample found).
    pub fn finished(&self) -> bool {
        self.done
    }

    /// What it covered and found so far.
    pub fn report(&self) -> &SearchReport {
        &self.report
    }

    /// Runs to the end.
    pub fn run(mut self) -> Result<SearchReport, ScenarioError> {
        while !self.step(1 << 16)? {}
        Ok(self.report)
    }

    /// Expands up to `budget` states. Returns whether the search has finished.
    pub fn step(&mut self, budget: u64) -> Result<bool, ScenarioError> {
        let mut left = budget;
        while left > 0 && !self.done {
            let Some((state, idx, depth)) = self.frontier.pop() else {
                self.report.complete = !self.report.depth_limited;
                self.done = true;
                break;
            };
            left -= 1;
            if depth >= self.opts.max_depth {
                self.report.depth_limited = true;
                continue;
            }
            self.report.states_explored += 1;
            self.expand(&state, idx, depth)?;
        }
        Ok(self.done)
    }

    pub(super) fn expand(
        &mut self,
        state: &State,
        idx: u32,
        depth: u32,
    ) -> Result<(), ScenarioError> {
        let mut script = [0u8; MAX_DECISIONS];
        let mut len = 0usize;
        loop {
            let mut next = state.clone();
            let mut ch = Chooser::scripted(&script[..len]);
            if !next.step(&self.model, &mut ch) {
                return Ok(());
            }
            if ch.pos > MAX_DECISIONS || next.overflow {
                return Err(ScenarioError::new(
                    "",
                    "the scope is larger than the exhaustive search's model holds",
                ));
            }
            self.report.states_generated += 1;
            let fp = next.fingerprint(self.model.nw);
            if self.seen.insert(fp) {
                self.report.distinct_states += 1;
                let d = depth + 1;
                self.report.depth = self.report.depth.max(d);
                let me = self.metas.len() as u32;
                self.metas.push(Meta {
                    parent: idx,
                    choice: ch.chosen,
                });
                if next.violated != 0 {
                    self.report.violating_states += 1;
                    if self.report.counterexample.is_none() {
                        self.report.counterexample = Some(self.counterexample(me, d, &next));
                    }
                    if self.opts.stop_at_first {
                        self.done = true;
                        return Ok(());
                    }
                } else if !next.is_terminal(&self.model) {
                    self.frontier.push((next, me, d));
                }
                if self.report.distinct_states >= self.opts.max_states {
                    self.done = true;
                    return Ok(());
                }
            }
            // Next combination of choices: the last decision with an option left moves on.
            let (taken, options, n) = (ch.taken, ch.options, ch.pos.min(MAX_DECISIONS));
            let mut i = n;
            loop {
                if i == 0 {
                    return Ok(());
                }
                i -= 1;
                if taken[i] + 1 < options[i] {
                    break;
                }
            }
            script[..i].copy_from_slice(&taken[..i]);
            script[i] = taken[i] + 1;
            len = i + 1;
        }
    }

    pub(super) fn counterexample(&self, idx: u32, depth: u32, state: &State) -> Counterexample {
        let mut choices = Vec::new();
        let mut i = idx;
        while let Some(m) = self.metas.get(i as usize) {
            if let Some(c) = m.choice {
                choices.push(c);
            }
            i = m.parent;
        }
        choices.reverse();
        let broken: Vec<Invariant> = Invariant::ALL
            .into_iter()
            .filter(|inv| state.violated & (1 << inv.index()) != 0)
            .collect();
        let invariant = broken.first().copied().unwrap_or(Invariant::I1);
        let (faults, scenario) = scenario_with(&self.world, self.model.fencing, &choices);
        Counterexample {
            depth,
            invariant,
            broken,
            t_ms: state.violated_at,
            faults,
            scenario,
        }
    }
}

/// Most bytes of memory a search that stops at `max_states` distinct states can take from the
/// WebAssembly module's allocator (see [`crate::growth_bytes`]): its frontier (every distinct
/// state at most once, in chunks of 64 KiB, the first and last partly used), the parent of each
/// state, the fingerprint table (at most half full) and a megabyte for the world, the scope and
/// the counterexample. The same for every world: states have a fixed size.
pub fn search_bytes(max_states: u64) -> u64 {
    use crate::growth_bytes as g;
    use core::mem::size_of;
    let n = max_states.max(2);
    let chunks = n / CHUNK as u64 + 2;
    let chunk = (CHUNK * size_of::<Entry>()).next_power_of_two() as u64;
    let mut slots = Seen::FIRST as u64;
    let mut seen = 0;
    loop {
        seen += slots * 8;
        if slots >= 2 * n {
            break;
        }
        slots *= 2;
    }
    chunks * chunk + g(chunks, size_of::<Vec<Entry>>()) + g(n, size_of::<Meta>()) + seen + (1 << 20)
}

/// Searches `world` within `scope` to the end.
pub fn search(
    world: &Scenario,
    scope: &Scope,
    opts: SearchOptions,
) -> Result<SearchReport, ScenarioError> {
    Search::new(world, scope, opts)?.run()
}
