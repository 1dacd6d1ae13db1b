//! What goes wrong in a scenario, and where in a job a pause can be injected.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use serde::Serialize;
use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess};

use super::tagged::{self, FaultKind, Tagged};
use crate::object::{is_default, names, need};
use crate::secs::fmt_secs;

/// A point in a worker's job where a pause can be injected.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Point {
    /// Right after the worker learns it was granted the lock.
    AfterAcquire,
    /// Right after a check-before-write renew succeeded.
    AfterRenewCheck,
    /// Right before a write is sent.
    BeforeWrite,
}

names!(Point {
    AfterAcquire = "after_acquire",
    AfterRenewCheck = "after_renew_check",
    BeforeWrite = "before_write",
});

impl Point {
    /// Every point, in job order.
    pub const ALL: [Point; 3] = [
        Point::AfterAcquire,
        Point::AfterRenewCheck,
        Point::BeforeWrite,
    ];

    /// The snake_case name.
    pub const fn name(self) -> &'static str {
        match self {
            Point::AfterAcquire => "after_acquire",
            Point::AfterRenewCheck => "after_renew_check",
            Point::BeforeWrite => "before_write",
        }
    }
}

/// Something that goes wrong.
///
/// In JSON, an object with a `kind` and that kind's fields (and no others). It is read by
/// [`Fault`]'s own `Deserialize`, which reports the same errors as serde's internally tagged
/// enums but reads each field straight from the input instead of buffering the whole object
/// first: much less code in the WebAssembly simulator, and errors that point at the field.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Fault {
    /// The worker freezes (GC pause, VM suspend) from `at` for `for` ms: it handles nothing and its
    /// timers wait; on resume it carries on where it stopped.
    Pause {
        /// Worker name.
        worker: String,
        /// Start of the pause.
        at: u64,
        /// Length of the pause.
        #[serde(rename = "for")]
        for_ms: u64,
    },
    /// The worker freezes the `nth` time (1-based) it reaches `point`, for `for` ms.
    PauseAt {
        /// Worker name.
        worker: String,
        /// Where in its job.
        point: Point,
        /// Which time it gets there (1-based).
        nth: u32,
        /// Length of the pause.
        #[serde(rename = "for")]
        for_ms: u64,
    },
    /// The worker's `nth_write` (1-based, counting resends) is held in the network for `for` ms
    /// longer than its latency.
    Hold {
        /// Worker name.
        worker: String,
        /// Which write message (1-based).
        nth_write: u32,
        /// Extra delay.
        #[serde(rename = "for")]
        for_ms: u64,
    },
    /// Messages to and from the worker sent during `from..to` are stuck until `to`.
    Partition {
        /// Worker name.
        worker: String,
        /// Start.
        from: u64,
        /// End (exclusive).
        to: u64,
    },
    /// The worker's clock is off: a fixed skew, a drift, and/or a jump at one instant.
    Clock {
        /// Worker name.
        worker: String,
        /// Constant offset (may be negative).
        #[serde(default, skip_serializing_if = "is_default")]
        skew_ms: i64,
        /// Rate error in parts per million (negative: runs slow). Between -900000 and 1000000.
        #[serde(default, skip_serializing_if = "is_default")]
        drift_ppm: i32,
        /// When the clock jumps.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        jump_at: Option<u64>,
        /// How far it jumps (may be negative).
        #[serde(default, skip_serializing_if = "is_default")]
        jump_ms: i64,
    },
    /// The worker process dies at `at` and, if `restart_after` is given, a fresh process (a new
    /// holder identity, same name) starts the job over that long after.
    Crash {
        /// Worker name.
        worker: String,
        /// When it dies.
        at: u64,
        /// Delay before the restart (none: stays down).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        restart_after: Option<u64>,
    },
    /// The lock service restarts at `at`. `persisted`: it restores the state it persisted under
    /// fencepost's contract; otherwise it starts from scratch and tokens begin again.
    AuthorityRestart {
        /// When.
        at: u64,
        /// Whether it restores persisted state.
        persisted: bool,
    },
}

impl Fault {
    /// The fault in one phrase, e.g. "A freezes at 1 s for 45 s".
    pub fn describe(&self) -> String {
        match self {
            Fault::Pause { worker, at, for_ms } => {
                format!(
                    "{worker} freezes at {} for {}",
                    fmt_secs(*at),
                    fmt_secs(*for_ms)
                )
            }
            Fault::PauseAt {
                worker,
                point,
                nth,
                for_ms,
            } => format!(
                "{worker} freezes {} (time {nth}) for {}",
                point.name().replace('_', " "),
                fmt_secs(*for_ms)
            ),
            Fault::Hold {
                worker,
                nth_write,
                for_ms,
            } => format!(
                "{worker}'s write {nth_write} is held in the network for {}",
                fmt_secs(*for_ms)
            ),
            Fault::Partition { worker, from, to } => format!(
                "{worker} is cut off from {} to {}",
                fmt_secs(*from),
                fmt_secs(*to)
            ),
            Fault::Clock {
                worker,
                skew_ms,
                drift_ppm,
                jump_at,
                jump_ms,
            } => {
                let mut parts = Vec::new();
                if *skew_ms != 0 {
                    parts.push(format!("off by {skew_ms} ms"));
                }
                if *drift_ppm != 0 {
                    parts.push(format!(
                        "runs at {}% speed",
                        (1_000_000 + i64::from(*drift_ppm)) / 10_000
                    ));
                }
                if let Some(at) = jump_at {
                    parts.push(format!("jumps {jump_ms} ms at {}", fmt_secs(*at)));
                }
                format!("{worker}'s clock {}", parts.join(", "))
            }
            Fault::Crash {
                worker,
                at,
                restart_after,
            } => match restart_after {
                Some(r) => format!(
                    "{worker} crashes at {} and restarts {} later",
                    fmt_secs(*at),
                    fmt_secs(*r)
                ),
                None => format!("{worker} crashes at {} for good", fmt_secs(*at)),
            },
            Fault::AuthorityRestart { at, persisted } => format!(
                "the lock service restarts at {} ({})",
                fmt_secs(*at),
                if *persisted {
                    "restoring its state"
                } else {
                    "forgetting everything"
                }
            ),
        }
    }

    /// The worker the fault hits, if any.
    pub fn worker(&self) -> Option<&str> {
        match self {
            Fault::Pause { worker, .. }
            | Fault::PauseAt { worker, .. }
            | Fault::Hold { worker, .. }
            | Fault::Partition { worker, .. }
            | Fault::Clock { worker, .. }
            | Fault::Crash { worker, .. } => Some(worker),
            Fault::AuthorityRestart { .. } => None,
        }
    }

    /// The snake_case kind name.
    pub const fn kind(&self) -> &'static str {
        match self {
            Fault::Pause { .. } => "pause",
            Fault::PauseAt { .. } => "pause_at",
            Fault::Hold { .. } => "hold",
            Fault::Partition { .. } => "partition",
            Fault::Clock { .. } => "clock",
            Fault::Crash { .. } => "crash",
            Fault::AuthorityRestart { .. } => "authority_restart",
        }
    }
}

impl<'de> Deserialize<'de> for Fault {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Fault, D::Error> {
        tagged::deserialize(d)
    }
}

/// The fields of a fault read so far.
#[derive(Default)]
pub(crate) struct FaultFields {
    worker: Option<String>,
    at: Option<u64>,
    for_ms: Option<u64>,
    from: Option<u64>,
    to: Option<u64>,
    point: Option<Point>,
    nth: Option<u32>,
    nth_write: Option<u32>,
    skew_ms: Option<i64>,
    drift_ppm: Option<i32>,
    jump_at: Option<u64>,
    jump_ms: Option<i64>,
    restart_after: Option<u64>,
    persisted: Option<bool>,
}

impl Tagged for Fault {
    const EXPECTING: &'static str = "a fault: an object with a `kind`";
    const NAMES: &'static [&'static str] = &[
        "kind",
        "worker",
        "at",
        "for",
        "from",
        "to",
        "point",
        "nth",
        "nth_write",
        "skew_ms",
        "drift_ppm",
        "jump_at",
        "jump_ms",
        "restart_after",
        "persisted",
    ];
    type Fields = FaultFields;

    fn fields(kind: FaultKind) -> &'static [&'static str] {
        match kind {
            FaultKind::Pause => &["worker", "at", "for"],
            FaultKind::PauseAt => &["worker", "point", "nth", "for"],
            FaultKind::Hold => &["worker", "nth_write", "for"],
            FaultKind::Partition => &["worker", "from", "to"],
            FaultKind::Clock => &["worker", "skew_ms", "drift_ppm", "jump_at", "jump_ms"],
            FaultKind::Crash => &["worker", "at", "restart_after"],
            FaultKind::AuthorityRestart => &["at", "persisted"],
        }
    }

    fn read<'de, A: MapAccess<'de>>(
        f: &mut FaultFields,
        i: usize,
        m: &mut A,
    ) -> Result<(), A::Error> {
        // The match has an arm for each of the names: one more needs one more arm.
        const _: () = assert!(Fault::NAMES.len() == 15);
        match i {
            1 => f.worker = Some(m.next_value()?),
            2 => f.at = Some(m.next_value()?),
            3 => f.for_ms = Some(m.next_value()?),
            4 => f.from = Some(m.next_value()?),
            5 => f.to = Some(m.next_value()?),
            6 => f.point = Some(m.next_value()?),
            7 => f.nth = Some(m.next_value()?),
            8 => f.nth_write = Some(m.next_value()?),
            9 => f.skew_ms = Some(m.next_value()?),
            10 => f.drift_ppm = Some(m.next_value()?),
            11 => f.jump_at = m.next_value()?,
            12 => f.jump_ms = Some(m.next_value()?),
            13 => f.restart_after = m.next_value()?,
            14 => f.persisted = Some(m.next_value()?),
            // The reader gives an index of the names only, all matched above.
            _ => {
                m.next_value::<IgnoredAny>()?;
            }
        }
        Ok(())
    }

    fn build<E: de::Error>(kind: FaultKind, f: FaultFields) -> Result<Fault, E> {
        let worker = || need(f.worker, "worker");
        Ok(match kind {
            FaultKind::Pause => Fault::Pause {
                worker: worker()?,
                at: need(f.at, "at")?,
                for_ms: need(f.for_ms, "for")?,
            },
            FaultKind::PauseAt => Fault::PauseAt {
                worker: worker()?,
                point: need(f.point, "point")?,
                nth: f.nth.unwrap_or(1),
                for_ms: need(f.for_ms, "for")?,
            },
            FaultKind::Hold => Fault::Hold {
                worker: worker()?,
                nth_write: need(f.nth_write, "nth_write")?,
                for_ms: need(f.for_ms, "for")?,
            },
            FaultKind::Partition => Fault::Partition {
                worker: worker()?,
                from: need(f.from, "from")?,
                to: need(f.to, "to")?,
            },
            FaultKind::Clock => Fault::Clock {
                worker: worker()?,
                skew_ms: f.skew_ms.unwrap_or(0),
                drift_ppm: f.drift_ppm.unwrap_or(0),
                jump_at: f.jump_at,
                jump_ms: f.jump_ms.unwrap_or(0),
            },
            FaultKind::Crash => Fault::Crash {
                worker: worker()?,
                at: need(f.at, "at")?,
                restart_after: f.restart_after,
            },
            FaultKind::AuthorityRestart => Fault::AuthorityRestart {
                at: need(f.at, "at")?,
                persisted: need(f.persisted, "persisted")?,
            },
        })
    }
}
