#![no_main]

#[path = "../src/scenario.rs"]
mod check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    check::scenario(data);
});
