//! What a recorded run's first refused stale write says, in one sentence: who wrote, with which
//! token, how its lease had ended (and whether it was paused then), and what the store had
//! already accepted.

use alloc::format;
use alloc::string::String;

use crate::trace::{Actor, Detail, Msg, Trace, fmt_secs};

/// The first write the store refused as stale, and what happened, in one sentence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// Its event in the trace.
    pub seq: u32,
    /// The resource written.
    pub resource: String,
    /// What happened, in plain words.
    pub sentence: String,
}

/// The token a resource had accepted before a refused write: which, from whom, when.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Over {
    pub(crate) token: u64,
    pub(crate) writer: u16,
    pub(crate) t: u64,
}

/// The safe-until the writer of event `i` last believed for the lease of its token, from the
/// events before it.
fn safe_until(trace: &Trace, i: usize, w: u16, token: u64) -> Option<u64> {
    let mut until = None;
    for e in &trace.events[..i] {
        if e.actor != Actor::Worker(w) {
            continue;
        }
        match e.detail {
            Detail::Deliver {
                what: Msg::Granted { .. },
                believed_until,
                ..
            } => until = believed_until.filter(|_| e.token == Some(token)),
            Detail::Deliver {
                what: Msg::Renewed { .. },
                believed_until: Some(u),
                ..
            } if until.is_some() => until = Some(u),
            _ => {}
        }
    }
    until
}

fn span(from: u64, to: Option<u64>) -> String {
    match to {
        Some(to) => format!("{} to {}", fmt_secs(from), fmt_secs(to)),
        None => format!("from {}", fmt_secs(from)),
    }
}

/// The sentence for the refused write at event `i` of `trace`, to `resource`, over `over`.
pub(crate) fn sentence(
    trace: &Trace,
    i: usize,
    resource: &str,
    pause_of: impl Fn(&str, u64) -> Option<(u64, Option<u64>)>,
    over: Option<Over>,
) -> String {
    let Some(e) = trace.events.get(i) else {
        return String::new();
    };
    let Detail::WriteRejected { writer: w, .. } = e.detail else {
        return String::new();
    };
    let name = trace.name(Actor::Worker(w));
    let token = e.token.unwrap_or(0);
    let t = e.t_ms;
    let mut s = format!(
        "{name} wrote to {resource} with token {token} at {}",
        fmt_secs(t)
    );
    let paused = pause_of(name, t);
    match (safe_until(trace, i, w, token), paused) {
        (Some(u), Some((from, to))) if u <= t && from <= u && to.is_none_or(|to| to >= u) => {
            s += &format!(
                ", after its lease ran out at {} while it was paused ({})",
                fmt_secs(u),
                span(from, to)
            );
        }
        (Some(u), _) if u <= t => s += &format!(", after its lease ran out at {}", fmt_secs(u)),
        (_, Some((from, to))) => s += &format!(", after it was paused ({})", span(from, to)),
        _ => {}
    }
    match over {
        Some(o) if o.writer != w => {
            s += &format!(
                "; the store had already accepted token {} from {} at {}, so it refused the write.",
                o.token,
                trace.name(Actor::Worker(o.writer)),
                fmt_secs(o.t)
            );
        }
        Some(o) => {
            s += &format!(
                "; the store had already accepted token {}, so it refused the write.",
                o.token
            );
        }
        None => s += "; the store had already accepted a higher token, so it refused the write.",
    }
    s
}
