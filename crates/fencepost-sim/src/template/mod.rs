//! Templates: families of scenarios, one per seed.
//!
//! A template says what may vary (how many workers, how long the lease, which faults strike and how
//! hard) and [`Template::derive`] turns a seed into one concrete [`Scenario`](crate::scenario::Scenario): a pure function, so
//! seed `i` always gives the same scenario, on every platform.
//!
//! ```json
//! {
//!   "version": 1,
//!   "name": "pauses-holds-skew",
//!   "lease_ttl_ms": { "min": 5000, "max": 30000 },
//!   "first_token": 33,
//!   "latency_ms": { "min": 10, "max": 200 },
//!   "workers": {
//!     "count": { "min": 2, "max": 4 },
//!     "start_ms": { "min": 0, "max": 20000 },
//!     "work_ms": { "min": 500, "max": 8000 },
//!     "writes": { "min": 1, "max": 3 }
//!   },
//!   "faults": [
//!     { "kind": "pause", "probability": 0.3, "at": { "min": 0, "max": 30000 }, "for": { "min": 1000, "max": 60000 } },
//!     { "kind": "hold", "probability": 0.2, "nth_write": 1, "for": { "min": 1000, "max": 40000 } },
//!     { "kind": "clock", "probability": 0.2, "drift_ppm": { "min": -500000, "max": 500000 } },
//!     { "kind": "authority_restart", "probability": 0.1, "at": { "min": 0, "max": 40000 }, "persisted": true }
//!   ]
//! }
//! ```
//!
//! A range is `{ "min": a, "max": b }` (both inclusive) or a plain number for a fixed value. Unknown
//! fields are refused, and every error names its field (`faults[1].probability`, ...), as for
//! scenarios.
//!
//! # Fields
//!
//! * `version` (1), `name`, `first_token`, `latency_ms` (`{min, max}`, handed to the scenario as
//!   is: the engine draws each message's latency from it), `protections` (as in a scenario),
//!   `end_ms` (optional): copied into every scenario.
//! * `lease_ttl_ms`, `lock_delay_ms` (default 0): ranges.
//! * `workers`: `count` (1 to 26; workers are named `A`, `B`, ...), and per worker `start_ms`
//!   (default 0), `work_ms`, `writes` (default 1), and optionally `renew`
//!   (`{probability, every_ms}`) and `retry` (`{probability, after_ms}`).
//! * `faults`: a list. Each entry has a `kind`, a `probability` (0 to 1) and ranges for its
//!   parameters. A worker fault is tried once for every worker, so a probability of 0.5 with three
//!   workers gives each worker its own even chance; `authority_restart` is tried once per scenario.
//!   - `pause`: `at`, `for`;
//!   - `pause_at`: `points` (default all three decision points), `nth` (default 1), `for`;
//!   - `hold`: `nth_write` (default 1), `for`;
//!   - `partition`: `from`, `for` (the partition ends at `from + for`; `for` at least 1);
//!   - `clock`: `skew_ms`, `drift_ppm`, `jump_at` (optional), `jump_ms` (all default 0);
//!   - `crash`: `at`, `restart_after` (optional: without it the worker stays down);
//!   - `authority_restart`: `at`, `persisted` (a flag, not a range).
//!
//! # Derivation
//!
//! [`Template::derive`] draws from one [`SplitMix64`](crate::rng::SplitMix64) seeded with the seed, in this order, and
//! nothing else:
//!
//! 1. the scenario's own seed (the engine's latency draws): one full 64-bit draw;
//! 2. `lease_ttl_ms`, then `lock_delay_ms`, then the worker count;
//! 3. for each worker in order: `start_ms`, `work_ms`, `writes`; then, if `renew` is given, a
//!    chance and (if it hit) `every_ms`; then the same for `retry`;
//! 4. for each fault entry in order: for `authority_restart` a chance and (if it hit) `at`; for a
//!    worker fault, for each worker in order, a chance and (if it hit) the fault's ranges in the
//!    order listed above (for `pause_at`: the point, picked uniformly from `points`, then `nth`,
//!    then `for`).
//!
//! A range draws `min + floor(x * (max - min + 1) / 2^64)` from one 64-bit output `x`, and draws
//! nothing when `min == max`. A chance with probability `p` draws `y` in `0..=999_999` the same
//! way and hits when `y < round(p * 1_000_000)`. Signed ranges draw the offset from `min`.

mod between;
mod derive;
mod document;
mod fault;
mod source;
mod validate;

pub use between::{Between, NumType, RangeNum};
pub use document::{
    MAX_TEMPLATE_WORKERS, Renew, Retry, TEMPLATE_VERSION, Template, WorkersTemplate,
};
pub use fault::FaultTemplate;
pub use source::{PAUSES_HOLDS_SKEW, Source, TEMPLATES, template};

#[cfg(test)]
mod tests;
