//! The `template` and `history` fuzz targets' checks, run over their committed seeds on stable
//! Rust, so every `cargo xtask test` exercises them. A seed added without a line here fails.
#![cfg(not(target_arch = "wasm32"))]

use fencepost_fuzz_checks::explore as check;

fn run_seeds(target: &str, f: fn(&[u8]) -> usize) -> Vec<(String, usize)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/corpus")
        .join(target);
    let mut seen: Vec<(String, usize)> = std::fs::read_dir(&dir)
        .expect("the seed folder exists")
        .map(|e| {
            let path = e.expect("readable entry").path();
            let data = std::fs::read(&path).expect("readable seed");
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, f(&data))
        })
        .collect();
    seen.sort();
    seen
}

fn expect(list: &[(&str, usize)]) -> Vec<(String, usize)> {
    list.iter().map(|(n, v)| (n.to_string(), *v)).collect()
}

#[test]
fn template_seeds_give_their_expected_verdict() {
    assert_eq!(
        run_seeds("template", check::template),
        expect(&[
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
        run_seeds("history", check::history),
        expect(&[
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
