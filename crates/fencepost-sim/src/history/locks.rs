//! Locks: grants in token order, and what the clients believed (belief overlaps).
//!
//! A client's belief in a lock lasts from a `held` or `uncertain` line until the earlier of its
//! next belief line for that lock and its `safe_until`. The beliefs of one lock are swept in time
//! order: an overlap begins when a second process comes to believe while another does, and ends
//! when at most one still does; it is reported then (at the lock's next line, or at the end).

use alloc::collections::BTreeMap;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::counts::LockCounts;
use super::faults::{Faults, Nemeses};
use super::finding::{About, Finding, FindingKind};
use super::parse::State;
use super::{entry_bytes, name_bytes};

/// Processes an overlap names (more are counted in it, not named).
pub const OVERLAP_NAMES: usize = 8;

/// Bytes one believer takes in its lock's vector.
pub(crate) const BELIEVER_BYTES: u64 = size_of::<Believer>() as u64;

/// The grant with the highest token so far.
#[derive(Clone, Debug)]
struct Grant {
    token: u64,
    line: u64,
    process: String,
}

/// One process's belief that it holds the lock.
#[derive(Clone, Debug)]
struct Believer {
    process: String,
    from: u64,
    until: u64,
}

/// Two or more processes believing at once.
#[derive(Clone, Debug)]
struct Episode {
    from: u64,
    began_line: u64,
    processes: Vec<String>,
    beyond: bool,
    nemeses: Nemeses,
}

/// One lock's state.
#[derive(Clone, Debug, Default)]
pub(crate) struct LockState {
    pub(crate) counts: LockCounts,
    grant: Option<Grant>,
    /// The latest time seen for this lock: an earlier one is taken as this one.
    clock: u64,
    believers: Vec<Believer>,
    episode: Option<Episode>,
}

impl LockState {
    /// Bytes it holds besides its name and its share of the map.
    fn bytes(&self) -> u64 {
        let vec = |cap: usize, size: usize| crate::block_bytes((cap * size) as u64);
        let grant = self
            .grant
            .as_ref()
            .map_or(0, |g| name_bytes(g.process.len()));
        let believers = vec(self.believers.capacity(), size_of::<Believer>())
            + self
                .believers
                .iter()
                .map(|b| name_bytes(b.process.len()))
                .sum::<u64>();
        let episode = self.episode.as_ref().map_or(0, |e| {
            vec(e.processes.capacity(), size_of::<String>())
                + e.processes.iter().map(|p| name_bytes(p.len())).sum::<u64>()
        });
        grant + believers + episode
    }

    /// Ends beliefs whose safe-until is at or before `now`, earliest first.
    fn advance(&mut self, now: u64, no: u64, lock: &str, faults: &Faults) -> Option<Finding> {
        let mut found = None;
        while let Some((i, b)) = self
            .believers
            .iter()
            .enumerate()
            .filter(|(_, b)| b.until <= now)
            .min_by_key(|(_, b)| b.until)
        {
            let at = b.until;
            found = found.or(self.leave(i, at, no, lock, faults));
        }
        found
    }

    /// Process `i` stops believing at `at`; the overlap, if this ends one.
    fn leave(
        &mut self,
        i: usize,
        at: u64,
        no: u64,
        lock: &str,
        faults: &Faults,
    ) -> Option<Finding> {
        let b = self.believers.swap_remove(i);
        let ep = self.episode.as_mut()?;
        ep.beyond |= faults.skewed(&b.process, b.from);
        if self.believers.len() > 1 {
            return None;
        }
        for rest in &self.believers {
            ep.beyond |= faults.skewed(&rest.process, rest.from);
        }
        let ep = self.episode.take()?;
        if at <= ep.from {
            return None;
        }
        if ep.beyond {
            self.counts.overlaps_beyond_drift += 1;
        } else {
            self.counts.overlaps_within_drift += 1;
        }
        Some(Finding {
            line: no,
            kind: FindingKind::BeliefOverlap,
            t: ep.from,
            nemeses: ep.nemeses,
            about: About::Overlap {
                lock: lock.to_string(),
                processes: ep.processes,
                from: ep.from,
                to: at,
                beyond_drift: ep.beyond,
                began_line: ep.began_line,
            },
        })
    }

    /// `process` comes to believe at `t` until `until`.
    fn start(&mut self, process: &str, t: u64, until: u64, no: u64, active: Nemeses) {
        self.believers.push(Believer {
            process: process.to_string(),
            from: t,
            until,
        });
        if self.believers.len() < 2 {
            return;
        }
        let ep = self.episode.get_or_insert_with(|| Episode {
            from: t,
            began_line: no,
            processes: Vec::new(),
            beyond: false,
            nemeses: active,
        });
        for b in &self.believers {
            if ep.processes.len() < OVERLAP_NAMES && !ep.processes.contains(&b.process) {
                ep.processes.push(b.process.clone());
            }
        }
    }
}

/// Every lock seen.
#[derive(Clone, Debug, Default)]
pub(crate) struct Locks {
    pub(crate) locks: BTreeMap<String, LockState>,
}

impl Locks {
    /// Bytes one lock's entry takes besides its name and state.
    pub(crate) fn entry_bytes() -> u64 {
        entry_bytes(size_of::<(String, LockState)>())
    }

    /// The lock's state, made if new; the bytes that took.
    fn lock(&mut self, lock: &str) -> (&mut LockState, u64) {
        let mut added = 0;
        if !self.locks.contains_key(lock) {
            self.locks.insert(lock.into(), LockState::default());
            added = Locks::entry_bytes() + name_bytes(lock.len());
        }
        (self.locks.get_mut(lock).expect("inserted above"), added)
    }

    /// A grant (line `no`): a finding if its token is not above every earlier grant's. Returns
    /// the change in bytes held.
    pub(crate) fn grant(
        &mut self,
        no: u64,
        t: u64,
        process: &str,
        lock: &str,
        token: u64,
        active: Nemeses,
    ) -> (Option<Finding>, i64) {
        let (st, added) = self.lock(lock);
        let before = st.bytes();
        st.counts.grants += 1;
        let found = match &st.grant {
            Some(g) if token <= g.token => {
                st.counts.grant_order_violations += 1;
                Some(Finding {
                    line: no,
                    kind: FindingKind::GrantOrder,
                    t,
                    nemeses: active,
                    about: About::Grant {
                        lock: lock.to_string(),
                        process: process.to_string(),
                        token,
                        earlier_process: g.process.clone(),
                        earlier_token: g.token,
                        earlier_line: g.line,
                    },
                })
            }
            _ => {
                st.grant = Some(Grant {
                    token,
                    line: no,
                    process: process.to_string(),
                });
                None
            }
        };
        (found, added as i64 + st.bytes() as i64 - before as i64)
    }

    /// A belief line (line `no`): the overlap it shows ended, if any. Returns the change in
    /// bytes held.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn belief(
        &mut self,
        no: u64,
        t: u64,
        process: &str,
        lock: &str,
        state: State,
        safe_until: u64,
        faults: &Faults,
    ) -> (Option<Finding>, i64) {
        let (st, added) = self.lock(lock);
        let before = st.bytes();
        let t = t.max(st.clock);
        st.clock = t;
        let mut found = st.advance(t, no, lock, faults);
        let mine = st.believers.iter().position(|b| b.process == process);
        let believes = matches!(state, State::Held | State::Uncertain) && safe_until > t;
        match (mine, believes) {
            (Some(i), true) => st.believers[i].until = safe_until,
            (Some(i), false) => found = found.or(st.leave(i, t, no, lock, faults)),
            (None, true) => st.start(process, t, safe_until, no, faults.active()),
            (None, false) => {}
        }
        (found, added as i64 + st.bytes() as i64 - before as i64)
    }

    /// At the end of the history: every belief runs to its safe-until; the overlaps that ends.
    pub(crate) fn finish(&mut self, faults: &Faults, out: &mut Vec<Finding>) -> i64 {
        let mut held = 0;
        for (lock, st) in &mut self.locks {
            let before = st.bytes();
            if let Some(f) = st.advance(u64::MAX, 0, lock, faults) {
                out.push(f);
            }
            held += st.bytes() as i64 - before as i64;
        }
        held
    }
}
