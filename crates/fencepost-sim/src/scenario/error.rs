//! Why a scenario (or a template) was refused.

use alloc::format;
use alloc::string::{String, ToString};
use core::fmt;

/// Why a scenario was refused. `field` is a path like `workers[1].job.work_ms`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// Where the problem is (empty when the JSON could not be read at all).
    pub field: String,
    /// What is wrong.
    pub message: String,
}

impl ScenarioError {
    pub(crate) fn new(field: impl Into<String>, message: impl Into<String>) -> ScenarioError {
        ScenarioError {
            field: field.into(),
            message: message.into(),
        }
    }
}

impl ScenarioError {
    /// The error with its field put under `parent` (`faults[2]` and `at`: `faults[2].at`). Paths
    /// are built here, once there is an error, not for every field checked.
    #[inline(never)]
    pub(crate) fn under(mut self, parent: fmt::Arguments<'_>) -> ScenarioError {
        self.field = format!("{parent}.{}", self.field);
        self
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.field, self.message)
        }
    }
}

impl core::error::Error for ScenarioError {}

/// Turns a serde error into one that names the field where serde can say it.
pub(crate) fn json_error(e: &serde_json::Error) -> ScenarioError {
    let msg = e.to_string();
    // serde's messages look like "unknown field `x`, expected ..." or "missing field `y`"; keep the
    // message and, where there is one, lift the field name out.
    let field = msg
        .split('`')
        .nth(1)
        .filter(|_| msg.starts_with("unknown field") || msg.starts_with("missing field"))
        .map(ToString::to_string)
        .unwrap_or_default();
    ScenarioError::new(field, msg)
}
