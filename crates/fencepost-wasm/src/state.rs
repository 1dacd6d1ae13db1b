//! The instance's state, reached by every export through [`with`].

use alloc::vec::Vec;

use crate::objects::Objects;
use crate::out::Out;

pub(crate) struct State {
    pub(crate) out: Out,
    pub(crate) input: Vec<u8>,
    pub(crate) output: Vec<u8>,
    pub(crate) objects: Objects,
}

impl State {
    pub(crate) const fn new() -> State {
        State {
            out: Out::new(),
            input: Vec::new(),
            output: Vec::new(),
            objects: Objects::new(),
        }
    }
}

/// The module runs on one thread and no export calls back into JavaScript, so no call can start
/// while another runs: the state needs no borrow flag. Natively (tests) each thread gets its own.
#[cfg(target_arch = "wasm32")]
mod single {
    use super::State;
    use core::cell::UnsafeCell;

    pub struct Global(UnsafeCell<State>);
    // SAFETY: wasm32-unknown-unknown without the atomics feature has exactly one thread.
    unsafe impl Sync for Global {}
    static STATE: Global = Global(UnsafeCell::new(State::new()));

    #[inline(always)]
    pub fn with<R>(_fallback: R, f: impl FnOnce(&mut State) -> R) -> R {
        // SAFETY: one thread, and every export reaches the state exactly once, never re-entering
        // (nothing here calls out), so this is the only reference while `f` runs.
        f(unsafe { &mut *STATE.0.get() })
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod single {
    use super::State;
    use std::cell::RefCell;

    std::thread_local! {
        static STATE: RefCell<State> = const { RefCell::new(State::new()) };
    }

    pub fn with<R>(fallback: R, f: impl FnOnce(&mut State) -> R) -> R {
        STATE.with(|st| match st.try_borrow_mut() {
            Ok(mut st) => f(&mut st),
            Err(_) => fallback,
        })
    }
}

pub(crate) use single::with;
