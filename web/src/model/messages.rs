//! Messages between the actors: an arrow from each send to its delivery, and the messages in
//! flight at the playhead.

use std::collections::BTreeMap;

use fencepost_sim::{Actor, Detail, Event, Msg};

use super::tokens::TokenStyle;

/// What kind of message an arrow carries, for its style.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArrowKind {
    /// Worker -> lock service.
    Request,
    /// Lock service -> worker.
    Reply,
    /// Worker -> storage.
    Write,
    /// Storage -> worker, applied.
    Ack,
    /// Storage -> worker, refused.
    Refused,
}

/// A message, from its send to its delivery.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arrow {
    /// Message id.
    pub msg: u32,
    /// Sender.
    pub from: Actor,
    /// Recipient.
    pub to: Actor,
    /// Send time.
    pub sent: u64,
    /// Delivery time (when the recipient handled it; the planned arrival if it never did).
    pub arrived: u64,
    /// Whether it was handled (false: lost to a crash, or the trace stopped first).
    pub delivered: bool,
    /// Style.
    pub kind: ArrowKind,
    /// The token it carries.
    pub token: Option<u64>,
    /// Short description, e.g. `write #1, token 33`.
    pub label: String,
    /// Seq of its send.
    pub seq: u32,
}

/// The arrows of a trace, as its sends and deliveries draw them.
pub(super) struct Arrows {
    arrows: Vec<Arrow>,
    /// Index in `arrows` of each message id.
    index: BTreeMap<u32, usize>,
    tokens: TokenStyle,
}

impl Arrows {
    /// Arrows whose labels write tokens in `tokens` style.
    pub(super) fn new(tokens: TokenStyle) -> Arrows {
        Arrows {
            arrows: Vec::new(),
            index: BTreeMap::new(),
            tokens,
        }
    }

    /// Draws `e`, if it sends or delivers a message.
    pub(super) fn see(&mut self, e: &Event) {
        match e.detail {
            Detail::Send {
                msg,
                to,
                what,
                deliver_at,
                ..
            } => {
                self.index.insert(msg, self.arrows.len());
                self.arrows.push(Arrow {
                    msg,
                    from: e.actor,
                    to,
                    sent: e.t_ms,
                    arrived: deliver_at,
                    delivered: false,
                    kind: arrow_kind(e.actor, to, what),
                    token: e.token,
                    label: message_label(what, e.token, self.tokens),
                    seq: e.seq,
                });
            }
            Detail::Deliver { msg, .. } => {
                if let Some(a) = self.index.get(&msg).and_then(|&i| self.arrows.get_mut(i)) {
                    a.arrived = e.t_ms;
                    a.delivered = true;
                }
            }
            _ => {}
        }
    }

    /// The arrows, in send order.
    pub(super) fn finish(self) -> Vec<Arrow> {
        self.arrows
    }
}

fn arrow_kind(from: Actor, to: Actor, what: Msg) -> ArrowKind {
    match (from, to, what) {
        (_, Actor::Storage, _) => ArrowKind::Write,
        (
            Actor::Storage,
            _,
            Msg::Ack {
                accepted: false, ..
            },
        ) => ArrowKind::Refused,
        (Actor::Storage, _, _) => ArrowKind::Ack,
        (_, Actor::Lock, _) => ArrowKind::Request,
        _ => ArrowKind::Reply,
    }
}

fn message_label(what: Msg, token: Option<u64>, tokens: TokenStyle) -> String {
    let tok = token.map_or(String::new(), |t| format!(", token {}", tokens.show(t)));
    match what {
        Msg::Write { op, retry } => format!(
            "{} #{op}{tok}",
            if retry { "write (retry)" } else { "write" }
        ),
        Msg::Ack { op, accepted } => {
            format!("{} #{op}", if accepted { "ack" } else { "refused" })
        }
        other => format!("{}{tok}", other.name()),
    }
}

/// A message in flight at the playhead, `progress` from 0 (sent) to 1 (arrived).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct InFlight {
    /// Index into the arrows.
    pub arrow: usize,
    /// How far along.
    pub progress: f64,
}

/// Messages sent but not yet delivered at `t`.
pub fn in_flight_at(arrows: &[Arrow], t: u64) -> Vec<InFlight> {
    arrows
        .iter()
        .enumerate()
        .filter(|(_, a)| a.sent <= t && t < a.arrived)
        .map(|(i, a)| InFlight {
            arrow: i,
            progress: (t - a.sent) as f64 / (a.arrived - a.sent) as f64,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Timeline;
    use crate::model::testing::{A, N, paused};

    #[test]
    fn arrows_go_from_send_to_delivery() {
        let t = paused(true);
        let tl = Timeline::of(&t, N);
        let write = tl
            .arrows
            .iter()
            .find(|a| a.from == Actor::Worker(A) && a.kind == ArrowKind::Write)
            .unwrap();
        assert_eq!(
            (write.sent, write.arrived, write.delivered, write.token),
            (46_000, 46_050, true, Some(33))
        );
        assert_eq!(write.label, "write #1, token 33");
        let refused = tl
            .arrows
            .iter()
            .find(|a| a.kind == ArrowKind::Refused)
            .unwrap();
        assert_eq!(
            (refused.from, refused.to),
            (Actor::Storage, Actor::Worker(A))
        );
        assert_eq!(refused.label, "refused #1");
        // Every send has an arrow, and every arrow of this trace was delivered.
        let sends = t
            .events
            .iter()
            .filter(|e| matches!(e.detail, Detail::Send { .. }))
            .count();
        assert_eq!(tl.arrows.len(), sends);
        assert!(tl.arrows.iter().all(|a| a.delivered));
    }

    #[test]
    fn in_flight_messages_move_from_send_to_arrival() {
        let t = paused(true);
        let tl = Timeline::of(&t, N);
        let moving = in_flight_at(&tl.arrows, 46_025);
        assert_eq!(moving.len(), 1);
        assert_eq!(tl.arrows[moving[0].arrow].kind, ArrowKind::Write);
        assert!((moving[0].progress - 0.5).abs() < 1e-9);
        assert!(in_flight_at(&tl.arrows, 20_000).is_empty());
    }
}
