//! The instance's state: the objects JavaScript knows by index, the last error, and the memory a
//! call may take.
//!
//! No JavaScript runs while the state is in use: values are read from JavaScript before a call
//! takes it and written out after it let go (see `interop`), so a getter or setter that throws
//! cannot leave it borrowed or half-changed. Objects are kept behind an `Rc`, and a value is
//! written out of an object lent out ([`lend`]): a clone of it waits on the state's `lent` stack
//! meanwhile, so that a setter that calls back in and frees the object cannot drop it, and it
//! cannot be changed ([`State::unshared`]). Should a setter throw, the frames of the call never
//! return; the package's JavaScript then gives back what the call had lent ([`lent_release`]).

use alloc::rc::Rc;
use core::any::Any;

use fencepost_sim::explore::Search;
use fencepost_sim::history::{HistoryChecker, HistoryReport};
use fencepost_sim::sweep::Sweep;
use fencepost_sim::{Scenario, Trace};
use fencepost_wasm_rt::Slots;

use crate::failure::Failure;

// The core module's allocator (power-of-two size classes) instead of std's dlmalloc: a few
// hundred bytes of code instead of several kilobytes. Runs, sweeps and searches allocate in
// patterns it handles well: vectors that double, and tables of objects freed and made again.
#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOC: fencepost_wasm_rt::SizeClasses = fencepost_wasm_rt::SizeClasses::new();

/// Makes room for a call before it changes anything: afterwards, allocations whose blocks (see
/// `SizeClasses::room_in_blocks`) add up to at most `bytes` cannot fail. False when the memory
/// cannot grow that far; the call then reports [`Failure::memory`] and changes nothing.
#[cfg(target_arch = "wasm32")]
pub fn room(bytes: u64) -> bool {
    ALLOC.room_in_blocks(bytes)
}

/// How far the allocator has carved the module's memory (see `SizeClasses::carved`).
#[cfg(target_arch = "wasm32")]
pub fn carved() -> u64 {
    ALLOC.carved()
}

/// Natively (tests) nothing is counted.
#[cfg(not(target_arch = "wasm32"))]
pub fn carved() -> u64 {
    0
}

/// Natively (tests) the system allocator serves, and a failure aborts the test.
#[cfg(not(target_arch = "wasm32"))]
pub fn room(_bytes: u64) -> bool {
    true
}

pub struct State {
    pub error: Option<Failure>,
    pub runs: Slots<Rc<Trace>>,
    /// Scenarios read once, for many runs.
    pub scenarios: Slots<Rc<Scenario>>,
    pub sweeps: Slots<Rc<Sweep>>,
    pub searches: Slots<Rc<Search>>,
    /// History checkers, each with the report `history_feed` adds to.
    pub checkers: Slots<Rc<(HistoryChecker, HistoryReport)>>,
    /// Objects lent out while a value of them is written to JavaScript, the innermost call's
    /// last.
    lent: Vec<Rc<dyn Any>>,
}

impl State {
    const fn new() -> State {
        State {
            error: None,
            runs: Slots::new(),
            scenarios: Slots::new(),
            sweeps: Slots::new(),
            searches: Slots::new(),
            checkers: Slots::new(),
            lent: Vec::new(),
        }
    }

    /// The object at `i` of `table` to change, unless it is missing or lent out (a setter that
    /// runs while a value of it is written out called back in to change it).
    pub fn unshared<'a, T>(
        table: &'a mut Slots<Rc<T>>,
        i: u32,
        what: &str,
    ) -> Result<&'a mut T, Failure> {
        let rc = table.get(i).ok_or_else(|| Failure::missing(what))?;
        Rc::get_mut(rc).ok_or_else(|| Failure {
            kind: crate::failure::kind::TYPE,
            message: format!(
                "this {what} cannot change while a value of it is being handed to JavaScript"
            ),
            ..Failure::default()
        })
    }
}

/// Calls `write` with the object at `i` of the table `table` picks (None if there is none), after
/// the state is let go, with the object lent out meanwhile (see the module's documentation).
pub fn lend<T: 'static, R>(
    i: u32,
    table: impl FnOnce(&mut State) -> &mut Slots<Rc<T>>,
    write: impl FnOnce(&T) -> R,
) -> Option<R> {
    let object = with(None, |st| {
        let rc = Rc::clone(table(st).get(i)?);
        let object = Rc::as_ptr(&rc);
        st.lent.push(rc);
        Some(object)
    })?;
    // SAFETY: the clone on the `lent` stack keeps the object alive until this call takes it off
    // (or, should JavaScript code throw through `write`, the package gives it back once these
    // frames are gone), and nothing changes an object while it is shared.
    let r = write(unsafe { &*object });
    with((), |st| drop(st.lent.pop()));
    Some(r)
}

/// How many objects are lent out: the package notes it before a call that writes values out.
pub fn lent_depth() -> u32 {
    with(0, |st| st.lent.len() as u32)
}

/// Gives back the objects lent out above `depth`: those of a call that JavaScript code threw
/// through (its frames are gone, and with them every reference to what it had lent).
pub fn lent_release(depth: u32) {
    with((), |st| st.lent.truncate(depth as usize))
}

/// A clone of the object at `i` of the table `table` picks, for a call that reads it without
/// running JavaScript.
pub fn shared<T>(i: u32, table: impl FnOnce(&mut State) -> &mut Slots<Rc<T>>) -> Option<Rc<T>> {
    with(None, |st| table(st).get(i).map(|rc| Rc::clone(rc)))
}

/// The module runs on one thread: one plain static, without std's thread-local machinery (as in
/// the core's bindings); natively (tests) each thread gets its own state.
#[cfg(target_arch = "wasm32")]
mod single {
    use super::State;
    use core::cell::{Cell, UnsafeCell};

    pub struct Global {
        busy: Cell<bool>,
        state: UnsafeCell<State>,
    }
    // SAFETY: wasm32-unknown-unknown without the atomics feature has exactly one thread.
    unsafe impl Sync for Global {}
    static STATE: Global = Global {
        busy: Cell::new(false),
        state: UnsafeCell::new(State::new()),
    };

    /// Runs `f` on the instance's state; `fallback` if it is already in use. `f` never calls
    /// JavaScript, so nothing can call back in or throw through it; the flag keeps the state's
    /// one `&mut` sound should this crate ever nest two uses.
    pub fn with<R>(fallback: R, f: impl FnOnce(&mut State) -> R) -> R {
        if STATE.busy.replace(true) {
            return fallback;
        }
        // SAFETY: one thread, and `busy` makes this the only reference while `f` runs.
        let r = f(unsafe { &mut *STATE.state.get() });
        STATE.busy.set(false);
        r
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod single {
    use super::State;
    use std::cell::RefCell;

    std::thread_local! {
        static STATE: RefCell<State> = const { RefCell::new(State::new()) };
    }

    /// Runs `f` on the instance's state (`fallback` if it is in use: never, on one thread).
    pub fn with<R>(fallback: R, f: impl FnOnce(&mut State) -> R) -> R {
        STATE.with(|st| match st.try_borrow_mut() {
            Ok(mut st) => f(&mut st),
            Err(_) => fallback,
        })
    }
}

pub use single::with;

/// Records `failure` for the caller and returns `nothing`.
pub fn fail<R>(nothing: R, failure: Failure) -> R {
    with((), |st| st.error = Some(failure));
    nothing
}

/// Adds the object `made` (or records its error); returns its index or `NONE`.
pub fn adopt<T>(
    made: Result<T, Failure>,
    table: impl FnOnce(&mut State) -> &mut Slots<Rc<T>>,
) -> u32 {
    match made {
        Ok(item) => with(crate::NONE, |st| table(st).add(Rc::new(item))),
        Err(f) => fail(crate::NONE, f),
    }
}

/// Most bytes adding one object to any table can take (the table's growth; the object's box is
/// [`RC_BYTES`]).
pub fn add_bytes() -> u64 {
    with(0, |st| {
        st.runs.add_bytes()
            + st.scenarios.add_bytes()
            + st.sweeps.add_bytes()
            + st.searches.add_bytes()
            + st.checkers.add_bytes()
    })
}

/// Most bytes the `Rc` box of one object takes: the object's own size and two counts, as a block
/// (the objects' memory bounds count what they point to).
pub const RC_BYTES: u64 = 4096;
const _: () = {
    use core::mem::size_of;
    let most = RC_BYTES as usize - 16;
    assert!(size_of::<Trace>() <= most && size_of::<Scenario>() <= most);
    assert!(size_of::<Sweep>() <= most && size_of::<Search>() <= most);
    assert!(size_of::<(HistoryChecker, HistoryReport)>() <= most);
};
