//! Playback: the playhead, whether it moves, its speed and the zoom, and the actions that change
//! them. A part of the state with its own reducer: it needs only the trace it plays and where
//! playback ends.

use fencepost_sim::Trace;

use crate::model::Playhead;

/// Speed slider range, in tenths of a power of ten (−10: 0.1×, 30: 1000×).
pub const SPEED_MIN: i32 = -10;
/// See [`SPEED_MIN`].
pub const SPEED_MAX: i32 = 30;
/// Default speed: 10× (ten virtual seconds per second).
pub const SPEED_DEFAULT: i32 = 10;
/// Zoom steps (each ×1.5).
pub const ZOOM_MAX: u32 = 8;

/// Where playback is and how it moves.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Playback {
    /// The playhead on the run.
    pub head: Playhead,
    /// Playing.
    pub playing: bool,
    /// Playback speed, in tenths of a power of ten.
    pub speed: i32,
    /// Zoom step.
    pub zoom: u32,
}

impl Default for Playback {
    fn default() -> Playback {
        Playback {
            head: Playhead::default(),
            playing: false,
            speed: SPEED_DEFAULT,
            zoom: 0,
        }
    }
}

/// What playback does.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Play {
    /// Playback clock: this many real milliseconds passed.
    Tick(f64),
    /// Play or pause.
    Toggle,
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
}

impl Playback {
    /// Speed as a factor (virtual ms per real ms).
    pub fn speed_factor(&self) -> f64 {
        10f64.powf(f64::from(self.speed) / 10.0)
    }

    /// Zoom as a factor.
    pub fn zoom_factor(&self) -> f64 {
        1.5f64.powi(self.zoom.min(ZOOM_MAX) as i32)
    }

    /// The playhead to time `t` of `trace` (at most `end`).
    pub fn seek(&mut self, trace: &Trace, end: u64, t: u64) {
        self.head = Playhead::at_time(trace, t.min(end));
    }

    /// Applies one action to playback of `trace`, which ends at `end`.
    pub fn apply(&mut self, action: Play, trace: &Trace, end: u64) {
        match action {
            Play::Tick(real_ms) => {
                if !self.playing {
                    return;
                }
                let step = (real_ms.clamp(0.0, 1_000.0) * self.speed_factor()).round();
                let t = self.head.t.saturating_add(step.max(1.0) as u64);
                if t >= end {
                    self.seek(trace, end, end);
                    self.playing = false;
                } else {
                    self.seek(trace, end, t);
                }
            }
            Play::Toggle => {
                if self.playing {
                    self.playing = false;
                } else {
                    if self.head.t >= end {
                        self.head = Playhead::default();
                    }
                    self.playing = true;
                }
            }
            Play::Pause => self.playing = false,
            Play::Next => {
                self.playing = false;
                self.head = self.head.next(trace);
            }
            Play::Prev => {
                self.playing = false;
                self.head = self.head.prev(trace);
            }
            Play::Restart => {
                self.playing = false;
                self.head = Playhead::default();
            }
            Play::End => {
                self.playing = false;
                self.seek(trace, end, end);
            }
            Play::Seek(t) => self.seek(trace, end, t),
            Play::SeekEvent(i) => {
                self.playing = false;
                self.head = Playhead::at_event(trace, i);
            }
            Play::SetSpeed(v) => self.speed = v.clamp(SPEED_MIN, SPEED_MAX),
            Play::Zoom(d) => self.zoom = self.zoom.saturating_add_signed(d).min(ZOOM_MAX),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::testing::{apply, paused};
    use crate::state::{Action, Play};
    use fencepost_sim::Kind;

    #[test]
    fn playing_advances_by_real_time_times_speed_and_stops_at_the_end() {
        let s = apply(
            paused(),
            [Action::Play(Play::Toggle), Action::Play(Play::Tick(16.0))],
        );
        assert!(s.play.playing);
        assert_eq!(s.play.head.t, 160); // 10× by default
        assert_eq!(s.play.head.upto, 5);
        let s = apply(
            s,
            [
                Action::Play(Play::SetSpeed(30)),
                Action::Play(Play::Tick(100.0)),
            ],
        );
        assert_eq!(s.play.head.t, 100_160.min(s.end()));
        assert!(!s.play.playing);
        assert_eq!(s.play.head.upto, s.trace().events.len());
        // Playing again from the end starts over.
        let s = apply(s, [Action::Play(Play::Toggle)]);
        assert!(s.play.playing);
        assert_eq!(s.play.head, Playhead::default());
        // Ticks while paused do nothing.
        let s = apply(
            s,
            [Action::Play(Play::Pause), Action::Play(Play::Tick(500.0))],
        );
        assert_eq!(s.play.head.t, 0);
    }

    #[test]
    fn stepping_and_seeking() {
        let s = apply(
            paused(),
            [
                Action::Play(Play::Next),
                Action::Play(Play::Next),
                Action::Play(Play::Next),
            ],
        );
        assert_eq!((s.play.head.t, s.play.head.upto), (50, 3));
        let s = apply(s, [Action::Play(Play::Prev)]);
        assert_eq!((s.play.head.t, s.play.head.upto), (50, 2));
        let s = apply(s, [Action::Play(Play::SeekEvent(30))]);
        assert_eq!(
            s.play.head.current(s.trace()).map(|e| e.kind()),
            Some(Kind::WriteRejected)
        );
        let s = apply(s, [Action::Play(Play::Seek(u64::MAX))]);
        assert_eq!(s.play.head.t, 46_100);
        let s = apply(s, [Action::Play(Play::Restart)]);
        assert_eq!(s.play.head, Playhead::default());
        let s = apply(s, [Action::Play(Play::SeekEvent(usize::MAX))]);
        assert_eq!(s.play.head.upto, s.trace().events.len());
    }
}
