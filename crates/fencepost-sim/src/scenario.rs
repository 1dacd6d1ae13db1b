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

use crate::object::{names, object};
use crate::secs::fmt_secs;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Serialize};

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

fn is_default<T: Default + PartialEq>(v: &T) -> bool {
    *v == T::default()
}

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

/// The kinds of [`Fault`] (and of fault templates), as named by their `kind` field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FaultKind {
    Pause,
    PauseAt,
    Hold,
    Partition,
    Clock,
    Crash,
    AuthorityRestart,
}

names!(FaultKind {
    Pause = "pause",
    PauseAt = "pause_at",
    Hold = "hold",
    Partition = "partition",
    Clock = "clock",
    Crash = "crash",
    AuthorityRestart = "authority_restart",
});

impl FaultKind {
    /// The fields a fault of this kind has, besides `kind`, in order.
    const fn fields(self) -> &'static [&'static str] {
        match self {
            FaultKind::Pause => &["worker", "at", "for"],
            FaultKind::PauseAt => &["worker", "point", "nth", "for"],
            FaultKind::Hold => &["worker", "nth_write", "for"],
            FaultKind::Partition => &["worker", "from", "to"],
            FaultKind::Clock => &["worker", "skew_ms", "drift_ppm", "jump_at", "jump_ms"],
            FaultKind::Crash => &["worker", "at", "restart_after"],
            FaultKind::AuthorityRestart => &["at", "persisted"],
        }
    }
}

/// Reading objects tagged by a `kind` field (faults, and fault templates) the way serde's
/// internally tagged enums do, without buffering the object.
///
/// Each key is read as its index in the reader's table of names (`kind` first, then every field
/// any kind has), so a reader matches keys by integer, not string by string; a key that is none
/// of them is kept as text, for the error that names it.
pub(crate) mod tagged {
    use alloc::borrow::ToOwned;
    use alloc::string::String;
    use alloc::vec::Vec;
    use core::fmt;

    use serde::de::{self, DeserializeSeed, Deserializer, Visitor};

    /// One key: its index in the names, or the key itself when it is none of them.
    pub(crate) enum Name {
        Known(usize),
        Other(String),
    }

    /// Reads one key against a table of names (`kind` at index 0).
    #[derive(Clone, Copy)]
    pub(crate) struct Names(pub(crate) &'static [&'static str]);

    impl<'de> DeserializeSeed<'de> for Names {
        type Value = Name;

        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Name, D::Error> {
            d.deserialize_identifier(self)
        }
    }

    impl<'de> Visitor<'de> for Names {
        type Value = Name;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a string")
        }

        fn visit_str<E: de::Error>(self, v: &str) -> Result<Name, E> {
            Ok(match self.0.iter().position(|n| *n == v) {
                Some(i) => Name::Known(i),
                None => Name::Other(v.to_owned()),
            })
        }
    }

    /// The keys of one object, in the order read: each of the names once, and the first key none
    /// of them.
    pub(crate) struct Keys {
        names: &'static [&'static str],
        /// Bit `i`: names[i] was read.
        seen: u32,
        /// A key none of the names is in `order`.
        other: bool,
        order: Vec<Name>,
    }

    impl Keys {
        pub(crate) fn new(names: &'static [&'static str]) -> Keys {
            // One bit of `seen` per name.
            debug_assert!(names.len() <= 32);
            Keys {
                names,
                seen: 0,
                other: false,
                order: Vec::new(),
            }
        }

        /// Records `key`, read while the object's kind has the fields `allowed` (none: the kind is
        /// not read yet); refuses one of the names given twice. Returns the index of the field
        /// whose value is to be read, or nothing when the value is to be skipped: a key none of
        /// the names, or a field the kind does not have ([`Keys::only`] reports both). A key none
        /// of the names is never allowed, so [`Keys::only`] reports the first such key (or an
        /// earlier field the kind does not have) whatever follows: later ones, repeats of it
        /// included, are not kept.
        pub(crate) fn add<E: de::Error>(
            &mut self,
            key: Name,
            allowed: Option<&'static [&'static str]>,
        ) -> Result<Option<usize>, E> {
            let read = match key {
                Name::Known(i) => {
                    let name = self.names[i];
                    if self.seen & 1 << i != 0 {
                        return Err(E::duplicate_field(name));
                    }
                    self.seen |= 1 << i;
                    let skip = i != 0 && allowed.is_some_and(|a| !a.contains(&name));
                    (!skip).then_some(i)
                }
                Name::Other(_) if self.other => return Ok(None),
                Name::Other(_) => {
                    self.other = true;
                    None
                }
            };
            self.order.push(key);
            Ok(read)
        }

        /// The first key (besides `kind`) that is not one of `allowed`, as serde's error.
        pub(crate) fn only<E: de::Error>(&self, allowed: &'static [&'static str]) -> Result<(), E> {
            for key in &self.order {
                let k = match key {
                    Name::Known(0) => continue,
                    Name::Known(i) => self.names[*i],
                    Name::Other(k) => k.as_str(),
                };
                if !allowed.contains(&k) {
                    return Err(E::unknown_field(k, allowed));
                }
            }
            Ok(())
        }
    }
}

impl<'de> Deserialize<'de> for Fault {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Fault, D::Error> {
        d.deserialize_map(FaultVisitor)
    }
}

struct FaultVisitor;

impl<'de> Visitor<'de> for FaultVisitor {
    type Value = Fault;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a fault: an object with a `kind`")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Fault, A::Error> {
        use crate::object::need;
        use tagged::{Keys, Names};
        const NAMES: &[&str] = &[
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
        // The match below has an arm for each of the names: one more needs one more arm.
        const _: () = assert!(NAMES.len() == 15);
        let mut keys = Keys::new(NAMES);
        let mut kind: Option<FaultKind> = None;
        let mut worker: Option<String> = None;
        let (mut at, mut for_ms, mut from, mut to) = (None, None, None, None);
        let (mut point, mut nth, mut nth_write) = (None::<Point>, None::<u32>, None::<u32>);
        let (mut skew_ms, mut jump_ms, mut drift_ppm) = (None::<i64>, None::<i64>, None::<i32>);
        let (mut jump_at, mut restart_after) = (None::<u64>, None::<u64>);
        let mut persisted = None::<bool>;
        while let Some(key) = m.next_key_seed(Names(NAMES))? {
            match keys.add(key, kind.map(FaultKind::fields))? {
                Some(0) => kind = Some(m.next_value()?),
                Some(1) => worker = Some(m.next_value()?),
                Some(2) => at = Some(m.next_value()?),
                Some(3) => for_ms = Some(m.next_value()?),
                Some(4) => from = Some(m.next_value()?),
                Some(5) => to = Some(m.next_value()?),
                Some(6) => point = Some(m.next_value()?),
                Some(7) => nth = Some(m.next_value()?),
                Some(8) => nth_write = Some(m.next_value()?),
                Some(9) => skew_ms = Some(m.next_value()?),
                Some(10) => drift_ppm = Some(m.next_value()?),
                Some(11) => jump_at = m.next_value()?,
                Some(12) => jump_ms = Some(m.next_value()?),
                Some(13) => restart_after = m.next_value()?,
                Some(14) => persisted = Some(m.next_value()?),
                // `add` gives an index of NAMES only, all matched above.
                Some(_) | None => {
                    m.next_value::<IgnoredAny>()?;
                }
            }
        }
        let kind = need(kind, "kind")?;
        keys.only(kind.fields())?;
        let worker = || need(worker, "worker");
        Ok(match kind {
            FaultKind::Pause => Fault::Pause {
                worker: worker()?,
                at: need(at, "at")?,
                for_ms: need(for_ms, "for")?,
            },
            FaultKind::PauseAt => Fault::PauseAt {
                worker: worker()?,
                point: need(point, "point")?,
                nth: nth.unwrap_or(1),
                for_ms: need(for_ms, "for")?,
            },
            FaultKind::Hold => Fault::Hold {
                worker: worker()?,
                nth_write: need(nth_write, "nth_write")?,
                for_ms: need(for_ms, "for")?,
            },
            FaultKind::Partition => Fault::Partition {
                worker: worker()?,
                from: need(from, "from")?,
                to: need(to, "to")?,
            },
            FaultKind::Clock => Fault::Clock {
                worker: worker()?,
                skew_ms: skew_ms.unwrap_or(0),
                drift_ppm: drift_ppm.unwrap_or(0),
                jump_at,
                jump_ms: jump_ms.unwrap_or(0),
            },
            FaultKind::Crash => Fault::Crash {
                worker: worker()?,
                at: need(at, "at")?,
                restart_after,
            },
            FaultKind::AuthorityRestart => Fault::AuthorityRestart {
                at: need(at, "at")?,
                persisted: need(persisted, "persisted")?,
            },
        })
    }
}

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

    /// Checks everything types cannot.
    pub fn validate(&self) -> Result<(), ScenarioError> {
        if self.version != SCENARIO_VERSION {
            return Err(ScenarioError::new(
                "version",
                format!("must be {SCENARIO_VERSION}, got {}", self.version),
            ));
        }
        if self.name.len() > 64 {
            return Err(ScenarioError::new("name", "must be at most 64 bytes"));
        }
        time_field("lease_ttl_ms", self.lease_ttl_ms)?;
        if self.lease_ttl_ms == 0 {
            return Err(ScenarioError::new("lease_ttl_ms", "must be greater than 0"));
        }
        time_field("lock_delay_ms", self.lock_delay_ms)?;
        if self.first_token == 0 {
            return Err(ScenarioError::new(
                "first_token",
                "must be at least 1 (token 0 is invalid)",
            ));
        }
        if self.first_token > u64::MAX - 1_000_000 {
            return Err(ScenarioError::new(
                "first_token",
                "leaves too few tokens to run a scenario",
            ));
        }
        time_field("latency_ms.max", self.latency_ms.max)?;
        if self.latency_ms.min > self.latency_ms.max {
            return Err(ScenarioError::new(
                "latency_ms.min",
                "must not be greater than latency_ms.max",
            ));
        }
        if self.workers.is_empty() {
            return Err(ScenarioError::new("workers", "needs at least one worker"));
        }
        if self.workers.len() > MAX_WORKERS {
            return Err(ScenarioError::new(
                "workers",
                format!("at most {MAX_WORKERS} workers"),
            ));
        }
        for (i, w) in self.workers.iter().enumerate() {
            self.check_worker(i, w)
                .map_err(|e| e.under(format_args!("workers[{i}]")))?;
        }
        if self.faults.len() > MAX_FAULTS {
            return Err(ScenarioError::new(
                "faults",
                format!("at most {MAX_FAULTS} faults"),
            ));
        }
        for (i, f) in self.faults.iter().enumerate() {
            self.check_fault(f)
                .map_err(|e| e.under(format_args!("faults[{i}]")))?;
        }
        if let Some(end) = self.end_ms {
            time_field("end_ms", end)?;
        }
        Ok(())
    }

    /// Checks worker `i`; fields are named within it (`job.work_ms`).
    fn check_worker(&self, i: usize, w: &Worker) -> Result<(), ScenarioError> {
        if w.name.is_empty() || w.name.len() > MAX_NAME_LEN {
            return Err(ScenarioError::new(
                "name",
                format!("must be 1 to {MAX_NAME_LEN} bytes"),
            ));
        }
        if matches!(w.name.as_str(), "lock" | "storage" | "net") {
            return Err(ScenarioError::new(
                "name",
                format!("`{}` is reserved", w.name),
            ));
        }
        if self.workers[..i].iter().any(|o| o.name == w.name) {
            return Err(ScenarioError::new(
                "name",
                format!("`{}` is used twice", w.name),
            ));
        }
        time_field("start_ms", w.start_ms)?;
        time_field("job.work_ms", w.job.work_ms)?;
        if w.job.writes == 0 || w.job.writes > MAX_WRITES {
            return Err(ScenarioError::new(
                "job.writes",
                format!("must be 1 to {MAX_WRITES}"),
            ));
        }
        if let Some(r) = w.job.renew_every_ms {
            time_field("job.renew_every_ms", r)?;
            if r == 0 {
                return Err(ScenarioError::new(
                    "job.renew_every_ms",
                    "must be greater than 0",
                ));
            }
        }
        if let Some(r) = w.job.retry_after_ms {
            time_field("job.retry_after_ms", r)?;
            if r == 0 {
                return Err(ScenarioError::new(
                    "job.retry_after_ms",
                    "must be greater than 0",
                ));
            }
        }
        Ok(())
    }

    /// Checks one fault; fields are named within it (`for`).
    fn check_fault(&self, f: &Fault) -> Result<(), ScenarioError> {
        if let Some(name) = f.worker()
            && self.worker_index(name).is_none()
        {
            return Err(ScenarioError::new(
                "worker",
                format!("no worker is named `{name}`"),
            ));
        }
        match f {
            Fault::Pause { at: t, for_ms, .. } => {
                time_field("at", *t)?;
                time_field("for", *for_ms)?;
            }
            Fault::PauseAt { nth, for_ms, .. } => {
                if *nth == 0 {
                    return Err(ScenarioError::new("nth", "counts from 1"));
                }
                time_field("for", *for_ms)?;
            }
            Fault::Hold {
                nth_write, for_ms, ..
            } => {
                if *nth_write == 0 {
                    return Err(ScenarioError::new("nth_write", "counts from 1"));
                }
                time_field("for", *for_ms)?;
            }
            Fault::Partition { from, to, .. } => {
                time_field("to", *to)?;
                if from >= to {
                    return Err(ScenarioError::new("to", "must be after `from`"));
                }
            }
            Fault::Clock {
                skew_ms,
                drift_ppm,
                jump_at,
                jump_ms,
                ..
            } => check_clock(*skew_ms, *drift_ppm, *jump_at, *jump_ms)?,
            Fault::Crash {
                at: t,
                restart_after,
                ..
            } => {
                time_field("at", *t)?;
                if let Some(r) = restart_after {
                    time_field("restart_after", *r)?;
                }
            }
            Fault::AuthorityRestart { at: t, .. } => time_field("at", *t)?,
        }
        Ok(())
    }
}

/// Checks a clock fault's values. A template checks the ends of its ranges with it, each
/// range's `min` then its `max` (`jump_at` already checked as a range of times).
pub(crate) fn check_clock(
    skew_ms: i64,
    drift_ppm: i32,
    jump_at: Option<u64>,
    jump_ms: i64,
) -> Result<(), ScenarioError> {
    if skew_ms.unsigned_abs() > MAX_TIME_MS {
        return Err(ScenarioError::new("skew_ms", "is out of range"));
    }
    if !(-900_000..=1_000_000).contains(&drift_ppm) {
        return Err(ScenarioError::new(
            "drift_ppm",
            "must be between -900000 and 1000000",
        ));
    }
    if let Some(j) = jump_at {
        time_field("jump_at", j)?;
    } else if jump_ms != 0 {
        return Err(ScenarioError::new("jump_at", "is required with jump_ms"));
    }
    if jump_ms.unsigned_abs() > MAX_TIME_MS {
        return Err(ScenarioError::new("jump_ms", "is out of range"));
    }
    Ok(())
}

fn time_field(field: &str, v: u64) -> Result<(), ScenarioError> {
    if v > MAX_TIME_MS {
        Err(ScenarioError::new(
            field,
            format!("must be at most {MAX_TIME_MS} ms"),
        ))
    } else {
        Ok(())
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    const OK: &str =
        r#"{"version":1,"lease_ttl_ms":1000,"workers":[{"name":"A","job":{"work_ms":10}}]}"#;

    #[test]
    fn minimal_scenario_has_defaults() {
        let s = Scenario::from_json(OK).unwrap();
        assert!(s.protections.fencing);
        assert_eq!(s.first_token, 1);
        assert_eq!(s.workers[0].job.writes, 1);
        let back = Scenario::from_json(&s.to_json()).unwrap();
        assert_eq!(back, s);
    }

    fn err_of(json: &str) -> ScenarioError {
        Scenario::from_json(json).unwrap_err()
    }

    fn fault(json: &str) -> Result<Fault, String> {
        serde_json::from_str(json).map_err(|e| {
            let m = e.to_string();
            m[..m.find(" at line").unwrap_or(m.len())].to_string()
        })
    }

    #[test]
    fn faults_read_like_internally_tagged_enums() {
        assert_eq!(
            fault(r#"{"kind":"pause","worker":"A","at":1,"for":2}"#),
            Ok(Fault::Pause {
                worker: "A".into(),
                at: 1,
                for_ms: 2
            })
        );
        assert_eq!(
            fault(r#"{"for":5,"point":"before_write","worker":"A","kind":"pause_at"}"#),
            Ok(Fault::PauseAt {
                worker: "A".into(),
                point: Point::BeforeWrite,
                nth: 1,
                for_ms: 5
            })
        );
        assert_eq!(
            fault(r#"{"kind":"clock","worker":"B","jump_at":null,"drift_ppm":-5}"#),
            Ok(Fault::Clock {
                worker: "B".into(),
                skew_ms: 0,
                drift_ppm: -5,
                jump_at: None,
                jump_ms: 0
            })
        );
        for f in [
            Fault::Crash {
                worker: "A".into(),
                at: 3,
                restart_after: Some(4),
            },
            Fault::AuthorityRestart {
                at: 9,
                persisted: true,
            },
            Fault::Hold {
                worker: "A".into(),
                nth_write: 2,
                for_ms: 7,
            },
            Fault::Partition {
                worker: "A".into(),
                from: 1,
                to: 8,
            },
        ] {
            assert_eq!(fault(&serde_json::to_string(&f).unwrap()), Ok(f));
        }
        let cases = [
            (
                r#"{"kind":"melt"}"#,
                "unknown variant `melt`, expected one of `pause`, `pause_at`, `hold`, `partition`, `clock`, `crash`, `authority_restart`",
            ),
            (r#"{"worker":"A","at":1}"#, "missing field `kind`"),
            (
                r#"{"kind":"pause","worker":"A","at":1}"#,
                "missing field `for`",
            ),
            (
                r#"{"kind":"pause","worker":"A","at":1,"for":2,"point":7}"#,
                "unknown field `point`, expected one of `worker`, `at`, `for`",
            ),
            (
                r#"{"point":"now","kind":"pause","worker":"A","at":1,"for":2}"#,
                "unknown variant `now`, expected one of `after_acquire`, `after_renew_check`, `before_write`",
            ),
            (
                r#"{"at":1,"kind":"pause","worker":"A","for":2,"extra":0}"#,
                "unknown field `extra`, expected one of `worker`, `at`, `for`",
            ),
            (
                r#"{"kind":"pause","kind":"hold"}"#,
                "duplicate field `kind`",
            ),
            (
                r#"{"kind":"pause","worker":"A","at":1,"at":2,"for":3}"#,
                "duplicate field `at`",
            ),
            (
                r#"{"extra":0,"kind":"pause","worker":"A","at":1,"for":2,"extra":1}"#,
                "unknown field `extra`, expected one of `worker`, `at`, `for`",
            ),
            (
                r#"{"kind":"pause","worker":"A","at":1,"for":2,"extra":0,"other":1,"extra":2}"#,
                "unknown field `extra`, expected one of `worker`, `at`, `for`",
            ),
            (r#"{"extra":0,"extra":1}"#, "missing field `kind`"),
            (
                r#"{"kind":"authority_restart","at":1,"persisted":"yes"}"#,
                "invalid type: string \"yes\", expected a boolean",
            ),
            (
                "[1]",
                "invalid type: sequence, expected a fault: an object with a `kind`",
            ),
        ];
        for (json, message) in cases {
            assert_eq!(fault(json), Err(message.to_string()), "{json}");
        }
    }

    #[test]
    fn objects_are_read_from_objects_only() {
        let with = |field: &str| OK.replace("\"workers\"", &format!("{field},\"workers\""));
        let cases = [
            (
                with("\"latency_ms\":[50,60]"),
                "invalid type: sequence, expected struct Latency at line 1 column 46",
            ),
            (
                OK.replace("{\"work_ms\":10}", "[10]"),
                "invalid type: sequence, expected struct Job at line 1 column 62",
            ),
            (
                "[1,\"x\",1000,[]]".to_string(),
                "invalid type: sequence, expected struct Scenario at line 1 column 0",
            ),
            (
                with("\"latency_ms\":{\"min\":1,\"min\":2}"),
                "duplicate field `min` at line 1 column 60",
            ),
            (
                with("\"protections\":{\"fence\":true}"),
                "unknown field `fence`, expected one of `fencing`, `token_kind`, \
                 `idempotency_keys`, `check_before_write` at line 1 column 55",
            ),
            (
                with("\"latency_ms\":{\"max\":2}"),
                "missing field `min` at line 1 column 55",
            ),
        ];
        for (json, message) in cases {
            assert_eq!(err_of(&json).message, message, "{json}");
        }
        let s = Scenario::from_json(&with("\"protections\":{\"idempotency_keys\":true}")).unwrap();
        assert!(s.protections.fencing && s.protections.idempotency_keys);
        let s = Scenario::from_json(&with("\"protections\":{}")).unwrap();
        assert_eq!(s.protections, Protections::default());
        assert_eq!((s.seed, s.end_ms, s.faults.len()), (0, None, 0));
    }

    #[test]
    fn errors_name_the_field() {
        let e = err_of(&OK.replace("\"version\":1", "\"version\":2"));
        assert_eq!(
            (e.field.as_str(), e.message.as_str()),
            ("version", "must be 1, got 2")
        );
        let e = err_of(&OK.replace("\"lease_ttl_ms\":1000", "\"lease_ttl_ms\":0"));
        assert_eq!(e.field, "lease_ttl_ms");
        let e = err_of(&OK.replace("\"work_ms\":10", "\"work_ms\":10,\"wrk\":1"));
        assert_eq!(e.field, "wrk");
        assert!(
            e.message.starts_with("unknown field `wrk`"),
            "{}",
            e.message
        );
        let e = err_of(r#"{"version":1,"workers":[]}"#);
        assert_eq!(e.field, "lease_ttl_ms");
        let e = err_of(&OK.replace(
            "\"workers\":[{",
            "\"workers\":[{\"name\":\"A\",\"job\":{\"work_ms\":1}},{",
        ));
        assert_eq!(
            (e.field.as_str(), e.message.as_str()),
            ("workers[1].name", "`A` is used twice")
        );
        let e = err_of(&OK.replace(
            "]}",
            r#"],"faults":[{"kind":"pause","worker":"Z","at":1,"for":2}]}"#,
        ));
        assert_eq!(
            (e.field.as_str(), e.message.as_str()),
            ("faults[0].worker", "no worker is named `Z`")
        );
        let e = err_of(&OK.replace(
            "]}",
            r#"],"faults":[{"kind":"partition","worker":"A","from":5,"to":5}]}"#,
        ));
        assert_eq!(e.field, "faults[0].to");
        let e = err_of(&OK.replace("]}", r#"],"faults":[{"kind":"melt","worker":"A"}]}"#));
        assert!(
            e.message.contains("unknown variant `melt`"),
            "{}",
            e.message
        );
        let e = err_of("{");
        assert!(e.message.contains("EOF"), "{}", e.message);
        let e = err_of(&OK.replace("\"lease_ttl_ms\":1000", "\"lease_ttl_ms\":-1"));
        assert!(e.message.contains("invalid value"), "{}", e.message);
        let e = err_of(&OK.replace("\"name\":\"A\"", "\"name\":\"lock\""));
        assert_eq!(e.to_string(), "workers[0].name: `lock` is reserved");
    }

    #[test]
    fn names_are_strings_and_say_what_else_was_found() {
        // Every name each enum writes reads back as that variant.
        for p in Point::ALL {
            let json = serde_json::to_string(&p).unwrap();
            assert_eq!(serde_json::from_str::<Point>(&json).unwrap(), p);
        }
        for k in [TokenKind::Ordered, TokenKind::Uuid] {
            let json = serde_json::to_string(&k).unwrap();
            assert_eq!(serde_json::from_str::<TokenKind>(&json).unwrap(), k);
        }
        let kinds = [
            "pause",
            "pause_at",
            "hold",
            "partition",
            "clock",
            "crash",
            "authority_restart",
        ];
        for (i, name) in kinds.iter().enumerate() {
            let k = serde_json::from_str::<FaultKind>(&format!("\"{name}\"")).unwrap();
            assert_eq!(k as usize, i);
        }
        // Anything but a string is refused with what it is; so is the object form serde's
        // derived reader took as a name.
        let message = |json: &str| {
            let mut m = Scenario::from_json(json).unwrap_err().message;
            crate::strip_json_position(&mut m);
            m
        };
        assert_eq!(
            message(&OK.replace(
                "\"workers\"",
                "\"protections\":{\"token_kind\":5},\"workers\""
            )),
            "invalid type: integer `5`, expected `ordered` or `uuid`"
        );
        assert_eq!(
            message(&OK.replace(
                "]}",
                r#"],"faults":[{"kind":{"pause":null},"worker":"A"}]}"#
            )),
            "invalid type: map, expected one of `pause`, `pause_at`, `hold`, `partition`, `clock`, `crash`, `authority_restart`"
        );
        assert_eq!(
            message(&OK.replace(
                "]}",
                r#"],"faults":[{"kind":"pause_at","worker":"A","point":true,"for":1}]}"#
            )),
            "invalid type: boolean `true`, expected one of `after_acquire`, `after_renew_check`, `before_write`"
        );
        assert_eq!(
            message(&OK.replace(
                "\"workers\"",
                "\"protections\":{\"token_kind\":\"big\"},\"workers\""
            )),
            "unknown variant `big`, expected `ordered` or `uuid`"
        );
    }

    #[test]
    fn clock_faults_are_checked() {
        let clock = |fields: &str| {
            let json = OK.replace(
                "]}",
                &format!(r#"],"faults":[{{"kind":"clock","worker":"A"{fields}}}]}}"#),
            );
            Scenario::from_json(&json)
                .map(|_| ())
                .map_err(|e| e.to_string())
        };
        let cases = [
            (
                r#","skew_ms":-1099511627777"#,
                "faults[0].skew_ms: is out of range",
            ),
            (
                r#","drift_ppm":-900001"#,
                "faults[0].drift_ppm: must be between -900000 and 1000000",
            ),
            (
                r#","drift_ppm":1000001"#,
                "faults[0].drift_ppm: must be between -900000 and 1000000",
            ),
            (
                r#","jump_ms":5"#,
                "faults[0].jump_at: is required with jump_ms",
            ),
            (
                r#","jump_at":1099511627777"#,
                "faults[0].jump_at: must be at most 1099511627776 ms",
            ),
            (
                r#","jump_at":1,"jump_ms":1099511627777"#,
                "faults[0].jump_ms: is out of range",
            ),
            // The first problem is reported.
            (
                r#","jump_ms":1099511627777"#,
                "faults[0].jump_at: is required with jump_ms",
            ),
        ];
        for (fields, message) in cases {
            assert_eq!(clock(fields), Err(message.to_string()), "{fields}");
        }
        let ok = r#","skew_ms":-1099511627776,"drift_ppm":-900000,"jump_at":1099511627776,"jump_ms":1099511627776"#;
        assert_eq!(clock(ok), Ok(()));
        assert_eq!(clock(r#","drift_ppm":1000000"#), Ok(()));
    }
}
