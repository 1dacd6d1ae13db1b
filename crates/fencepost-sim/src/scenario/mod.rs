//! Scenarios: who works, what protects the resource, and what goes wrong.
//!
//! A scenario is plain data (JSON with `"version": 1`). Unknown fields are refused, so a typo is an
//! error instead of a silently ignored setting. [`Scenario::validate`] checks what types cannot:
//! names that exist, ranges that make sense. Every error names the field and says why.
//!
//! ```json
//! {
//!   "version": 1,
//!   "name": "paused-worker",
//!   "seed": 1,
//!   "lease_ttl_ms": 30000,
//!   "first_token": 33,
//!   "latency_ms": { "min": 0, "max": 0 },
//!   "protections": { "fencing": true },
//!   "workers": [
//!     { "name": "A", "start_ms": 0, "job": { "work_ms": 2000, "writes": 1 } },
//!     { "name": "B", "start_ms": 5000, "job": { "work_ms": 1000, "writes": 1 } }
//!   ],
//!   "faults": [ { "kind": "pause", "worker": "A", "at": 1000, "for": 45000 } ]
//! }
//! ```

mod document;
mod error;
mod fault;
pub(crate) mod tagged;
mod validate;

pub use document::{
    Job, Latency, MAX_FAULTS, MAX_NAME_LEN, MAX_TIME_MS, MAX_WORKERS, MAX_WRITES, Protections,
    SCENARIO_VERSION, Scenario, TokenKind, Worker, scenario_bytes,
};
pub use error::ScenarioError;
pub(crate) use error::json_error;
pub use fault::{Fault, Point};
pub(crate) use validate::check_clock;

#[cfg(test)]
mod tests;
