//! Where a sweep's scenarios come from, and the built-in templates.

use super::document::Template;
use crate::scenario::Scenario;

/// Where a sweep's scenarios come from.
#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    /// One scenario per seed, derived from a template.
    Template(Template),
    /// The same scenario every time, with the seed as its own (only latency draws change).
    Fixed(Scenario),
}

impl Source {
    /// The scenario for `seed`.
    pub fn derive(&self, seed: u64) -> Scenario {
        match self {
            Source::Template(t) => t.derive(seed),
            Source::Fixed(s) => Scenario { seed, ..s.clone() },
        }
    }

    /// A name for reports.
    pub fn name(&self) -> &str {
        match self {
            Source::Template(t) => &t.name,
            Source::Fixed(s) => &s.name,
        }
    }
}

/// A template exercising pauses, held writes, clock skew and restarts of a lock service that
/// persists its state: with fencing nothing may break; without it, stale writes land. The seed
/// sweep acceptance tests run it.
pub const PAUSES_HOLDS_SKEW: &str = r#"{
  "version": 1,
  "name": "pauses-holds-skew",
  "lease_ttl_ms": { "min": 5000, "max": 30000 },
  "first_token": 33,
  "latency_ms": { "min": 10, "max": 200 },
  "workers": {
    "count": { "min": 2, "max": 4 },
    "start_ms": { "min": 0, "max": 20000 },
    "work_ms": { "min": 500, "max": 8000 },
    "writes": { "min": 1, "max": 3 }
  },
  "faults": [
    { "kind": "pause", "probability": 0.3, "at": { "min": 0, "max": 30000 }, "for": { "min": 1000, "max": 60000 } },
    { "kind": "pause_at", "probability": 0.2, "for": { "min": 1000, "max": 60000 } },
    { "kind": "hold", "probability": 0.2, "nth_write": { "min": 1, "max": 2 }, "for": { "min": 1000, "max": 40000 } },
    { "kind": "clock", "probability": 0.3, "skew_ms": { "min": -2000, "max": 2000 }, "drift_ppm": { "min": -500000, "max": 500000 } },
    { "kind": "authority_restart", "probability": 0.2, "at": { "min": 0, "max": 40000 }, "persisted": true }
  ]
}"#;

/// The built-in templates, by name.
pub const TEMPLATES: &[(&str, &str)] = &[("pauses-holds-skew", PAUSES_HOLDS_SKEW)];

/// A built-in template by name.
pub fn template(name: &str) -> Option<Template> {
    TEMPLATES
        .iter()
        .find(|(n, _)| *n == name)
        .and_then(|(_, json)| Template::from_json(json).ok())
}
