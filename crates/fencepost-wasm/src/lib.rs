//! WebAssembly bindings of the fencepost core, for the npm package `fencepost`.
//!
//! These bindings are deliberately thin and speak only numbers and bigints: strings and bytes cross
//! through the module's memory (see [`abi`]: the input area, and the [`Out`](out::Out) record that
//! holds what a call has to say beyond its return value, errors too; each call's answer there is
//! declared once, by name, in [`out::answers`]).
//! Every lease and fence rule lives in the `fencepost` crate; this crate turns its results into
//! small integer codes, and the package's JavaScript (`npm/src/api.js` and the files it imports)
//! turns those into the objects, `TypeError`s and `RangeError`s its users see. Every number both
//! sides use is defined here, once: `npm/src/abi.js` is generated from these definitions (see
//! [`js`]).
//!
//! Every object (authority, lock table, guard, resource, signer, key ring, keeper) lives in a
//! table of the instance and is known to JavaScript by its index (see [`objects`]), so every
//! export is a free function of plain values. The exports are grouped by family: [`locks`],
//! [`guard`], [`resource`], [`signer`], [`keeper`], [`token`].
//!
//! Nothing here may trap the instance: every function returns, whatever it is given (an unknown
//! index gets a harmless default), and a call the memory cannot hold is refused before it changes
//! anything (see `memory.rs`).
//!
//! Times cross as `f64` milliseconds (the JavaScript side only passes non-negative safe integers;
//! a cast saturates anyway). Tokens cross as `u64` (a JavaScript `bigint`); `0` means "none".
#![cfg_attr(target_arch = "wasm32", no_std)]

extern crate alloc;

/// The numbered constants of one group (error codes, object kinds, what a call does, what it
/// answers), with `ALL` naming each, in order: `npm/src/abi.js` is generated from those lists
/// (see [`js`]), so every number is written once.
macro_rules! numbered {
    ($($(#[$attr:meta])* $name:ident = $value:expr;)*) => {
        $($(#[$attr])* pub const $name: u32 = $value;)*
        /// Every constant of this group with its name, in the order they are defined.
        pub const ALL: &[(&str, u32)] = &[$((stringify!($name), $name)),*];
    };
}
pub(crate) use numbered;

pub mod abi;
pub mod errors;
pub mod guard;
pub mod keeper;
mod kinds;
pub mod locks;
mod memory;
mod name;
pub mod objects;
pub mod out;
pub mod resource;
pub mod signer;
mod state;
pub mod token;

#[cfg(not(target_arch = "wasm32"))]
pub mod js;
#[cfg(test)]
mod tests;

#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOC: fencepost_wasm_rt::SizeClasses = fencepost_wasm_rt::SizeClasses::new();

/// Never reached by design (every input is checked); if it were, the instance traps rather than
/// pulling in the formatting machinery.
#[cfg(target_arch = "wasm32")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    core::arch::wasm32::unreachable()
}
