//! A whole trace laid out in time: the lanes, and every mark, arrow and badge on them.

use fencepost_sim::{Actor, Trace};

use super::badges::{Badge, badge};
use super::lanes::{Lane, lanes};
use super::marks::{LeaseBar, LeaseBars, LeaseEnd, Span, WorkerSpans, Zombie, Zombies};
use super::messages::{Arrow, Arrows};
use super::safe_until::{SafeBand, SafeBands};
use super::tokens::TokenStyle;

/// A whole trace laid out in time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Timeline {
    /// Lanes, top to bottom: lock service, each worker, storage.
    pub lanes: Vec<Lane>,
    /// Where the time axis ends.
    pub end: u64,
    /// Leases.
    pub leases: Vec<LeaseBar>,
    /// Zombie intervals.
    pub zombies: Vec<Zombie>,
    /// Each lease's safe-until band on its worker's lane, as the worker's keeper counted it.
    pub safe_bands: Vec<SafeBand>,
    /// Pauses.
    pub pauses: Vec<Span>,
    /// Stretches a worker's process was down.
    pub down: Vec<Span>,
    /// Messages.
    pub arrows: Vec<Arrow>,
    /// Badges, in event order.
    pub badges: Vec<Badge>,
    /// How its tokens are written.
    pub tokens: TokenStyle,
}

impl Timeline {
    /// Lays out `trace`, its tokens written in `tokens` style.
    pub fn of(trace: &Trace, tokens: TokenStyle) -> Timeline {
        let last = trace.events.last().map_or(0, |e| e.t_ms);
        let workers = trace.workers.len();
        let mut leases = LeaseBars::default();
        let mut spans = WorkerSpans::new(workers);
        let mut zombies = Zombies::new(workers);
        let mut safe = SafeBands::new(workers);
        let mut arrows = Arrows::new(tokens);
        let mut badges = Vec::new();
        for (i, e) in trace.events.iter().enumerate() {
            leases.see(e);
            spans.see(e);
            safe.see(e);
            arrows.see(e);
            badges.extend(badge(trace, e, tokens));
            // Zombie stretches: belief and reality compared once every event at this instant ran.
            let instant_done = trace.events.get(i + 1).is_none_or(|n| n.t_ms != e.t_ms);
            zombies.see(e, instant_done);
        }
        let leases = leases.finish();
        let (pauses, down) = spans.finish(last);
        let bars_end = leases
            .iter()
            .filter(|b| b.end != LeaseEnd::Open)
            .map(|b| b.to)
            .max()
            .unwrap_or(0);
        Timeline {
            lanes: lanes(trace),
            end: nice_end(last.max(bars_end)),
            leases,
            zombies: zombies.finish(last),
            safe_bands: safe.finish(),
            pauses,
            down,
            arrows: arrows.finish(),
            badges,
            tokens,
        }
    }

    /// Index of `actor`'s lane.
    pub fn lane_of(&self, actor: Actor) -> Option<usize> {
        self.lanes.iter().position(|l| l.actor == actor)
    }

    /// Worker `w`'s name, as its lane says it ("" when it has no lane).
    pub fn worker_name(&self, w: u16) -> &str {
        self.lanes
            .iter()
            .find(|lane| lane.actor == Actor::Worker(w))
            .map_or("", |lane| lane.label.trim_start_matches("worker "))
    }
}

/// The axis end: a little past the last thing drawn, rounded to a whole second.
fn nice_end(t: u64) -> u64 {
    let padded = t.saturating_add((t / 20).max(500));
    padded.div_ceil(1000).saturating_mul(1000).max(1000)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{banner_at, end_time};
    use fencepost_sim::{PRESETS, RunOptions, run_with};

    #[test]
    fn every_preset_lays_out_both_ways() {
        for p in PRESETS {
            for fencing in [true, false] {
                let t = run_with(
                    &p.scenario(),
                    RunOptions {
                        fencing: Some(fencing),
                        ..RunOptions::default()
                    },
                );
                // As the page lays it out: in the style of the preset's tokens.
                let tokens = TokenStyle::of(p.scenario().protections.token_kind);
                let tl = Timeline::of(&t, tokens);
                assert!(tl.end > end_time(&t), "{}", p.name);
                for bar in &tl.leases {
                    assert!(bar.from <= bar.to, "{}: {bar:?}", p.name);
                }
                for z in &tl.zombies {
                    assert!(z.from < z.to, "{}: {z:?}", p.name);
                }
                for a in &tl.arrows {
                    assert!(a.sent <= a.arrived, "{}: {a:?}", p.name);
                }
                assert_eq!(
                    banner_at(&t, t.events.len(), tokens).is_some(),
                    !t.verdict.ok,
                    "{}",
                    p.name
                );
            }
        }
    }
}
