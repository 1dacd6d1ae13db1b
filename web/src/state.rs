//! The app's state and its reducer.
//!
//! The scenario is the one thing the user edits; the trace and its layout are derived from it by
//! running the simulator (never edited). Everything else is view state: the playhead, playback
//! speed, zoom, compare mode, the tour chapter, open dialogs and messages. The reducer is pure:
//! side effects (timers, the URL, the clipboard, files) live in the components.

use std::rc::Rc;

use fencepost_sim::scenario::MAX_TIME_MS;
use fencepost_sim::trace::fmt_secs;
use fencepost_sim::{Fault, PRESETS, RunOptions, Scenario, TokenKind, Trace, preset, run_with};
use yew::Reducible;

use crate::history::{Before, LaneClick, LaneClicks};
use crate::model::{Playhead, Timeline, TokenStyle, end_time};
use crate::tour::{CHAPTERS, TOUR_PRESET};

/// The most events the app simulates for one run; longer runs are cut and say so.
pub const MAX_EVENTS: usize = 5_000;
/// Speed slider range, in tenths of a power of ten (−10: 0.1×, 30: 1000×).
pub const SPEED_MIN: i32 = -10;
/// See [`SPEED_MIN`].
pub const SPEED_MAX: i32 = 30;
/// Default speed: 10× (ten virtual seconds per second).
pub const SPEED_DEFAULT: i32 = 10;
/// Zoom steps (each ×1.5).
pub const ZOOM_MAX: u32 = 8;
/// Lease TTL slider range.
pub const TTL_RANGE: (u64, u64) = (1_000, 120_000);
/// Pause length slider range.
pub const PAUSE_RANGE: (u64, u64) = (0, 300_000);
/// Latency slider range.
pub const LATENCY_RANGE: (u64, u64) = (0, 5_000);
/// Lock-delay used when the toggle is on (Consul's default).
pub const LOCK_DELAY_MS: u64 = 15_000;
/// Pause length for injected pauses when the scenario has none to copy.
pub const DEFAULT_PAUSE_MS: u64 = 45_000;

/// One simulated run and its layout.
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    /// The trace.
    pub trace: Rc<Trace>,
    /// Its layout.
    pub timeline: Rc<Timeline>,
}

impl Run {
    fn of(scenario: &Scenario, fencing: Option<bool>) -> Run {
        let trace = run_with(
            scenario,
            RunOptions {
                fencing,
                max_events: MAX_EVENTS,
                ..RunOptions::default()
            },
        );
        let timeline = Timeline::of(&trace, TokenStyle::of(scenario.protections.token_kind));
        Run {
            trace: Rc::new(trace),
            timeline: Rc::new(timeline),
        }
    }
}

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

/// Everything the page shows, or can derive.
#[derive(Clone, Debug, PartialEq)]
pub struct State {
    /// The scenario being shown.
    pub scenario: Scenario,
    /// Its run.
    pub run: Run,
    /// Compare mode: the same scenario with fencing off, then on.
    pub compare: Option<[Run; 2]>,
    /// The playhead on `run`.
    pub head: Playhead,
    /// Playing.
    pub playing: bool,
    /// Playback speed, in tenths of a power of ten.
    pub speed: i32,
    /// Zoom step.
    pub zoom: u32,
    /// Length of injected pauses.
    pub pause_ms: u64,
    /// Tour chapter, while the tour is open.
    pub tour: Option<usize>,
    /// Keyboard help open.
    pub help: bool,
    /// Embedded in another page: timeline and play controls only.
    pub embed: bool,
    /// An error to show.
    pub error: Option<String>,
    /// A passing message ("link copied").
    pub notice: Option<String>,
    /// A link to show for copying by hand.
    pub link: Option<String>,
    /// An editor field's error, shown next to that field.
    pub field_error: Option<(Field, String)>,
    /// The last lane clicks (the latest last), while the notice offers to undo them: Undo
    /// takes back one click at a time.
    pub undo: LaneClicks,
    /// Where the scenario on screen came from, while it is unchanged since (a preset's own
    /// scenario needs none).
    pub origin: Option<Origin>,
    /// Counts the stories loaded (a preset, an import, a seed from Explore): each gets an entry
    /// of its own in the browser's history, so that Back returns to the one before.
    pub story: u32,
}

/// Where a loaded scenario came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// The address: a shared link, or Back and Forward.
    Address,
    /// An imported file.
    Import,
    /// A seed or counterexample of the Explore panel.
    Explore,
    /// The tour, which turns fencing off in its last chapter.
    Tour,
    /// The learner's own edits, come back to by Back, Forward or a reload.
    Edited,
}

impl Origin {
    /// How the story picker names a scenario of this origin.
    pub fn label(self) -> &'static str {
        match self {
            Origin::Address => "from the link",
            Origin::Import => "imported",
            Origin::Explore => "from Explore",
            Origin::Tour => "as the tour left it",
            Origin::Edited => "edited",
        }
    }

    /// The name kept in a history entry, so that Back and Forward say where its story came from.
    pub fn key(self) -> &'static str {
        match self {
            Origin::Address => "link",
            Origin::Import => "import",
            Origin::Explore => "explore",
            Origin::Tour => "tour",
            Origin::Edited => "edited",
        }
    }

    /// The origin [`Origin::key`] names.
    pub fn from_key(key: &str) -> Option<Origin> {
        [
            Origin::Address,
            Origin::Import,
            Origin::Explore,
            Origin::Tour,
            Origin::Edited,
        ]
        .into_iter()
        .find(|o| o.key() == key)
    }
}

/// An editor field that can show its own error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    /// The seed box.
    Seed,
    /// The "Freeze … at … s" form.
    Pause,
}

/// Everything that can happen.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// Playback clock: this many real milliseconds passed.
    Tick(f64),
    /// Play or pause.
    TogglePlay,
    /// Stop playing.
    Pause,
    /// One event forward.
    Next,
    /// One event back.
    Prev,
    /// Back to the start.
    Restart,
    /// To the end.
    End,
    /// Playhead to this virtual time.
    Seek(u64),
    /// Playhead right after this event.
    SeekEvent(usize),
    /// Speed slider.
    SetSpeed(i32),
    /// Zoom in (+1) or out (−1).
    Zoom(i32),
    /// Load a preset by name.
    LoadPreset(String),
    /// Load a scenario (link, import, explorer), playhead at the start.
    LoadScenario(Box<Scenario>, Origin),
    /// The address changed (Back, Forward, a link pasted in): show what it names, where that
    /// entry says it came from. The address already names it: no history entry is added.
    FollowAddress(Box<Scenario>, Origin),
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
    /// Put back the scenario from before the last lane click.
    Undo,
    /// Remove a fault.
    RemoveFault(usize),
    /// Compare mode on or off.
    ToggleCompare,
    /// Open the tour at its first chapter.
    TourStart,
    /// Go to a chapter.
    TourGo(usize),
    /// Leave the tour.
    TourLeave,
    /// Keyboard help.
    ToggleHelp,
    /// Close dialogs and messages.
    Dismiss,
    /// Show an error.
    Error(String),
    /// Show an error next to an editor field.
    FieldError(Field, String),
    /// Show a passing message.
    Notice(String),
    /// Show a link for copying by hand.
    ShowLink(String),
}

fn first_pause_length(s: &Scenario) -> Option<u64> {
    s.faults.iter().find_map(|f| match f {
        Fault::Pause { for_ms, .. } | Fault::PauseAt { for_ms, .. } => Some(*for_ms),
        _ => None,
    })
}

impl State {
    /// The state for `scenario` (validated by the caller or by [`Scenario::from_json`]).
    pub fn new(scenario: Scenario) -> State {
        let run = Run::of(&scenario, None);
        State {
            pause_ms: first_pause_length(&scenario).unwrap_or(DEFAULT_PAUSE_MS),
            scenario,
            run,
            compare: None,
            head: Playhead::default(),
            playing: false,
            speed: SPEED_DEFAULT,
            zoom: 0,
            tour: None,
            help: false,
            embed: false,
            error: None,
            notice: None,
            link: None,
            field_error: None,
            undo: LaneClicks::default(),
            origin: None,
            story: 0,
        }
    }

    /// The first thing a visitor sees: the tour, on its first chapter.
    pub fn with_tour() -> State {
        let mut s = State::new(tour_scenario(true));
        s.go_to_chapter(0);
        s
    }

    /// The trace being narrated.
    pub fn trace(&self) -> &Trace {
        &self.run.trace
    }

    /// Where playback ends.
    pub fn end(&self) -> u64 {
        let main = end_time(&self.run.trace);
        match &self.compare {
            Some(pair) => pair.iter().map(|r| end_time(&r.trace)).fold(main, u64::max),
            None => main,
        }
    }

    /// Speed as a factor (virtual ms per real ms).
    pub fn speed_factor(&self) -> f64 {
        10f64.powf(f64::from(self.speed) / 10.0)
    }

    /// Zoom as a factor.
    pub fn zoom_factor(&self) -> f64 {
        1.5f64.powi(self.zoom.min(ZOOM_MAX) as i32)
    }

    /// The name of the preset the scenario is, if it is one unchanged.
    pub fn preset_name(&self) -> Option<&'static str> {
        PRESETS
            .iter()
            .find(|p| p.name == self.scenario.name && p.scenario() == self.scenario)
            .map(|p| p.name)
    }

    fn seek(&mut self, t: u64) {
        self.head = Playhead::at_time(&self.run.trace, t.min(self.end()));
    }

    /// Replaces the scenario (after validating it); keeps the playhead's time unless `reset`.
    fn set_scenario(&mut self, scenario: Scenario, reset: bool) {
        if let Err(e) = scenario.validate() {
            self.error = Some(format!("That change was not applied: {e}"));
            return;
        }
        self.run = Run::of(&scenario, None);
        if self.compare.is_some() {
            self.compare = Some(pair(&scenario));
        }
        self.scenario = scenario;
        self.error = None;
        self.field_error = None;
        // The lane click's notice describes the change it offers to undo: once the scenario
        // changes again, both are out of date.
        if self.undo.clear() {
            self.notice = None;
        }
        if reset {
            self.playing = false;
            self.head = Playhead::default();
        } else {
            let t = self.head.t;
            self.seek(t);
        }
    }

    fn go_to_chapter(&mut self, i: usize) {
        let Some(ch) = CHAPTERS.get(i) else { return };
        // The chapters narrate one timeline, however the page got here (the button, an Undo, the
        // browser's Back to a `#tour=` address).
        self.compare = None;
        // The chapters narrate the tour's own story ("30 seconds", token 33): an edited copy of
        // it would show another trace than the text describes.
        let story = tour_scenario(ch.fencing);
        if self.scenario != story {
            self.pause_ms = first_pause_length(&story).unwrap_or(DEFAULT_PAUSE_MS);
            self.set_scenario(story, false);
        }
        // The story picker says where the story came from, not that the learner edited it.
        self.origin = Some(Origin::Tour);
        self.tour = Some(i);
        self.playing = false;
        self.head = ch.playhead(&self.run.trace);
    }

    /// Changes the scenario on screen. During the tour this leaves it: the chapters narrate the
    /// tour's own story, and an edited one would show something else than the card says.
    fn edit(&mut self, f: impl FnOnce(&mut Scenario)) {
        let mut s = self.scenario.clone();
        f(&mut s);
        if s != self.scenario {
            let touring = self.tour.is_some();
            self.set_scenario(s, false);
            if self.error.is_none() {
                self.origin = None;
            }
            if touring && self.error.is_none() {
                self.tour = None;
                // The chapter keeps its own entry in the history: Back returns to it.
                self.story = self.story.wrapping_add(1);
                self.notice = Some(
                    "You left the tour: the story is yours to change now. \
                     \u{201c}Take the tour\u{201d} brings its story back."
                        .into(),
                );
            }
        }
    }

    /// Why a pause at `at` cannot be added, if it cannot (the worker is checked by the caller).
    fn pause_refused(&self, at: u64) -> Option<String> {
        let end = self.end();
        if self.pause_ms == 0 {
            Some("Pause not added: set a pause length above 0 s first.".into())
        } else if self.scenario.faults.len() >= fencepost_sim::scenario::MAX_FAULTS {
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
        let name = self.scenario.workers.get(worker)?.name.clone();
        let pause = Fault::Pause {
            worker: name,
            at: at.min(MAX_TIME_MS),
            for_ms: self.pause_ms,
        };
        let before = self.scenario.faults.len();
        self.edit(|s| s.faults.push(pause.clone()));
        (self.scenario.faults.len() > before).then_some(pause)
    }

    /// Applies one action.
    pub fn apply(&mut self, action: Action) {
        let following = matches!(action, Action::FollowAddress(..));
        match action {
            Action::Tick(real_ms) => {
                if !self.playing {
                    return;
                }
                let step = (real_ms.clamp(0.0, 1_000.0) * self.speed_factor()).round();
                let t = self.head.t.saturating_add(step.max(1.0) as u64);
                let end = self.end();
                if t >= end {
                    self.seek(end);
                    self.playing = false;
                } else {
                    self.seek(t);
                }
            }
            Action::TogglePlay => {
                if self.playing {
                    self.playing = false;
                } else {
                    if self.head.t >= self.end() {
                        self.head = Playhead::default();
                    }
                    self.playing = true;
                }
            }
            Action::Pause => self.playing = false,
            Action::Next => {
                self.playing = false;
                self.head = self.head.next(&self.run.trace);
            }
            Action::Prev => {
                self.playing = false;
                self.head = self.head.prev(&self.run.trace);
            }
            Action::Restart => {
                self.playing = false;
                self.head = Playhead::default();
            }
            Action::End => {
                self.playing = false;
                let end = self.end();
                self.seek(end);
            }
            Action::Seek(t) => self.seek(t),
            Action::SeekEvent(i) => {
                self.playing = false;
                self.head = Playhead::at_event(&self.run.trace, i);
            }
            Action::SetSpeed(v) => self.speed = v.clamp(SPEED_MIN, SPEED_MAX),
            Action::Zoom(d) => {
                self.zoom = self.zoom.saturating_add_signed(d).min(ZOOM_MAX);
            }
            Action::LoadPreset(name) => match preset(&name) {
                Some(p) => {
                    // Another story leaves the tour.
                    self.tour = None;
                    let s = p.scenario();
                    self.pause_ms = first_pause_length(&s).unwrap_or(DEFAULT_PAUSE_MS);
                    self.set_scenario(s, true);
                    if self.error.is_none() {
                        self.origin = None;
                        self.story = self.story.wrapping_add(1);
                    }
                }
                None => self.error = Some(format!("There is no preset named `{name}`.")),
            },
            Action::LoadScenario(s, origin) | Action::FollowAddress(s, origin) => {
                let new_entry = !following && origin != Origin::Address;
                self.tour = None;
                self.pause_ms = first_pause_length(&s).unwrap_or(self.pause_ms);
                self.set_scenario(*s, true);
                if self.error.is_none() {
                    self.origin = Some(origin);
                    // The address already names what it follows.
                    if new_entry {
                        self.story = self.story.wrapping_add(1);
                    }
                }
            }
            Action::Toggle(sw) => self.edit(|s| match sw {
                Switch::Fencing => s.protections.fencing = !s.protections.fencing,
                Switch::UuidTokens => {
                    s.protections.token_kind = match s.protections.token_kind {
                        TokenKind::Ordered => TokenKind::Uuid,
                        TokenKind::Uuid => TokenKind::Ordered,
                    }
                }
                Switch::Idempotency => {
                    s.protections.idempotency_keys = !s.protections.idempotency_keys;
                }
                Switch::LockDelay => {
                    s.lock_delay_ms = if s.lock_delay_ms > 0 {
                        0
                    } else {
                        LOCK_DELAY_MS
                    };
                }
                Switch::CheckBeforeWrite => {
                    s.protections.check_before_write = !s.protections.check_before_write;
                }
            }),
            Action::SetTtl(ms) => {
                let ms = ms.clamp(TTL_RANGE.0, TTL_RANGE.1);
                self.edit(|s| s.lease_ttl_ms = ms);
            }
            Action::SetPauseLength(ms) => {
                let ms = ms.clamp(PAUSE_RANGE.0, PAUSE_RANGE.1);
                self.pause_ms = ms;
                self.edit(|s| {
                    for f in &mut s.faults {
                        if let Fault::Pause { for_ms, .. } | Fault::PauseAt { for_ms, .. } = f {
                            *for_ms = ms;
                        }
                    }
                });
            }
            Action::SetLatency(ms) => {
                let ms = ms.clamp(LATENCY_RANGE.0, LATENCY_RANGE.1);
                self.edit(|s| {
                    s.latency_ms.max = ms;
                    s.latency_ms.min = s.latency_ms.min.min(ms);
                });
            }
            Action::SetSeed(text) => match text.trim().parse::<u64>() {
                Ok(seed) if seed == self.scenario.seed => {
                    if matches!(self.field_error, Some((Field::Seed, _))) {
                        self.field_error = None;
                    }
                }
                Ok(seed) => self.edit(|s| s.seed = seed),
                Err(_) => {
                    self.field_error = Some((
                        Field::Seed,
                        format!(
                            "The seed must be a whole number from 0 to {}; `{}` is not. \
                             The run still uses seed {}.",
                            u64::MAX,
                            text.chars().take(40).collect::<String>(),
                            self.scenario.seed
                        ),
                    ));
                }
            },
            Action::InjectPause { worker, at } => {
                if self.scenario.workers.get(worker).is_none() {
                    return;
                }
                match self.pause_refused(at) {
                    Some(e) => self.field_error = Some((Field::Pause, e)),
                    None => {
                        self.add_pause(worker, at);
                    }
                }
            }
            Action::LaneClick { worker, at } => {
                if self.scenario.workers.get(worker).is_none() {
                    return;
                }
                if let Some(e) = self.pause_refused(at) {
                    self.error = Some(e);
                    return;
                }
                let before = Before {
                    scenario: self.scenario.clone(),
                    tour: self.tour,
                    origin: self.origin,
                    pause_ms: self.pause_ms,
                    story: self.story,
                };
                let touring = self.tour.is_some();
                // The clicks before this one stay undoable, one at a time.
                let mut clicks = std::mem::take(&mut self.undo);
                if let Some(pause) = self.add_pause(worker, at) {
                    self.notice = Some(format!(
                        "Pause added where you clicked: {}.{}",
                        pause.describe(),
                        if touring { " You left the tour." } else { "" }
                    ));
                    clicks.push(LaneClick {
                        worker,
                        pause,
                        before,
                    });
                }
                self.undo = clicks;
            }
            Action::Undo => {
                let mut clicks = std::mem::take(&mut self.undo);
                if let Some(LaneClick { pause, before, .. }) = clicks.pop() {
                    let Before {
                        scenario,
                        tour,
                        origin,
                        pause_ms,
                        story,
                    } = before;
                    self.notice = None;
                    self.set_scenario(scenario, false);
                    if self.error.is_none() {
                        self.origin = origin;
                        self.pause_ms = pause_ms;
                        // A click that left the tour gave it a history entry of its own; the
                        // page goes back to the chapter's.
                        self.story = story;
                        if let Some(ch) = tour {
                            self.go_to_chapter(ch);
                        }
                        if !clicks.is_empty() {
                            self.notice = Some(format!(
                                "Pause removed: {}. Undo again takes back the click \
                                 before it.",
                                pause.describe()
                            ));
                            self.undo = clicks;
                        }
                    }
                }
            }
            Action::RemoveFault(i) => {
                if i < self.scenario.faults.len() {
                    self.edit(|s| {
                        s.faults.remove(i);
                    });
                }
            }
            Action::ToggleCompare => {
                // The tour's chapters narrate one timeline.
                self.tour = None;
                self.compare = match self.compare {
                    Some(_) => None,
                    None => Some(pair(&self.scenario)),
                };
                let t = self.head.t;
                self.seek(t);
            }
            Action::TourStart => {
                self.help = false;
                self.go_to_chapter(0);
            }
            Action::TourGo(i) => {
                if i < CHAPTERS.len() {
                    self.go_to_chapter(i);
                }
            }
            Action::TourLeave => self.tour = None,
            Action::ToggleHelp => self.help = !self.help,
            Action::Dismiss => {
                self.help = false;
                self.error = None;
                self.notice = None;
                self.link = None;
                self.field_error = None;
                self.undo.clear();
            }
            Action::Error(e) => self.error = Some(e),
            Action::FieldError(f, e) => self.field_error = Some((f, e)),
            Action::Notice(n) => {
                // Another message takes the notice's place: an Undo beside it would seem to undo
                // whatever it reports (a copied link), not the lane clicks before it.
                self.notice = Some(n);
                self.undo.clear();
            }
            Action::ShowLink(l) => self.link = Some(l),
        }
    }
}

fn pair(scenario: &Scenario) -> [Run; 2] {
    [
        Run::of(scenario, Some(false)),
        Run::of(scenario, Some(true)),
    ]
}

/// The tour's story as its preset has it; also what a visitor sees without a link.
pub fn tour_story() -> Scenario {
    preset(TOUR_PRESET)
        .map(|p| p.scenario())
        .unwrap_or_else(|| {
            // Unreachable: the tour preset exists (tested); fall back to the first preset.
            PRESETS[0].scenario()
        })
}

fn tour_scenario(fencing: bool) -> Scenario {
    let mut s = tour_story();
    s.protections.fencing = fencing;
    s
}

impl Reducible for State {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        // The playback clock ticks while nothing plays too: no copy to find that out.
        if matches!(action, Action::Tick(_)) && !self.playing {
            return self;
        }
        let mut next = (*self).clone();
        next.apply(action);
        if next == *self { self } else { Rc::new(next) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fencepost_sim::{Detail, Kind};

    fn paused() -> State {
        State::new(preset("paused-worker").unwrap().scenario())
    }

    fn apply(mut s: State, actions: impl IntoIterator<Item = Action>) -> State {
        for a in actions {
            s.apply(a);
        }
        s
    }

    #[test]
    fn playing_advances_by_real_time_times_speed_and_stops_at_the_end() {
        let s = apply(paused(), [Action::TogglePlay, Action::Tick(16.0)]);
        assert!(s.playing);
        assert_eq!(s.head.t, 160); // 10× by default
        assert_eq!(s.head.upto, 5);
        let s = apply(s, [Action::SetSpeed(30), Action::Tick(100.0)]);
        assert_eq!(s.head.t, 100_160.min(s.end()));
        assert!(!s.playing);
        assert_eq!(s.head.upto, s.trace().events.len());
        // Playing again from the end starts over.
        let s = apply(s, [Action::TogglePlay]);
        assert!(s.playing);
        assert_eq!(s.head, Playhead::default());
        // Ticks while paused do nothing.
        let s = apply(s, [Action::Pause, Action::Tick(500.0)]);
        assert_eq!(s.head.t, 0);
    }

    #[test]
    fn stepping_and_seeking() {
        let s = apply(paused(), [Action::Next, Action::Next, Action::Next]);
        assert_eq!((s.head.t, s.head.upto), (50, 3));
        let s = apply(s, [Action::Prev]);
        assert_eq!((s.head.t, s.head.upto), (50, 2));
        let s = apply(s, [Action::SeekEvent(29)]);
        assert_eq!(
            s.head.current(s.trace()).map(|e| e.kind()),
            Some(Kind::WriteRejected)
        );
        let s = apply(s, [Action::Seek(u64::MAX)]);
        assert_eq!(s.head.t, 46_100);
        let s = apply(s, [Action::Restart]);
        assert_eq!(s.head, Playhead::default());
        let s = apply(s, [Action::SeekEvent(usize::MAX)]);
        assert_eq!(s.head.upto, s.trace().events.len());
    }

    #[test]
    fn toggles_rerun_the_scenario() {
        let s = apply(paused(), [Action::End, Action::Toggle(Switch::Fencing)]);
        assert!(!s.scenario.protections.fencing);
        assert!(!s.trace().fencing);
        assert!(!s.trace().verdict.ok);
        // The playhead kept its place.
        assert_eq!(s.head.t, 46_100);
        let s = apply(
            s,
            [
                Action::Toggle(Switch::Fencing),
                Action::Toggle(Switch::UuidTokens),
            ],
        );
        assert_eq!(s.scenario.protections.token_kind, TokenKind::Uuid);
        assert!(!s.trace().verdict.ok);
        let s = apply(
            s,
            [
                Action::Toggle(Switch::UuidTokens),
                Action::Toggle(Switch::LockDelay),
            ],
        );
        assert_eq!(s.scenario.lock_delay_ms, LOCK_DELAY_MS);
        let s = apply(
            s,
            [
                Action::Toggle(Switch::LockDelay),
                Action::Toggle(Switch::Idempotency),
                Action::Toggle(Switch::CheckBeforeWrite),
            ],
        );
        assert_eq!(s.scenario.lock_delay_ms, 0);
        assert!(s.scenario.protections.idempotency_keys);
        assert!(s.scenario.protections.check_before_write);
        assert_eq!(s.preset_name(), None);
        assert_eq!(paused().preset_name(), Some("paused-worker"));
    }

    #[test]
    fn sliders_clamp_extreme_values() {
        let s = apply(
            paused(),
            [
                Action::SetTtl(0),
                Action::SetLatency(u64::MAX),
                Action::SetPauseLength(u64::MAX),
            ],
        );
        assert_eq!(s.scenario.lease_ttl_ms, TTL_RANGE.0);
        assert_eq!(s.scenario.latency_ms.max, LATENCY_RANGE.1);
        assert_eq!(s.scenario.latency_ms.min, 50);
        assert!(matches!(
            s.scenario.faults[0],
            Fault::Pause {
                for_ms: 300_000,
                ..
            }
        ));
        assert_eq!(s.error, None);
        let s = apply(s, [Action::SetLatency(0)]);
        assert_eq!(
            (s.scenario.latency_ms.min, s.scenario.latency_ms.max),
            (0, 0)
        );
        let s = apply(s, [Action::SetTtl(u64::MAX)]);
        assert_eq!(s.scenario.lease_ttl_ms, TTL_RANGE.1);
    }

    #[test]
    fn a_bad_seed_is_an_error_in_the_page() {
        let s = apply(paused(), [Action::SetSeed("12x".into())]);
        assert_eq!(s.scenario.seed, 1);
        assert_eq!(s.error, None);
        let (field, e) = s.field_error.clone().unwrap();
        assert_eq!(field, Field::Seed);
        assert!(e.contains("`12x` is not"), "{e}");
        assert!(e.ends_with("The run still uses seed 1."), "{e}");
        // Typing the seed in use again clears the message.
        let again = apply(s.clone(), [Action::SetSeed("1".into())]);
        assert_eq!(again.field_error, None);
        let s = apply(s, [Action::SetSeed(" 18446744073709551615 ".into())]);
        assert_eq!(s.scenario.seed, u64::MAX);
        assert_eq!(s.field_error, None);
    }

    #[test]
    fn clicking_a_lane_forks_the_scenario_with_a_pause() {
        let base = paused();
        // Freeze B at 30.5 s, after it got the lock: its write comes late.
        let s = apply(
            base.clone(),
            [Action::InjectPause {
                worker: 1,
                at: 30_500,
            }],
        );
        assert_eq!(
            s.scenario.faults.last(),
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
            [Action::InjectPause {
                worker: 1,
                at: 30_500,
            }],
        );
        assert_eq!(again.trace(), s.trace());
        // Removing it restores the original.
        let s = apply(s, [Action::RemoveFault(1)]);
        assert_eq!(s.trace(), base.trace());
        // No such worker: nothing happens.
        let s = apply(s, [Action::InjectPause { worker: 9, at: 1 }]);
        assert_eq!(s.scenario, base.scenario);
    }

    #[test]
    fn compare_runs_fencing_off_and_on() {
        let s = apply(paused(), [Action::ToggleCompare, Action::End]);
        let [off, on] = s.compare.as_ref().unwrap();
        assert!(!off.trace.verdict.ok);
        assert!(on.trace.verdict.ok);
        // Both play to the later end: without fencing, A learns its write went through at 46.15 s.
        assert_eq!(s.head.t, 46_150);
        let s = apply(s, [Action::ToggleCompare]);
        assert!(s.compare.is_none());
    }

    #[test]
    fn the_tour_walks_its_chapters_and_one_click_leaves_it() {
        let s = State::with_tour();
        assert_eq!(s.tour, Some(0));
        assert_eq!(s.head.t, 100);
        let mut s = s;
        for i in 1..CHAPTERS.len() {
            s.apply(Action::TourGo(i));
            assert_eq!(s.tour, Some(i));
        }
        assert!(!s.scenario.protections.fencing);
        assert!(!s.trace().verdict.ok);
        s.apply(Action::TourGo(5));
        assert!(s.scenario.protections.fencing);
        s.apply(Action::TourGo(99));
        assert_eq!(s.tour, Some(5));
        s.apply(Action::TourLeave);
        assert_eq!(s.tour, None);
        // Picking another story leaves the tour.
        let mut t = State::with_tour();
        t.apply(Action::LoadPreset("gc-pause".into()));
        assert_eq!(t.tour, None);
        // Starting the tour from another preset brings the story back.
        let s = apply(
            State::new(preset("gc-pause").unwrap().scenario()),
            [Action::TourStart],
        );
        assert_eq!(s.scenario.name, TOUR_PRESET);
        assert_eq!(s.tour, Some(0));
    }

    #[test]
    fn the_tour_tells_its_own_story_even_after_the_story_was_edited() {
        let story = State::with_tour();
        let edited = apply(
            paused(),
            [
                Action::SetTtl(10_000),
                Action::SetPauseLength(20_000),
                Action::InjectPause {
                    worker: 1,
                    at: 5_000,
                },
                Action::TourStart,
            ],
        );
        assert_eq!(edited.tour, Some(0));
        assert_eq!(edited.scenario, story.scenario);
        assert_eq!(edited.preset_name(), Some(TOUR_PRESET));
        assert_eq!(edited.trace(), story.trace());
        assert_eq!(edited.head, story.head);
        assert_eq!(edited.pause_ms, story.pause_ms);
        // An edit during the tour leaves it (the card would no longer match the timeline);
        // going to a chapter again brings the story back.
        let s = apply(story, [Action::SetTtl(10_000)]);
        assert_eq!(s.tour, None);
        assert!(
            s.notice
                .as_deref()
                .unwrap()
                .starts_with("You left the tour")
        );
        let s = apply(s, [Action::TourGo(1)]);
        assert_eq!(s.scenario, tour_scenario(CHAPTERS[1].fencing));
        assert_eq!(s.tour, Some(1));
    }

    #[test]
    fn every_kind_of_edit_during_the_tour_leaves_it() {
        let at_refusal = || apply(State::with_tour(), [Action::TourGo(5)]);
        for edit in [
            Action::Toggle(Switch::Fencing),
            Action::LaneClick {
                worker: 1,
                at: 22_100,
            },
            Action::InjectPause {
                worker: 0,
                at: 2_000,
            },
            Action::SetSeed("2".into()),
            Action::SetPauseLength(10_000),
            Action::ToggleCompare,
        ] {
            let s = apply(at_refusal(), [edit.clone()]);
            assert_eq!(s.tour, None, "{edit:?}");
        }
        // Moving the playhead or changing the speed does not.
        for view in [
            Action::Next,
            Action::End,
            Action::SetSpeed(20),
            Action::Zoom(1),
        ] {
            let s = apply(at_refusal(), [view.clone()]);
            assert_eq!(s.tour, Some(5), "{view:?}");
        }
    }

    #[test]
    fn a_lane_click_says_what_it_added_and_can_be_undone() {
        let base = apply(paused(), [Action::Seek(20_000)]);
        let s = apply(
            base.clone(),
            [Action::LaneClick {
                worker: 0,
                at: 47_900.min(base.end()),
            }],
        );
        assert_eq!(s.scenario.faults.len(), 2);
        assert_eq!(
            s.notice.as_deref(),
            Some("Pause added where you clicked: A freezes at 46.1 s for 45 s.")
        );
        assert_eq!(s.undo.len(), 1);
        let s = apply(s, [Action::Undo]);
        assert_eq!(s.scenario, base.scenario);
        assert_eq!(s.trace(), base.trace());
        assert_eq!((s.notice.clone(), s.undo.len()), (None, 0));
        assert_eq!(s.head.t, 20_000);
        // Any other change forgets what Undo would put back.
        let s = apply(
            base.clone(),
            [
                Action::LaneClick {
                    worker: 0,
                    at: 5_000,
                },
                Action::SetTtl(10_000),
            ],
        );
        assert!(s.undo.is_empty());
        let s = apply(s, [Action::Undo]);
        assert_eq!(s.scenario.lease_ttl_ms, 10_000);
    }

    #[test]
    fn undoing_a_lane_click_that_left_the_tour_returns_to_its_chapter() {
        let touring = apply(State::with_tour(), [Action::TourGo(5)]);
        let s = apply(
            touring.clone(),
            [Action::LaneClick {
                worker: 1,
                at: 21_200,
            }],
        );
        assert_eq!(s.tour, None);
        assert_ne!(
            s.story, touring.story,
            "leaving the tour gets its own entry"
        );
        let s = apply(s, [Action::Undo]);
        assert_eq!(s.tour, Some(5));
        assert_eq!(s.scenario, touring.scenario);
        assert_eq!(s.head, touring.head);
        assert_eq!(s.story, touring.story);
        assert_eq!((s.notice, s.undo.len()), (None, 0));
    }

    #[test]
    fn another_notice_takes_the_undo_offer_with_it() {
        let s = apply(
            paused(),
            [Action::LaneClick {
                worker: 1,
                at: 5_000,
            }],
        );
        assert_eq!(s.undo.len(), 1);
        let s = apply(s, [Action::Notice("Link copied to the clipboard.".into())]);
        assert!(
            s.undo.is_empty(),
            "an Undo beside 'Link copied' would remove the pause"
        );
        assert_eq!(s.scenario.faults.len(), 2);
    }

    #[test]
    fn the_tour_never_shares_the_page_with_compare_mode() {
        // Into the tour by an Undo, with compare switched on after the click.
        let touring = apply(State::with_tour(), [Action::TourGo(5)]);
        let s = apply(
            touring,
            [
                Action::LaneClick {
                    worker: 1,
                    at: 21_200,
                },
                Action::ToggleCompare,
                Action::Undo,
            ],
        );
        assert_eq!((s.tour, s.compare.is_some()), (Some(5), false));
        // And by an address (the browser's Back to `#tour=3`).
        let s = apply(paused(), [Action::ToggleCompare, Action::TourGo(2)]);
        assert_eq!((s.tour, s.compare.is_some()), (Some(2), false));
    }

    #[test]
    fn undo_takes_back_lane_clicks_one_at_a_time() {
        let base = paused();
        let clicks = [5_000, 10_000, 15_000].map(|at| Action::LaneClick { worker: 1, at });
        let s = apply(base.clone(), clicks);
        assert_eq!(s.scenario.faults.len(), 4);
        let s = apply(s, [Action::Undo]);
        assert_eq!(s.scenario.faults.len(), 3);
        assert_eq!(
            s.notice.as_deref(),
            Some(
                "Pause removed: B freezes at 15 s for 45 s. Undo again takes back the click before it."
            )
        );
        let s = apply(s, [Action::Undo, Action::Undo]);
        assert_eq!(s.scenario, base.scenario);
        assert_eq!((s.notice, s.undo.len()), (None, 0));
    }

    #[test]
    fn a_lane_click_notice_goes_when_the_scenario_changes_again() {
        for then in [
            Action::LoadPreset("gc-pause".into()),
            Action::Toggle(Switch::Fencing),
            Action::RemoveFault(0),
            Action::LoadScenario(Box::new(tour_story()), Origin::Address),
        ] {
            let s = apply(
                paused(),
                [
                    Action::LaneClick {
                        worker: 1,
                        at: 20_000,
                    },
                    then.clone(),
                ],
            );
            assert_eq!((s.notice.clone(), s.undo.len()), (None, 0), "{then:?}");
        }
    }

    #[test]
    fn a_pause_after_the_end_of_the_run_is_refused() {
        let s = apply(
            paused(),
            [Action::InjectPause {
                worker: 0,
                at: 99_999_999_000,
            }],
        );
        assert_eq!(s.scenario, paused().scenario);
        let (field, e) = s.field_error.clone().unwrap();
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
            [Action::InjectPause {
                worker: 0,
                at: 46_100,
            }],
        );
        assert_eq!(s.scenario.faults.len(), 2);
        assert_eq!(s.field_error, None);
        // A pause length of 0 is refused next to the form too.
        let s = apply(
            paused(),
            [
                Action::SetPauseLength(0),
                Action::InjectPause {
                    worker: 0,
                    at: 1_000,
                },
            ],
        );
        assert_eq!(s.scenario.faults.len(), 1);
        assert!(matches!(s.field_error, Some((Field::Pause, _))));
    }

    #[test]
    fn presets_and_bad_scenarios() {
        let s = apply(
            paused(),
            [Action::End, Action::LoadPreset("gc-pause".into())],
        );
        assert_eq!(s.scenario.name, "gc-pause");
        assert_eq!(s.head, Playhead::default());
        assert_eq!(s.pause_ms, 15_000);
        let s = apply(s, [Action::LoadPreset("nope".into())]);
        assert_eq!(s.scenario.name, "gc-pause");
        assert_eq!(s.error.as_deref(), Some("There is no preset named `nope`."));
        let mut bad = s.scenario.clone();
        bad.workers.clear();
        let s = apply(s, [Action::LoadScenario(Box::new(bad), Origin::Import)]);
        assert_eq!(s.scenario.name, "gc-pause");
        assert_eq!(
            s.error.as_deref(),
            Some("That change was not applied: workers: needs at least one worker")
        );
        let s = apply(s, [Action::Dismiss]);
        assert_eq!(s.error, None);
    }

    #[test]
    fn each_story_loaded_counts_and_says_where_it_came_from() {
        let s = paused();
        assert_eq!((s.story, s.origin), (0, None));
        let s = apply(s, [Action::LoadPreset("gc-pause".into())]);
        assert_eq!((s.story, s.origin), (1, None));
        let mut other = s.scenario.clone();
        other.seed = 9;
        let s = apply(
            s,
            [Action::LoadScenario(
                Box::new(other.clone()),
                Origin::Explore,
            )],
        );
        assert_eq!((s.story, s.origin), (2, Some(Origin::Explore)));
        // An edit makes it the learner's own; the address loading a scenario adds no story.
        let s = apply(s, [Action::Toggle(Switch::Idempotency)]);
        assert_eq!((s.story, s.origin), (2, None));
        let s = apply(s, [Action::LoadScenario(Box::new(other), Origin::Address)]);
        assert_eq!((s.story, s.origin), (2, Some(Origin::Address)));
        // Nothing loaded, nothing counted.
        let s = apply(s, [Action::LoadPreset("nope".into())]);
        assert_eq!(s.story, 2);
    }

    #[test]
    fn reduce_keeps_the_same_state_when_nothing_changes() {
        let s = Rc::new(paused());
        let same = s.clone().reduce(Action::Tick(16.0));
        assert!(Rc::ptr_eq(&s, &same));
        let moved = s.clone().reduce(Action::Next);
        assert!(!Rc::ptr_eq(&s, &moved));
    }

    #[test]
    fn the_run_is_laid_out_in_the_style_of_the_scenarios_tokens() {
        let s = State::new(preset("uuid-token").unwrap().scenario());
        let ids = crate::model::TokenStyle::UniqueId;
        assert_eq!(s.run.timeline.tokens, ids);
        let grant = s.run.timeline.badges.iter().find(|b| b.seq == 2).unwrap();
        assert_eq!(grant.text, format!("{} → A", ids.show(33)));
        let s = apply(s, [Action::Toggle(Switch::UuidTokens)]);
        assert_eq!(s.run.timeline.tokens, crate::model::TokenStyle::Number);
        let grant = s.run.timeline.badges.iter().find(|b| b.seq == 2).unwrap();
        assert_eq!(grant.text, "33 → A");
    }

    #[test]
    fn long_runs_are_cut() {
        let mut sc = preset("paused-worker").unwrap().scenario();
        sc.workers[1].job.writes = 1_000;
        let s = State::new(sc);
        assert!(s.trace().truncated);
        assert_eq!(s.trace().events.len(), MAX_EVENTS);
    }
}
