//! A whole run: its events, verdict and the storage's document.

use alloc::string::String;
use alloc::vec::Vec;

use super::event::{Actor, Event};
use crate::invariants::Verdict;

/// A whole run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trace {
    /// Scenario name.
    pub scenario: String,
    /// Seed used.
    pub seed: u64,
    /// Whether the storage checked tokens.
    pub fencing: bool,
    /// Worker names, by index.
    pub workers: Vec<String>,
    /// Every event, in order.
    pub events: Vec<Event>,
    /// Whether the run stopped early (the scenario's `end_ms`, or the event limit).
    pub truncated: bool,
    /// What the invariants say.
    pub verdict: Verdict,
    /// The storage's document at the end: applied writes in order.
    pub document: Vec<AppliedWrite>,
}

/// A write the storage applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AppliedWrite {
    /// Who wrote.
    pub writer: u16,
    /// Token presented.
    pub token: u64,
    /// Operation id.
    pub op: u32,
    /// When.
    pub t_ms: u64,
    /// Event seq.
    pub seq: u32,
}

impl Trace {
    /// An actor's name.
    pub fn name(&self, actor: Actor) -> &str {
        match actor {
            Actor::Lock => "lock",
            Actor::Storage => "storage",
            Actor::Worker(i) => self.workers.get(usize::from(i)).map_or("?", String::as_str),
        }
    }

    pub(super) fn worker(&self, i: u16) -> &str {
        self.name(Actor::Worker(i))
    }

    /// Most bytes this trace holds from the WebAssembly module's allocator (see
    /// [`crate::block_bytes`]): its events, document, names and verdict. Unlike the engine's
    /// `trace_bytes` (what a run may take while it records), what a finished trace keeps.
    pub fn held_bytes(&self) -> u64 {
        use crate::block_bytes as b;
        use core::mem::size_of;
        let vec = |cap: usize, size: usize| b((cap * size) as u64);
        vec(self.events.capacity(), size_of::<Event>())
            + vec(self.document.capacity(), size_of::<AppliedWrite>())
            + vec(self.workers.capacity(), size_of::<String>())
            + self
                .workers
                .iter()
                .map(|w| b(w.capacity() as u64))
                .sum::<u64>()
            + b(self.scenario.capacity() as u64)
            + vec(
                self.verdict.violations.capacity(),
                size_of::<crate::Violation>(),
            )
            + self
                .verdict
                .violations
                .iter()
                .map(|v| b(v.because.capacity() as u64))
                .sum::<u64>()
    }

    /// The trace, verdict and document as JSON (compact, deterministic).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}
