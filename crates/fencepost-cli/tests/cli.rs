//! The `fencepost` binary, run as a user would.

use std::process::{Command, Output};

fn fencepost(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fencepost"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn presets_lists_every_story() {
    let out = fencepost(&["presets"]);
    assert_eq!(out.status.code(), Some(0));
    let names: Vec<String> = text(&out.stdout)
        .lines()
        .map(|l| l.split_whitespace().next().unwrap_or("").to_string())
        .collect();
    let want: Vec<&str> = fencepost_sim::PRESETS.iter().map(|p| p.name).collect();
    assert_eq!(names, want);
}

#[test]
fn sim_exit_status_follows_the_verdict() {
    let ok = fencepost(&["sim", "paused-worker"]);
    assert_eq!(ok.status.code(), Some(0));
    let out = text(&ok.stdout);
    assert!(
        out.contains(
            "#29 the storage refuses A's write with token 33: it has already accepted 34 from B"
        ),
        "{out}"
    );
    assert!(
        out.ends_with("verdict: ok, every invariant held\n"),
        "{out}"
    );

    let bad = fencepost(&["sim", "paused-worker", "--no-fencing"]);
    assert_eq!(bad.status.code(), Some(1));
    let out = text(&bad.stdout);
    assert!(out.contains("document: [B#1@34, A#1@33]"), "{out}");
    assert!(out.contains("VIOLATION I2 at #29 (46.050 s)"), "{out}");
}

#[test]
fn json_is_the_library_trace() {
    let out = fencepost(&["sim", "delayed-write", "--format", "json", "--seed", "9"]);
    assert_eq!(out.status.code(), Some(0));
    let s = fencepost_sim::preset("delayed-write").unwrap().scenario();
    let t = fencepost_sim::run_with(
        &s,
        fencepost_sim::RunOptions {
            seed: Some(9),
            ..Default::default()
        },
    );
    assert_eq!(text(&out.stdout), format!("{}\n", t.to_json()));
}

#[test]
fn scenario_files_are_read_and_checked() {
    let dir = std::env::temp_dir().join(format!("fencepost-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("good.json");
    std::fs::write(&good, fencepost_sim::preset("paused-worker").unwrap().json).unwrap();
    let out = fencepost(&["check-scenario", good.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stdout).ends_with(": ok (2 workers, 1 faults)\n"));
    let out = fencepost(&[
        "sim",
        good.to_str().unwrap(),
        "--no-fencing",
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(1));

    let bad = dir.join("bad.json");
    std::fs::write(
        &bad,
        r#"{"version":1,"lease_ttl_ms":1000,"workers":[{"name":"A","job":{"work_ms":1}}],"faults":[{"kind":"pause","worker":"Q","at":1,"for":1}]}"#,
    )
    .unwrap();
    for cmd in ["check-scenario", "sim"] {
        let out = fencepost(&[cmd, bad.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2));
        assert!(
            text(&out.stderr).ends_with("faults[0].worker: no worker is named `Q`\n"),
            "{}",
            text(&out.stderr)
        );
    }
    std::fs::write(&bad, "{ not json").unwrap();
    let out = fencepost(&["sim", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("key must be a string"),
        "{}",
        text(&out.stderr)
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_usage_is_exit_2_with_a_message() {
    for (args, msg) in [
        (&["sim"][..], "sim needs a preset or a scenario file"),
        (
            &["sim", "no-such-story"][..],
            "`no-such-story` is neither a preset",
        ),
        (
            &["sim", "paused-worker", "--seed", "x"][..],
            "--seed: `x` is not a whole number",
        ),
        (
            &["sim", "paused-worker", "--format", "xml"][..],
            "--format takes text or json, not `xml`",
        ),
        (
            &["sim", "paused-worker", "--frobnicate"][..],
            "unknown option `--frobnicate`",
        ),
        (&["sim", "missing.json"][..], "missing.json:"),
        (&["launch"][..], "unknown command `launch`"),
        (&[][..], "a command is required"),
    ] {
        let out = fencepost(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            text(&out.stderr).contains(msg),
            "{args:?}: {}",
            text(&out.stderr)
        );
    }
}

#[test]
fn every_command_answers_help_with_the_usage() {
    for cmd in ["sim", "explore", "check", "check-scenario", "presets"] {
        for flag in ["--help", "-h"] {
            let out = fencepost(&[cmd, flag]);
            assert_eq!(out.status.code(), Some(0), "{cmd} {flag}");
            assert!(
                text(&out.stdout).starts_with("usage:\n  fencepost presets\n"),
                "{cmd} {flag}"
            );
        }
    }
    let out = fencepost(&["sim", "paused-worker", "--seed", "3", "--help"]);
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn stray_and_missing_arguments_are_named() {
    let out = fencepost(&["presets", "--bogus"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr)
            .starts_with("fencepost: usage: presets takes no argument, got `--bogus`\n"),
        "{}",
        text(&out.stderr)
    );
    let out = fencepost(&["sim", "paused-worker", "--format"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "fencepost: --format needs a value: text or json\n"
    );
    let out = fencepost(&["sim", "--template", "no-such-template", "--seed", "1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains(
            "no-such-template: No such file or directory (os error 2) (not a built-in template or a readable template file)"
        ),
        "{}",
        text(&out.stderr)
    );
}

/// Text shown from names with control characters: no escape sequence reaches the terminal and
/// no name's newline starts a line of its own (one that could pass for the verdict).
fn no_raw_control(stdout: &str) {
    assert!(!stdout.contains('\u{1b}'), "{stdout}");
    assert!(
        !stdout.lines().any(|l| l.starts_with("VERDICT")),
        "{stdout}"
    );
}

#[test]
fn control_characters_in_names_are_escaped_in_text() {
    let dir = std::env::temp_dir().join(format!("fencepost-cli-ctl-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("ctl.json");
    // Every mention of a worker (its name, the faults that name it) renamed.
    let json = fencepost_sim::preset("paused-worker")
        .unwrap()
        .scenario()
        .to_json()
        .replace("\"A\"", "\"A\\nVERDICT ok\"")
        .replace("\"B\"", "\"\\u001b[31mB\"");
    assert!(json.contains("VERDICT"), "{json}");
    std::fs::write(&path, json).unwrap();
    let out = fencepost(&["sim", path.to_str().unwrap(), "--no-fencing"]);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    no_raw_control(&stdout);
    assert!(
        stdout.contains("the storage applies A\\nVERDICT ok's write #1 with token 33"),
        "{stdout}"
    );
    assert!(stdout.contains("\\u{1b}[31mB"), "{stdout}");
    assert!(
        stdout.contains("document: [\\u{1b}[31mB#1@34, A\\nVERDICT ok#1@33]"),
        "{stdout}"
    );
}

#[test]
fn control_characters_from_a_history_or_a_world_are_escaped_too() {
    let dir = std::env::temp_dir().join(format!("fencepost-cli-ctl2-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let history = dir.join("h.jsonl");
    std::fs::write(
        &history,
        concat!(
            r#"{"t":1,"resource":"r\nVERDICT ok","writer":"B","token":34,"result":"ok"}"#,
            "\n",
            r#"{"t":2,"resource":"r\nVERDICT ok","writer":"A\u001b[31m","token":33,"result":"ok"}"#,
            "\n",
        ),
    )
    .unwrap();
    let out = fencepost(&["check", history.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    no_raw_control(&stdout);
    assert!(stdout.contains("r\\nVERDICT ok"), "{stdout}");

    let world = dir.join("w.json");
    let json = fencepost_sim::preset("paused-worker")
        .unwrap()
        .scenario()
        .to_json()
        .replace("\"A\"", "\"A\\nVERDICT ok\"");
    std::fs::write(&world, json).unwrap();
    let out = fencepost(&[
        "explore",
        world.to_str().unwrap(),
        "--exhaustive",
        "--no-fencing",
    ]);
    std::fs::remove_dir_all(&dir).ok();
    let stdout = text(&out.stdout);
    // The replayable scenario at the end is JSON (escaped by JSON itself); the text lines above it
    // name A escaped.
    let report: String = stdout
        .lines()
        .take_while(|l| !l.starts_with('{'))
        .collect::<Vec<_>>()
        .join("\n");
    assert!(report.contains("A\\nVERDICT ok"), "{stdout}");
    no_raw_control(&report);
}
