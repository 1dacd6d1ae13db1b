//! The checker's own messages for malformed lines.

use super::*;

#[test]
fn an_empty_text_has_no_lines() {
    assert_eq!(HistoryChecker::check_text("", 10), HistoryReport::default());
    assert_eq!(HistoryChecker::check_text("\n", 10).summary.lines, 1);
}

#[test]
fn malformed_messages_name_the_problem() {
    let mut c = HistoryChecker::new();
    let m = |c: &mut HistoryChecker, s: &str| c.check_line(s.as_bytes()).malformed.unwrap();
    assert_eq!(
        m(&mut c, "{\"t\":").message,
        "EOF while parsing a value (column 5)"
    );
    assert_eq!(
        m(&mut c, r#"{"t":1,"resource":"r","writer":"A","token":3}"#).message,
        "missing field `result` (column 45)"
    );
    assert_eq!(
        m(
            &mut c,
            r#"{"t":1,"resource":"r","writer":"A","token":0,"result":"ok"}"#
        )
        .message,
        "token: must be at least 1 (token 0 is never granted)"
    );
    assert_eq!(
        m(
            &mut c,
            r#"{"t":1,"resource":"","writer":"A","token":1,"result":"ok"}"#
        )
        .message,
        "resource: must be 1 to 256 bytes"
    );
    let bad = m(
        &mut c,
        r#"{"t":1,"resource":"r","writer":"A","token":1,"result":"maybe"}"#,
    );
    assert!(bad.message.starts_with("unknown variant `maybe`"), "{bad}");
    assert_eq!(bad.line, 5);
    assert_eq!(c.summary().malformed, 5);
}
