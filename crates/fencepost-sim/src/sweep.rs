//! Seed sweeps: run many derived scenarios and count what broke, with and without fencing.
//!
//! A [`Sweep`] advances in slices: [`Sweep::step`] runs the next `n` seeds and says how far it got,
//! so a browser can run ten thousand seeds between animation frames without freezing the page. The
//! core keeps no clock: whoever drives the sweep measures the time and divides (see
//! [`SweepReport::runs_per_sec`]).
//!
//! ```
//! use fencepost_sim::sweep::{Sweep, SweepOptions};
//! use fencepost_sim::template::{Source, template};
//!
//! let t = template("pauses-holds-skew").unwrap();
//! let mut sweep = Sweep::new(Source::Template(t), 0, 200, SweepOptions::default());
//! while !sweep.step(50).finished() {}
//! let report = sweep.report();
//! assert_eq!(report.runs, 200);
//! assert_eq!(report.fencing_on.as_ref().unwrap().violating_runs, 0);
//! assert!(report.fencing_off.as_ref().unwrap().violating_runs > 0);
//! ```

use alloc::vec::Vec;

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};

use crate::engine::{RunOptions, run_with};
use crate::invariants::Invariant;
use crate::template::Source;

/// Which ways each scenario is run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Modes {
    /// Fencing forced on, and forced off (the default).
    #[default]
    Both,
    /// Fencing forced on only.
    FencingOn,
    /// Fencing forced off only.
    FencingOff,
}

/// How a sweep runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SweepOptions {
    /// Which ways each scenario is run.
    pub modes: Modes,
    /// How many violating seeds to keep per mode (the first ones).
    pub keep_seeds: usize,
    /// The event limit of each run.
    pub max_events: usize,
}

impl Default for SweepOptions {
    fn default() -> SweepOptions {
        SweepOptions {
            modes: Modes::Both,
            keep_seeds: 5,
            max_events: 100_000,
        }
    }
}

/// Violations counted per invariant (JSON: `{"I1": n, ...}`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PerInvariant(pub [u64; 5]);

impl PerInvariant {
    /// The count for `inv`.
    pub fn get(&self, inv: Invariant) -> u64 {
        self.0[inv.index()]
    }
}

impl Serialize for PerInvariant {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(5))?;
        for inv in Invariant::ALL {
            m.serialize_entry(&inv, &self.0[inv.index()])?;
        }
        m.end()
    }
}

/// A seed whose run broke something.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SeedHit {
    /// The seed (`fencepost sim --template T --seed <seed>` replays it).
    pub seed: u64,
    /// What broke, I1..I5.
    pub broken: Vec<Invariant>,
}

/// Counts for one way of running (fencing on, or off).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ModeReport {
    /// Runs with at least one violation.
    pub violating_runs: u64,
    /// Runs that violated each invariant.
    pub by_invariant: PerInvariant,
    /// Runs stopped by the event limit.
    pub truncated_runs: u64,
    /// The first violating seeds.
    pub first_violating: Vec<SeedHit>,
}

/// What a sweep found so far.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SweepReport {
    /// The template's (or scenario's) name.
    pub name: alloc::string::String,
    /// First seed of the range.
    pub first_seed: u64,
    /// Seeds in the range.
    pub seeds: u64,
    /// Seeds run so far (each once per mode).
    pub runs: u64,
    /// Fencing forced on, if run.
    pub fencing_on: Option<ModeReport>,
    /// Fencing forced off, if run.
    pub fencing_off: Option<ModeReport>,
}

impl SweepReport {
    /// Runs per second, all modes counted, given the seconds the caller measured.
    pub fn runs_per_sec(&self, secs: f64) -> f64 {
        let modes = u64::from(self.fencing_on.is_some()) + u64::from(self.fencing_off.is_some());
        if secs > 0.0 {
            (self.runs * modes) as f64 / secs
        } else {
            0.0
        }
    }

    /// The report for one mode.
    pub fn mode(&self, fencing: bool) -> Option<&ModeReport> {
        if fencing {
            self.fencing_on.as_ref()
        } else {
            self.fencing_off.as_ref()
        }
    }

    /// The report as JSON.
    pub fn to_json(&self) -> alloc::string::String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// How far a sweep got.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Progress {
    /// Seeds run.
    pub done: u64,
    /// Seeds in all.
    pub total: u64,
}

impl Progress {
    /// Whether every seed ran.
    pub const fn finished(&self) -> bool {
        self.done >= self.total
    }
}

/// Most bytes of memory a sweep whose runs stop at `max_events` events can take from the
/// WebAssembly module's allocator: one run at a time, unrecorded (see
/// [`crate::engine::run_bytes`]), and 4 MiB for its report, with up to 10,000 violating seeds
/// kept per mode (about 40 bytes each, and their vectors' growth), and its source.
pub fn sweep_bytes(max_events: usize) -> u64 {
    crate::engine::run_bytes(max_events, false) + (4 << 20)
}

/// A seed sweep that advances in slices.
#[derive(Clone, Debug)]
pub struct Sweep {
    source: Source,
    opts: SweepOptions,
    report: SweepReport,
}

/// How many seeds a sweep from `first_seed` can run: every one up to `u64::MAX`, which counts
/// too (from 0 that is 2^64, given as `u64::MAX`).
pub fn seeds_from(first_seed: u64) -> u64 {
    (u64::MAX - first_seed).saturating_add(1)
}

impl Sweep {
    /// A sweep over seeds `first_seed .. first_seed + seeds`, stopping after `u64::MAX`, which it
    /// runs too (so it covers at most [`seeds_from`] seeds).
    pub fn new(source: Source, first_seed: u64, seeds: u64, opts: SweepOptions) -> Sweep {
        let seeds = seeds.min(seeds_from(first_seed));
        let on = matches!(opts.modes, Modes::Both | Modes::FencingOn);
        let off = matches!(opts.modes, Modes::Both | Modes::FencingOff);
        let report = SweepReport {
            name: source.name().into(),
            first_seed,
            seeds,
            runs: 0,
            fencing_on: on.then(ModeReport::default),
            fencing_off: off.then(ModeReport::default),
        };
        Sweep {
            source,
            opts,
            report,
        }
    }

    /// Runs the next `n` seeds (fewer at the end of the range).
    pub fn step(&mut self, n: u64) -> Progress {
        let todo = n.min(self.report.seeds - self.report.runs);
        for _ in 0..todo {
            let seed = self.report.first_seed + self.report.runs;
            let scenario = self.source.derive(seed);
            for fencing in [true, false] {
                let Some(mode) = (if fencing {
                    self.report.fencing_on.as_mut()
                } else {
                    self.report.fencing_off.as_mut()
                }) else {
                    continue;
                };
                let trace = run_with(
                    &scenario,
                    RunOptions {
                        fencing: Some(fencing),
                        seed: None,
                        max_events: self.opts.max_events,
                        record: false,
                    },
                );
                if trace.truncated {
                    mode.truncated_runs += 1;
                }
                if !trace.verdict.ok {
                    mode.violating_runs += 1;
                    let broken = trace.verdict.broken();
                    for inv in &broken {
                        mode.by_invariant.0[inv.index()] += 1;
                    }
                    if mode.first_violating.len() < self.opts.keep_seeds {
                        mode.first_violating.push(SeedHit { seed, broken });
                    }
                }
            }
            self.report.runs += 1;
        }
        self.progress()
    }

    /// Runs every remaining seed.
    pub fn run_to_end(&mut self) -> &SweepReport {
        while !self.step(1024).finished() {}
        &self.report
    }

    /// How far it got.
    pub fn progress(&self) -> Progress {
        Progress {
            done: self.report.runs,
            total: self.report.seeds,
        }
    }

    /// What it found so far.
    pub fn report(&self) -> &SweepReport {
        &self.report
    }

    /// The scenario of one seed, to replay it alone.
    pub fn scenario(&self, seed: u64) -> crate::Scenario {
        self.source.derive(seed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_seed_is_swept_too() {
        let source = || Source::Fixed(crate::preset("paused-worker").unwrap().scenario());
        let opts = SweepOptions::default();
        let mut s = Sweep::new(source(), u64::MAX, 1, opts);
        assert_eq!(s.progress().total, 1);
        assert_eq!(s.run_to_end().runs, 1);
        let mut s = Sweep::new(source(), u64::MAX - 4, 10, opts);
        assert_eq!(s.progress().total, 5);
        assert_eq!(s.run_to_end().runs, 5);
        assert_eq!(
            Sweep::new(source(), 0, u64::MAX, opts).progress().total,
            u64::MAX
        );
        assert_eq!(seeds_from(u64::MAX), 1);
        assert_eq!(seeds_from(u64::MAX - 4), 5);
        assert_eq!(seeds_from(1), u64::MAX);
        assert_eq!(seeds_from(0), u64::MAX);
    }
}
