//! What types cannot check: names that exist, ranges that make sense.

use alloc::format;

use super::document::{
    MAX_FAULTS, MAX_NAME_LEN, MAX_TIME_MS, MAX_WORKERS, MAX_WRITES, SCENARIO_VERSION, Scenario,
    Worker,
};
use super::error::ScenarioError;
use super::fault::Fault;

impl Scenario {
    /// Checks everything types cannot.
    pub fn validate(&self) -> Result<(), ScenarioError> {
        if self.version != SCENARIO_VERSION {
            return Err(ScenarioError::new(
                "version",
                format!("must be {SCENARIO_VERSION}, got {}", self.version),
            ));
        }
        if self.name.len() > 64 {
            return Err(ScenarioError::new("name", "must be at most 64 bytes"));
        }
        time_field("lease_ttl_ms", self.lease_ttl_ms)?;
        if self.lease_ttl_ms == 0 {
            return Err(ScenarioError::new("lease_ttl_ms", "must be greater than 0"));
        }
        time_field("lock_delay_ms", self.lock_delay_ms)?;
        if self.first_token == 0 {
            return Err(ScenarioError::new(
                "first_token",
                "must be at least 1 (token 0 is invalid)",
            ));
        }
        if self.first_token > u64::MAX - 1_000_000 {
            return Err(ScenarioError::new(
                "first_token",
                "leaves too few tokens to run a scenario",
            ));
        }
        time_field("latency_ms.max", self.latency_ms.max)?;
        if self.latency_ms.min > self.latency_ms.max {
            return Err(ScenarioError::new(
                "latency_ms.min",
                "must not be greater than latency_ms.max",
            ));
        }
        if self.workers.is_empty() {
            return Err(ScenarioError::new("workers", "needs at least one worker"));
        }
        if self.workers.len() > MAX_WORKERS {
            return Err(ScenarioError::new(
                "workers",
                format!("at most {MAX_WORKERS} workers"),
            ));
        }
        for (i, w) in self.workers.iter().enumerate() {
            self.check_worker(i, w)
                .map_err(|e| e.under(format_args!("workers[{i}]")))?;
        }
        if self.faults.len() > MAX_FAULTS {
            return Err(ScenarioError::new(
                "faults",
                format!("at most {MAX_FAULTS} faults"),
            ));
        }
        for (i, f) in self.faults.iter().enumerate() {
            self.check_fault(f)
                .map_err(|e| e.under(format_args!("faults[{i}]")))?;
        }
        if let Some(end) = self.end_ms {
            time_field("end_ms", end)?;
        }
        Ok(())
    }

    /// Checks worker `i`; fields are named within it (`job.work_ms`).
    fn check_worker(&self, i: usize, w: &Worker) -> Result<(), ScenarioError> {
        if w.name.is_empty() || w.name.len() > MAX_NAME_LEN {
            return Err(ScenarioError::new(
                "name",
                format!("must be 1 to {MAX_NAME_LEN} bytes"),
            ));
        }
        if matches!(w.name.as_str(), "lock" | "storage" | "net") {
            return Err(ScenarioError::new(
                "name",
                format!("`{}` is reserved", w.name),
            ));
        }
        if self.workers[..i].iter().any(|o| o.name == w.name) {
            return Err(ScenarioError::new(
                "name",
                format!("`{}` is used twice", w.name),
            ));
        }
        time_field("start_ms", w.start_ms)?;
        time_field("job.work_ms", w.job.work_ms)?;
        if w.job.writes == 0 || w.job.writes > MAX_WRITES {
            return Err(ScenarioError::new(
                "job.writes",
                format!("must be 1 to {MAX_WRITES}"),
            ));
        }
        if let Some(r) = w.job.renew_every_ms {
            time_field("job.renew_every_ms", r)?;
            if r == 0 {
                return Err(ScenarioError::new(
                    "job.renew_every_ms",
                    "must be greater than 0",
                ));
            }
        }
        if let Some(r) = w.job.retry_after_ms {
            time_field("job.retry_after_ms", r)?;
            if r == 0 {
                return Err(ScenarioError::new(
                    "job.retry_after_ms",
                    "must be greater than 0",
                ));
            }
        }
        Ok(())
    }

    /// Checks one fault; fields are named within it (`for`).
    fn check_fault(&self, f: &Fault) -> Result<(), ScenarioError> {
        if let Some(name) = f.worker()
            && self.worker_index(name).is_none()
        {
            return Err(ScenarioError::new(
                "worker",
                format!("no worker is named `{name}`"),
            ));
        }
        match f {
            Fault::Pause { at: t, for_ms, .. } => {
                time_field("at", *t)?;
                time_field("for", *for_ms)?;
            }
            Fault::PauseAt { nth, for_ms, .. } => {
                if *nth == 0 {
                    return Err(ScenarioError::new("nth", "counts from 1"));
                }
                time_field("for", *for_ms)?;
            }
            Fault::Hold {
                nth_write, for_ms, ..
            } => {
                if *nth_write == 0 {
                    return Err(ScenarioError::new("nth_write", "counts from 1"));
                }
                time_field("for", *for_ms)?;
            }
            Fault::Partition { from, to, .. } => {
                time_field("to", *to)?;
                if from >= to {
                    return Err(ScenarioError::new("to", "must be after `from`"));
                }
            }
            Fault::Clock {
                skew_ms,
                drift_ppm,
                jump_at,
                jump_ms,
                ..
            } => check_clock(*skew_ms, *drift_ppm, *jump_at, *jump_ms)?,
            Fault::Crash {
                at: t,
                restart_after,
                ..
            } => {
                time_field("at", *t)?;
                if let Some(r) = restart_after {
                    time_field("restart_after", *r)?;
                }
            }
            Fault::AuthorityRestart { at: t, .. } => time_field("at", *t)?,
        }
        Ok(())
    }
}

/// Checks a clock fault's values. A template checks the ends of its ranges with it, each
/// range's `min` then its `max` (`jump_at` already checked as a range of times).
pub(crate) fn check_clock(
    skew_ms: i64,
    drift_ppm: i32,
    jump_at: Option<u64>,
    jump_ms: i64,
) -> Result<(), ScenarioError> {
    if skew_ms.unsigned_abs() > MAX_TIME_MS {
        return Err(ScenarioError::new("skew_ms", "is out of range"));
    }
    if !(-900_000..=1_000_000).contains(&drift_ppm) {
        return Err(ScenarioError::new(
            "drift_ppm",
            "must be between -900000 and 1000000",
        ));
    }
    if let Some(j) = jump_at {
        time_field("jump_at", j)?;
    } else if jump_ms != 0 {
        return Err(ScenarioError::new("jump_at", "is required with jump_ms"));
    }
    if jump_ms.unsigned_abs() > MAX_TIME_MS {
        return Err(ScenarioError::new("jump_ms", "is out of range"));
    }
    Ok(())
}

fn time_field(field: &str, v: u64) -> Result<(), ScenarioError> {
    if v > MAX_TIME_MS {
        Err(ScenarioError::new(
            field,
            format!("must be at most {MAX_TIME_MS} ms"),
        ))
    } else {
        Ok(())
    }
}
