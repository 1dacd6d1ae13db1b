//! What the table keeps for the kinds of object that hold more than the core's own type: each
//! family (`locks.rs`, `resource.rs`, `keeper.rs`) makes and uses its own.

use alloc::boxed::Box;
use alloc::vec::Vec;

use fencepost::{Expired, FencedResource, Keeper, Ticket};

use crate::name::Name;

/// A lock table with the expiries of its last `call::EXPIRE_ALL`.
pub(crate) struct Table {
    pub(crate) inner: fencepost::LockTable<Name, Name>,
    pub(crate) expired: Vec<(Name, Expired<Name>)>,
}

/// Operations a resource's idempotency ledger remembers.
pub const LEDGER_CAPACITY: usize = 64;

/// A fenced resource; the outcome its ledger keeps is a slot number, and the caller keeps the real
/// outcome under that number.
pub(crate) struct Resource {
    pub(crate) inner: Box<FencedResource<u32, LEDGER_CAPACITY>>,
    pub(crate) next_slot: u32,
}

/// A keeper with the tickets it handed out and has not seen answered.
pub(crate) struct Held {
    pub(crate) inner: Keeper,
    pub(crate) tickets: Vec<(u32, Ticket)>,
    pub(crate) next_id: u32,
}
