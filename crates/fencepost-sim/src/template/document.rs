//! The template document: its settings and how its workers are made.

use alloc::string::String;
use alloc::vec::Vec;

use serde::Serialize;

use super::between::{Between, one_write};
use super::fault::FaultTemplate;
use crate::object::object;
use crate::scenario::{Latency, Protections, ScenarioError, json_error};

/// The template format version this crate reads.
pub const TEMPLATE_VERSION: u32 = 1;
/// Most workers a template may ask for (they are named `A` to `Z`).
pub const MAX_TEMPLATE_WORKERS: u32 = 26;

/// A family of scenarios. See the [module docs](crate::template) for the format and the derivation.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Template {
    /// Format version; must be 1.
    pub version: u32,
    /// A short name, given to every derived scenario.
    pub name: String,
    /// Lease length.
    pub lease_ttl_ms: Between<u64>,
    /// Lock-delay after an expiry.
    pub lock_delay_ms: Between<u64>,
    /// First fencing token.
    pub first_token: u64,
    /// One-way latency range, handed to each scenario as is.
    pub latency_ms: Latency,
    /// What protects the storage (sweeps force fencing on and off regardless).
    pub protections: Protections,
    /// The workers.
    pub workers: WorkersTemplate,
    /// What may go wrong.
    pub faults: Vec<FaultTemplate>,
    /// Stop every scenario at this instant.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_ms: Option<u64>,
}

object!(Template {
    version,
    name = String::new(),
    lease_ttl_ms,
    lock_delay_ms = Between::default(),
    first_token = 1,
    latency_ms = Latency::default(),
    protections = Protections::default(),
    workers,
    faults = Vec::new(),
    end_ms = None,
});

/// How the workers are made.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WorkersTemplate {
    /// How many (1 to 26).
    pub count: Between<u32>,
    /// When each starts.
    pub start_ms: Between<u64>,
    /// Work before each write.
    pub work_ms: Between<u64>,
    /// Writes per job (1 to 1000).
    pub writes: Between<u32>,
    /// Periodic renewal, for some workers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub renew: Option<Renew>,
    /// Resending unacknowledged writes, for some workers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retry: Option<Retry>,
}

object!(WorkersTemplate {
    count,
    start_ms = Between::default(),
    work_ms,
    writes = one_write(),
    renew = None,
    retry = None,
});

/// Periodic renewal: each worker renews with this probability, every `every_ms`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Renew {
    /// Chance that a worker renews (0 to 1).
    pub probability: f64,
    /// Renewal period.
    pub every_ms: Between<u64>,
}

object!(Renew {
    probability,
    every_ms,
});

/// Write retries: each worker resends with this probability, after `after_ms`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Retry {
    /// Chance that a worker retries (0 to 1).
    pub probability: f64,
    /// Acknowledgement timeout.
    pub after_ms: Between<u64>,
}

object!(Retry {
    probability,
    after_ms,
});

impl Template {
    /// Parses and validates template JSON.
    pub fn from_json(json: &str) -> Result<Template, ScenarioError> {
        let t: Template = serde_json::from_str(json).map_err(|e| json_error(&e))?;
        t.validate()?;
        Ok(t)
    }

    /// The template as pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}
