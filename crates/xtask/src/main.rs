//! Project tasks: `cargo xtask <demo | test | bench | fuzz | size | dist>`.
//!
//! Every tool a task needs is installed here, pinned and idempotently, so a fresh machine needs
//! nothing but rustup, cargo and Node.js.

mod npm;
mod tools;

use std::process::ExitCode;

use tools::{Cmd, root};

const USAGE: &str = "usage: cargo xtask <command>

commands:
  demo            set everything up and show fencepost at work
  test            everything CI checks: fmt, clippy, tests, no_std builds, the npm package
  bench           benchmarks (ns/op, ratios against a baseline measured in the same run)
  bench-npm       the npm package's Node benchmark (wasm admit vs plain JS, batches, acquire)
  dist            build the npm package into npm/dist (wasm, bindings, entry points)
  size            raw / gzip / brotli of each .wasm in npm/dist, against its budget
  fuzz [SECS]     run every fuzz target for SECS seconds each (default 30)
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("demo") => demo(),
        Some("test") => test(),
        Some("bench") => bench(),
        Some("bench-npm") => npm::bench(),
        Some("dist") => npm::dist(),
        Some("size") => npm::size(),
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
    npm::test()?;
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
    for target in list.lines().filter(|l| !l.trim().is_empty()) {
        tools::step(&format!("fuzz {target} for {secs}s"));
        Cmd::new("cargo")
            .args(["+nightly", "fuzz", "run", target, "--"])
            .arg(format!("-max_total_time={secs}"))
            .cwd(&dir)
            .run()?;
    }
    Ok(())
}
