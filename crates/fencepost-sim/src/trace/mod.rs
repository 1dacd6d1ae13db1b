//! Traces: every event of a run, in order, with a plain sentence for each.
//!
//! An [`Event`] is `{seq, t_ms, actor, kind, token, detail}`. In memory, actors are numbers
//! ([`Actor`]); in JSON they are names (`"lock"`, `"storage"`, or a worker's name).
//! [`Trace::explain`] turns any event into one sentence, and [`Trace::beliefs_at`] answers, for any
//! instant, what each actor believes: the picture of a zombie lease.

mod beliefs;
mod event;
mod explain;
mod json;
mod record;

pub use crate::secs::fmt_secs;
pub use beliefs::{Beliefs, HolderView, WorkerBelief};
pub use event::{Actor, Detail, Event, JobEnd, Kind, LossWhy, Msg, RejectReason};
pub(crate) use explain::retry_wait;
pub use json::{DocumentJson, EventsJson, TraceJson};
pub use record::{AppliedWrite, Trace};
