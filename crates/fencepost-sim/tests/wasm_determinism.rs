//! Runs under `cargo test --target wasm32-unknown-unknown` with wasm-bindgen-test-runner (Node):
//! the trace bytes of every preset must hash to exactly what the native run produces.
#![cfg(target_arch = "wasm32")]

mod common;

use wasm_bindgen_test::wasm_bindgen_test;

#[wasm_bindgen_test]
fn wasm32_trace_hashes_match_native() {
    assert_eq!(common::trace_hashes(), common::EXPECTED);
}
