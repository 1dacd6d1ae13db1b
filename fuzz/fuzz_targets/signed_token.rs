#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    fencepost_fuzz_checks::signed_token(data);
});
