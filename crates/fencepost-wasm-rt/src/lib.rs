//! What the npm package's two WebAssembly modules (`fencepost-wasm`, the core, and
//! `fencepost-sim-wasm`, the simulator) need at run time, kept in one place:
//!
//! * [`Slots`]: the table of objects a module hands to JavaScript by index;
//! * `SizeClasses` (wasm32 only): the modules' global allocator.
#![no_std]

extern crate alloc;

#[cfg(target_arch = "wasm32")]
mod heap;
mod slots;

#[cfg(target_arch = "wasm32")]
pub use heap::SizeClasses;
pub use slots::Slots;
