//! The scenario document: its settings, workers and their jobs.

use alloc::string::String;
use alloc::vec::Vec;

use serde::Serialize;

use super::error::{ScenarioError, json_error};
use super::fault::Fault;
use crate::object::{is_default, names, object};

/// The scenario format version this crate reads.
pub const SCENARIO_VERSION: u32 = 1;
/// Most workers a scenario may have.
pub const MAX_WORKERS: usize = 64;
/// Most faults a scenario may have.
pub const MAX_FAULTS: usize = 256;
/// Longest a worker name may be, in bytes.
pub const MAX_NAME_LEN: usize = 32;
/// Most writes one worker's job may do.
pub const MAX_WRITES: u32 = 1_000;
/// Latest instant anything in a scenario may be scheduled at (about 31 years in ms).
pub const MAX_TIME_MS: u64 = 1 << 40;

/// A whole scenario.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Scenario {
    /// Format version; must be 1.
    pub version: u32,
    /// A short name, shown in traces.
    pub name: String,
    /// Seed of the simulator's random numbers (latency draws).
    pub seed: u64,
    /// Lease length granted by the lock service.
    pub lease_ttl_ms: u64,
    /// Lock-delay after an expiry (0: none).
    #[serde(skip_serializing_if = "is_default")]
    pub lock_delay_ms: u64,
    /// First fencing token the lock service issues.
    #[serde(skip_serializing_if = "is_one")]
    pub first_token: u64,
    /// One-way network latency, drawn uniformly from `min..=max` per message.
    #[serde(skip_serializing_if = "is_default")]
    pub latency_ms: Latency,
    /// What protects the storage.
    pub protections: Protections,
    /// The workers.
    pub workers: Vec<Worker>,
    /// What goes wrong, and when.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub faults: Vec<Fault>,
    /// Stop the simulation at this instant even if work remains (default: run until idle).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_ms: Option<u64>,
}

object!(Scenario {
    version,
    name = String::new(),
    seed = 0,
    lease_ttl_ms,
    lock_delay_ms = 0,
    first_token = 1,
    latency_ms = Latency::default(),
    protections = Protections::default(),
    workers,
    faults = Vec::new(),
    end_ms = None,
});

/// Most bytes of memory a valid scenario holds once read: its workers and faults as their vectors
/// grew while they were read, and every name (the scenario's, at most 64 bytes; workers' and
/// faults' workers', at most [`MAX_NAME_LEN`]), each counted at 64 bytes and grown the same way.
pub fn scenario_bytes() -> u64 {
    use crate::growth_bytes as g;
    use core::mem::size_of;
    let names = (MAX_WORKERS + MAX_FAULTS + 1) as u64 * g(64, 1);
    g(MAX_WORKERS as u64, size_of::<Worker>()) + g(MAX_FAULTS as u64, size_of::<Fault>()) + names
}

fn is_one(v: &u64) -> bool {
    *v == 1
}

/// One-way network latency range.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Latency {
    /// Shortest latency.
    pub min: u64,
    /// Longest latency (>= min).
    pub max: u64,
}

object!(Latency { min, max });

/// How fencing tokens are formed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TokenKind {
    /// Increasing numbers: the storage can tell newer from older.
    #[default]
    Ordered,
    /// Unique but unordered ids: the storage can only tell same from different.
    Uuid,
}

names!(TokenKind {
    Ordered = "ordered",
    Uuid = "uuid",
});

/// What protects the storage, and how careful workers are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Protections {
    /// The storage checks tokens (a fencepost guard); off means plain last-writer-wins.
    pub fencing: bool,
    /// How tokens are formed.
    pub token_kind: TokenKind,
    /// Writes carry an idempotency key and the storage dedupes retries.
    pub idempotency_keys: bool,
    /// Before each write the worker renews its lease and writes only if that succeeded.
    pub check_before_write: bool,
}

// A field left out takes its value from `Protections::default()`, the one place the defaults are
// written.
object!(Protections {
    fencing = Protections::default().fencing,
    token_kind = Protections::default().token_kind,
    idempotency_keys = Protections::default().idempotency_keys,
    check_before_write = Protections::default().check_before_write,
});

impl Default for Protections {
    fn default() -> Protections {
        Protections {
            fencing: true,
            token_kind: TokenKind::Ordered,
            idempotency_keys: false,
            check_before_write: false,
        }
    }
}

/// A worker and its job.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Worker {
    /// Its name (1 to 32 bytes, unique).
    pub name: String,
    /// When it starts trying to acquire the lock.
    pub start_ms: u64,
    /// What it does once it holds the lock.
    pub job: Job,
}

object!(Worker {
    name,
    start_ms = 0,
    job,
});

/// A worker's job: acquire, then `writes` times (work, write), then release.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Job {
    /// Time spent working before each write, on the worker's own clock.
    pub work_ms: u64,
    /// Number of writes (1 to 1000).
    pub writes: u32,
    /// Renew the lease periodically while holding it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub renew_every_ms: Option<u64>,
    /// Resend a write whose acknowledgement has not arrived after this long (same operation id).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retry_after_ms: Option<u64>,
}

object!(Job {
    work_ms,
    writes = 1,
    renew_every_ms = None,
    retry_after_ms = None,
});

impl Scenario {
    /// Parses and validates scenario JSON.
    pub fn from_json(json: &str) -> Result<Scenario, ScenarioError> {
        let s: Scenario = serde_json::from_str(json).map_err(|e| json_error(&e))?;
        s.validate()?;
        Ok(s)
    }

    /// Parses and validates an already-decoded JSON value.
    pub fn from_value(value: serde_json::Value) -> Result<Scenario, ScenarioError> {
        let s: Scenario = serde_json::from_value(value).map_err(|e| json_error(&e))?;
        s.validate()?;
        Ok(s)
    }

    /// The scenario as pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Index of the worker named `name`.
    pub fn worker_index(&self, name: &str) -> Option<usize> {
        self.workers.iter().position(|w| w.name == name)
    }
}
