//! Time as an input.
//!
//! fencepost never reads a clock by itself. Every operation takes `now`: milliseconds on a
//! monotonic timeline chosen by the host. A [`Clock`] is a convenience for hosts that have one.
//!
//! A `now` that is earlier than one already seen is **clamped** to the latest instant seen: a clock
//! that steps backwards can never revive an expired lease or stretch a live one. Each clamp is
//! counted and reported by [`Timeline::observe`], so hosts can log or alert on it.

use core::cell::Cell;

/// A source of monotonic milliseconds.
pub trait Clock {
    /// Milliseconds since an arbitrary, fixed origin. Should never decrease; fencepost clamps it
    /// if it does.
    fn now_ms(&self) -> u64;
}

impl<C: Clock + ?Sized> Clock for &C {
    fn now_ms(&self) -> u64 {
        (**self).now_ms()
    }
}

/// A clock moved by hand, for tests and simulations.
#[derive(Debug, Default)]
pub struct ManualClock {
    now: Cell<u64>,
}

impl ManualClock {
    /// A clock reading `start`.
    pub const fn new(start: u64) -> ManualClock {
        ManualClock {
            now: Cell::new(start),
        }
    }

    /// Moves the clock forward by `ms` (saturating).
    pub fn advance(&self, ms: u64) {
        self.now.set(self.now.get().saturating_add(ms));
    }

    /// Sets the clock to any value, including an earlier one (to test clamping).
    pub fn set(&self, now: u64) {
        self.now.set(now);
    }
}

impl Clock for ManualClock {
    fn now_ms(&self) -> u64 {
        self.now.get()
    }
}

/// The process's monotonic clock, in milliseconds since the clock was made.
#[cfg(feature = "std")]
#[derive(Debug, Clone, Copy)]
pub struct StdClock {
    origin: std::time::Instant,
}

#[cfg(feature = "std")]
impl StdClock {
    /// A clock reading 0 now.
    pub fn new() -> StdClock {
        StdClock {
            origin: std::time::Instant::now(),
        }
    }
}

#[cfg(feature = "std")]
impl Default for StdClock {
    fn default() -> StdClock {
        StdClock::new()
    }
}

#[cfg(feature = "std")]
impl Clock for StdClock {
    fn now_ms(&self) -> u64 {
        u64::try_from(self.origin.elapsed().as_millis()).unwrap_or(u64::MAX)
    }
}

/// The latest instant an authority has seen, with a count of clamped readings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Timeline {
    latest: u64,
    clamps: u64,
}

/// What happened to one reading of the time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Observed {
    /// The time the operation used: `max(given, latest seen)`.
    pub now: u64,
    /// How far behind the latest instant the given time was (0 when it was not).
    pub clamped_by: u64,
}

impl Timeline {
    /// A timeline that has seen `start`.
    pub const fn starting_at(start: u64) -> Timeline {
        Timeline {
            latest: start,
            clamps: 0,
        }
    }

    /// A timeline resuming from a snapshot: latest instant and clamp count.
    pub const fn resume(latest: u64, clamps: u64) -> Timeline {
        Timeline { latest, clamps }
    }

    /// Folds one reading into the timeline and returns the time to use.
    #[inline]
    pub fn observe(&mut self, now: u64) -> Observed {
        if now >= self.latest {
            self.latest = now;
            Observed { now, clamped_by: 0 }
        } else {
            self.clamps = self.clamps.saturating_add(1);
            Observed {
                now: self.latest,
                clamped_by: self.latest - now,
            }
        }
    }

    /// The time to use for a reading: `observe(now).now`, in one out-of-line copy for the
    /// authority's and the table's operations (the WebAssembly build's size).
    #[inline(never)]
    pub(crate) fn now(&mut self, now: u64) -> u64 {
        self.observe(now).now
    }

    /// The latest instant seen.
    pub const fn latest(&self) -> u64 {
        self.latest
    }

    /// How many readings were earlier than the latest instant and were clamped.
    pub const fn clamps(&self) -> u64 {
        self.clamps
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backwards_readings_are_clamped_and_counted() {
        let mut tl = Timeline::default();
        assert_eq!(
            tl.observe(100),
            Observed {
                now: 100,
                clamped_by: 0
            }
        );
        assert_eq!(
            tl.observe(40),
            Observed {
                now: 100,
                clamped_by: 60
            }
        );
        assert_eq!(
            tl.observe(100),
            Observed {
                now: 100,
                clamped_by: 0
            }
        );
        assert_eq!(tl.observe(150).now, 150);
        assert_eq!(tl.latest(), 150);
        assert_eq!(tl.clamps(), 1);
    }

    #[test]
    fn manual_clock_moves_by_hand() {
        let c = ManualClock::new(5);
        c.advance(10);
        assert_eq!(c.now_ms(), 15);
        c.set(3);
        fn read<C: Clock>(c: C) -> u64 {
            c.now_ms()
        }
        assert_eq!(read(&c), 3);
        c.set(u64::MAX);
        c.advance(1);
        assert_eq!(c.now_ms(), u64::MAX);
    }

    #[cfg(feature = "std")]
    #[test]
    fn std_clock_never_goes_back() {
        let c = StdClock::new();
        let a = c.now_ms();
        let b = c.now_ms();
        assert!(b >= a);
    }
}
