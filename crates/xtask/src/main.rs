//! Project tasks: `cargo xtask <demo | test | bench | fuzz | size | dist>`.
//!
//! Every tool a task needs is installed here, pinned and idempotently, so a fresh machine needs
//! nothing but rustup, cargo and Node.js.

mod tools;

use std::process::ExitCode;

use tools::{Cmd, root};

const USAGE: &str = "usage: cargo xtask <command>

commands:
  demo            set everything up and show fencepost at work
  test            everything CI checks: fmt, clippy, tests, no_std builds
  bench           benchmarks (ns/op, ratios against a baseline measured in the same run)
  fuzz [SECS]     run every fuzz target for SECS seconds each (default 30)
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("demo") => demo(),
        Some("test") => test(),
        Some("bench") => bench(),
        Some("fuzz") => fuzz(args.get(1).map(String::as_str)),
        Some("-h" | "--help" | "help") => {
            print!("{USAGE}");
            Ok(())
        }
        _ => {
            eprint!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}

type Result<T = ()> = std::result::Result<T, String>;

/// Targets the no_std core must build for.
const NO_STD_TARGETS: &[&str] = &["wasm32v1-none", "thumbv7em-none-eabihf"];

fn demo() -> Result {
    tools::ensure_targets()?;
    Cmd::cargo(&[
        "run",
        "--quiet",
        "--release",
        "-p",
        "fencepost",
        "--example",
        "story",
    ])
    .run()
}

fn test() -> Result {
    tools::ensure_targets()?;
    tools::step("cargo fmt --check");
    Cmd::cargo(&["fmt", "--all", "--", "--check"]).run()?;
    tools::step("clippy");
    Cmd::cargo(&[
        "clippy",
        "--workspace",
        "--all-targets",
        "--all-features",
        "--",
        "-D",
        "warnings",
    ])
    .run()?;
    tools::step("tests");
    Cmd::cargo(&["test", "--workspace", "--all-features"]).run()?;
    tools::step("no_std builds");
    for target in NO_STD_TARGETS {
        Cmd::cargo(&[
            "build",
            "-p",
            "fencepost",
            "--no-default-features",
            "--target",
            target,
        ])
        .run()?;
        Cmd::cargo(&[
            "build",
            "-p",
            "fencepost",
            "--no-default-features",
            "--features",
            "signed",
            "--target",
            target,
        ])
        .run()?;
    }
    tools::step("all tests passed");
    Ok(())
}

fn bench() -> Result {
    Cmd::cargo(&["bench", "-p", "fencepost", "--all-features"]).run()
}

fn fuzz(secs: Option<&str>) -> Result {
    let secs: u64 = secs
        .unwrap_or("30")
        .parse()
        .map_err(|_| "fuzz takes a number of seconds".to_string())?;
    tools::ensure_cargo_fuzz()?;
    let dir = root().join("fuzz");
    let list = Cmd::new("cargo")
        .args(["+nightly", "fuzz", "list"])
        .cwd(&dir)
        .output()?;
    let targets: Vec<&str> = list
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    if targets.is_empty() {
        return Err("no fuzz targets in fuzz/".into());
    }
    tools::step("building the fuzz targets (nightly, address sanitizer)");
    Cmd::new("cargo")
        .args(["+nightly", "fuzz", "build"])
        .cwd(&dir)
        .run()?;
    let mut rows = Vec::new();
    for target in &targets {
        tools::step(&format!("fuzz {target} for {secs}s"));
        let work = root().join("target/fuzz-corpus").join(target);
        std::fs::create_dir_all(&work).map_err(|e| format!("{}: {e}", work.display()))?;
        let log = root()
            .join("target/fuzz-logs")
            .join(format!("{target}.log"));
        let run = Cmd::new("cargo")
            .args(["+nightly", "fuzz", "run", target])
            .arg(&work)
            .arg(dir.join("corpus").join(target))
            .args(["--", "-timeout=10", "-print_final_stats=1"])
            .arg(format!("-max_total_time={secs}"))
            .cwd(&dir)
            .run_logged(&log);
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        if let Err(e) = run {
            let tail: Vec<&str> = text.lines().rev().take(40).collect();
            for line in tail.into_iter().rev() {
                eprintln!("{line}");
            }
            return Err(format!(
                "fuzz target {target} failed: {e}\n(crash inputs are kept in fuzz/artifacts/{target})"
            ));
        }
        let stats = FuzzStats::parse(&text);
        println!("{}", stats.row(target));
        rows.push(stats.row(target));
    }
    tools::step(&format!("fuzz summary ({secs}s per target): no crash"));
    println!("{}", FuzzStats::header());
    for row in rows {
        println!("{row}");
    }
    Ok(())
}

/// The numbers libFuzzer prints when a run ends.
#[derive(Default)]
struct FuzzStats {
    runs: Option<u64>,
    secs: Option<u64>,
    cov: Option<u64>,
    corpus: Option<String>,
}

impl FuzzStats {
    fn parse(log: &str) -> FuzzStats {
        let mut s = FuzzStats::default();
        for line in log.lines() {
            // "Done 123456 runs in 21 second(s)"
            if let Some(rest) = line.strip_prefix("Done ") {
                let words: Vec<&str> = rest.split_whitespace().collect();
                s.runs = words.first().and_then(|w| w.parse().ok());
                s.secs = words.get(3).and_then(|w| w.parse().ok());
            }
            // "#123456\tDONE   cov: 345 ft: 1234 corp: 56/1234b ..."
            if line.starts_with('#') && line.contains("DONE") {
                let words: Vec<&str> = line.split_whitespace().collect();
                let after = |key: &str| {
                    words
                        .iter()
                        .position(|w| *w == key)
                        .and_then(|i| words.get(i + 1))
                        .map(|w| w.to_string())
                };
                s.cov = after("cov:").and_then(|w| w.parse().ok());
                s.corpus = after("corp:");
            }
        }
        s
    }

    fn header() -> String {
        format!(
            "{:<14} {:>12} {:>10} {:>8} {:>14}",
            "target", "runs", "runs/s", "cov", "corpus"
        )
    }

    fn row(&self, target: &str) -> String {
        let show = |v: Option<u64>| v.map_or_else(|| "?".to_string(), |v| v.to_string());
        let rate = match (self.runs, self.secs) {
            (Some(r), Some(s)) if s > 0 => Some(r / s),
            _ => None,
        };
        format!(
            "{:<14} {:>12} {:>10} {:>8} {:>14}",
            target,
            show(self.runs),
            show(rate),
            show(self.cov),
            self.corpus.as_deref().unwrap_or("?")
        )
    }
}
