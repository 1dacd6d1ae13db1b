//! Errors of a call, kept for the package's JavaScript to throw: a kind (which JavaScript error
//! class), the field it is about and what is wrong.

use fencepost_sim::ScenarioError;

/// Kinds of error, as `error_kind` reports them.
pub mod kind {
    /// No error.
    pub const NONE: u32 = 0;
    /// A value of the wrong type, a missing or unknown field: a `TypeError`.
    pub const TYPE: u32 = 1;
    /// A value out of range or otherwise refused: a `RangeError`.
    pub const RANGE: u32 = 2;
    /// The module's memory cannot grow as far as the call may need: a `RangeError` with a message
    /// the package writes (this one carries none, so that reporting it allocates nothing).
    pub const MEMORY: u32 = 3;
}

/// An error for the caller: its kind, the field it is about (a path such as
/// `workers[1].job.work_ms`, or empty for the whole value) and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Failure {
    pub kind: u32,
    pub field: String,
    pub message: String,
    /// Which of the call's object arguments it is about (0: the first).
    pub part: u32,
}

impl Failure {
    /// A refusal of the simulator's validation (a value out of range, a name that does not
    /// exist).
    pub fn invalid(e: ScenarioError) -> Failure {
        Failure {
            kind: kind::RANGE,
            field: e.field,
            message: e.message,
            part: 0,
        }
    }

    /// A value serde could not turn into the type, at `field`: a wrong type, a missing or unknown
    /// field, or (a RangeError) a number out of range or an unknown name.
    pub fn unreadable(field: String, message: String) -> Failure {
        let kind = if message.starts_with("invalid value")
            || message.starts_with("invalid length")
            || message.starts_with("unknown variant")
        {
            kind::RANGE
        } else {
            kind::TYPE
        };
        Failure {
            kind,
            field,
            message,
            part: 0,
        }
    }

    /// A call that needs more memory than the module can grow to. Holds no text: it is made when
    /// there may be no memory left to hold any.
    pub const fn memory() -> Failure {
        Failure {
            kind: kind::MEMORY,
            field: String::new(),
            message: String::new(),
            part: 0,
        }
    }

    /// The call named an object that does not exist (freed, or never made).
    pub fn missing(what: &str) -> Failure {
        Failure {
            kind: kind::TYPE,
            message: format!("no such {what}"),
            ..Failure::default()
        }
    }
}
