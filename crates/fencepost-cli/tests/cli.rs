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
            "#30 the storage refuses A's write with token 33: it has already accepted 34 from B"
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
    assert!(out.contains("VIOLATION I2 at #30 (46.050 s)"), "{out}");
}

#[test]
fn sim_shows_renewals_and_the_moment_a_worker_knows_its_lease_is_lost() {
    let out = fencepost(&["sim", "renewal-long-pause"]);
    assert_eq!(out.status.code(), Some(0));
    let out = text(&out.stdout);
    for line in [
        "     6.1 s  |       send->  |       |       #15 A sends renew to lock, due at 6.150 s; its keeper counts the lease safe until 13.1 s",
        "     6.2 s  |       <-recv  |       |       #19 A learns its lease was renewed and believes it holds the lock until 16.1 s",
        "    22.1 s  |       write-> |       |       #42 A sends write #1 with token 33 to the storage, due at 22.150 s",
        "    22.1 s  |       lost!   |       |       #43 A's keeper says its lease (token 33) is lost: its safe-until, 16.1 s, has passed with no renewal answered",
    ] {
        assert!(out.lines().any(|l| l == line), "missing {line:?} in\n{out}");
    }
    let bad = fencepost(&["sim", "renewal-long-pause", "--no-fencing"]);
    assert_eq!(bad.status.code(), Some(1));
    let out = text(&bad.stdout);
    assert!(out.contains("document: [B#1@34, A#1@33]"), "{out}");
    assert!(out.contains("VIOLATION I2 at #46 (22.150 s)"), "{out}");
    let slow = fencepost(&["sim", "renewal-slow-network", "--no-fencing"]);
    assert_eq!(slow.status.code(), Some(0));
    assert!(!text(&slow.stdout).contains("lost!"));
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

/// Exit status 2, nothing on stdout, and exactly `stderr` (clap's message, for arguments).
fn refused(args: &[&str], stderr: &str) {
    let out = fencepost(args);
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    assert_eq!(text(&out.stdout), "", "{args:?}");
    assert_eq!(text(&out.stderr), stderr, "{args:?}");
}

#[test]
fn bad_usage_is_exit_2_with_a_message() {
    // What fencepost reads itself (a preset's name, a file) it refuses with its own message.
    for (args, msg) in [
        (
            &["sim", "no-such-story"][..],
            "`no-such-story` is neither a preset",
        ),
        (&["sim", "missing.json"][..], "missing.json:"),
    ] {
        let out = fencepost(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            text(&out.stderr).contains(msg),
            "{args:?}: {}",
            text(&out.stderr)
        );
    }
    // Arguments are clap's to refuse, with its message.
    refused(
        &["sim"],
        "error: the following required arguments were not provided:\n  <PRESET|FILE>\n\n\
         Usage: fencepost sim <PRESET|FILE>\n\nFor more information, try '--help'.\n",
    );
    refused(
        &["sim", "paused-worker", "--seed", "x"],
        "error: invalid value 'x' for '--seed <N>': invalid digit found in string\n\n\
         For more information, try '--help'.\n",
    );
    refused(
        &["sim", "paused-worker", "--format", "xml"],
        "error: invalid value 'xml' for '--format <FORMAT>'\n  [possible values: text, json]\n\n\
         For more information, try '--help'.\n",
    );
    refused(
        &["sim", "paused-worker", "--frobnicate"],
        "error: unexpected argument '--frobnicate' found\n\n  \
         tip: a similar argument exists: '--format'\n\n\
         Usage: fencepost sim --format <FORMAT> <PRESET|FILE>\n\n\
         For more information, try '--help'.\n",
    );
    refused(
        &["launch"],
        "error: unrecognized subcommand 'launch'\n\nUsage: fencepost <COMMAND>\n\n\
         For more information, try '--help'.\n",
    );
    // No command at all: the list of commands, on stderr.
    let out = fencepost(&[]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(text(&out.stdout), "");
    assert_eq!(text(&out.stderr), text(&fencepost(&["--help"]).stdout));
}

/// Each command and the first line of its help.
const COMMANDS: &[(&str, &str)] = &[
    ("presets", "List the built-in stories (presets) by name"),
    ("sim", "Run one scenario and print its timeline and verdict"),
    (
        "explore",
        "Sweep seeds, or search every fault placement within a small scope, for a violation",
    ),
    (
        "check",
        "Check a write history (JSON lines) for token regressions and stale-owner writes",
    ),
    (
        "check-scenario",
        "Read and validate a scenario file without running it",
    ),
    (
        "completions",
        "Print a shell completion script for fencepost",
    ),
];

#[test]
fn every_command_answers_help_with_the_usage() {
    for (cmd, about) in COMMANDS {
        for flag in ["--help", "-h"] {
            let out = fencepost(&[cmd, flag]);
            assert_eq!(out.status.code(), Some(0), "{cmd} {flag}");
            let help = text(&out.stdout);
            assert!(
                help.starts_with(&format!("{about}\n")),
                "{cmd} {flag}: {help}"
            );
            assert!(
                help.contains(&format!("\nUsage: fencepost {cmd}")),
                "{cmd} {flag}: {help}"
            );
        }
        // `fencepost help <command>` is `<command> --help`.
        assert_eq!(
            text(&fencepost(&["help", cmd]).stdout),
            text(&fencepost(&[cmd, "--help"]).stdout)
        );
    }
    // --help anywhere after the command shows the help and runs nothing.
    let out = fencepost(&["sim", "paused-worker", "--seed", "3", "--help"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        text(&out.stdout),
        text(&fencepost(&["sim", "--help"]).stdout)
    );
    // The overview lists every command with its first line.
    let out = fencepost(&["--help"]);
    assert_eq!(out.status.code(), Some(0));
    let help = text(&out.stdout);
    assert!(help.contains("\nUsage: fencepost <COMMAND>\n"), "{help}");
    for (cmd, about) in COMMANDS {
        assert!(help.contains(&format!("  {cmd:<14}  {about}\n")), "{help}");
    }
}

#[test]
fn sim_help_is_clap_help() {
    let out = fencepost(&["sim", "-h"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        text(&out.stdout),
        "Run one scenario and print its timeline and verdict

Usage: fencepost sim [OPTIONS] [PRESET|FILE]

Arguments:
  [PRESET|FILE]  A preset's name (see `fencepost presets`) or a scenario file

Options:
      --template <TEMPLATE>  Run the scenario this template (a built-in one's name or a file) derives from --seed
      --fencing              Run with fencing on, whatever the scenario says
      --no-fencing           Run with fencing off, whatever the scenario says
      --seed <N>             The seed of the run's random draws; with --template, the seed that picks the scenario
      --format <FORMAT>      How to write the results [default: text] [possible values: text, json]
  -h, --help                 Print help (see more with '--help')
"
    );
    // The long form adds the command's description and each format's.
    let long = text(&fencepost(&["sim", "--help"]).stdout);
    for line in [
        "The scenario is a preset, a scenario file, or the one a template derives from a seed.",
        "          - text: Lines for a person to read\n",
        "          - json: JSON, for programs\n",
        "          [default: text]\n",
    ] {
        assert!(long.contains(line), "{line}: {long}");
    }
}

#[test]
fn version_is_the_crate_version() {
    for flag in ["--version", "-V"] {
        let out = fencepost(&[flag]);
        assert_eq!(out.status.code(), Some(0));
        assert_eq!(
            text(&out.stdout),
            format!("fencepost {}\n", env!("CARGO_PKG_VERSION"))
        );
    }
}

#[test]
fn a_typo_is_refused_with_the_similar_name() {
    refused(
        &["simm", "paused-worker"],
        "error: unrecognized subcommand 'simm'\n\n  tip: a similar subcommand exists: 'sim'\n\n\
         Usage: fencepost <COMMAND>\n\nFor more information, try '--help'.\n",
    );
    refused(
        &["explore", "paused-worker", "--exhaustve"],
        "error: unexpected argument '--exhaustve' found\n\n  \
         tip: a similar argument exists: '--exhaustive'\n\n\
         Usage: fencepost explore --exhaustive <PRESET|TEMPLATE|FILE>\n\n\
         For more information, try '--help'.\n",
    );
}

#[test]
fn completions_name_every_command() {
    for shell in ["bash", "zsh", "fish"] {
        let out = fencepost(&["completions", shell]);
        assert_eq!(out.status.code(), Some(0), "{shell}");
        let script = text(&out.stdout);
        assert!(script.len() > 1000, "{shell}: {script}");
        for (cmd, _) in COMMANDS {
            // As a whole word: "check" must stand on its own, not only inside "check-scenario".
            let alone = script.match_indices(cmd).any(|(at, _)| {
                let part =
                    |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '-');
                !part(script[..at].chars().next_back())
                    && !part(script[at + cmd.len()..].chars().next())
            });
            assert!(alone, "{shell} misses {cmd}");
        }
        for option in ["no-fencing", "exhaustive", "max-faults", "template"] {
            assert!(script.contains(option), "{shell} misses --{option}");
        }
    }
    refused(
        &["completions", "tcsh"],
        "error: invalid value 'tcsh' for '<SHELL>'\n  \
         [possible values: bash, elvish, fish, powershell, zsh]\n\n  \
         tip: a similar value exists: 'zsh'\n\nFor more information, try '--help'.\n",
    );
}

/// The bash script, loaded into a real bash, completes `fencepost s` and `fencepost sim --no`.
#[test]
fn bash_completes_commands_and_options() {
    let script = text(&fencepost(&["completions", "bash"]).stdout);
    let dir = std::env::temp_dir().join(format!("fencepost-cli-bash-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("fencepost.bash");
    std::fs::write(&path, script).unwrap();
    let complete = |words: &str| {
        let line = format!(
            "source {}; COMP_WORDS=({words}); COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1)); \
             _fencepost fencepost \"${{COMP_WORDS[-1]}}\" \"${{COMP_WORDS[-2]}}\"; \
             echo \"${{COMPREPLY[@]}}\"",
            path.display()
        );
        let out = std::process::Command::new("bash")
            .args(["--norc", "-c", &line])
            .output()
            .expect("bash runs");
        assert!(out.status.success(), "{}", text(&out.stderr));
        text(&out.stdout)
    };
    assert_eq!(complete("fencepost s"), "sim\n");
    assert_eq!(complete("fencepost check"), "check check-scenario\n");
    assert_eq!(complete("fencepost sim --no"), "--no-fencing\n");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn stray_and_missing_arguments_are_named() {
    refused(
        &["presets", "--bogus"],
        "error: unexpected argument '--bogus' found\n\nUsage: fencepost presets\n\n\
         For more information, try '--help'.\n",
    );
    refused(
        &["sim", "paused-worker", "--format"],
        "error: a value is required for '--format <FORMAT>' but none was supplied\n  \
         [possible values: text, json]\n\nFor more information, try '--help'.\n",
    );
    refused(
        &["sim", "paused-worker", "other-story"],
        "error: unexpected argument 'other-story' found\n\n\
         Usage: fencepost sim [OPTIONS] [PRESET|FILE]\n\n\
         For more information, try '--help'.\n",
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
