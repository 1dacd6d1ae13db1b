//! Badges: the small labelled marks at single events (a grant's token, a write's verdict, a
//! pause, a crash).

use fencepost_sim::trace::{JobEnd, RejectReason, fmt_secs};
use fencepost_sim::{Actor, Detail, Event, Msg, Trace};

use super::tokens::TokenStyle;

/// What a badge marks, for its style and symbol.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BadgeKind {
    /// A grant (token badge).
    Grant,
    /// A write sent, with its token.
    WriteSent,
    /// Storage applied a write.
    Accepted,
    /// Storage applied a write with a token lower than one it had accepted.
    AcceptedStale,
    /// Storage refused a write.
    Rejected,
    /// Storage recognised a retry.
    Deduplicated,
    /// A lease ran out.
    Expired,
    /// An acquire was refused.
    Denied,
    /// A lease was renewed.
    Renewed,
    /// A lease was released.
    Released,
    /// A worker froze.
    Paused,
    /// A worker resumed.
    Resumed,
    /// A worker's job ended well.
    Done,
    /// A worker's job ended badly.
    GaveUp,
    /// A crash, restart, clock jump or lock-service restart.
    Fault,
}

/// A small labelled mark at one event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Badge {
    /// The event.
    pub seq: u32,
    /// Where.
    pub actor: Actor,
    /// When.
    pub t: u64,
    /// What it says, e.g. `✗ 33 < 34`.
    pub text: String,
    /// Style.
    pub kind: BadgeKind,
}

/// The badge of event `e`, if it gets one, its tokens written in `tokens` style.
pub(super) fn badge(trace: &Trace, e: &Event, tokens: TokenStyle) -> Option<Badge> {
    let tok = e.token.map_or(String::from("?"), |t| tokens.show(t));
    let (text, kind) = match e.detail {
        Detail::Grant { holder, .. } => (
            format!("{tok} → {}", trace.name(Actor::Worker(holder))),
            BadgeKind::Grant,
        ),
        Detail::Expire { .. } => (format!("{tok} expired"), BadgeKind::Expired),
        Detail::Deny { requester, .. } => (
            format!("no: {}", trace.name(Actor::Worker(requester))),
            BadgeKind::Denied,
        ),
        Detail::Renew { .. } => (format!("renew {tok}"), BadgeKind::Renewed),
        Detail::RenewLost { .. } => (format!("{tok} lost"), BadgeKind::Denied),
        Detail::Release { ok: true, .. } => (format!("{tok} released"), BadgeKind::Released),
        Detail::Send {
            what: Msg::Write { .. },
            ..
        } => (format!("write {tok}"), BadgeKind::WriteSent),
        Detail::PauseStart { .. } => ("‖ paused".into(), BadgeKind::Paused),
        Detail::PauseEnd => ("▶ resumes".into(), BadgeKind::Resumed),
        Detail::WriteAccepted { .. } => match e.stale_over() {
            // Unique ids have no order: the badge cannot say "<".
            Some(_) if tokens == TokenStyle::UniqueId => {
                (format!("✓ {tok} stale"), BadgeKind::AcceptedStale)
            }
            Some(p) => (format!("✓ {tok} < {p} stale"), BadgeKind::AcceptedStale),
            None => (format!("✓ {tok}"), BadgeKind::Accepted),
        },
        Detail::WriteRejected {
            reason: RejectReason::Stale,
            highest,
            ..
        } => (
            match highest {
                Some(h) => format!("✗ {tok} < {}", tokens.show(h)),
                None => format!("✗ {tok}"),
            },
            BadgeKind::Rejected,
        ),
        Detail::WriteRejected {
            reason: RejectReason::UuidReused,
            ..
        } => (format!("✗ {tok} reused"), BadgeKind::Rejected),
        Detail::WriteDeduplicated { op, .. } => (format!("= retry #{op}"), BadgeKind::Deduplicated),
        Detail::JobDone { end } => match end {
            JobEnd::Completed => ("done".into(), BadgeKind::Done),
            JobEnd::FencedOut => ("fenced out".into(), BadgeKind::GaveUp),
            JobEnd::LeaseLost => ("lost lease".into(), BadgeKind::GaveUp),
        },
        Detail::Crash => ("crash".into(), BadgeKind::Fault),
        Detail::Restart { .. } => ("restart".into(), BadgeKind::Fault),
        Detail::ClockJump { by_ms } => (
            format!(
                "clock {}{}",
                if by_ms < 0 { "−" } else { "+" },
                fmt_secs(by_ms.unsigned_abs())
            ),
            BadgeKind::Fault,
        ),
        Detail::AuthorityRestart { persisted, .. } => (
            if persisted {
                "restart (restored)".into()
            } else {
                "restart (forgot all)".into()
            },
            BadgeKind::Fault,
        ),
        _ => return None,
    };
    Some(Badge {
        seq: e.seq,
        actor: e.actor,
        t: e.t_ms,
        text,
        kind,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Timeline;
    use crate::model::testing::{A, N, paused};

    #[test]
    fn badges_mark_tokens_and_write_outcomes() {
        let tl = Timeline::of(&paused(true), N);
        let text = |seq: u32| {
            tl.badges
                .iter()
                .find(|b| b.seq == seq)
                .map(|b| (b.actor, b.text.as_str(), b.kind))
        };
        assert_eq!(text(2), Some((Actor::Lock, "33 → A", BadgeKind::Grant)));
        assert_eq!(text(14), Some((Actor::Lock, "34 → B", BadgeKind::Grant)));
        assert_eq!(
            text(11),
            Some((Actor::Lock, "33 expired", BadgeKind::Expired))
        );
        assert_eq!(
            text(19),
            Some((Actor::Storage, "✓ 34", BadgeKind::Accepted))
        );
        // A's keeper tells it at 46 s, just after its write left, that its lease is lost (event
        // 28, shown on A's safe-until band, not as a badge: three at one instant would cover
        // each other); the refusal is event 30.
        assert_eq!(text(28), None);
        assert_eq!(
            text(30),
            Some((Actor::Storage, "✗ 33 < 34", BadgeKind::Rejected))
        );
        assert_eq!(
            text(27),
            Some((Actor::Worker(A), "write 33", BadgeKind::WriteSent))
        );
        assert_eq!(
            text(5),
            Some((Actor::Worker(A), "‖ paused", BadgeKind::Paused))
        );
        let off = Timeline::of(&paused(false), N);
        let stale = off.badges.iter().find(|b| b.seq == 30).unwrap();
        assert_eq!(
            (stale.text.as_str(), stale.kind),
            ("✓ 33 < 34 stale", BadgeKind::AcceptedStale)
        );
    }
}
