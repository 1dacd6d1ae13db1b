//! Which faults a search may inject, and how many.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use serde::Serialize;

use super::model::MAX_OPTIONS;
use crate::object::object;
use crate::scenario::{MAX_TIME_MS, Point, Scenario, ScenarioError};

/// Which faults the search may inject, and how many at most.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Scope {
    /// Most faults on one path.
    pub max_faults: u32,
    /// Decision points where a worker may pause.
    pub points: Vec<Point>,
    /// Pause lengths (at most 8).
    pub pause_ms: Vec<u64>,
    /// Extra delays of a held write (at most 8).
    pub hold_ms: Vec<u64>,
    /// Clock jumps (negative: back; at most 8); each worker's clock jumps at most once.
    pub jump_ms: Vec<i64>,
    /// Workers that may be hit (empty: all).
    pub workers: Vec<String>,
}

object!(Scope {
    max_faults,
    points = Point::ALL.to_vec(),
    pause_ms = Vec::new(),
    hold_ms = Vec::new(),
    jump_ms = Vec::new(),
    workers = Vec::new(),
});

impl Scope {
    /// Pauses, holds and backward clock jumps of half, one and one and a half lease TTLs, at every
    /// decision point, at most `max_faults` of them.
    pub fn around_ttl(ttl_ms: u64, max_faults: u32) -> Scope {
        let lens = lengths(ttl_ms);
        Scope {
            max_faults,
            points: Point::ALL.to_vec(),
            pause_ms: lens.clone(),
            hold_ms: lens.clone(),
            jump_ms: lens.iter().map(|l| -(*l as i64)).collect(),
            workers: Vec::new(),
        }
    }

    /// Pauses and holds only (no clock jumps), as [`Scope::around_ttl`].
    pub fn pauses_and_holds(ttl_ms: u64, max_faults: u32) -> Scope {
        Scope {
            jump_ms: Vec::new(),
            ..Scope::around_ttl(ttl_ms, max_faults)
        }
    }

    pub(super) fn validate(&self, world: &Scenario) -> Result<(), ScenarioError> {
        if self.max_faults > 16 {
            return Err(ScenarioError::new("scope.max_faults", "must be at most 16"));
        }
        for (field, n) in [
            ("scope.pause_ms", self.pause_ms.len()),
            ("scope.hold_ms", self.hold_ms.len()),
            ("scope.jump_ms", self.jump_ms.len()),
        ] {
            if n > MAX_OPTIONS - 1 {
                return Err(ScenarioError::new(field, "at most 8 values"));
            }
        }
        for (field, lens) in [("pause_ms", &self.pause_ms), ("hold_ms", &self.hold_ms)] {
            if let Some(i) = lens.iter().position(|v| *v > MAX_TIME_MS) {
                return Err(ScenarioError::new(
                    format!("scope.{field}[{i}]"),
                    format!("must be at most {MAX_TIME_MS} ms"),
                ));
            }
        }
        if self.jump_ms.iter().any(|j| j.unsigned_abs() > MAX_TIME_MS) {
            return Err(ScenarioError::new("scope.jump_ms", "is out of range"));
        }
        for (i, w) in self.workers.iter().enumerate() {
            if world.worker_index(w).is_none() {
                return Err(ScenarioError::new(
                    format!("scope.workers[{i}]"),
                    format!("no worker is named `{w}`"),
                ));
            }
        }
        Ok(())
    }
}

pub(super) fn lengths(ttl: u64) -> Vec<u64> {
    let mut v: Vec<u64> = [ttl / 2, ttl, ttl + ttl / 2]
        .into_iter()
        .filter(|l| *l > 0)
        .collect();
    v.dedup();
    v
}
