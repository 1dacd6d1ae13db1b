//! Exhaustive search of a small scope, breadth-first, for a shortest counterexample.
//!
//! The **world** is a scenario without its faults (clock skew and drift stay: they describe the
//! machines). The **scope** says which faults may be injected, and how many at most:
//!
//! * a worker pauses at one of its decision points (`after_acquire`, `after_renew_check`,
//!   `before_write`), for one of a few lengths around the lease TTL;
//! * a worker's write is held in the network for one of a few lengths;
//! * a worker's clock jumps (by one of a few amounts) while it works: 1 ms after it starts a work
//!   period.
//!
//! The search walks a compact model of the simulator, one pending action per step, exactly as the
//! engine orders them (earliest first, ties in scheduling order), with the real
//! [`fencepost::Authority`] as its lock service and the real [`fencepost::Guard`] as its storage.
//! At each decision point every choice the scope allows (including "nothing happens") is a
//! separate successor. States are deduplicated by a 64-bit hash of their canonical form (only the
//! live part of every fixed-size array), breadth-first, so the first violation found is at the
//! smallest depth (number of actions) there is. It comes back as a plain [`Scenario`](crate::scenario::Scenario), the world
//! plus the chosen faults, which [`crate::run`] replays to the same violation.
//!
//! The model covers what such a scope needs and refuses the rest with an error naming the field:
//! at most four workers, no periodic renewal, no write retries, ordered tokens without idempotency
//! keys. Invariants I1 to I4 are checked (I5 needs retries).
//!
//! The core takes no clock: the caller times [`Search::run`] or the slices of [`Search::step`] and
//! divides the counts in the [`SearchReport`].

mod actors;
mod model;
mod report;
mod scope;
mod search;
mod seen;
mod state;
mod walk;
mod world;

pub use model::MAX_MODEL_WORKERS;
pub use report::{Counterexample, SearchOptions, SearchReport};
pub use scope::Scope;
pub use search::{Search, search, search_bytes};
pub use walk::{Walk, random_walk};
pub use world::world_of;
