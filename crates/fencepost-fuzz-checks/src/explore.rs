//! The explorer parsers' fuzz checks: template JSON and history lines. Any bytes either fail with
//! an error that says what is wrong, or parse into something that behaves: a template re-parses
//! from its own JSON and derives valid scenarios that run; a history is checked line by line
//! without a panic, every line counted. Used by the `template` and `history` fuzz targets and
//! tests/explore_seeds.rs.

use fencepost_sim::history::{About, FindingKind, HistoryChecker};
use fencepost_sim::template::Template;
use fencepost_sim::{RunOptions, run_with};

/// Returns 1 when the bytes were a valid template, 0 otherwise.
pub fn template(data: &[u8]) -> usize {
    let Ok(text) = core::str::from_utf8(data) else {
        return 0;
    };
    match Template::from_json(text) {
        Err(e) => {
            assert!(!e.message.is_empty(), "an error must say what is wrong");
            0
        }
        Ok(t) => {
            Template::from_json(&t.to_json()).expect("a valid template re-parses");
            for seed in 0..3 {
                let s = t.derive(seed);
                assert_eq!(s, t.derive(seed), "derive is a pure function of the seed");
                s.validate()
                    .expect("a valid template derives valid scenarios");
                let opts = RunOptions {
                    max_events: 5_000,
                    record: false,
                    ..RunOptions::default()
                };
                let _ = run_with(&s, opts);
            }
            1
        }
    }
}

/// Returns how many lines were well-formed writes, or campaign lines (fault ends aside).
pub fn history(data: &[u8]) -> usize {
    let mut c = HistoryChecker::new();
    let mut n = 0u64;
    for line in data.split(|b| *b == b'\n') {
        n += 1;
        let r = c.check_line(line);
        if let Some(m) = &r.malformed {
            assert!(!m.message.is_empty(), "a malformed line must say why");
            assert!(r.findings.is_empty());
        }
        for f in &r.findings {
            assert_eq!(f.line, n);
            let earlier = match f.about {
                About::Write { newer_line, .. } => newer_line,
                About::Grant { earlier_line, .. } => earlier_line,
                About::AckLost { write_line, .. } => write_line,
                About::Overlap { began_line, .. } => began_line,
            };
            assert!(earlier <= n);
        }
    }
    for f in c.finish() {
        assert!(f.line == 0 && f.count() > 0 || f.kind == FindingKind::BeliefOverlap);
    }
    assert!(c.finish().is_empty(), "finishing twice finds nothing more");
    let s = c.summary();
    let t = c.totals();
    assert_eq!(s.lines, n);
    let campaign = t.operations + t.beliefs + t.finals + t.faults;
    assert!(s.accepted + s.rejected + s.malformed + campaign <= n);
    (s.accepted + s.rejected + campaign) as usize
}
