//! Edits of the story: the editor's switches, sliders, seed and faults, a click on a worker's
//! lane, and Undo, which takes lane clicks back one at a time.
//!
//! Any edit during the tour leaves it: the chapters narrate the tour's own story, and an edited
//! one would show something else than the card says.

use fencepost_sim::scenario::{MAX_FAULTS, MAX_TIME_MS};
use fencepost_sim::trace::fmt_secs;
use fencepost_sim::{Fault, Scenario, TokenKind};

use super::messages::Field;
use super::page::State;
use super::story::LaneClick;

/// Lease TTL slider range.
pub const TTL_RANGE: (u64, u64) = (1_000, 120_000);
/// Pause length slider range.
pub const PAUSE_RANGE: (u64, u64) = (0, 300_000);
/// Latency slider range.
pub const LATENCY_RANGE: (u64, u64) = (0, 5_000);
/// Lock-delay used when the toggle is on (Consul's default).
pub const LOCK_DELAY_MS: u64 = 15_000;

/// A protection the user can switch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Switch {
    /// The storage checks tokens.
    Fencing,
    /// Tokens are unique ids instead of increasing numbers.
    UuidTokens,
    /// Writes carry idempotency keys.
    Idempotency,
    /// The lock service waits after an expiry.
    LockDelay,
    /// Workers renew before each write.
    CheckBeforeWrite,
}

impl Switch {
    /// Flips this protection in `s`.
    pub fn flip(self, s: &mut Scenario) {
        let p = &mut s.protections;
        match self {
            Switch::Fencing => p.fencing = !p.fencing,
            Switch::UuidTokens => {
                p.token_kind = match p.token_kind {
                    TokenKind::Ordered => TokenKind::Uuid,
                    TokenKind::Uuid => TokenKind::Ordered,
                }
            }
            Switch::Idempotency => p.idempotency_keys = !p.idempotency_keys,
            Switch::LockDelay => {
                s.lock_delay_ms = if s.lock_delay_ms > 0 {
                    0
                } else {
                    LOCK_DELAY_MS
                };
            }
            Switch::CheckBeforeWrite => p.check_before_write = !p.check_before_write,
        }
    }
}

/// Changes to the story.
#[derive(Clone, Debug, PartialEq)]
pub enum Edit {
    /// Flip a protection.
    Toggle(Switch),
    /// Lease TTL slider.
    SetTtl(u64),
    /// Pause length slider.
    SetPauseLength(u64),
    /// Latency slider (the top of the latency range).
    SetLatency(u64),
    /// Seed field, as typed.
    SetSeed(String),
    /// Freeze worker `worker` at virtual time `at` for the current pause length (the editor's
    /// form: errors show next to it).
    InjectPause {
        /// Worker index.
        worker: usize,
        /// When.
        at: u64,
    },
    /// A click on a worker's lane: the same pause, announced with an offer to undo it.
    LaneClick {
        /// Worker index.
        worker: usize,
        /// When.
        at: u64,
    },
    /// Put back the story from before the last lane click.
    Undo,
    /// Remove a fault.
    RemoveFault(usize),
}

impl State {
    /// Applies one edit.
    pub(super) fn apply_edit(&mut self, edit: Edit) {
        match edit {
            Edit::Toggle(sw) => self.edit(|s| sw.flip(s)),
            Edit::SetTtl(ms) => {
                let ms = ms.clamp(TTL_RANGE.0, TTL_RANGE.1);
                self.edit(|s| s.lease_ttl_ms = ms);
            }
            Edit::SetPauseLength(ms) => {
                let ms = ms.clamp(PAUSE_RANGE.0, PAUSE_RANGE.1);
                self.story.pause_ms = ms;
                self.edit(|s| {
                    for f in &mut s.faults {
                        if let Fault::Pause { for_ms, .. } | Fault::PauseAt { for_ms, .. } = f {
                            *for_ms = ms;
                        }
                    }
                });
            }
            Edit::SetLatency(ms) => {
                let ms = ms.clamp(LATENCY_RANGE.0, LATENCY_RANGE.1);
                self.edit(|s| {
                    s.latency_ms.max = ms;
                    s.latency_ms.min = s.latency_ms.min.min(ms);
                });
            }
            Edit::SetSeed(text) => self.set_seed(&text),
            Edit::InjectPause { worker, at } => {
                if self.story.scenario.workers.get(worker).is_none() {
                    return;
                }
                match self.pause_refused(at) {
                    Some(e) => self.messages.field_error = Some((Field::Pause, e)),
                    None => {
                        self.add_pause(worker, at);
                    }
                }
            }
            Edit::LaneClick { worker, at } => self.lane_click(worker, at),
            Edit::Undo => self.undo(),
            Edit::RemoveFault(i) => {
                if i < self.story.scenario.faults.len() {
                    self.edit(|s| {
                        s.faults.remove(i);
                    });
                }
            }
        }
    }

    /// The seed as typed: a new one re-runs the story, the one in use clears the field's
    /// error, anything else is an error next to the field.
    fn set_seed(&mut self, text: &str) {
        match text.trim().parse::<u64>() {
            Ok(seed) if seed == self.story.scenario.seed => {
                if matches!(self.messages.field_error, Some((Field::Seed, _))) {
                    self.messages.field_error = None;
                }
            }
            Ok(seed) => self.edit(|s| s.seed = seed),
            Err(_) => {
                let e = format!(
                    "The seed must be a whole number from 0 to {}; `{}` is not. \
                     The run still uses seed {}.",
                    u64::MAX,
                    text.chars().take(40).collect::<String>(),
                    self.story.scenario.seed
                );
                self.messages.field_error = Some((Field::Seed, e));
            }
        }
    }

    /// Changes the scenario on screen. During the tour this leaves it.
    fn edit(&mut self, f: impl FnOnce(&mut Scenario)) {
        let mut s = self.story.scenario.clone();
        f(&mut s);
        if s == self.story.scenario {
            return;
        }
        let touring = self.tour.is_open();
        if !self.set_scenario(s, false) {
            return;
        }
        self.story.origin = None;
        if touring {
            self.tour.chapter = None;
            // The chapter keeps its own entry in the history: Back returns to it.
            self.story.entry = self.story.entry.wrapping_add(1);
            self.messages.notice = Some(
                "You left the tour: the story is yours to change now. \
                 \u{201c}Take the tour\u{201d} brings its story back."
                    .into(),
            );
        }
    }

    /// Why a pause at `at` cannot be added, if it cannot (the worker is checked by the caller).
    fn pause_refused(&self, at: u64) -> Option<String> {
        let end = self.end();
        if self.story.pause_ms == 0 {
            Some("Pause not added: set a pause length above 0 s first.".into())
        } else if self.story.scenario.faults.len() >= MAX_FAULTS {
            Some("Pause not added: this scenario already has as many faults as it can.".into())
        } else if at > end {
            Some(format!(
                "Pause not added: the run ends at {}, and a pause at {} would come after \
                 everything has happened. Pick a time from 0 to {}.",
                fmt_secs(end),
                fmt_secs(at),
                fmt_secs(end)
            ))
        } else {
            None
        }
    }

    /// Adds a pause of `worker` at `at` for the current pause length (checked by the caller);
    /// returns it, if the scenario took it.
    fn add_pause(&mut self, worker: usize, at: u64) -> Option<Fault> {
        let name = self.story.scenario.workers.get(worker)?.name.clone();
        let pause = Fault::Pause {
            worker: name,
            at: at.min(MAX_TIME_MS),
            for_ms: self.story.pause_ms,
        };
        let before = self.story.scenario.faults.len();
        self.edit(|s| s.faults.push(pause.clone()));
        (self.story.scenario.faults.len() > before).then_some(pause)
    }

    /// A click on worker `worker`'s lane at `at`: a pause there, announced with an offer to
    /// undo it that keeps the story from before.
    fn lane_click(&mut self, worker: usize, at: u64) {
        if self.story.scenario.workers.get(worker).is_none() {
            return;
        }
        if let Some(e) = self.pause_refused(at) {
            self.messages.error = Some(e);
            return;
        }
        // The clicks before this one stay undoable, one at a time; the story kept for Undo
        // holds none of them.
        let mut clicks = std::mem::take(&mut self.story.clicks);
        let before = self.story.clone();
        let tour = self.tour.chapter;
        if let Some(pause) = self.add_pause(worker, at) {
            self.messages.notice = Some(format!(
                "Pause added where you clicked: {}.{}",
                pause.describe(),
                if tour.is_some() {
                    " You left the tour."
                } else {
                    ""
                }
            ));
            clicks.push(LaneClick {
                worker,
                pause,
                before,
                tour,
            });
        }
        self.story.clicks = clicks;
    }

    /// Puts back the story from before the last lane click, and the tour chapter it left.
    fn undo(&mut self) {
        let mut clicks = std::mem::take(&mut self.story.clicks);
        let Some(click) = clicks.pop() else { return };
        self.messages.notice = None;
        if !self.rerun(&click.before.scenario, false) {
            return;
        }
        // Its place in the history too: a click that left the tour gave it an entry of its own;
        // the page goes back to the chapter's.
        self.story = click.before;
        if let Some(ch) = click.tour {
            self.go_to_chapter(ch);
        }
        if !clicks.is_empty() {
            self.messages.notice = Some(format!(
                "Pause removed: {}. Undo again takes back the click before it.",
                click.pause.describe()
            ));
            self.story.clicks = clicks;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::testing::{apply, click, paused};
    use crate::state::{Action, Load, Origin, Play, TourStep, tour_story};
    use crate::undo::MAX_UNDO;
    use fencepost_sim::Detail;

    #[test]
    fn toggles_rerun_the_scenario() {
        let s = apply(
            paused(),
            [
                Action::Play(Play::End),
                Action::Edit(Edit::Toggle(Switch::Fencing)),
            ],
        );
        assert!(!s.story.scenario.protections.fencing);
        assert!(!s.trace().fencing);
        assert!(!s.trace().verdict.ok);
        // The playhead kept its place.
        assert_eq!(s.play.head.t, 46_100);
        let s = apply(
            s,
            [
                Action::Edit(Edit::Toggle(Switch::Fencing)),
                Action::Edit(Edit::Toggle(Switch::UuidTokens)),
            ],
        );
        assert_eq!(s.story.scenario.protections.token_kind, TokenKind::Uuid);
        assert!(!s.trace().verdict.ok);
        let s = apply(
            s,
            [
                Action::Edit(Edit::Toggle(Switch::UuidTokens)),
                Action::Edit(Edit::Toggle(Switch::LockDelay)),
            ],
        );
        assert_eq!(s.story.scenario.lock_delay_ms, LOCK_DELAY_MS);
        let s = apply(
            s,
            [
                Action::Edit(Edit::Toggle(Switch::LockDelay)),
                Action::Edit(Edit::Toggle(Switch::Idempotency)),
                Action::Edit(Edit::Toggle(Switch::CheckBeforeWrite)),
            ],
        );
        assert_eq!(s.story.scenario.lock_delay_ms, 0);
        assert!(s.story.scenario.protections.idempotency_keys);
        assert!(s.story.scenario.protections.check_before_write);
        assert_eq!(s.preset_name(), None);
        assert_eq!(paused().preset_name(), Some("paused-worker"));
    }

    #[test]
    fn sliders_clamp_extreme_values() {
        let s = apply(
            paused(),
            [
                Action::Edit(Edit::SetTtl(0)),
                Action::Edit(Edit::SetLatency(u64::MAX)),
                Action::Edit(Edit::SetPauseLength(u64::MAX)),
            ],
        );
        assert_eq!(s.story.scenario.lease_ttl_ms, TTL_RANGE.0);
        assert_eq!(s.story.scenario.latency_ms.max, LATENCY_RANGE.1);
        assert_eq!(s.story.scenario.latency_ms.min, 50);
        assert!(matches!(
            s.story.scenario.faults[0],
            Fault::Pause {
                for_ms: 300_000,
                ..
            }
        ));
        assert_eq!(s.messages.error, None);
        let s = apply(s, [Action::Edit(Edit::SetLatency(0))]);
        assert_eq!(
            (
                s.story.scenario.latency_ms.min,
                s.story.scenario.latency_ms.max
            ),
            (0, 0)
        );
        let s = apply(s, [Action::Edit(Edit::SetTtl(u64::MAX))]);
        assert_eq!(s.story.scenario.lease_ttl_ms, TTL_RANGE.1);
    }

    #[test]
    fn a_bad_seed_is_an_error_in_the_page() {
        let s = apply(paused(), [Action::Edit(Edit::SetSeed("12x".into()))]);
        assert_eq!(s.story.scenario.seed, 1);
        assert_eq!(s.messages.error, None);
        let (field, e) = s.messages.field_error.clone().unwrap();
        assert_eq!(field, Field::Seed);
        assert!(e.contains("`12x` is not"), "{e}");
        assert!(e.ends_with("The run still uses seed 1."), "{e}");
        // Typing the seed in use again clears the message.
        let again = apply(s.clone(), [Action::Edit(Edit::SetSeed("1".into()))]);
        assert_eq!(again.messages.field_error, None);
        let s = apply(
            s,
            [Action::Edit(Edit::SetSeed(" 18446744073709551615 ".into()))],
        );
        assert_eq!(s.story.scenario.seed, u64::MAX);
        assert_eq!(s.messages.field_error, None);
    }

    #[test]
    fn clicking_a_lane_forks_the_scenario_with_a_pause() {
        let base = paused();
        // Freeze B at 30.5 s, after it got the lock: its write comes late.
        let s = apply(
            base.clone(),
            [Action::Edit(Edit::InjectPause {
                worker: 1,
                at: 30_500,
            })],
        );
        assert_eq!(
            s.story.scenario.faults.last(),
            Some(&Fault::Pause {
                worker: "B".into(),
                at: 30_500,
                for_ms: 45_000
            })
        );
        assert_ne!(s.trace().events, base.trace().events);
        assert!(
            s.trace()
                .events
                .iter()
                .any(|e| e.actor == fencepost_sim::Actor::Worker(1)
                    && e.detail == Detail::PauseStart { until: 75_500 })
        );
        // The same click gives the same trace.
        let again = apply(
            base.clone(),
            [Action::Edit(Edit::InjectPause {
                worker: 1,
                at: 30_500,
            })],
        );
        assert_eq!(again.trace(), s.trace());
        // Removing it restores the original.
        let s = apply(s, [Action::Edit(Edit::RemoveFault(1))]);
        assert_eq!(s.trace(), base.trace());
        // No such worker: nothing happens.
        let s = apply(s, [Action::Edit(Edit::InjectPause { worker: 9, at: 1 })]);
        assert_eq!(s.story.scenario, base.story.scenario);
    }

    #[test]
    fn a_pause_after_the_end_of_the_run_is_refused() {
        let s = apply(
            paused(),
            [Action::Edit(Edit::InjectPause {
                worker: 0,
                at: 99_999_999_000,
            })],
        );
        assert_eq!(s.story.scenario, paused().story.scenario);
        let (field, e) = s.messages.field_error.clone().unwrap();
        assert_eq!(field, Field::Pause);
        assert_eq!(
            e,
            "Pause not added: the run ends at 46.1 s, and a pause at 99999999 s would come after \
             everything has happened. Pick a time from 0 to 46.1 s."
        );
        assert_eq!(s.end(), 46_100);
        // At the very end it is taken.
        let s = apply(
            s,
            [Action::Edit(Edit::InjectPause {
                worker: 0,
                at: 46_100,
            })],
        );
        assert_eq!(s.story.scenario.faults.len(), 2);
        assert_eq!(s.messages.field_error, None);
        // A pause length of 0 is refused next to the form too.
        let s = apply(
            paused(),
            [
                Action::Edit(Edit::SetPauseLength(0)),
                Action::Edit(Edit::InjectPause {
                    worker: 0,
                    at: 1_000,
                }),
            ],
        );
        assert_eq!(s.story.scenario.faults.len(), 1);
        assert!(matches!(s.messages.field_error, Some((Field::Pause, _))));
    }

    #[test]
    fn every_kind_of_edit_during_the_tour_leaves_it() {
        let at_refusal = || apply(State::with_tour(), [Action::Tour(TourStep::Go(5))]);
        for edit in [
            Action::Edit(Edit::Toggle(Switch::Fencing)),
            Action::Edit(Edit::LaneClick {
                worker: 1,
                at: 22_100,
            }),
            Action::Edit(Edit::InjectPause {
                worker: 0,
                at: 2_000,
            }),
            Action::Edit(Edit::SetSeed("2".into())),
            Action::Edit(Edit::SetPauseLength(10_000)),
            Action::ToggleCompare,
        ] {
            let s = apply(at_refusal(), [edit.clone()]);
            assert_eq!(s.tour.chapter, None, "{edit:?}");
        }
        // Moving the playhead or changing the speed does not.
        for view in [
            Action::Play(Play::Next),
            Action::Play(Play::End),
            Action::Play(Play::SetSpeed(20)),
            Action::Play(Play::Zoom(1)),
        ] {
            let s = apply(at_refusal(), [view.clone()]);
            assert_eq!(s.tour.chapter, Some(5), "{view:?}");
        }
    }

    #[test]
    fn a_lane_click_says_what_it_added_and_can_be_undone() {
        let base = apply(paused(), [Action::Play(Play::Seek(20_000))]);
        let s = apply(
            base.clone(),
            [Action::Edit(Edit::LaneClick {
                worker: 0,
                at: 47_900.min(base.end()),
            })],
        );
        assert_eq!(s.story.scenario.faults.len(), 2);
        assert_eq!(
            s.messages.notice.as_deref(),
            Some("Pause added where you clicked: A freezes at 46.1 s for 45 s.")
        );
        assert_eq!(s.story.clicks.len(), 1);
        let s = apply(s, [Action::Edit(Edit::Undo)]);
        assert_eq!(s.story.scenario, base.story.scenario);
        assert_eq!(s.trace(), base.trace());
        assert_eq!((s.messages.notice.clone(), s.story.clicks.len()), (None, 0));
        assert_eq!(s.play.head.t, 20_000);
        // Any other change forgets what Undo would put back.
        let s = apply(
            base.clone(),
            [
                Action::Edit(Edit::LaneClick {
                    worker: 0,
                    at: 5_000,
                }),
                Action::Edit(Edit::SetTtl(10_000)),
            ],
        );
        assert!(s.story.clicks.is_empty());
        let s = apply(s, [Action::Edit(Edit::Undo)]);
        assert_eq!(s.story.scenario.lease_ttl_ms, 10_000);
    }

    #[test]
    fn undoing_a_lane_click_that_left_the_tour_returns_to_its_chapter() {
        let touring = apply(State::with_tour(), [Action::Tour(TourStep::Go(5))]);
        let s = apply(
            touring.clone(),
            [Action::Edit(Edit::LaneClick {
                worker: 1,
                at: 21_200,
            })],
        );
        assert_eq!(s.tour.chapter, None);
        assert_ne!(
            s.story.entry, touring.story.entry,
            "leaving the tour gets its own entry"
        );
        let s = apply(s, [Action::Edit(Edit::Undo)]);
        assert_eq!(s.tour.chapter, Some(5));
        assert_eq!(s.story.scenario, touring.story.scenario);
        assert_eq!(s.play.head, touring.play.head);
        assert_eq!(s.story.entry, touring.story.entry);
        assert_eq!((s.messages.notice, s.story.clicks.len()), (None, 0));
    }

    #[test]
    fn undo_takes_back_lane_clicks_one_at_a_time() {
        let base = paused();
        let clicks =
            [5_000, 10_000, 15_000].map(|at| Action::Edit(Edit::LaneClick { worker: 1, at }));
        let s = apply(base.clone(), clicks);
        assert_eq!(s.story.scenario.faults.len(), 4);
        let s = apply(s, [Action::Edit(Edit::Undo)]);
        assert_eq!(s.story.scenario.faults.len(), 3);
        assert_eq!(
            s.messages.notice.as_deref(),
            Some(
                "Pause removed: B freezes at 15 s for 45 s. Undo again takes back the click before it."
            )
        );
        let s = apply(s, [Action::Edit(Edit::Undo), Action::Edit(Edit::Undo)]);
        assert_eq!(s.story.scenario, base.story.scenario);
        assert_eq!((s.messages.notice, s.story.clicks.len()), (None, 0));
    }

    #[test]
    fn a_lane_click_notice_goes_when_the_scenario_changes_again() {
        for then in [
            Action::Load(Load::Preset("gc-pause".into())),
            Action::Edit(Edit::Toggle(Switch::Fencing)),
            Action::Edit(Edit::RemoveFault(0)),
            Action::Load(Load::Scenario(Box::new(tour_story()), Origin::Address)),
        ] {
            let s = apply(
                paused(),
                [
                    Action::Edit(Edit::LaneClick {
                        worker: 1,
                        at: 20_000,
                    }),
                    then.clone(),
                ],
            );
            assert_eq!(
                (s.messages.notice.clone(), s.story.clicks.len()),
                (None, 0),
                "{then:?}"
            );
        }
    }

    #[test]
    fn a_lane_click_records_the_pause_it_added_and_the_chapter_it_left() {
        let mut s = apply(State::with_tour(), [Action::Tour(TourStep::Go(5))]);
        let chapter = s.story.scenario.clone();
        s.apply(click(1, 21_200));
        assert_eq!(s.story.clicks.len(), 1);
        let c = s.story.clicks.last().unwrap();
        assert_eq!(c.worker, 1);
        assert_eq!(
            c.pause,
            Fault::Pause {
                worker: "B".into(),
                at: 21_200,
                for_ms: 45_000
            }
        );
        assert_eq!(s.story.scenario.faults.last(), Some(&c.pause));
        assert_eq!(c.tour, Some(5));
        assert_eq!(c.before.scenario, chapter);
        assert_eq!(c.before.origin, Some(Origin::Tour));
        assert_eq!(s.story.clicks.pending(), Some((1, 21_200)));
        // A second click outside the tour remembers that it left none.
        s.apply(click(0, 2_000));
        let c = s.story.clicks.last().unwrap();
        assert_eq!((c.worker, c.at(), c.tour), (0, Some(2_000), None));
        assert_eq!(s.story.clicks.pending(), Some((0, 2_000)));
        // Undo takes back the second, then the first, which returns to chapter 5 (shown as 6).
        s.apply(Action::Edit(Edit::Undo));
        assert_eq!(
            (s.story.clicks.len(), s.story.clicks.pending()),
            (1, Some((1, 21_200)))
        );
        assert_eq!(s.tour.chapter, None);
        s.apply(Action::Edit(Edit::Undo));
        assert_eq!((s.tour.chapter, s.story.clicks.pending()), (Some(5), None));
        assert_eq!(s.story.scenario, chapter);
    }

    #[test]
    fn past_the_limit_the_oldest_click_is_forgotten() {
        let mut s = paused();
        for i in 0..=MAX_UNDO as u64 {
            s.apply(click(1, 1_000 + i * 100));
        }
        assert_eq!(s.story.clicks.len(), MAX_UNDO);
        // The oldest left is the second click: its page had the first click's pause.
        let mut clicks = s.story.clicks.clone();
        let mut oldest = None;
        while let Some(c) = clicks.pop() {
            oldest = Some(c);
        }
        let oldest = oldest.unwrap();
        assert_eq!(oldest.at(), Some(1_100));
        assert_eq!(oldest.before.scenario.faults.len(), 2);
        assert!(clicks.is_empty());
        // Popping a copy left the page's own clicks alone.
        assert_eq!(s.story.clicks.len(), MAX_UNDO);
    }

    #[test]
    fn copies_of_the_clicks_share_them_until_one_changes() {
        let s = apply(paused(), [click(1, 5_000)]);
        let copy = s.clone();
        assert!(s.story.clicks.shares(&copy.story.clicks));
        let mut other = copy.story.clicks.clone();
        assert!(other.clear());
        assert!(!other.clear());
        assert_eq!(copy.story.clicks.len(), 1);
        assert_ne!(other, copy.story.clicks);
    }
}
