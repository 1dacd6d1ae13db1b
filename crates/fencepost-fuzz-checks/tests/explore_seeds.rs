//! The `template` and `history` fuzz targets' checks, run over their committed seeds on stable
//! Rust, so every `cargo xtask test` exercises them. A seed added without a line here fails.
#![cfg(not(target_arch = "wasm32"))]

use fencepost_fuzz_checks::explore as check;

mod seeds;

#[test]
fn template_seeds_give_their_expected_verdict() {
    assert_eq!(
        seeds::verdicts("template", check::template),
        seeds::expected(&[
            ("bad-probability.json", 0),
            ("every-fault.json", 1),
            ("min-above-max.json", 0),
            ("minimal.json", 1),
            ("pauses-holds-skew.json", 1),
            ("truncated.json", 0),
            ("unknown-field.json", 0),
        ])
    );
}

#[test]
fn history_seeds_give_their_expected_counts() {
    assert_eq!(
        seeds::verdicts("history", check::history),
        seeds::expected(&[
            ("campaign-malformed.jsonl", 1),
            ("campaign.jsonl", 14),
            ("clean.jsonl", 3),
            ("crlf-extra-fields.jsonl", 2),
            ("malformed.jsonl", 0),
            ("not-utf8.bin", 0),
            ("stale.jsonl", 5),
        ])
    );
}
