#![no_main]

#[path = "../src/explore.rs"]
mod check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    check::template(data);
});
