//! The history checker on a hand-made campaign history: clean, then with each kind of violation
//! at a known line; malformed campaign lines; line by line as at once; memory that stays flat.

use fencepost_sim::history::{About, FindingKind, HistoryChecker, HistoryReport, Nemeses, Nemesis};

/// Client 1 holds `L` and writes `d` with token 1, is paused past its lease; client 2 is granted
/// token 2 and writes; client 1 wakes, learns it lost the lock, and its stale write is refused.
const CLEAN: [&str; 15] = [
    r#"{"t":100,"kind":"grant","process":"client-1","lock":"L","token":1,"expires_at":1}"#,
    r#"{"t":100,"kind":"belief","process":"client-1","lock":"L","state":"held","token":1,"safe_until":1100}"#,
    r#"{"t":200,"kind":"write","process":"client-1","resource":"d","token":1,"via":"fetch","result":"ok"}"#,
    r#"{"t":200,"resource":"d","writer":"client-1","token":1,"result":"ok"}"#,
    r#"{"t":300,"kind":"fault","process":"nemesis","nemesis":"pause-client","target":"client-1","phase":"start"}"#,
    r#"{"t":1200,"kind":"grant","process":"client-2","lock":"L","token":2,"expires_at":1}"#,
    r#"{"t":1200,"kind":"belief","process":"client-2","lock":"L","state":"held","token":2,"safe_until":2200}"#,
    r#"{"t":1300,"kind":"write","process":"client-2","resource":"d","token":2,"via":"store","result":"ok"}"#,
    r#"{"t":1300,"resource":"d","writer":"client-2","token":2,"result":"ok"}"#,
    r#"{"t":1500,"kind":"fault","process":"nemesis","nemesis":"pause-client","target":"client-1","phase":"end"}"#,
    r#"{"t":1500,"kind":"belief","process":"client-1","lock":"L","state":"lost"}"#,
    r#"{"t":1600,"kind":"write","process":"client-1","resource":"d","token":1,"via":"fetch","result":"rejected","highest":2}"#,
    r#"{"t":1600,"resource":"d","writer":"client-1","token":1,"result":"rejected"}"#,
    r#"{"t":2000,"kind":"belief","process":"client-2","lock":"L","state":"released"}"#,
    r#"{"t":3000,"kind":"final","process":"runner","resource":"d","token":2,"writer":"client-2"}"#,
];

/// CLEAN with line `no` (1-based) replaced by `with`; `None` drops it.
fn text(changes: &[(usize, Option<&str>)]) -> String {
    let mut out = String::new();
    for (i, l) in CLEAN.iter().enumerate() {
        let line = changes
            .iter()
            .find(|(no, _)| *no == i + 1)
            .map_or(Some(*l), |(_, w)| *w);
        if let Some(line) = line {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

fn check(changes: &[(usize, Option<&str>)]) -> HistoryReport {
    HistoryChecker::check_text(&text(changes), 100)
}

fn found(r: &HistoryReport) -> Vec<(u64, FindingKind)> {
    r.findings.iter().map(|f| (f.line, f.kind)).collect()
}

#[test]
fn the_clean_campaign_has_no_finding_and_every_figure() {
    let r = check(&[]);
    assert_eq!(found(&r), []);
    assert!(r.malformed.is_empty(), "{:?}", r.malformed);
    let t = r.totals;
    assert!(t.campaign);
    assert_eq!((t.operations, t.beliefs, t.finals, t.faults), (5, 4, 1, 1));
    assert_eq!((t.lock.grants, t.resource.writes), (2, 3));
    assert_eq!(
        (
            t.resource.stale_attempted,
            t.resource.stale_refused,
            t.resource.stale_accepted
        ),
        (1, 1, 0)
    );
    assert_eq!(
        (t.resource.acknowledged, t.resource.acknowledged_lost),
        (2, 0)
    );
    let pause = t.by_nemesis.get(Nemesis::PauseClient);
    assert_eq!((pause.faults, pause.stale_refused), (1, 0));
    // The refusal came after the pause ended: no nemesis was active then.
    assert_eq!(t.without_faults.stale_refused, 1);
    assert!(!t.violated());
    // Today's write-log figures count the store's lines only.
    assert_eq!(
        (
            r.summary.lines,
            r.summary.accepted,
            r.summary.rejected,
            r.summary.resources
        ),
        (15, 2, 1, 1)
    );
}

#[test]
fn the_runners_own_lines_are_part_of_the_record_and_change_no_figure() {
    let plain = check(&[]);
    let start =
        r#"{"t":0,"kind":"campaign","event":"start","seed":27,"seconds":60,"process":"runner"}"#;
    let skipped = r#"{"t":1500,"kind":"campaign","event":"skipped","nemesis":"kill-engine","why":"a member is down already","process":"runner"}"#;
    let text = format!("{start}\n{}{skipped}\n", text(&[]));
    let r = HistoryChecker::check_text(&text, 100);
    assert!(r.malformed.is_empty(), "{:?}", r.malformed);
    assert_eq!(r.summary.lines, plain.summary.lines + 2);
    assert_eq!(found(&r), found(&plain));
    assert_eq!(r.totals.operations, plain.totals.operations);
    assert_eq!(r.totals.faults, plain.totals.faults);
}

#[test]
fn a_grant_not_above_an_earlier_one_is_a_grant_order_violation() {
    let r = check(&[(
        6,
        Some(r#"{"t":1200,"kind":"grant","process":"client-2","lock":"L","token":1}"#),
    )]);
    assert_eq!(found(&r), [(6, FindingKind::GrantOrder)]);
    assert_eq!(
        r.findings[0].to_string(),
        "line 6: client-2 was granted `L` with token 1, not above 1 granted to client-1 (line 1) [during pause-client]"
    );
    assert_eq!(r.totals.lock.grant_order_violations, 1);
    assert_eq!(
        r.totals
            .by_nemesis
            .get(Nemesis::PauseClient)
            .grant_order_violations,
        1
    );
    assert!(r.totals.violated());
}

#[test]
fn an_acknowledged_write_above_the_final_row_is_lost() {
    let r = check(&[(
        15,
        Some(r#"{"t":3000,"kind":"final","process":"runner","resource":"d","token":1}"#),
    )]);
    assert_eq!(found(&r), [(15, FindingKind::AckLost)]);
    assert_eq!(
        r.findings[0].to_string(),
        "line 15: `d` ends with token 1, yet 1 acknowledged writes were above it, the highest client-2's with token 2 (line 8)"
    );
    assert_eq!(r.totals.resource.acknowledged_lost, 1);
    assert!(r.totals.violated());
}

#[test]
fn acknowledged_writes_without_a_final_row_are_lost_at_the_end() {
    let r = check(&[(15, None)]);
    assert_eq!(found(&r), [(0, FindingKind::AckLost)]);
    assert_eq!(
        r.findings[0].to_string(),
        "end: `d` has no final row, yet 2 acknowledged writes were above it, the highest client-2's with token 2 (line 8)"
    );
    assert!(matches!(
        r.findings[0].about,
        About::AckLost {
            final_token: None,
            writes: 2,
            ..
        }
    ));
    // Line by line, the loss is known only when the history ends.
    let mut c = HistoryChecker::new();
    for l in text(&[(15, None)]).lines() {
        assert!(c.check_line(l.as_bytes()).findings.is_empty());
    }
    assert_eq!(c.finish().len(), 1);
    assert!(c.finish().is_empty());
}

#[test]
fn two_believers_at_once_are_an_overlap_within_drift() {
    // Client 1's keeper believes until 1500, past client 2's grant at 1200.
    let r = check(&[(
        2,
        Some(
            r#"{"t":100,"kind":"belief","process":"client-1","lock":"L","state":"held","safe_until":1500}"#,
        ),
    )]);
    assert_eq!(found(&r), [(11, FindingKind::BeliefOverlap)]);
    assert_eq!(
        r.findings[0].to_string(),
        "line 11: client-1, client-2 believed they held `L` at once from t=1200 to t=1500 (from line 7), clocks within their drift bound [during pause-client]"
    );
    assert_eq!(
        r.findings[0].nemeses,
        Nemeses::NONE.with(Nemesis::PauseClient)
    );
    assert_eq!(
        (
            r.totals.lock.overlaps_within_drift,
            r.totals.lock.overlaps_beyond_drift
        ),
        (1, 0)
    );
    assert!(r.totals.violated());
}

#[test]
fn an_overlap_with_a_clock_skewed_beyond_drift_is_counted_and_allowed() {
    let r = check(&[
        (
            2,
            Some(
                r#"{"t":100,"kind":"belief","process":"client-1","lock":"L","state":"held","safe_until":1500}"#,
            ),
        ),
        (
            5,
            Some(
                r#"{"t":50,"kind":"fault","process":"nemesis","nemesis":"clock-slow","target":"client-1","phase":"start","within_drift":false}"#,
            ),
        ),
        (
            10,
            Some(
                r#"{"t":1250,"kind":"fault","process":"nemesis","nemesis":"clock-slow","target":"client-1","phase":"end"}"#,
            ),
        ),
    ]);
    assert_eq!(found(&r), [(11, FindingKind::BeliefOverlap)]);
    assert!(r.findings[0].beyond_drift());
    assert_eq!(
        (
            r.totals.lock.overlaps_within_drift,
            r.totals.lock.overlaps_beyond_drift
        ),
        (0, 1)
    );
    assert_eq!(
        r.totals
            .by_nemesis
            .get(Nemesis::ClockSlow)
            .overlaps_beyond_drift,
        1
    );
    assert!(!r.totals.violated());
}

#[test]
fn a_stale_write_the_store_applied_is_accepted() {
    let r = check(&[(
        13,
        Some(r#"{"t":1600,"resource":"d","writer":"client-1","token":1,"result":"ok"}"#),
    )]);
    assert_eq!(
        found(&r),
        [
            (13, FindingKind::TokenRegression),
            (13, FindingKind::StaleOwner)
        ]
    );
    assert_eq!(
        (
            r.totals.resource.stale_attempted,
            r.totals.resource.stale_accepted
        ),
        (2, 1)
    );
    assert!(r.totals.violated());
}

#[test]
fn campaign_lines_missing_what_their_kind_needs_are_malformed() {
    let r = HistoryChecker::check_text(
        concat!(
            r#"{"t":1,"kind":"lease","process":"p"}"#,
            "\n",
            r#"{"t":1,"kind":"belief","process":"p","lock":"L","state":"held"}"#,
            "\n",
            r#"{"t":1,"kind":"grant","process":"p","token":3}"#,
            "\n",
            r#"{"t":1,"kind":"write","process":"p","resource":"d","token":3,"result":"lost"}"#,
            "\n",
            r#"{"t":1,"kind":"fault","nemesis":"clock-fast","target":"p","phase":"start"}"#,
            "\n",
            r#"{"t":1,"kind":"fault","nemesis":"flood","target":"p","phase":"start"}"#,
            "\n",
            r#"{"t":1,"kind":"grant","lock":"L","token":3}"#,
            "\n",
            r#"{"t":2,"kind":"grant","process":"p","lock":"L","token":3}"#,
            "\n",
        ),
        100,
    );
    let m: Vec<(u64, &str)> = r
        .malformed
        .iter()
        .map(|m| (m.line, m.message.as_str()))
        .collect();
    assert_eq!(
        m,
        [
            (
                1,
                "unknown variant `lease`, expected one of `grant`, `belief`, `write`, `final`, `fault`, `campaign` (column 21)"
            ),
            (
                2,
                "belief: missing field `safe_until` (held and uncertain carry it)"
            ),
            (3, "grant: missing field `lock`"),
            (
                4,
                "write: unknown variant `lost`, expected one of `ok`, `rejected`, `unknown` (column 76)"
            ),
            (
                5,
                "fault: missing field `within_drift` (a clock fault's start carries it)"
            ),
            (
                6,
                "fault: unknown variant `flood`, expected one of `pause-client`, `kill-service`, `restart-service`, `pause-engine`, `kill-engine`, `proxy-hold`, `proxy-delay`, `proxy-drop`, `proxy-reset`, `clock-fast`, `clock-slow` (column 39)"
            ),
            (7, "grant: missing field `process`"),
        ]
    );
    // The check went on: the last line was read.
    assert_eq!(r.totals.lock.grants, 1);
}

#[test]
fn line_by_line_is_the_whole_text_at_once() {
    for changes in [
        vec![],
        vec![(15, None)],
        vec![(
            2,
            Some(
                r#"{"t":100,"kind":"belief","process":"client-1","lock":"L","state":"held","safe_until":1500}"#,
            ),
        )],
    ] {
        let whole = check(&changes);
        let mut c = HistoryChecker::new();
        let mut findings = Vec::new();
        for l in text(&changes).lines() {
            findings.extend(c.check_line(l.as_bytes()).findings);
        }
        findings.extend(c.finish());
        assert_eq!(findings, whole.findings);
        assert_eq!(*c.totals(), whole.totals);
        // In pieces of whole lines, too.
        let mut c = HistoryChecker::new();
        let mut report = HistoryReport::default();
        let t = text(&changes);
        let (a, b) = t.split_at(t.find("\n{\"t\":1300").unwrap() + 1);
        c.check_lines(a, 100, &mut report);
        c.check_lines(b, 100, &mut report);
        c.finish_into(100, &mut report);
        assert_eq!(report, whole);
    }
}

#[test]
fn many_lines_over_few_locks_hold_no_more_memory() {
    let mut c = HistoryChecker::new();
    let mut after_first = 0;
    for round in 0..2_000u64 {
        let t = round * 1000;
        let p = format!("client-{}", round % 3);
        for l in [
            format!(
                r#"{{"t":{t},"kind":"fault","nemesis":"proxy-delay","target":"proxy","phase":"start"}}"#
            ),
            format!(
                r#"{{"t":{t},"kind":"grant","process":"{p}","lock":"L{}","token":{}}}"#,
                round % 2,
                round + 1
            ),
            format!(
                r#"{{"t":{t},"kind":"belief","process":"{p}","lock":"L{}","state":"held","safe_until":{}}}"#,
                round % 2,
                t + 500
            ),
            format!(
                r#"{{"t":{},"kind":"write","process":"{p}","resource":"d","token":{},"result":"ok"}}"#,
                t + 1,
                round + 1
            ),
            format!(
                r#"{{"t":{},"resource":"d","writer":"{p}","token":{},"result":"ok"}}"#,
                t + 1,
                round + 1
            ),
            format!(
                r#"{{"t":{},"kind":"belief","process":"{p}","lock":"L{}","state":"released"}}"#,
                t + 2,
                round % 2
            ),
            format!(
                r#"{{"t":{},"kind":"fault","nemesis":"proxy-delay","target":"proxy","phase":"end"}}"#,
                t + 3
            ),
        ] {
            assert!(c.check_line(l.as_bytes()).findings.is_empty(), "{l}");
        }
        if round == 10 {
            after_first = c.held_bytes();
        }
    }
    assert_eq!(c.held_bytes(), after_first);
    assert!(!c.violated());
    assert_eq!(c.totals().faults, 2_000);
}
