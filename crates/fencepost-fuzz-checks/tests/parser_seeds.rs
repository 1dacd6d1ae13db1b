//! The fuzz targets' checks, run over their committed seeds on stable Rust.
//!
//! `cargo xtask fuzz` runs the same checks under libFuzzer (nightly); this test keeps them compiling
//! and passing with every `cargo xtask test`, and pins what each seed is: how many of its target's
//! parsers accept it. A seed added without a line here fails the test.

use fencepost_fuzz_checks as fuzz_checks;

mod seeds;

use std::path::Path;

/// Seed file -> parsers of its target that accept it.
const EXPECTED: &[(&str, &[(&str, usize)])] = &[
    (
        "token",
        &[
            // decimal and header
            ("decimal-33", 2),
            ("decimal-max", 2),
            // the 8-byte form
            ("bytes-34", 1),
            ("bytes-max", 1),
            ("bytes-zero", 0),
            ("decimal-overflow", 0),
            ("empty", 0),
            ("header-signed", 0),
            ("leading-zero", 0),
            ("minus", 0),
            ("newline-after", 0),
            ("not-a-digit", 0),
            ("plus", 0),
            ("space-before", 0),
            ("zero", 0),
        ],
    ),
    (
        "signed_token",
        &[
            ("header-genuine", 1),
            ("bytes-genuine", 1),
            // parse, then fail to verify
            ("header-poison-max", 1),
            ("bytes-poison-max", 1),
            ("bytes-zero-token", 0),
            ("header-long-mac", 0),
            ("header-missing-mac", 0),
            ("header-truncated-mac", 0),
            ("header-upper-hex", 0),
            ("header-zero-token", 0),
            // the keyed (v2) form: parses, then verifies with key 2 (current) or 1 (previous),
            // or is refused for a key the ring lacks or a MAC of another key
            ("keyed-current", 1),
            ("keyed-previous", 1),
            ("keyed-unknown-key", 1),
            ("keyed-other-key", 1),
            ("keyed-leading-zero-id", 0),
        ],
    ),
    (
        "snapshot",
        &[
            // authority with String ids / u32 ids, table with String ids / u32 ids; a whole
            // snapshot, or the body of one (framed by the check with a valid checksum)
            ("body-authority", 1),
            ("body-table", 1),
            ("authority-string-holder", 1),
            ("authority-u32-holder", 2),
            ("authority-fresh", 2),
            ("authority-exhausted", 2),
            ("authority-lease-at-end-of-time", 1),
            ("table-string-names", 1),
            ("table-u32-names", 2),
            ("table-empty", 2),
            // locks listed c, a, b, each leased: restored, every one is still found
            ("table-out-of-order", 1),
            // decodes; restore refuses it with a typed error
            ("table-duplicate-names", 1),
            ("damaged-checksum", 0),
            ("next-token-above-reservation", 0),
            ("not-a-snapshot", 0),
            ("truncated", 0),
            ("version-2", 0),
        ],
    ),
];

#[test]
fn every_seed_passes_its_fuzz_check() {
    assert_eq!(fuzz_checks::TARGETS.len(), EXPECTED.len());
    for (target, check) in fuzz_checks::TARGETS {
        let (_, expected) = EXPECTED
            .iter()
            .find(|(t, _)| t == target)
            .unwrap_or_else(|| panic!("no expectations for target {target}"));
        assert_eq!(
            seeds::verdicts(target, *check),
            seeds::expected(expected),
            "seeds of {target}"
        );
    }
}

#[test]
fn signed_seeds_reach_both_sides_of_the_signature_check() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/signed_token");
    let signer = fencepost::TokenSigner::new(fuzz_checks::FUZZ_KEY).unwrap();
    let verify = |name: &str| {
        let data = std::fs::read(corpus.join(name)).unwrap();
        let st = fencepost::SignedToken::from_header(&data)
            .or_else(|_| fencepost::SignedToken::from_bytes(&data))
            .unwrap();
        signer
            .verify(fuzz_checks::FUZZ_LOCK, &st)
            .map(fencepost::Token::get)
    };
    assert_eq!(verify("header-genuine"), Ok(34));
    assert_eq!(verify("bytes-genuine"), Ok(34));
    let forged = Err(fencepost::SignatureError::Forged);
    assert_eq!(verify("header-poison-max"), forged);
    assert_eq!(verify("bytes-poison-max"), forged);

    let mut ring = fencepost::KeyRing::new(1, fuzz_checks::FUZZ_KEY).unwrap();
    ring.rotate(2, b"fencepost-fuzz-key-second-one-xx").unwrap();
    let keyed = |name: &str| {
        let data = std::fs::read(corpus.join(name)).unwrap();
        let kt = fencepost::KeyedToken::from_header(&data).unwrap();
        ring.verify(fuzz_checks::FUZZ_LOCK, &kt)
            .map(fencepost::Token::get)
    };
    assert_eq!(keyed("keyed-current"), Ok(34));
    assert_eq!(keyed("keyed-previous"), Ok(34));
    assert_eq!(keyed("keyed-other-key"), forged);
    assert_eq!(
        keyed("keyed-unknown-key"),
        Err(fencepost::SignatureError::UnknownKey { key_id: 7 })
    );
}
