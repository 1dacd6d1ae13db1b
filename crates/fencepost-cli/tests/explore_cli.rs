//! `fencepost explore`, `fencepost check` and `fencepost sim --template`: output and exit codes.

use std::process::Command;

fn fencepost(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_fencepost"))
        .args(args)
        .output()
        .expect("the binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn tmp(name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("fencepost-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_string_lossy().into_owned()
}

#[test]
fn explore_exits_1_iff_the_checked_configuration_breaks() {
    let (code, out, _) = fencepost(&["explore", "paused-worker", "--seeds", "50", "--exhaustive"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("fencing on : 0 of 50 runs violated"), "{out}");
    assert!(
        out.contains("fencing off: 50 of 50 runs violated (I1 50, I2 50, I4 50)"),
        "{out}"
    );
    assert!(out.contains("no violation anywhere in the scope"), "{out}");

    let (code, out, _) = fencepost(&[
        "explore",
        "paused-worker",
        "--exhaustive",
        "--no-fencing",
        "--format",
        "json",
    ]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let cx = &v["exhaustive"]["counterexample"];
    assert_eq!(cx["depth"], 16);
    assert_eq!(cx["broken"], serde_json::json!(["I1", "I2", "I4"]));
    // The counterexample replays with `fencepost sim` to the same violation.
    let file = tmp("cx.json", &cx["scenario"].to_string());
    let (code, out, _) = fencepost(&["sim", &file]);
    assert_eq!(code, 1);
    assert!(out.contains("VIOLATION I1 at #"), "{out}");
}

#[test]
fn sim_replays_one_seed_of_a_template() {
    let (code, out, _) = fencepost(&[
        "explore",
        "pauses-holds-skew",
        "--seeds",
        "20",
        "--no-fencing",
    ]);
    assert_eq!(code, 1);
    assert!(
        out.contains("replay: fencepost sim --template pauses-holds-skew --seed 1 --no-fencing"),
        "{out}"
    );
    let (code, _, _) = fencepost(&[
        "sim",
        "--template",
        "pauses-holds-skew",
        "--seed",
        "1",
        "--no-fencing",
    ]);
    assert_eq!(code, 1);
    let (code, _, _) = fencepost(&["sim", "--template", "pauses-holds-skew", "--seed", "1"]);
    assert_eq!(code, 0);
    let (code, out, err) = fencepost(&["sim", "--template", "pauses-holds-skew"]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert_eq!(
        err,
        "error: the following required arguments were not provided:\n  --seed <N>\n\n\
         Usage: fencepost sim --seed <N> --template <TEMPLATE> [PRESET|FILE]\n\n\
         For more information, try '--help'.\n"
    );
}

#[test]
fn bad_input_exits_2_with_the_field_named() {
    let t = tmp(
        "t.json",
        r#"{"version":1,"lease_ttl_ms":1000,"workers":{"count":2,"work_ms":10},"faults":[{"kind":"hold","probability":2,"for":5}]}"#,
    );
    let (code, _, err) = fencepost(&["explore", &t]);
    assert_eq!(code, 2);
    assert!(
        err.contains("faults[0].probability: must be between 0 and 1"),
        "{err}"
    );
    let (code, _, err) = fencepost(&["explore", "gc-pause", "--exhaustive"]);
    assert_eq!(code, 2);
    assert!(err.contains("workers[0].job.renew_every_ms"), "{err}");
    let (code, _, _) = fencepost(&["explore", "paused-worker", "--seeds", "x"]);
    assert_eq!(code, 2);
    // The last seed can be swept; seeds past it are refused, not silently left out.
    let last = u64::MAX.to_string();
    let (code, out, _) = fencepost(&[
        "explore",
        "paused-worker",
        "--seeds",
        "1",
        "--first-seed",
        &last,
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains(&format!("seeds {last}..18446744073709551616,")),
        "{out}"
    );
    assert!(out.contains("fencing off: 1 of 1 runs violated"), "{out}");
    let (code, _, err) = fencepost(&[
        "explore",
        "paused-worker",
        "--seeds",
        "2",
        "--first-seed",
        &last,
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("--seeds: only 1 seeds from --first-seed 18446744073709551615 to 18446744073709551615, got 2"),
        "{err}"
    );
}

#[test]
fn check_reports_findings_and_malformed_lines_by_number() {
    let h = tmp(
        "h.jsonl",
        "{\"t\":1,\"resource\":\"r\",\"writer\":\"A\",\"token\":33,\"result\":\"ok\"}\n\
         oops\n\
         {\"t\":2,\"resource\":\"r\",\"writer\":\"B\",\"token\":34,\"result\":\"ok\"}\n\
         {\"t\":3,\"resource\":\"r\",\"writer\":\"A\",\"token\":33,\"result\":\"ok\"}\n",
    );
    let (code, out, _) = fencepost(&["check", &h]);
    assert_eq!(code, 1);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        "line 2: malformed, skipped: expected a JSON object"
    );
    assert_eq!(
        lines[1],
        "line 4: `r` accepted token 33 from A after it had accepted 34 from B (line 3)"
    );
    assert!(lines[3].contains("4 lines, 1 resources, 3 accepted, 0 rejected, 1 malformed; 1 token regressions, 1 stale-owner writes"));
    let clean = tmp(
        "c.jsonl",
        "{\"t\":1,\"resource\":\"r\",\"writer\":\"A\",\"token\":33,\"result\":\"ok\"}\n",
    );
    assert_eq!(fencepost(&["check", &clean]).0, 0);
    let only_bad = tmp("b.jsonl", "{\n");
    assert_eq!(fencepost(&["check", &only_bad]).0, 2);
    assert_eq!(fencepost(&["check", "/nonexistent/h.jsonl"]).0, 2);
}
