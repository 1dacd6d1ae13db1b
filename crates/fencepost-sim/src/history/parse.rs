//! Reading one line: today's write-log line, or a campaign line of one of the kinds.

use alloc::borrow::Cow;
use alloc::format;
use alloc::string::{String, ToString};
use core::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, Visitor};

use super::MAX_NAME;
use super::faults::{Nemesis, Phase};
use crate::object::{Key, names, need, put};

/// What a storage did with a write.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Applied.
    Ok,
    /// Refused.
    Rejected,
}

names!(Outcome {
    Ok = "ok",
    Rejected = "rejected",
});

/// The answer a client had to a write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Answer {
    Ok,
    Rejected,
    Unknown,
}

names!(Answer {
    Ok = "ok",
    Rejected = "rejected",
    Unknown = "unknown",
});

/// What a client's keeper said of a lock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum State {
    Acquiring,
    Held,
    Uncertain,
    Lost,
    Released,
}

names!(State {
    Acquiring = "acquiring",
    Held = "held",
    Uncertain = "uncertain",
    Lost = "lost",
    Released = "released",
});

/// A line's kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Grant,
    Belief,
    Write,
    Final,
    Fault,
    Campaign,
}

names!(Kind {
    Grant = "grant",
    Belief = "belief",
    Write = "write",
    Final = "final",
    Fault = "fault",
    Campaign = "campaign",
});

impl Kind {
    const fn name(self) -> &'static str {
        match self {
            Kind::Grant => "grant",
            Kind::Belief => "belief",
            Kind::Write => "write",
            Kind::Final => "final",
            Kind::Fault => "fault",
            Kind::Campaign => "campaign",
        }
    }
}

/// One store line (no `kind`).
#[derive(Debug)]
pub(crate) struct Line<'a> {
    pub(crate) t: u64,
    pub(crate) resource: Cow<'a, str>,
    pub(crate) writer: Cow<'a, str>,
    pub(crate) token: u64,
    pub(crate) result: Outcome,
}

/// One parsed line.
#[derive(Debug)]
pub(crate) enum Event<'a> {
    Store(Line<'a>),
    Grant {
        t: u64,
        process: Cow<'a, str>,
        lock: Cow<'a, str>,
        token: u64,
    },
    Belief {
        t: u64,
        process: Cow<'a, str>,
        lock: Cow<'a, str>,
        state: State,
        /// Set for `held` and `uncertain`.
        safe_until: u64,
    },
    Write {
        t: u64,
        process: Cow<'a, str>,
        resource: Cow<'a, str>,
        token: u64,
        answer: Answer,
    },
    Final {
        t: u64,
        resource: Cow<'a, str>,
        /// 0 for a resource that holds no row.
        token: u64,
    },
    Fault {
        t: u64,
        nemesis: Nemesis,
        target: Cow<'a, str>,
        phase: Phase,
        within_drift: Option<bool>,
    },
    /// What the campaign's runner says of itself (its start with the seed, a fault it skipped,
    /// its stop): part of the record, nothing to check.
    Campaign {
        t: u64,
    },
}

/// Read as serde's derive would (other fields skipped, the same errors), from an object only:
/// [`parse`] refuses anything else before reading, so no reader of arrays is compiled in.
impl<'de> Deserialize<'de> for Line<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Line<'de>, D::Error> {
        d.deserialize_map(LineVisitor)
    }
}

struct LineVisitor;

impl<'de> Visitor<'de> for LineVisitor {
    type Value = Line<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("struct Line")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Line<'de>, A::Error> {
        let key = Key {
            fields: &["t", "resource", "writer", "token", "result"],
            others: true,
        };
        let (mut t, mut resource, mut writer) = (None, None::<Text<'de>>, None::<Text<'de>>);
        let (mut token, mut result) = (None, None);
        while let Some(k) = m.next_key_seed(key)? {
            // k is the key's index in `fields` above (5: any other key).
            match k {
                0 => put(&mut m, &mut t, "t")?,
                1 => put(&mut m, &mut resource, "resource")?,
                2 => put(&mut m, &mut writer, "writer")?,
                3 => put(&mut m, &mut token, "token")?,
                4 => put(&mut m, &mut result, "result")?,
                _ => {
                    m.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(Line {
            t: need(t, "t")?,
            resource: need(resource, "resource")?.0,
            writer: need(writer, "writer")?.0,
            token: need(token, "token")?,
            result: need(result, "result")?,
        })
    }
}

/// A line's `kind`, if it has one (every other field skipped).
struct KindOnly(Option<Kind>);

impl<'de> Deserialize<'de> for KindOnly {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<KindOnly, D::Error> {
        d.deserialize_map(KindVisitor)
    }
}

struct KindVisitor;

impl<'de> Visitor<'de> for KindVisitor {
    type Value = KindOnly;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("struct Line")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<KindOnly, A::Error> {
        let key = Key {
            fields: &["kind"],
            others: true,
        };
        let mut kind = None;
        while let Some(k) = m.next_key_seed(key)? {
            if k == 0 {
                put(&mut m, &mut kind, "kind")?;
            } else {
                m.next_value::<IgnoredAny>()?;
            }
        }
        Ok(KindOnly(kind))
    }
}

/// The fields of a campaign line of a known kind.
#[derive(Default)]
struct Fields<'a> {
    t: Option<u64>,
    process: Option<Text<'a>>,
    resource: Option<Text<'a>>,
    lock: Option<Text<'a>>,
    token: Option<u64>,
    answer: Option<Answer>,
    state: Option<State>,
    safe_until: Option<u64>,
    nemesis: Option<Nemesis>,
    target: Option<Text<'a>>,
    phase: Option<Phase>,
    within_drift: Option<bool>,
}

/// Reads the fields a kind uses (others, `kind` included, are skipped).
struct KindedVisitor(Kind);

const FIELDS: &[&str] = &[
    "t",
    "process",
    "resource",
    "lock",
    "token",
    "result",
    "state",
    "safe_until",
    "nemesis",
    "target",
    "phase",
    "within_drift",
];

impl<'de> Visitor<'de> for KindedVisitor {
    type Value = Fields<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("struct Line")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Fields<'de>, A::Error> {
        let key = Key {
            fields: FIELDS,
            others: true,
        };
        let mut f = Fields::default();
        while let Some(k) = m.next_key_seed(key)? {
            match k {
                0 => put(&mut m, &mut f.t, "t")?,
                // The runner's own lines carry what it likes; only their time is read.
                _ if self.0 == Kind::Campaign => {
                    m.next_value::<IgnoredAny>()?;
                }
                1 => put(&mut m, &mut f.process, "process")?,
                2 => put(&mut m, &mut f.resource, "resource")?,
                3 => put(&mut m, &mut f.lock, "lock")?,
                4 => put(&mut m, &mut f.token, "token")?,
                // `result` is a write's answer; other kinds have none to read.
                5 if self.0 == Kind::Write => put(&mut m, &mut f.answer, "result")?,
                6 if self.0 == Kind::Belief => put(&mut m, &mut f.state, "state")?,
                7 if self.0 == Kind::Belief => {
                    // Absent from beliefs that end: null is as good as absent.
                    let v: Option<u64> = m.next_value()?;
                    f.safe_until = v;
                }
                8 => put(&mut m, &mut f.nemesis, "nemesis")?,
                9 => put(&mut m, &mut f.target, "target")?,
                10 => put(&mut m, &mut f.phase, "phase")?,
                11 => {
                    let v: Option<bool> = m.next_value()?;
                    f.within_drift = v;
                }
                _ => {
                    m.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(f)
    }
}

/// A string borrowed from the input where it has no escapes.
pub(crate) struct Text<'a>(pub(crate) Cow<'a, str>);

impl<'de> Deserialize<'de> for Text<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Text<'de>, D::Error> {
        d.deserialize_str(TextVisitor)
    }
}

struct TextVisitor;

impl<'de> Visitor<'de> for TextVisitor {
    type Value = Text<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Text<'de>, E> {
        Ok(Text(Cow::Borrowed(v)))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Text<'de>, E> {
        Ok(Text(Cow::Owned(v.into())))
    }
}

/// serde_json's message without " at line 1 column N", with the column after it.
fn message(e: &serde_json::Error) -> String {
    let mut msg = e.to_string();
    if crate::strip_json_position(&mut msg) {
        msg = format!("{msg} (column {})", e.column());
    }
    msg
}

/// A name's length checked.
fn name<'a>(field: &str, v: Cow<'a, str>) -> Result<Cow<'a, str>, String> {
    if v.is_empty() || v.len() > MAX_NAME {
        return Err(format!("{field}: must be 1 to {MAX_NAME} bytes"));
    }
    Ok(v)
}

fn token_ok(token: u64) -> Result<u64, String> {
    if token == 0 {
        return Err("token: must be at least 1 (token 0 is never granted)".to_string());
    }
    Ok(token)
}

/// Reads one line (not blank, not too long).
pub(crate) fn parse(bytes: &[u8]) -> Result<Event<'_>, String> {
    if bytes.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
        return Err("expected a JSON object".to_string());
    }
    // Only a line that mentions `kind` can have one: a write log is read in one pass.
    if bytes.windows(6).any(|w| w == b"\"kind\"") {
        let KindOnly(kind) = serde_json::from_slice(bytes).map_err(|e| message(&e))?;
        if let Some(kind) = kind {
            return kinded(bytes, kind).map_err(|m| format!("{}: {m}", kind.name()));
        }
    }
    let line: Line<'_> = serde_json::from_slice(bytes).map_err(|e| message(&e))?;
    let resource = name("resource", line.resource)?;
    let writer = name("writer", line.writer)?;
    let token = token_ok(line.token)?;
    Ok(Event::Store(Line {
        resource,
        writer,
        token,
        ..line
    }))
}

/// A required name field.
fn text<'a>(v: Option<Text<'a>>, field: &'static str) -> Result<Cow<'a, str>, String> {
    match v {
        Some(Text(s)) => name(field, s),
        None => Err(format!("missing field `{field}`")),
    }
}

/// Reads a line of a known kind, requiring the fields it needs.
fn kinded(bytes: &[u8], kind: Kind) -> Result<Event<'_>, String> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let fields = de
        .deserialize_map(KindedVisitor(kind))
        .and_then(|f| de.end().map(|()| f));
    let f = fields.map_err(|e| message(&e))?;
    let missing = |name: &str| format!("missing field `{name}`");
    let t = f.t.ok_or_else(|| missing("t"))?;
    // A fault's or a final row's recorder (the nemesis, the runner) is not needed: only the
    // kinds that say what a client did require `process`.
    Ok(match kind {
        Kind::Grant => Event::Grant {
            t,
            process: text(f.process, "process")?,
            lock: text(f.lock, "lock")?,
            token: token_ok(f.token.ok_or_else(|| missing("token"))?)?,
        },
        Kind::Belief => {
            let state = f.state.ok_or_else(|| missing("state"))?;
            let believes = matches!(state, State::Held | State::Uncertain);
            let safe_until = match (believes, f.safe_until) {
                (true, Some(s)) => s,
                (true, None) => {
                    return Err("missing field `safe_until` (held and uncertain carry it)".into());
                }
                (false, _) => 0,
            };
            Event::Belief {
                t,
                process: text(f.process, "process")?,
                lock: text(f.lock, "lock")?,
                state,
                safe_until,
            }
        }
        Kind::Write => Event::Write {
            t,
            process: text(f.process, "process")?,
            resource: text(f.resource, "resource")?,
            token: token_ok(f.token.ok_or_else(|| missing("token"))?)?,
            answer: f.answer.ok_or_else(|| missing("result"))?,
        },
        Kind::Final => Event::Final {
            t,
            resource: text(f.resource, "resource")?,
            token: f.token.ok_or_else(|| missing("token"))?,
        },
        Kind::Campaign => Event::Campaign { t },
        Kind::Fault => {
            let nemesis = f.nemesis.ok_or_else(|| missing("nemesis"))?;
            let phase = f.phase.ok_or_else(|| missing("phase"))?;
            if nemesis.is_clock() && phase == Phase::Start && f.within_drift.is_none() {
                return Err(
                    "missing field `within_drift` (a clock fault's start carries it)".into(),
                );
            }
            Event::Fault {
                t,
                nemesis,
                target: text(f.target, "target")?,
                phase,
                within_drift: f.within_drift,
            }
        }
    })
}
