//! # fencepost
//!
//! Distributed leases that stay safe when the holder froze. A lease can run out while its owner is
//! only paused (a GC pause, a suspended VM, a stalled network); when the owner wakes it still
//! believes it holds the lock. The lock service cannot stop it — only the resource can, by refusing
//! a **fencing token** older than one it has already accepted.
//!
//! This crate holds both halves, `no_std` and allocation-free at its core:
//!
//! * [`Authority`] (one lock) and `LockTable` (many, feature `alloc`): grants leases with strictly
//!   increasing [`Token`]s, renewals, releases, expiry, lock-delay, re-entry, a drift-aware
//!   [`Grant::safe_until`], and snapshots that can never re-issue a token.
//! * [`Guard`] (one resource) and `GuardMap` (many): refuse stale tokens.
//! * [`IdempotencyLedger`] and [`FencedResource`]: stop retries from applying twice.
//! * [`Keeper`] (the holder's side): whether a lease is still safe to act on, and when to renew.
//! * `TokenSigner` (feature `signed`): MACs so a client cannot forge a huge token; `KeyRing`
//!   signs under key ids, so a deployment can rotate its key.
//!
//! Time is always an input (`now`, monotonic milliseconds); see [`time`].
//!
//! ```
//! use fencepost::{Admission, Authority, Config, Guard, Token};
//!
//! let mut auth = Authority::new(Config::new(30_000).with_first_token(Token::new(33).unwrap()))?;
//! let a = auth.try_acquire(&"A", 0)?;          // A gets 33, then pauses for 45 s
//! let b = auth.try_acquire(&"B", 45_000)?;     // the lease ran out: B gets 34
//! let mut storage = Guard::new();
//! assert!(storage.admit(b.token).is_accepted());
//! assert_eq!(
//!     storage.admit(a.token),                 // A wakes up and writes with 33
//!     Admission::Stale { presented: a.token, highest: b.token },
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![no_std]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

#[cfg(feature = "alloc")]
extern crate alloc;
#[cfg(any(feature = "std", test))]
extern crate std;

/// The README's Rust quick start, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeQuickStart;

pub mod authority;
pub mod guard;
pub mod keeper;
pub mod ledger;
#[cfg(feature = "signed")]
pub mod signed;
pub mod snapshot;
#[cfg(feature = "alloc")]
pub mod table;
pub mod time;
pub mod token;

pub use authority::{
    AcquireError, Authority, Config, ConfigError, Expired, Grant, Lease, LeaseError, Released,
    Renewal, Reservation,
};
#[cfg(feature = "alloc")]
pub use guard::GuardMap;
pub use guard::{Admission, Guard};
pub use keeper::{
    Answer, Failure, Keeper, KeeperConfig, KeeperConfigError, KeeperError, LeaseState, Loss, Ticket,
};
pub use ledger::{FencedResource, Idempotency, IdempotencyLedger, WriteOutcome};
#[cfg(feature = "signed")]
pub use signed::{KeyRing, KeyedToken, ParseSignedError, SignatureError, SignedToken, TokenSigner};
pub use snapshot::{AuthoritySnapshot, SnapshotCodec, SnapshotError};
#[cfg(feature = "alloc")]
pub use table::{LockState, LockTable, TableSnapshot};
#[cfg(feature = "std")]
pub use time::StdClock;
pub use time::{Clock, ManualClock, Timeline};
pub use token::{HEADER_NAME, ParseTokenError, Token};
