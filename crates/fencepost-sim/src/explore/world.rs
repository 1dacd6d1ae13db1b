//! From a scenario to the model, and from the faults a search chose back to a scenario.

use alloc::format;
use alloc::vec::Vec;

use super::model::{Choice, MAX_MODEL_WORKERS, Model};
use super::scope::Scope;
use crate::scenario::{Fault, Scenario, ScenarioError, TokenKind};

/// Builds the model of a world; errors name what the model does not cover.
pub(super) fn model_of(
    world: &Scenario,
    scope: &Scope,
    fencing: bool,
) -> Result<Model, ScenarioError> {
    world.validate()?;
    scope.validate(world)?;
    if world.workers.len() > MAX_MODEL_WORKERS {
        return Err(ScenarioError::new(
            "workers",
            format!("the exhaustive search models at most {MAX_MODEL_WORKERS} workers"),
        ));
    }
    if world.protections.token_kind != TokenKind::Ordered {
        return Err(ScenarioError::new(
            "protections.token_kind",
            "the exhaustive search models ordered tokens only",
        ));
    }
    if world.protections.idempotency_keys {
        return Err(ScenarioError::new(
            "protections.idempotency_keys",
            "the exhaustive search does not model idempotency keys",
        ));
    }
    let mut work_ms = [0; MAX_MODEL_WORKERS];
    let mut writes = [0; MAX_MODEL_WORKERS];
    let mut target = [scope.workers.is_empty(); MAX_MODEL_WORKERS];
    for (i, w) in world.workers.iter().enumerate() {
        if w.job.renew_every_ms.is_some() {
            return Err(ScenarioError::new(
                format!("workers[{i}].job.renew_every_ms"),
                "the exhaustive search does not model periodic renewal",
            ));
        }
        if w.job.retry_after_ms.is_some() {
            return Err(ScenarioError::new(
                format!("workers[{i}].job.retry_after_ms"),
                "the exhaustive search does not model write retries",
            ));
        }
        if w.job.writes > u32::from(u16::MAX) {
            return Err(ScenarioError::new(
                format!("workers[{i}].job.writes"),
                "too many writes for the exhaustive search",
            ));
        }
        work_ms[i] = w.job.work_ms;
        writes[i] = w.job.writes;
        if scope.workers.contains(&w.name) {
            target[i] = true;
        }
    }
    let mut points = [false; 3];
    for p in &scope.points {
        points[*p as usize] = true;
    }
    Ok(Model {
        fencing,
        check_before_write: world.protections.check_before_write,
        lat: (world.latency_ms.min, world.latency_ms.max),
        end_ms: world.end_ms,
        first_token: world.first_token,
        nw: world.workers.len(),
        work_ms,
        writes,
        target,
        points,
        max_faults: scope.max_faults.min(u32::from(u8::MAX)) as u8,
        pause_ms: scope.pause_ms.clone(),
        hold_ms: scope.hold_ms.clone(),
        jump_ms: scope.jump_ms.clone(),
    })
}

/// The world of a scenario: the scenario without its faults, but with its clock skew and drift.
pub fn world_of(scenario: &Scenario) -> Scenario {
    let mut w = scenario.clone();
    w.faults = scenario
        .faults
        .iter()
        .filter_map(|f| match f {
            Fault::Clock {
                worker,
                skew_ms,
                drift_ppm,
                ..
            } if *skew_ms != 0 || *drift_ppm != 0 => Some(Fault::Clock {
                worker: worker.clone(),
                skew_ms: *skew_ms,
                drift_ppm: *drift_ppm,
                jump_at: None,
                jump_ms: 0,
            }),
            _ => None,
        })
        .collect();
    w
}

/// The world plus the chosen faults, as a scenario the engine replays.
pub(super) fn scenario_with(
    world: &Scenario,
    fencing: bool,
    choices: &[Choice],
) -> (Vec<Fault>, Scenario) {
    let mut s = world.clone();
    s.protections.fencing = fencing;
    let name = |w: u8| {
        world
            .workers
            .get(usize::from(w))
            .map(|x| x.name.clone())
            .unwrap_or_default()
    };
    let mut faults = Vec::new();
    for c in choices {
        let f = match *c {
            Choice::Pause { w, point, nth, ms } => Fault::PauseAt {
                worker: name(w),
                point,
                nth: u32::from(nth),
                for_ms: ms,
            },
            Choice::Hold { w, nth, ms } => Fault::Hold {
                worker: name(w),
                nth_write: u32::from(nth),
                for_ms: ms,
            },
            Choice::Jump { w, at, ms } => {
                // One clock per worker: the jump joins the world's skew and drift.
                let (skew_ms, drift_ppm) = world
                    .faults
                    .iter()
                    .find_map(|f| match f {
                        Fault::Clock {
                            worker,
                            skew_ms,
                            drift_ppm,
                            ..
                        } if *worker == name(w) => Some((*skew_ms, *drift_ppm)),
                        _ => None,
                    })
                    .unwrap_or((0, 0));
                s.faults
                    .retain(|f| !matches!(f, Fault::Clock { worker, .. } if *worker == name(w)));
                Fault::Clock {
                    worker: name(w),
                    skew_ms,
                    drift_ppm,
                    jump_at: Some(at),
                    jump_ms: ms,
                }
            }
        };
        faults.push(f);
    }
    s.faults.extend(faults.iter().cloned());
    if !s.name.ends_with("-counterexample") {
        s.name = format!("{}-counterexample", s.name);
        s.name.truncate(64);
    }
    (faults, s)
}
