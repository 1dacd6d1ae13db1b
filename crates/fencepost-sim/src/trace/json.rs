//! A trace as JSON: actor references become names.

use serde::Serialize;
use serde::ser::{SerializeStruct, Serializer};

use super::event::{Detail, Event, JobEnd, LossWhy, Msg, RejectReason};
use super::record::{AppliedWrite, Trace};

/// The detail of an event as it appears in JSON: actor references become names.
#[derive(Serialize, Default)]
struct DetailJson<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    msg: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    what: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    to: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    from: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    sent_at: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    deliver_at: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    asked_at: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    believed_until: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    why: Option<LossWhy>,
    #[serde(skip_serializing_if = "Option::is_none")]
    holder: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    requester: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    writer: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    op: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    expires_at: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    until: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    retry_at: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    free_at: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    previous: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    highest: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<RejectReason>,
    #[serde(skip_serializing_if = "Option::is_none")]
    accepted: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ok: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reentry: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    end: Option<JobEnd>,
    #[serde(skip_serializing_if = "Option::is_none")]
    incarnation: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    by_ms: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    persisted: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    next_token: Option<u64>,
}

impl<'a> DetailJson<'a> {
    fn of(trace: &'a Trace, d: &Detail) -> DetailJson<'a> {
        let mut j = DetailJson::default();
        match *d {
            Detail::Send { .. } | Detail::Deliver { .. } => j.message(trace, d),
            Detail::Grant { .. }
            | Detail::Deny { .. }
            | Detail::Renew { .. }
            | Detail::RenewLost { .. }
            | Detail::Release { .. }
            | Detail::Expire { .. } => j.lock(trace, d),
            _ => j.other(trace, d),
        }
        j
    }

    /// The fields of a message sent or delivered.
    fn message(&mut self, trace: &'a Trace, d: &Detail) {
        let j = self;
        match *d {
            Detail::Send {
                msg,
                to,
                what,
                deliver_at,
                believed_until,
            } => {
                j.msg = Some(msg);
                j.to = Some(trace.name(to));
                j.deliver_at = Some(deliver_at);
                j.believed_until = believed_until;
                j.msg_fields(&what);
            }
            Detail::Deliver {
                msg,
                from,
                what,
                sent_at,
                believed_until,
            } => {
                j.msg = Some(msg);
                j.from = Some(trace.name(from));
                j.sent_at = Some(sent_at);
                j.believed_until = believed_until;
                // The renew it answers left the worker then: the keeper counts from there.
                j.asked_at = what.asked_at(sent_at);
                j.msg_fields(&what);
            }
            _ => {}
        }
    }

    /// The fields of what `what` asks or answers.
    fn msg_fields(&mut self, what: &Msg) {
        let j = self;
        j.what = Some(what.name());
        match *what {
            Msg::Write { op, .. } | Msg::Ack { op, .. } => j.op = Some(op),
            Msg::Granted { expires_at } | Msg::Renewed { expires_at, .. } => {
                j.expires_at = Some(expires_at);
            }
            Msg::Denied { retry_at } => j.retry_at = Some(retry_at),
            _ => {}
        }
        if let Msg::Ack { accepted, .. } = *what {
            j.accepted = Some(accepted);
        }
    }

    /// The fields of what the lock service did.
    fn lock(&mut self, trace: &'a Trace, d: &Detail) {
        let w = |i: u16| Some(trace.worker(i));
        let j = self;
        match *d {
            Detail::Grant {
                holder,
                expires_at,
                reentry,
            } => {
                j.holder = w(holder);
                j.expires_at = Some(expires_at);
                j.reentry = Some(reentry);
            }
            Detail::Deny {
                requester,
                holder,
                until,
            } => {
                j.requester = w(requester);
                j.holder = holder.and_then(w);
                j.until = Some(until);
            }
            Detail::Renew { holder, expires_at } => {
                j.holder = w(holder);
                j.expires_at = Some(expires_at);
            }
            Detail::RenewLost { holder } => j.holder = w(holder),
            Detail::Release { holder, ok } => {
                j.holder = w(holder);
                j.ok = Some(ok);
            }
            Detail::Expire { holder, free_at } => {
                j.holder = w(holder);
                j.free_at = Some(free_at);
            }
            _ => {}
        }
    }

    /// The fields of what the storage did, and of what befell a worker or the lock service.
    fn other(&mut self, trace: &'a Trace, d: &Detail) {
        let w = |i: u16| Some(trace.worker(i));
        let j = self;
        match *d {
            Detail::LeaseLost {
                why,
                believed_until,
            } => {
                j.why = Some(why);
                j.believed_until = believed_until;
            }
            Detail::PauseStart { until } => j.until = Some(until),
            Detail::PauseEnd | Detail::Crash => {}
            Detail::WriteAccepted {
                writer,
                op,
                previous,
            } => {
                j.writer = w(writer);
                j.op = Some(op);
                j.previous = previous;
            }
            Detail::WriteRejected {
                writer,
                op,
                reason,
                highest,
            } => {
                j.writer = w(writer);
                j.op = Some(op);
                j.reason = Some(reason);
                j.highest = highest;
            }
            Detail::WriteDeduplicated { writer, op } => {
                j.writer = w(writer);
                j.op = Some(op);
            }
            Detail::JobDone { end } => j.end = Some(end),
            Detail::Restart { incarnation } => j.incarnation = Some(incarnation),
            Detail::ClockJump { by_ms } => j.by_ms = Some(by_ms),
            Detail::AuthorityRestart {
                persisted,
                next_token,
            } => {
                j.persisted = Some(persisted);
                j.next_token = next_token;
            }
            _ => {}
        }
    }
}

struct EventJson<'a>(&'a Trace, &'a Event);

impl Serialize for EventJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (trace, e) = (self.0, self.1);
        let mut st = s.serialize_struct("Event", 6)?;
        st.serialize_field("seq", &e.seq)?;
        st.serialize_field("t_ms", &e.t_ms)?;
        st.serialize_field("actor", trace.name(e.actor))?;
        st.serialize_field("kind", &e.kind())?;
        st.serialize_field("token", &e.token)?;
        st.serialize_field("detail", &DetailJson::of(trace, &e.detail))?;
        st.end()
    }
}

#[derive(Serialize)]
struct WriteJson<'a> {
    writer: &'a str,
    token: u64,
    op: u32,
    t_ms: u64,
    seq: u32,
}

/// A trace's JSON with only some of its events and applied writes: [`Trace::json_part`].
pub struct TraceJson<'a> {
    trace: &'a Trace,
    events: &'a [Event],
    document: &'a [AppliedWrite],
}

/// Events of a trace as the JSON array its `events` holds: [`Trace::events_json`].
pub struct EventsJson<'a>(&'a Trace, &'a [Event]);

/// Applied writes of a trace as the JSON array its `document` holds: [`Trace::document_json`].
pub struct DocumentJson<'a>(&'a Trace, &'a [AppliedWrite]);

impl Trace {
    /// This trace's JSON shape with `events` and `document` in place of all of its own (slices of
    /// them): a long trace can be written in pieces, the rest with [`Trace::events_json`] and
    /// [`Trace::document_json`].
    pub fn json_part<'a>(
        &'a self,
        events: &'a [Event],
        document: &'a [AppliedWrite],
    ) -> TraceJson<'a> {
        TraceJson {
            trace: self,
            events,
            document,
        }
    }

    /// `events` (some of this trace's) shaped as in its JSON.
    pub fn events_json<'a>(&'a self, events: &'a [Event]) -> EventsJson<'a> {
        EventsJson(self, events)
    }

    /// `writes` (some of this trace's document) shaped as in its JSON.
    pub fn document_json<'a>(&'a self, writes: &'a [AppliedWrite]) -> DocumentJson<'a> {
        DocumentJson(self, writes)
    }
}

impl Serialize for EventsJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.1.iter().map(|e| EventJson(self.0, e)))
    }
}

impl Serialize for DocumentJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let trace = self.0;
        s.collect_seq(self.1.iter().map(|w| WriteJson {
            writer: trace.worker(w.writer),
            token: w.token,
            op: w.op,
            t_ms: w.t_ms,
            seq: w.seq,
        }))
    }
}

impl Serialize for TraceJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let t = self.trace;
        let mut st = s.serialize_struct("Trace", 8)?;
        st.serialize_field("scenario", &t.scenario)?;
        st.serialize_field("seed", &t.seed)?;
        st.serialize_field("fencing", &t.fencing)?;
        st.serialize_field("workers", &t.workers)?;
        st.serialize_field("events", &t.events_json(self.events))?;
        st.serialize_field("truncated", &t.truncated)?;
        st.serialize_field("verdict", &t.verdict)?;
        st.serialize_field("document", &t.document_json(self.document))?;
        st.end()
    }
}

impl Serialize for Trace {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.json_part(&self.events, &self.document).serialize(s)
    }
}
