//! What fencepost's fuzz targets check, one function per target, in one crate so that the targets
//! (fuzz/, under libFuzzer on nightly) and the tests that run every committed seed under
//! `fuzz/corpus/` on stable Rust (this crate's tests/, with every `cargo xtask test`) call the
//! same code. A check panics only on a real bug; refusing an input is never a failure.

pub mod explore;
mod parsers;
pub mod scenario;

pub use parsers::{Check, FUZZ_KEY, FUZZ_LOCK, TARGETS, signed_token, snapshot, token};
