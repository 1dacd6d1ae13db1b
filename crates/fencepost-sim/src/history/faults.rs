//! Faults: which nemeses are active at an instant, and which processes run on a clock skewed
//! beyond their drift bound.

use alloc::collections::BTreeMap;
use alloc::string::String;
use core::fmt;

use serde::ser::{Serialize, SerializeSeq, Serializer};

use crate::object::names;

use super::{entry_bytes, name_bytes};

/// How many nemeses there are.
pub const NEMESES: usize = 11;

/// A kind of fault the campaign injects.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Nemesis {
    /// A client stopped (SIGSTOP) past its lease, then continued.
    PauseClient,
    /// A service instance killed.
    KillService,
    /// A service instance restarted.
    RestartService,
    /// The storage engine stopped, then continued.
    PauseEngine,
    /// The storage engine killed.
    KillEngine,
    /// The fault proxy holds messages.
    ProxyHold,
    /// The fault proxy delays messages.
    ProxyDelay,
    /// The fault proxy drops messages.
    ProxyDrop,
    /// The fault proxy resets connections.
    ProxyReset,
    /// A client's clock runs fast.
    ClockFast,
    /// A client's clock runs slow.
    ClockSlow,
}

names!(Nemesis {
    PauseClient = "pause-client",
    KillService = "kill-service",
    RestartService = "restart-service",
    PauseEngine = "pause-engine",
    KillEngine = "kill-engine",
    ProxyHold = "proxy-hold",
    ProxyDelay = "proxy-delay",
    ProxyDrop = "proxy-drop",
    ProxyReset = "proxy-reset",
    ClockFast = "clock-fast",
    ClockSlow = "clock-slow",
});

impl Nemesis {
    /// Every nemesis, in the order tables list them.
    pub const ALL: [Nemesis; NEMESES] = [
        Nemesis::PauseClient,
        Nemesis::KillService,
        Nemesis::RestartService,
        Nemesis::PauseEngine,
        Nemesis::KillEngine,
        Nemesis::ProxyHold,
        Nemesis::ProxyDelay,
        Nemesis::ProxyDrop,
        Nemesis::ProxyReset,
        Nemesis::ClockFast,
        Nemesis::ClockSlow,
    ];

    /// Its name in a history.
    pub const fn name(self) -> &'static str {
        match self {
            Nemesis::PauseClient => "pause-client",
            Nemesis::KillService => "kill-service",
            Nemesis::RestartService => "restart-service",
            Nemesis::PauseEngine => "pause-engine",
            Nemesis::KillEngine => "kill-engine",
            Nemesis::ProxyHold => "proxy-hold",
            Nemesis::ProxyDelay => "proxy-delay",
            Nemesis::ProxyDrop => "proxy-drop",
            Nemesis::ProxyReset => "proxy-reset",
            Nemesis::ClockFast => "clock-fast",
            Nemesis::ClockSlow => "clock-slow",
        }
    }

    /// Whether it skews a clock.
    pub const fn is_clock(self) -> bool {
        matches!(self, Nemesis::ClockFast | Nemesis::ClockSlow)
    }
}

impl fmt::Display for Nemesis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for Nemesis {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// A set of nemeses (those active at a finding's instant), written as a list of names.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Nemeses(u16);

impl Nemeses {
    /// No nemesis.
    pub const NONE: Nemeses = Nemeses(0);

    /// Whether the set is empty.
    pub const fn is_empty(&self) -> bool {
        self.0 == 0
    }

    /// Whether `n` is in the set.
    pub const fn contains(&self, n: Nemesis) -> bool {
        self.0 & (1 << n as u16) != 0
    }

    /// The set with `n` added.
    pub const fn with(self, n: Nemesis) -> Nemeses {
        Nemeses(self.0 | 1 << n as u16)
    }

    /// The nemeses in the set, in [`Nemesis::ALL`]'s order.
    pub fn iter(self) -> impl Iterator<Item = Nemesis> {
        Nemesis::ALL.into_iter().filter(move |n| self.contains(*n))
    }
}

impl fmt::Display for Nemeses {
    /// Names joined by `+`; `none` for the empty set.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return f.write_str("none");
        }
        for (i, n) in self.iter().enumerate() {
            if i > 0 {
                f.write_str("+")?;
            }
            f.write_str(n.name())?;
        }
        Ok(())
    }
}

impl Serialize for Nemeses {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(None)?;
        for n in self.iter() {
            seq.serialize_element(n.name())?;
        }
        seq.end()
    }
}

/// Start or end of a fault.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Phase {
    Start,
    End,
}

names!(Phase {
    Start = "start",
    End = "end",
});

/// What one target has had done to it.
#[derive(Clone, Copy, Debug, Default)]
struct Target {
    /// Faults of each nemesis started and not yet ended.
    active: [u16; NEMESES],
    /// Clock faults within the drift bound, and beyond it, active.
    clock_within: u16,
    clock_beyond: u16,
    /// When a clock fault beyond the drift bound last ended.
    beyond_ended: Option<u64>,
}

/// The faults active so far, as a history's `fault` lines told them.
#[derive(Clone, Debug, Default)]
pub(crate) struct Faults {
    /// Faults of each nemesis active, over all targets.
    active: [u32; NEMESES],
    targets: BTreeMap<String, Target>,
}

impl Faults {
    /// Bytes one target's entry takes besides its name.
    pub(crate) fn entry_bytes() -> u64 {
        entry_bytes(size_of::<(String, Target)>())
    }

    /// The nemeses active now.
    pub(crate) fn active(&self) -> Nemeses {
        Nemesis::ALL
            .into_iter()
            .filter(|n| self.active[*n as usize] > 0)
            .fold(Nemeses::NONE, Nemeses::with)
    }

    /// Applies a fault line; returns the bytes it added to what is held. An end without a start
    /// for that target changes nothing: the fault it ends was never seen active.
    pub(crate) fn apply(
        &mut self,
        t: u64,
        nemesis: Nemesis,
        target: &str,
        phase: Phase,
        within_drift: Option<bool>,
    ) -> u64 {
        let mut added = 0;
        if !self.targets.contains_key(target) {
            if phase == Phase::End {
                return 0;
            }
            self.targets.insert(target.into(), Target::default());
            added = Faults::entry_bytes() + name_bytes(target.len());
        }
        let Some(st) = self.targets.get_mut(target) else {
            return added;
        };
        let i = nemesis as usize;
        match phase {
            Phase::Start => {
                st.active[i] = st.active[i].saturating_add(1);
                self.active[i] = self.active[i].saturating_add(1);
                if nemesis.is_clock() {
                    if within_drift == Some(false) {
                        st.clock_beyond = st.clock_beyond.saturating_add(1);
                    } else {
                        st.clock_within = st.clock_within.saturating_add(1);
                    }
                }
            }
            Phase::End if st.active[i] > 0 => {
                st.active[i] -= 1;
                self.active[i] -= 1;
                if nemesis.is_clock() {
                    // The end line need not say which it ends: a beyond-drift one first, so
                    // that a skew is never taken for gone while one is still on.
                    let beyond = match within_drift {
                        Some(w) => !w && st.clock_beyond > 0 || st.clock_within == 0,
                        None => st.clock_beyond > 0,
                    };
                    if beyond && st.clock_beyond > 0 {
                        st.clock_beyond -= 1;
                        st.beyond_ended = Some(t);
                    } else {
                        st.clock_within = st.clock_within.saturating_sub(1);
                    }
                }
            }
            Phase::End => {}
        }
        added
    }

    /// Whether `process` ran on a clock skewed beyond its drift bound at some instant from
    /// `since` to now.
    pub(crate) fn skewed(&self, process: &str, since: u64) -> bool {
        self.targets
            .get(process)
            .is_some_and(|st| st.clock_beyond > 0 || st.beyond_ended.is_some_and(|e| e >= since))
    }
}
