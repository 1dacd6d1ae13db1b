//! The view model: everything the timeline, the storage panel and the banner show, derived from a
//! trace and a playhead. Pure functions of their inputs, tested natively.
//!
//! [`Timeline::of`] ([`layout`]) lays a whole trace out in time: the [`lanes`], the [`marks`]
//! along them (lease bars, zombie stretches, pauses), each worker's [`safe_until`] band, message
//! arrows ([`messages`]) and [`badges`]. [`Playhead`] says how far playback has got; [`storage_at`], [`banner_at`],
//! [`lane_status_at`] and [`in_flight_at`] answer what is true at that point. Tokens are written
//! as [`tokens`] says. Nothing here decides what a lease or a token means: that comes from the
//! simulator, through the trace's events (a stale write is
//! [`fencepost_sim::Event::stale_over`]) and [`fencepost_sim::Beliefs`], folded event by event
//! (who holds what, who is a zombie, the storage's highest token).
//!
//! The arrows point one way: [`layout`] uses the concepts it assembles; every file may use
//! [`tokens`]; nothing here uses the state or the components.

pub mod badges;
pub mod banner;
pub mod lanes;
pub mod layout;
pub mod marks;
pub mod messages;
pub mod playhead;
pub mod safe_until;
pub mod storage;
#[cfg(test)]
pub(crate) mod testing;
pub mod tokens;

pub use self::badges::{Badge, BadgeKind};
pub use self::banner::{Banner, banner_at};
pub use self::lanes::{Lane, lane_status_at};
pub use self::layout::Timeline;
pub use self::marks::{LeaseBar, LeaseEnd, Span, Zombie};
pub use self::messages::{Arrow, ArrowKind, InFlight, in_flight_at};
pub use self::playhead::{Playhead, end_time};
pub use self::safe_until::{BandAt, SafeBand};
pub use self::storage::{DocLine, StoragePanel, storage_at};
pub use self::tokens::TokenStyle;
