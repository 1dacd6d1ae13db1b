//! `fencepost check` on the small campaign histories in tests/histories: the findings, the
//! table per nemesis, the verdict line and the exit status.

use std::process::Command;

fn check(file: &str, json: bool) -> (i32, Vec<String>) {
    let path = format!("{}/tests/histories/{file}", env!("CARGO_MANIFEST_DIR"));
    let mut args = vec!["check", path.as_str()];
    if json {
        args.extend(["--format", "json"]);
    }
    let out = Command::new(env!("CARGO_BIN_EXE_fencepost"))
        .args(&args)
        .output()
        .expect("the binary runs");
    let lines = String::from_utf8_lossy(&out.stdout)
        .lines()
        // The summary line ends with a speed, which varies.
        .map(|l| match l.find(" lines/s)") {
            Some(_) if l.contains(&path) => l[..l.rfind(" (").unwrap()].replace(&path, "FILE"),
            _ => l.to_string(),
        })
        .collect();
    (out.status.code().unwrap_or(-1), lines)
}

const HEAD: &str = "nemesis          faults  stale refused  stale accepted  stale owners  grant order  ack lost  overlaps within  overlaps beyond";

#[test]
fn a_clean_campaign_exits_0_with_its_table_and_verdict() {
    let (code, out) = check("clean.jsonl", false);
    assert_eq!(code, 0);
    assert_eq!(
        out,
        [
            "FILE: 15 lines, 1 resources, 2 accepted, 1 rejected, 0 malformed; 0 token regressions, 0 stale-owner writes",
            HEAD,
            "pause-client          1              0               0             0            0         0                0                0",
            "(none active)         0              1               0             0            0         0                0                0",
            "verdict: 5 operations, 1 faults, stale writes accepted 0, grant order violations 0, acknowledged writes lost 0, belief overlaps 0 within drift (0 beyond drift, allowed)",
        ]
    );
}

#[test]
fn every_must_be_zero_figure_is_found_by_line_and_exits_1() {
    let (code, out) = check("violations.jsonl", false);
    assert_eq!(code, 1);
    assert_eq!(
        out,
        [
            "line 6: client-2 was granted `L` with token 1, not above 1 granted to client-1 (line 1) [during pause-client]",
            "line 11: client-1, client-2 believed they held `L` at once from t=1200 to t=1500 (from line 7), clocks within their drift bound [during pause-client]",
            "line 13: `d` accepted token 1 from client-1 after it had accepted 2 from client-2 (line 9)",
            "line 13: client-1's write to `d` (token 1) was accepted after client-2, a newer owner (token 2), had written (line 9)",
            "line 15: `d` ends with token 1, yet 1 acknowledged writes were above it, the highest client-2's with token 2 (line 8)",
            "FILE: 15 lines, 1 resources, 3 accepted, 0 rejected, 0 malformed; 1 token regressions, 1 stale-owner writes",
            HEAD,
            "pause-client          1              0               0             0            1         0                1                0",
            "(none active)         0              1               1             1            0         1                0                0",
            "verdict: 5 operations, 1 faults, stale writes accepted 1, grant order violations 1, acknowledged writes lost 1, belief overlaps 1 within drift (0 beyond drift, allowed)",
        ]
    );
}

#[test]
fn an_overlap_beyond_drift_is_reported_and_allowed() {
    let (code, out) = check("beyond-drift.jsonl", false);
    assert_eq!(code, 0);
    assert_eq!(
        out.first().map(String::as_str),
        Some(
            "line 11: client-1, client-2 believed they held `L` at once from t=1200 to t=1500 (from line 7), a clock skewed beyond its drift bound [during clock-slow]"
        )
    );
    assert_eq!(
        out.last().map(String::as_str),
        Some(
            "verdict: 5 operations, 1 faults, stale writes accepted 0, grant order violations 0, acknowledged writes lost 0, belief overlaps 0 within drift (1 beyond drift, allowed)"
        )
    );
}

#[test]
fn a_campaign_with_only_malformed_lines_to_skip_exits_2() {
    let (code, out) = check("malformed.jsonl", false);
    assert_eq!(code, 2);
    assert_eq!(
        out[0],
        "line 7: malformed, skipped: belief: missing field `safe_until` (held and uncertain carry it)"
    );
    assert!(out.last().unwrap().starts_with("verdict: 5 operations"));
}

#[test]
fn the_json_summary_keeps_todays_fields_and_adds_the_campaigns() {
    let (code, out) = check("violations.jsonl", true);
    assert_eq!(code, 1);
    let last: serde_json::Value = serde_json::from_str(out.last().unwrap()).unwrap();
    let s = &last["summary"];
    // Today's fields, with today's meanings: the store's own lines.
    assert_eq!(
        (
            &s["lines"],
            &s["accepted"],
            &s["rejected"],
            &s["token_regressions"],
            &s["resources"]
        ),
        (&15.into(), &3.into(), &0.into(), &1.into(), &1.into())
    );
    for (field, n) in [
        ("operations", 5),
        ("faults", 1),
        ("stale_attempted", 2),
        ("stale_refused", 1),
        ("stale_accepted", 1),
        ("grants", 2),
        ("grant_order_violations", 1),
        ("acknowledged", 2),
        ("acknowledged_lost", 1),
        ("overlaps_within_drift", 1),
        ("overlaps_beyond_drift", 0),
    ] {
        assert_eq!(s[field], n, "{field}");
    }
    assert_eq!(s["by_nemesis"]["pause-client"]["faults"], 1);
    assert_eq!(s["by_lock"]["L"]["grant_order_violations"], 1);
    assert_eq!(s["by_resource"]["d"]["acknowledged_lost"], 1);
    let first: serde_json::Value = serde_json::from_str(&out[0]).unwrap();
    assert_eq!(first["finding"]["kind"], "grant_order");
    assert_eq!(
        first["finding"]["nemeses"],
        serde_json::json!(["pause-client"])
    );
}
