//! The lanes of the timeline (the lock service, each worker, the storage) and what each lane's
//! actor believes at the playhead.

use fencepost_sim::trace::fmt_secs;
use fencepost_sim::{Actor, Beliefs, Trace};

use super::tokens::TokenStyle;

/// A horizontal lane of the timeline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lane {
    /// Whose lane.
    pub actor: Actor,
    /// The label shown at its start.
    pub label: String,
}

/// The lanes of `trace`, top to bottom.
pub fn lanes(trace: &Trace) -> Vec<Lane> {
    let mut lanes = vec![Lane {
        actor: Actor::Lock,
        label: "lock service".into(),
    }];
    for (i, name) in trace.workers.iter().enumerate() {
        if let Ok(w) = u16::try_from(i) {
            lanes.push(Lane {
                actor: Actor::Worker(w),
                label: format!("worker {name}"),
            });
        }
    }
    lanes.push(Lane {
        actor: Actor::Storage,
        label: "storage".into(),
    });
    lanes
}

/// One line about a lane's actor at the playhead, e.g. `zombie: believes it holds 33`, its
/// tokens written in `tokens` style.
pub fn lane_status_at(
    trace: &Trace,
    beliefs: &Beliefs,
    actor: Actor,
    tokens: TokenStyle,
) -> String {
    let show = |t: u64| tokens.show(t);
    match actor {
        Actor::Lock => match beliefs.authority {
            Some(h) => format!(
                "held by {} (token {}) until {}",
                trace.name(Actor::Worker(h.worker)),
                show(h.token),
                fmt_secs(h.until)
            ),
            None => "free".into(),
        },
        Actor::Storage => match beliefs.storage_highest {
            Some(_) if tokens == TokenStyle::UniqueId => "ids, no order".into(),
            Some(h) => format!("highest {h}"),
            None => "no writes yet".into(),
        },
        Actor::Worker(w) => {
            let Some(b) = beliefs.workers.get(usize::from(w)) else {
                return String::new();
            };
            let mut parts = Vec::new();
            if b.crashed {
                parts.push("crashed".to_string());
            }
            if b.paused_until.is_some() {
                parts.push("paused".to_string());
            }
            match b.holds {
                Some(t) if beliefs.is_zombie(w) => {
                    parts.push(format!("zombie: believes it holds {}", show(t)));
                }
                Some(t) => parts.push(format!("holds {}", show(t))),
                None => {}
            }
            if parts.is_empty() {
                "idle".into()
            } else {
                parts.join(", ")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::testing::{A, B, N, paused};
    use crate::model::{Playhead, Timeline};

    #[test]
    fn lanes_are_lock_workers_storage() {
        let tl = Timeline::of(&paused(true), N);
        let labels: Vec<&str> = tl.lanes.iter().map(|l| l.label.as_str()).collect();
        assert_eq!(labels, ["lock service", "worker A", "worker B", "storage"]);
        assert_eq!(tl.lane_of(Actor::Storage), Some(3));
        assert_eq!(tl.end, 49_000);
    }

    #[test]
    fn lane_status_tells_belief_from_reality() {
        let t = paused(true);
        let mid = t.beliefs_after(Playhead::at_time(&t, 30_500).upto);
        assert_eq!(
            lane_status_at(&t, &mid, Actor::Worker(A), N),
            "paused, zombie: believes it holds 33"
        );
        assert_eq!(lane_status_at(&t, &mid, Actor::Worker(B), N), "holds 34");
        assert_eq!(
            lane_status_at(&t, &mid, Actor::Lock, N),
            "held by B (token 34) until 60.1 s"
        );
        let end = t.beliefs_after(t.events.len());
        assert_eq!(lane_status_at(&t, &end, Actor::Storage, N), "highest 34");
        assert_eq!(lane_status_at(&t, &end, Actor::Worker(A), N), "idle");
    }
}
