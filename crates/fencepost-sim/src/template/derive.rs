//! Deriving a scenario from a template and a seed: the draws, in the order the module docs
//! give.

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::document::{Template, WorkersTemplate};
use super::fault::FaultTemplate;
use crate::rng::SplitMix64;
use crate::scenario::{Fault, Job, Point, SCENARIO_VERSION, Scenario, Worker};

/// `round(p * 1_000_000)`, for a probability already checked to be in `0..=1`.
pub(super) fn per_million(p: f64) -> u32 {
    let v = p * 1_000_000.0 + 0.5;
    if v >= 1_000_000.0 {
        1_000_000
    } else if v > 0.0 {
        v as u32
    } else {
        0
    }
}

/// The name of worker `i` (0-based): `A` to `Z`.
fn worker_name(i: u32) -> String {
    let c = char::from_u32(u32::from(b'A') + i % 26).unwrap_or('A');
    c.to_string()
}

impl Template {
    /// The scenario for `seed`: a pure function of the template and the seed (see the
    /// [module docs](crate::template) for the exact order of draws).
    pub fn derive(&self, seed: u64) -> Scenario {
        let mut rng = SplitMix64::new(seed);
        let run_seed = rng.next_u64();
        let lease_ttl_ms = self.lease_ttl_ms.draw(&mut rng);
        let lock_delay_ms = self.lock_delay_ms.draw(&mut rng);
        let workers = self.workers.draw(&mut rng);
        let faults = self.draw_faults(&workers, &mut rng);
        Scenario {
            version: SCENARIO_VERSION,
            name: self.name.clone(),
            seed: run_seed,
            lease_ttl_ms,
            lock_delay_ms,
            first_token: self.first_token,
            latency_ms: self.latency_ms,
            protections: self.protections,
            workers,
            faults,
            end_ms: self.end_ms,
        }
    }

    /// Every fault entry in order: a lock-service restart once, a worker fault for each of
    /// `workers` in order, each with its chance.
    fn draw_faults(&self, workers: &[Worker], rng: &mut SplitMix64) -> Vec<Fault> {
        let mut faults = Vec::new();
        for f in &self.faults {
            let p = per_million(f.probability());
            if let FaultTemplate::AuthorityRestart { at, persisted, .. } = f {
                if rng.chance(p) {
                    faults.push(Fault::AuthorityRestart {
                        at: at.draw(rng),
                        persisted: *persisted,
                    });
                }
                continue;
            }
            for wk in workers {
                if !rng.chance(p) {
                    continue;
                }
                faults.extend(f.draw_for(wk.name.clone(), rng));
            }
        }
        faults
    }
}

impl WorkersTemplate {
    /// How many workers, then each worker in order.
    fn draw(&self, rng: &mut SplitMix64) -> Vec<Worker> {
        let count = self.count.draw(rng);
        (0..count)
            .map(|i| {
                let start_ms = self.start_ms.draw(rng);
                let work_ms = self.work_ms.draw(rng);
                let writes = self.writes.draw(rng);
                let renew_every_ms = self.renew.as_ref().and_then(|r| {
                    rng.chance(per_million(r.probability))
                        .then(|| r.every_ms.draw(rng))
                });
                let retry_after_ms = self.retry.as_ref().and_then(|r| {
                    rng.chance(per_million(r.probability))
                        .then(|| r.after_ms.draw(rng))
                });
                Worker {
                    name: worker_name(i),
                    start_ms,
                    job: Job {
                        work_ms,
                        writes,
                        renew_every_ms,
                        retry_after_ms,
                    },
                }
            })
            .collect()
    }
}

impl FaultTemplate {
    /// The fault for `worker`, its chance having hit: its ranges drawn in the order listed (none
    /// for a lock-service restart, which strikes no worker).
    fn draw_for(&self, worker: String, rng: &mut SplitMix64) -> Option<Fault> {
        Some(match self {
            FaultTemplate::Pause { at, for_ms, .. } => Fault::Pause {
                worker,
                at: at.draw(rng),
                for_ms: for_ms.draw(rng),
            },
            FaultTemplate::PauseAt {
                points,
                nth,
                for_ms,
                ..
            } => {
                let last = points.len().saturating_sub(1) as u64;
                let pick = rng.range(0, last) as usize;
                Fault::PauseAt {
                    worker,
                    point: points.get(pick).copied().unwrap_or(Point::AfterAcquire),
                    nth: nth.draw(rng),
                    for_ms: for_ms.draw(rng),
                }
            }
            FaultTemplate::Hold {
                nth_write, for_ms, ..
            } => Fault::Hold {
                worker,
                nth_write: nth_write.draw(rng),
                for_ms: for_ms.draw(rng),
            },
            FaultTemplate::Partition { from, for_ms, .. } => {
                let from = from.draw(rng);
                let len = for_ms.draw(rng).max(1);
                Fault::Partition {
                    worker,
                    from,
                    to: from.saturating_add(len),
                }
            }
            FaultTemplate::Clock {
                skew_ms,
                drift_ppm,
                jump_at,
                jump_ms,
                ..
            } => {
                let skew_ms = skew_ms.draw(rng);
                let drift_ppm = drift_ppm.draw(rng);
                let jump_at = jump_at.map(|j| j.draw(rng));
                let jump_ms = jump_ms.draw(rng);
                Fault::Clock {
                    worker,
                    skew_ms,
                    drift_ppm,
                    jump_at,
                    jump_ms: if jump_at.is_some() { jump_ms } else { 0 },
                }
            }
            FaultTemplate::Crash {
                at, restart_after, ..
            } => Fault::Crash {
                worker,
                at: at.draw(rng),
                restart_after: restart_after.map(|r| r.draw(rng)),
            },
            FaultTemplate::AuthorityRestart { .. } => return None,
        })
    }
}
