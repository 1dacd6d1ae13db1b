//! Same scenario and seed, same trace bytes: natively here, and on wasm32 in `wasm_determinism`.

mod common;

#[test]
fn native_trace_hashes_match_the_recorded_ones() {
    let got = common::trace_hashes();
    if std::env::var_os("FENCEPOST_PRINT_HASHES").is_some() {
        for (name, fencing, h) in &got {
            println!("    ({name:?}, {fencing}, 0x{h:016x}),");
        }
    }
    assert_eq!(got, common::EXPECTED);
}
