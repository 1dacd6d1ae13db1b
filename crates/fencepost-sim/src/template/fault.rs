//! The faults a template may give, each with its probability and ranges.

use alloc::vec::Vec;

use serde::Serialize;
use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess};

use super::between::{Between, one_write};
use crate::object::need;
use crate::scenario::Point;
use crate::scenario::tagged::{self, FaultKind, Tagged};

fn all_points() -> Vec<Point> {
    Point::ALL.to_vec()
}

/// A fault that may strike, with its probability and ranges.
///
/// In JSON, an object with a `kind` and that kind's fields, read like a [`Fault`](crate::scenario::Fault) (by its own
/// `Deserialize`, with the errors of serde's internally tagged enums).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FaultTemplate {
    /// See [`Fault::Pause`](crate::scenario::Fault::Pause).
    Pause {
        /// Chance per worker.
        probability: f64,
        /// Start.
        at: Between<u64>,
        /// Length.
        #[serde(rename = "for")]
        for_ms: Between<u64>,
    },
    /// See [`Fault::PauseAt`](crate::scenario::Fault::PauseAt).
    PauseAt {
        /// Chance per worker.
        probability: f64,
        /// Points to pick from.
        #[serde(default = "all_points")]
        points: Vec<Point>,
        /// Which time the point is reached.
        #[serde(default = "one_write")]
        nth: Between<u32>,
        /// Length.
        #[serde(rename = "for")]
        for_ms: Between<u64>,
    },
    /// See [`Fault::Hold`](crate::scenario::Fault::Hold).
    Hold {
        /// Chance per worker.
        probability: f64,
        /// Which write.
        #[serde(default = "one_write")]
        nth_write: Between<u32>,
        /// Extra delay.
        #[serde(rename = "for")]
        for_ms: Between<u64>,
    },
    /// See [`Fault::Partition`](crate::scenario::Fault::Partition).
    Partition {
        /// Chance per worker.
        probability: f64,
        /// Start.
        from: Between<u64>,
        /// Length (at least 1).
        #[serde(rename = "for")]
        for_ms: Between<u64>,
    },
    /// See [`Fault::Clock`](crate::scenario::Fault::Clock).
    Clock {
        /// Chance per worker.
        probability: f64,
        /// Constant offset.
        #[serde(default)]
        skew_ms: Between<i64>,
        /// Rate error (-900000 to 1000000).
        #[serde(default)]
        drift_ppm: Between<i32>,
        /// When the clock jumps (none: no jump).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        jump_at: Option<Between<u64>>,
        /// How far.
        #[serde(default)]
        jump_ms: Between<i64>,
    },
    /// See [`Fault::Crash`](crate::scenario::Fault::Crash).
    Crash {
        /// Chance per worker.
        probability: f64,
        /// When.
        at: Between<u64>,
        /// Restart delay (none: stays down).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        restart_after: Option<Between<u64>>,
    },
    /// See [`Fault::AuthorityRestart`](crate::scenario::Fault::AuthorityRestart).
    AuthorityRestart {
        /// Chance per scenario.
        probability: f64,
        /// When.
        at: Between<u64>,
        /// Whether it restores persisted state.
        persisted: bool,
    },
}

impl FaultTemplate {
    /// Its probability.
    pub fn probability(&self) -> f64 {
        match self {
            FaultTemplate::Pause { probability, .. }
            | FaultTemplate::PauseAt { probability, .. }
            | FaultTemplate::Hold { probability, .. }
            | FaultTemplate::Partition { probability, .. }
            | FaultTemplate::Clock { probability, .. }
            | FaultTemplate::Crash { probability, .. }
            | FaultTemplate::AuthorityRestart { probability, .. } => *probability,
        }
    }
}

impl<'de> Deserialize<'de> for FaultTemplate {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<FaultTemplate, D::Error> {
        tagged::deserialize(d)
    }
}

/// The fields of a fault template read so far.
#[derive(Default)]
pub(crate) struct FaultTemplateFields {
    probability: Option<f64>,
    at: Option<Between<u64>>,
    for_ms: Option<Between<u64>>,
    from: Option<Between<u64>>,
    points: Option<Vec<Point>>,
    nth: Option<Between<u32>>,
    nth_write: Option<Between<u32>>,
    skew_ms: Option<Between<i64>>,
    drift_ppm: Option<Between<i32>>,
    jump_at: Option<Between<u64>>,
    jump_ms: Option<Between<i64>>,
    restart_after: Option<Between<u64>>,
    persisted: Option<bool>,
}

impl Tagged for FaultTemplate {
    const EXPECTING: &'static str = "a fault template: an object with a `kind`";
    const NAMES: &'static [&'static str] = &[
        "kind",
        "probability",
        "at",
        "for",
        "from",
        "points",
        "nth",
        "nth_write",
        "skew_ms",
        "drift_ppm",
        "jump_at",
        "jump_ms",
        "restart_after",
        "persisted",
    ];
    type Fields = FaultTemplateFields;

    /// The fields of a fault's kind, with a probability for the worker it names.
    fn fields(kind: FaultKind) -> &'static [&'static str] {
        match kind {
            FaultKind::Pause => &["probability", "at", "for"],
            FaultKind::PauseAt => &["probability", "points", "nth", "for"],
            FaultKind::Hold => &["probability", "nth_write", "for"],
            FaultKind::Partition => &["probability", "from", "for"],
            FaultKind::Clock => &["probability", "skew_ms", "drift_ppm", "jump_at", "jump_ms"],
            FaultKind::Crash => &["probability", "at", "restart_after"],
            FaultKind::AuthorityRestart => &["probability", "at", "persisted"],
        }
    }

    fn read<'de, A: MapAccess<'de>>(
        f: &mut FaultTemplateFields,
        i: usize,
        m: &mut A,
    ) -> Result<(), A::Error> {
        // The match has an arm for each of the names: one more needs one more arm.
        const _: () = assert!(FaultTemplate::NAMES.len() == 14);
        match i {
            1 => f.probability = Some(m.next_value()?),
            2 => f.at = Some(m.next_value()?),
            3 => f.for_ms = Some(m.next_value()?),
            4 => f.from = Some(m.next_value()?),
            5 => f.points = Some(m.next_value()?),
            6 => f.nth = Some(m.next_value()?),
            7 => f.nth_write = Some(m.next_value()?),
            8 => f.skew_ms = Some(m.next_value()?),
            9 => f.drift_ppm = Some(m.next_value()?),
            10 => f.jump_at = m.next_value()?,
            11 => f.jump_ms = Some(m.next_value()?),
            12 => f.restart_after = m.next_value()?,
            13 => f.persisted = Some(m.next_value()?),
            // The reader gives an index of the names only, all matched above.
            _ => {
                m.next_value::<IgnoredAny>()?;
            }
        }
        Ok(())
    }

    fn build<E: de::Error>(kind: FaultKind, f: FaultTemplateFields) -> Result<FaultTemplate, E> {
        let probability = need(f.probability, "probability")?;
        Ok(match kind {
            FaultKind::Pause => FaultTemplate::Pause {
                probability,
                at: need(f.at, "at")?,
                for_ms: need(f.for_ms, "for")?,
            },
            FaultKind::PauseAt => FaultTemplate::PauseAt {
                probability,
                points: f.points.unwrap_or_else(all_points),
                nth: f.nth.unwrap_or_else(one_write),
                for_ms: need(f.for_ms, "for")?,
            },
            FaultKind::Hold => FaultTemplate::Hold {
                probability,
                nth_write: f.nth_write.unwrap_or_else(one_write),
                for_ms: need(f.for_ms, "for")?,
            },
            FaultKind::Partition => FaultTemplate::Partition {
                probability,
                from: need(f.from, "from")?,
                for_ms: need(f.for_ms, "for")?,
            },
            FaultKind::Clock => FaultTemplate::Clock {
                probability,
                skew_ms: f.skew_ms.unwrap_or_default(),
                drift_ppm: f.drift_ppm.unwrap_or_default(),
                jump_at: f.jump_at,
                jump_ms: f.jump_ms.unwrap_or_default(),
            },
            FaultKind::Crash => FaultTemplate::Crash {
                probability,
                at: need(f.at, "at")?,
                restart_after: f.restart_after,
            },
            FaultKind::AuthorityRestart => FaultTemplate::AuthorityRestart {
                probability,
                at: need(f.at, "at")?,
                persisted: need(f.persisted, "persisted")?,
            },
        })
    }
}
