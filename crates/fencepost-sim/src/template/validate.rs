//! What types cannot check: ranges in order, probabilities, and templates that derive only
//! valid scenarios.

use alloc::format;

use super::document::{MAX_TEMPLATE_WORKERS, TEMPLATE_VERSION, Template, WorkersTemplate};
use super::fault::FaultTemplate;
use crate::scenario::{MAX_FAULTS, MAX_TIME_MS, MAX_WRITES, ScenarioError, check_clock};

fn check_probability(field: &str, p: f64) -> Result<(), ScenarioError> {
    if p.is_finite() && (0.0..=1.0).contains(&p) {
        Ok(())
    } else {
        Err(ScenarioError::new(field, "must be between 0 and 1"))
    }
}

/// Checks one fault entry; fields are named within it (`for.max`).
fn check_fault(f: &FaultTemplate) -> Result<(), ScenarioError> {
    check_probability("probability", f.probability())?;
    match f {
        FaultTemplate::Pause { at: t, for_ms, .. } => {
            t.check_time("at")?;
            for_ms.check_time("for")?;
        }
        FaultTemplate::PauseAt {
            points,
            nth,
            for_ms,
            ..
        } => {
            if points.is_empty() {
                return Err(ScenarioError::new("points", "needs at least one point"));
            }
            nth.check("nth")?;
            if nth.min == 0 {
                return Err(ScenarioError::new("nth", "counts from 1"));
            }
            for_ms.check_time("for")?;
        }
        FaultTemplate::Hold {
            nth_write, for_ms, ..
        } => {
            nth_write.check("nth_write")?;
            if nth_write.min == 0 {
                return Err(ScenarioError::new("nth_write", "counts from 1"));
            }
            for_ms.check_time("for")?;
        }
        FaultTemplate::Partition { from, for_ms, .. } => {
            from.check_time("from")?;
            for_ms.check_time("for")?;
            if for_ms.min == 0 {
                return Err(ScenarioError::new("for.min", "must be at least 1"));
            }
        }
        FaultTemplate::Clock {
            skew_ms,
            drift_ppm,
            jump_at,
            jump_ms,
            ..
        } => {
            skew_ms.check("skew_ms")?;
            drift_ppm.check("drift_ppm")?;
            jump_ms.check("jump_ms")?;
            if let Some(j) = jump_at {
                j.check_time("jump_at")?;
            }
            // The ends of the ranges are values a derived scenario may have.
            check_clock(
                skew_ms.min,
                drift_ppm.min,
                jump_at.map(|j| j.min),
                jump_ms.min,
            )?;
            check_clock(
                skew_ms.max,
                drift_ppm.max,
                jump_at.map(|j| j.max),
                jump_ms.max,
            )?;
        }
        FaultTemplate::Crash {
            at: t,
            restart_after,
            ..
        } => {
            t.check_time("at")?;
            if let Some(r) = restart_after {
                r.check_time("restart_after")?;
            }
        }
        FaultTemplate::AuthorityRestart { at: t, .. } => t.check_time("at")?,
    }
    Ok(())
}

impl Template {
    /// Checks everything types cannot; a valid template derives only valid scenarios.
    pub fn validate(&self) -> Result<(), ScenarioError> {
        if self.version != TEMPLATE_VERSION {
            return Err(ScenarioError::new(
                "version",
                format!("must be {TEMPLATE_VERSION}, got {}", self.version),
            ));
        }
        if self.name.len() > 64 {
            return Err(ScenarioError::new("name", "must be at most 64 bytes"));
        }
        self.lease_ttl_ms.check_time("lease_ttl_ms")?;
        if self.lease_ttl_ms.min == 0 {
            return Err(ScenarioError::new(
                "lease_ttl_ms.min",
                "must be greater than 0",
            ));
        }
        self.lock_delay_ms.check_time("lock_delay_ms")?;
        let w = &self.workers;
        w.check()?;
        let most = self
            .faults
            .iter()
            .map(|f| match f {
                FaultTemplate::AuthorityRestart { .. } => 1,
                _ => w.count.max as usize,
            })
            .sum::<usize>();
        if most > MAX_FAULTS {
            return Err(ScenarioError::new(
                "faults",
                format!("could give up to {most} faults; a scenario holds at most {MAX_FAULTS}"),
            ));
        }
        for (i, f) in self.faults.iter().enumerate() {
            check_fault(f).map_err(|e| e.under(format_args!("faults[{i}]")))?;
        }
        if let Some(end) = self.end_ms
            && end > MAX_TIME_MS
        {
            return Err(ScenarioError::new(
                "end_ms",
                format!("must be at most {MAX_TIME_MS} ms"),
            ));
        }
        // The parts copied as they are must make a valid scenario.
        let mut probe = self.derive(0);
        probe.faults.clear();
        probe.validate()
    }
}

impl WorkersTemplate {
    /// Checks how the workers are made; fields are named from the template (`workers.count`).
    fn check(&self) -> Result<(), ScenarioError> {
        self.count.check("workers.count")?;
        if self.count.min == 0 || self.count.max > MAX_TEMPLATE_WORKERS {
            return Err(ScenarioError::new(
                "workers.count",
                format!("must be 1 to {MAX_TEMPLATE_WORKERS}"),
            ));
        }
        self.start_ms.check_time("workers.start_ms")?;
        self.work_ms.check_time("workers.work_ms")?;
        self.writes.check("workers.writes")?;
        if self.writes.min == 0 || self.writes.max > MAX_WRITES {
            return Err(ScenarioError::new(
                "workers.writes",
                format!("must be 1 to {MAX_WRITES}"),
            ));
        }
        if let Some(r) = &self.renew {
            check_probability("workers.renew.probability", r.probability)?;
            r.every_ms.check_time("workers.renew.every_ms")?;
            if r.every_ms.min == 0 {
                return Err(ScenarioError::new(
                    "workers.renew.every_ms.min",
                    "must be greater than 0",
                ));
            }
        }
        if let Some(r) = &self.retry {
            check_probability("workers.retry.probability", r.probability)?;
            r.after_ms.check_time("workers.retry.after_ms")?;
            if r.after_ms.min == 0 {
                return Err(ScenarioError::new(
                    "workers.retry.after_ms.min",
                    "must be greater than 0",
                ));
            }
        }
        Ok(())
    }
}
