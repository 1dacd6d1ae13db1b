//! Fuzz-style properties for the two parsers the explorer adds: arbitrary bytes (and near-valid
//! JSON) into the template parser and the history line parser give values or typed errors, never
//! a panic. (`cargo xtask fuzz` runs the coverage-guided targets where the fuzz crate has them.)

use fencepost_sim::history::HistoryChecker;
use fencepost_sim::template::{PAUSES_HOLDS_SKEW, Template};
use proptest::prelude::*;

const LINE: &str = r#"{"t":1000,"resource":"orders","writer":"A","token":33,"result":"ok"}"#;

/// Mutations of a valid document: byte flips, cuts, and splices of JSON fragments.
fn mutated(base: &'static str) -> impl Strategy<Value = Vec<u8>> {
    let fragments = prop::sample::select(vec![
        "",
        "{",
        "}",
        "[",
        "]",
        ",",
        ":",
        "\"",
        "null",
        "-1",
        "1e999",
        "0.5",
        "true",
        "\"min\"",
        "\"max\"",
        "18446744073709551616",
        "{\"min\":1}",
        "\u{0}",
        "\\u0000",
    ]);
    (
        0..=base.len(),
        0..=base.len(),
        fragments,
        prop::collection::vec((0..base.len().max(1), any::<u8>()), 0..4),
    )
        .prop_map(move |(a, b, frag, flips)| {
            let (lo, hi) = (a.min(b), a.max(b));
            let mut v = Vec::with_capacity(base.len() + frag.len());
            v.extend_from_slice(&base.as_bytes()[..lo]);
            v.extend_from_slice(frag.as_bytes());
            v.extend_from_slice(&base.as_bytes()[hi..]);
            for (i, byte) in flips {
                if let Some(x) = v.get_mut(i) {
                    *x = byte;
                }
            }
            v
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    #[test]
    fn template_parser_never_panics_on_bytes(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        if let Ok(text) = std::str::from_utf8(&bytes) {
            let _ = Template::from_json(text);
        }
    }

    #[test]
    fn template_parser_never_panics_on_near_misses(bytes in mutated(PAUSES_HOLDS_SKEW)) {
        if let Ok(text) = std::str::from_utf8(&bytes) {
            match Template::from_json(text) {
                // A template that parses derives valid scenarios.
                Ok(t) => {
                    for seed in 0..4 {
                        prop_assert!(t.derive(seed).validate().is_ok());
                    }
                }
                Err(e) => prop_assert!(!e.message.is_empty()),
            }
        }
    }

    #[test]
    fn history_parser_never_panics_on_bytes(lines in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..200), 0..20)) {
        let mut c = HistoryChecker::new();
        for l in &lines {
            let _ = c.check_line(l);
        }
        prop_assert_eq!(c.summary().lines, lines.len() as u64);
    }

    #[test]
    fn history_parser_never_panics_on_near_misses(lines in prop::collection::vec(mutated(LINE), 1..20)) {
        let mut c = HistoryChecker::new();
        for l in &lines {
            let r = c.check_line(l);
            if let Some(m) = r.malformed {
                prop_assert!(!m.message.is_empty());
                prop_assert!(r.findings.is_empty());
            }
        }
        let s = c.summary();
        prop_assert!(s.malformed + s.accepted + s.rejected <= s.lines);
    }
}
