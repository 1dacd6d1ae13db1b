//! The history checker on hand-made histories: each kind of violation, malformed lines, and
//! resources checked apart.

use fencepost_sim::history::{FindingKind, HistoryChecker, Summary};

/// Findings as (line, kind), malformed line numbers, totals, and the findings' sentences.
type Checked = (Vec<(u64, FindingKind)>, Vec<u64>, Summary, Vec<String>);

fn check(text: &str) -> Checked {
    let r = HistoryChecker::check_text(text, 100);
    (
        r.findings.iter().map(|f| (f.line, f.kind)).collect(),
        r.malformed.iter().map(|m| m.line).collect(),
        r.summary,
        r.findings.iter().map(ToString::to_string).collect(),
    )
}

#[test]
fn a_fenced_history_is_clean() {
    let h = r#"{"t":1000,"resource":"orders","writer":"A","token":33,"result":"ok"}
{"t":31200,"resource":"orders","writer":"B","token":34,"result":"ok"}
{"t":46050,"resource":"orders","writer":"A","token":33,"result":"rejected"}
{"t":47000,"resource":"orders","writer":"B","token":34,"result":"ok"}
"#;
    let (findings, malformed, s, _) = check(h);
    assert!(findings.is_empty());
    assert!(malformed.is_empty());
    assert_eq!(
        s,
        Summary {
            lines: 4,
            accepted: 3,
            rejected: 1,
            malformed: 0,
            token_regressions: 0,
            stale_owners: 0,
            resources: 1,
        }
    );
    assert!(!s.violated());
}

#[test]
fn a_lower_token_accepted_is_a_regression_and_a_stale_owner() {
    let h = r#"{"t":1000,"resource":"orders","writer":"A","token":33,"result":"ok"}
{"t":31200,"resource":"orders","writer":"B","token":34,"result":"ok"}
{"t":46050,"resource":"orders","writer":"A","token":33,"result":"ok"}
"#;
    let (findings, _, s, text) = check(h);
    assert_eq!(
        findings,
        [
            (3, FindingKind::TokenRegression),
            (3, FindingKind::StaleOwner)
        ]
    );
    assert_eq!(
        text,
        [
            "line 3: `orders` accepted token 33 from A after it had accepted 34 from B (line 2)",
            "line 3: A's write to `orders` (token 33) was accepted after B, a newer owner (token 34), had written (line 2)",
        ]
    );
    assert_eq!((s.token_regressions, s.stale_owners), (1, 1));
    assert!(s.violated());
}

#[test]
fn two_owners_sharing_a_token_is_a_stale_owner_without_regression() {
    // The lock service forgot its tokens and issued 33 twice: B is the newer owner.
    let h = r#"{"t":1000,"resource":"orders","writer":"A","token":33,"result":"ok"}
{"t":3200,"resource":"orders","writer":"B","token":33,"result":"ok"}
{"t":3300,"resource":"orders","writer":"B","token":33,"result":"ok"}
{"t":43000,"resource":"orders","writer":"A","token":33,"result":"ok"}
"#;
    let (findings, _, s, text) = check(h);
    assert_eq!(findings, [(4, FindingKind::StaleOwner)]);
    assert_eq!(
        text,
        [
            "line 4: A's write to `orders` (token 33) was accepted after B, a newer owner (token 33), had written (line 2)"
        ]
    );
    assert_eq!((s.token_regressions, s.stale_owners), (0, 1));
}

#[test]
fn resources_are_checked_apart_and_every_violation_is_reported() {
    let h = r#"{"t":1,"resource":"a","writer":"W1","token":5,"result":"ok"}
{"t":2,"resource":"b","writer":"W2","token":9,"result":"ok"}
{"t":3,"resource":"a","writer":"W2","token":9,"result":"ok"}
{"t":4,"resource":"b","writer":"W1","token":5,"result":"rejected"}
{"t":5,"resource":"a","writer":"W1","token":5,"result":"ok"}
{"t":6,"resource":"a","writer":"W1","token":6,"result":"ok"}
{"t":7,"resource":"b","writer":"W3","token":10,"result":"ok"}
{"t":8,"resource":"b","writer":"W2","token":9,"result":"ok"}
"#;
    let (findings, _, s, _) = check(h);
    assert_eq!(
        findings,
        [
            (5, FindingKind::TokenRegression),
            (5, FindingKind::StaleOwner),
            (6, FindingKind::TokenRegression),
            (6, FindingKind::StaleOwner),
            (8, FindingKind::TokenRegression),
            (8, FindingKind::StaleOwner),
        ]
    );
    assert_eq!(s.resources, 2);
    assert_eq!((s.accepted, s.rejected), (7, 1));
}

#[test]
fn malformed_lines_are_reported_and_skipped() {
    let h = "{\"t\":1,\"resource\":\"r\",\"writer\":\"A\",\"token\":33,\"result\":\"ok\"}\n\
             not json\n\
             \n\
             {\"t\":2,\"resource\":\"r\",\"writer\":\"B\",\"token\":34,\"result\":\"ok\"}\r\n\
             {\"t\":3,\"resource\":\"r\",\"writer\":\"A\",\"token\":\"33\",\"result\":\"ok\"}\n\
             {\"t\":4,\"resource\":\"r\",\"writer\":\"A\",\"token\":33,\"result\":\"ok\",\"request\":\"x1\"}\n\
             [1,2,3]\n\
             {\"t\":5,\"resource\":\"r\",\"writer\":\"A\",\"token\":33}\n\
             {\"t\":6,\"resource\":\"r\",\"writer\":\"A\",\"token\":35,\"result\":1}\n\
             {\"t\":7,\"resource\":\"r\",\"writer\":\"A\",\"token\":35,\"result\":{\"ok\":null}}\n\
             {\"t\":8,\"resource\":\"r\",\"writer\":\"A\",\"token\":35,\"result\":\"fine\"}";
    let r = HistoryChecker::check_text(h, 100);
    let malformed: Vec<(u64, &str)> = r
        .malformed
        .iter()
        .map(|m| (m.line, m.message.as_str()))
        .collect();
    assert_eq!(
        malformed,
        [
            (2, "expected a JSON object"),
            (5, "invalid type: string \"33\", expected u64 (column 47)"),
            (7, "expected a JSON object"),
            (8, "missing field `result` (column 46)"),
            (
                9,
                "invalid type: integer `1`, expected `ok` or `rejected` (column 56)"
            ),
            (
                10,
                "invalid type: map, expected `ok` or `rejected` (column 55)"
            ),
            (
                11,
                "unknown variant `fine`, expected `ok` or `rejected` (column 61)"
            ),
        ]
    );
    assert_eq!(
        r.malformed[0].to_string(),
        "line 2: malformed, skipped: expected a JSON object"
    );
    // The malformed lines were skipped, the rest checked: line 6 (extra fields are fine) is stale.
    let findings: Vec<(u64, FindingKind)> = r.findings.iter().map(|f| (f.line, f.kind)).collect();
    assert_eq!(
        findings,
        [
            (6, FindingKind::TokenRegression),
            (6, FindingKind::StaleOwner)
        ]
    );
    assert_eq!(r.summary.lines, 11);
    assert_eq!(r.summary.malformed, 7);
    assert_eq!(r.summary.accepted, 3);
}

#[test]
fn owners_sharing_a_token_beyond_the_memory_bound_are_forgotten_oldest_first() {
    let mut c = HistoryChecker::new();
    let line =
        |w: usize| format!(r#"{{"t":1,"resource":"r","writer":"W{w}","token":7,"result":"ok"}}"#);
    for w in 0..10 {
        assert!(c.check_line(line(w).as_bytes()).findings.is_empty());
    }
    // W2 is still remembered as an older owner of token 7; W0 and W1 were forgotten.
    assert_eq!(c.check_line(line(2).as_bytes()).findings.len(), 1);
    assert!(c.check_line(line(0).as_bytes()).findings.is_empty());
}

#[test]
fn a_line_longer_than_the_limit_is_malformed_however_it_is_read() {
    use fencepost_sim::history::MAX_LINE_BYTES;
    // A well-formed write padded with spaces to exactly the limit, then one byte longer.
    let line = |len: usize| {
        let w = "{\"t\":1,\"resource\":\"r\",\"writer\":\"A\",\"token\":33,\"result\":\"ok\"}";
        format!("{w}{}", " ".repeat(len - w.len()))
    };
    let (at, over) = (line(MAX_LINE_BYTES), line(MAX_LINE_BYTES + 1));
    let mut c = HistoryChecker::new();
    assert_eq!(c.check_line(at.as_bytes()).malformed, None);
    // The `\r` of a CRLF ending does not count.
    assert_eq!(c.check_line(format!("{at}\r").as_bytes()).malformed, None);
    let m = c.check_line(over.as_bytes()).malformed.unwrap();
    assert_eq!(
        (m.line, m.message.as_str()),
        (3, "longer than 1048576 bytes")
    );
    // A reader that skips the line's bytes is told the same.
    let skipped = c.skip_long_line();
    assert_eq!(
        (skipped.line, skipped.message.as_str()),
        (4, "longer than 1048576 bytes")
    );
    let s = *c.summary();
    assert_eq!((s.lines, s.accepted, s.malformed), (4, 2, 2));
    // Checked as a whole text: the long line is skipped, the lines around it are checked.
    let text = format!(
        "{over}\n{at}\n{{\"t\":2,\"resource\":\"r\",\"writer\":\"B\",\"token\":32,\"result\":\"ok\"}}\n"
    );
    let (findings, malformed, summary, _) = check(&text);
    assert_eq!(malformed, [1]);
    assert_eq!(
        findings,
        [
            (3, FindingKind::TokenRegression),
            (3, FindingKind::StaleOwner)
        ]
    );
    assert_eq!((summary.lines, summary.accepted), (3, 2));
}
