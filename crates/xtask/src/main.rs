//! Project tasks: `cargo xtask <demo | test | bench | fuzz | size | dist | ...>`; `cargo xtask
//! --help` lists them all.
//!
//! Every tool a task needs is installed here, pinned and idempotently, so a fresh machine needs
//! nothing but rustup, cargo and Node.js.

mod chaos;
mod edge;
mod etcd;
mod memory_layout;
mod npm;
mod postgres;
mod redis;
mod service;
mod service_bench;
mod shape;
mod sim;
mod sizes;
mod store;
mod tools;
mod web;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use tools::{Cmd, root};

/// Project tasks for fencepost; every tool a task needs is installed on first use.
#[derive(Parser)]
#[command(name = "cargo xtask", bin_name = "cargo xtask")]
struct Cli {
    #[command(subcommand)]
    task: Task,
}

/// One variant per task, its doc comment the help line; `main` maps each to its function.
#[derive(Subcommand)]
enum Task {
    /// Set everything up and serve the visualizer on http://127.0.0.1:8080
    Demo {
        /// A recorded run (a history of `cargo xtask chaos`) for the page to open
        #[arg(long, value_name = "FILE")]
        run: Option<std::path::PathBuf>,
    },
    /// Everything CI checks: fmt, clippy, source shape, tests, no_std builds, the npm package, the edge
    /// services, a short fault campaign, the visualizer end to end in headless Chromium
    Test,
    /// Benchmarks (ns/op, ratios against a baseline measured in the same run), then the
    /// visualizer's playback in headless Chromium
    Bench,
    /// Only the npm package's checks of `test` (build, sizes, Node, tsc, workerd, Deno, Chromium)
    TestNpm,
    /// Only the edge services' checks of `test` (after `dist`: workerd and Deno over HTTP)
    TestEdge,
    /// Only the visualizer's checks of `test` (wasm32 clippy, release build, end to end)
    TestWeb,
    /// Only `fencepost/store`'s checks of `test`: SQLite, Postgres (a server started and stopped
    /// for them), Durable Object SQL in workerd, Deno KV in Deno
    TestStore,
    /// Only `fencepost/service`'s checks of `test`: its etcd backend, and `fencepost serve`
    /// instances over a three-member etcd cluster and over Postgres (both started and stopped for
    /// them), under faults
    TestService,
    /// Only the source-shape check of `test`: no file over 600 lines before its tests, no
    /// function over 100 lines, no import circle (tests and generated files aside)
    Shape,
    /// The npm package's Node benchmark (wasm admit vs plain JS, batches, acquire, sim)
    BenchNpm,
    /// Only the visualizer's part of `bench` (load to first timeline, p95 frame time)
    BenchWeb,
    /// Only `fencepost/store`'s part of `bench` (fenced vs plain writes per engine, 16
    /// concurrent writers to one key)
    BenchStore,
    /// Only the lease service's part of `bench`: its hosts under load beside etcd's own lock and
    /// redlock on Redis (cycles/s, p50, p99), and the stale writes each accepts from paused holders
    BenchService,
    /// Build the npm package into npm/dist (wasm, bindings, entry points)
    Dist,
    /// Write npm/src/abi.js, the numbers the core module and its JavaScript share, from their
    /// definitions in crates/fencepost-wasm (`test` fails while the committed file differs)
    Abi,
    /// Raw / gzip / brotli of each .wasm in npm/dist, against its budget, and the visualizer's
    /// wasm against its goal
    Size,
    /// The fault campaign: clients, service instances and engines under pauses, kills, a fault
    /// proxy and clock skew on a seeded schedule; its history in target/chaos/seed-SEED
    Chaos {
        /// How long the faults go on
        #[arg(long, default_value_t = 600)]
        seconds: u64,
        /// The schedule's seed (a new one each run when not given; printed, to replay)
        #[arg(long)]
        seed: Option<u32>,
        /// Node client processes (one Deno client comes with them)
        #[arg(long, default_value_t = 3)]
        clients: u32,
    },
    /// Run every fuzz target for SECS seconds each
    Fuzz {
        /// Seconds per target
        #[arg(value_name = "SECS", default_value_t = 30)]
        secs: u64,
    },
}

fn main() -> ExitCode {
    // An unknown task or a bad argument ends here, with clap's message and exit status 2.
    let result = match Cli::parse().task {
        Task::Demo { run } => web::demo(run.as_deref()),
        Task::Test => test(),
        Task::Bench => bench(),
        Task::TestNpm => npm::test(),
        Task::TestEdge => edge::test(),
        Task::TestWeb => web::test(),
        Task::TestStore => store::test(),
        Task::TestService => service::test(),
        Task::Shape => shape::check(),
        Task::BenchNpm => npm::bench(None),
        Task::BenchWeb => web::bench(),
        Task::BenchStore => store::bench(),
        Task::BenchService => service_bench::bench(),
        Task::Dist => npm::dist(),
        Task::Abi => npm::abi(),
        Task::Size => {
            let npm = npm::size();
            web::size().and(npm)
        }
        Task::Chaos {
            seconds,
            seed,
            clients,
        } => chaos::run(&chaos::Campaign {
            seconds,
            seed: seed.unwrap_or_else(chaos::fresh_seed),
            clients,
        }),
        Task::Fuzz { secs } => fuzz(secs),
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
    shape::check()?;
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
    npm::ensure_wasm_bindgen()?;
    sim::wasm_tests()?;
    npm::test()?;
    store::test()?;
    service::test()?;
    chaos::short()?;
    edge::test()?;
    web::test()?;
    tools::step("all tests passed");
    Ok(())
}

/// One row of the bench table: the criterion group (`<group>/fencepost` and `<group>/baseline`),
/// what is measured, what the baseline does, and the goal in ns/op, if there is one.
struct Bench {
    group: &'static str,
    what: &'static str,
    baseline: &'static str,
    goal_ns: Option<f64>,
}

const BENCHES: &[Bench] = &[
    Bench {
        group: "guard_admit",
        what: "guard admit",
        baseline: "u64 max-compare-and-store",
        goal_ns: Some(2.0),
    },
    Bench {
        group: "guard_check",
        what: "guard check",
        baseline: "u64 compare",
        goal_ns: None,
    },
    Bench {
        group: "acquire_release",
        what: "acquire + release",
        baseline: "plain struct update",
        goal_ns: Some(30.0),
    },
    Bench {
        group: "renew",
        what: "renew",
        baseline: "plain struct update",
        goal_ns: None,
    },
    Bench {
        group: "keeper_step",
        what: "keeper renew round",
        baseline: "max of deadlines",
        goal_ns: None,
    },
    Bench {
        group: "signed_verify",
        what: "signed verify",
        baseline: "bare HMAC-SHA-256",
        goal_ns: None,
    },
    Bench {
        group: "snapshot_encode",
        what: "snapshot encode",
        baseline: "memcpy of as many bytes",
        goal_ns: None,
    },
    Bench {
        group: "snapshot_decode",
        what: "snapshot decode",
        baseline: "memcpy of as many bytes",
        goal_ns: None,
    },
];

/// Runs the criterion benches, then prints ns/op beside a baseline measured in the same run.
fn bench() -> Result {
    let results = root().join("target/criterion");
    // Only this run's numbers may reach the table.
    for b in BENCHES {
        let dir = results.join(b.group);
        if dir.exists() {
            std::fs::remove_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
    }
    let bench = [
        "bench",
        "-p",
        "fencepost",
        "--all-features",
        "--bench",
        "hot_paths",
    ];
    tools::step("building the benchmarks");
    Cmd::cargo(&bench).arg("--no-run").run()?;
    let log = root().join("target/bench.log");
    tools::step(&format!(
        "running {} benchmarks with their baselines (criterion's report: {})",
        BENCHES.len(),
        log.display()
    ));
    if let Err(e) = Cmd::cargo(&bench).run_logged(&log) {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        let tail: Vec<&str> = text.lines().rev().take(30).collect();
        for line in tail.into_iter().rev() {
            eprintln!("{line}");
        }
        return Err(e);
    }
    tools::step("ns/op (criterion's estimate), and the ratio to the baseline of the same run");
    println!(
        "{:<18} {:>9}   {:<26} {:>9} {:>8}   goal",
        "benchmark", "ns/op", "baseline", "ns/op", "ratio"
    );
    for b in BENCHES {
        let ours = estimate_ns(&results.join(b.group).join("fencepost"))?;
        let base = estimate_ns(&results.join(b.group).join("baseline"))?;
        let goal = match b.goal_ns {
            Some(g) if ours <= g => format!("<= {g} ns: met"),
            Some(g) => format!("<= {g} ns: NOT met"),
            None => String::new(),
        };
        let line = format!(
            "{:<18} {:>9.2}   {:<26} {:>9.2} {:>7.1}x   {goal}",
            b.what,
            ours,
            b.baseline,
            base,
            ours / base
        );
        println!("{}", line.trim_end());
    }
    tools::step("simulator throughput");
    let native = Cmd::cargo(&["bench", "-q", "-p", "fencepost-sim", "--bench", "sim"]).output()?;
    print!("{native}");
    sim::bench()?;
    npm::bench(native_runs(&native))?;
    edge::bench()?;
    service_bench::bench()?;
    store::bench()?;
    web::bench()
}

/// The native runs/s of the paused-worker story with its trace recorded, read from the
/// simulator's benchmark output, for the npm benchmark to set its runs from JavaScript against.
fn native_runs(output: &str) -> Option<f64> {
    let line = output
        .lines()
        .find(|l| l.starts_with("paused-worker, trace recorded"))?;
    let mut words = line.split_whitespace();
    words.find(|w| *w == "recorded")?;
    words.next()?.parse().ok()
}

/// Criterion's estimate of one benchmark in ns/iteration: the regression slope when it sampled
/// linearly (fast benchmarks), otherwise the mean.
fn estimate_ns(dir: &std::path::Path) -> Result<f64> {
    let path = dir.join("new/estimates.json");
    let json = std::fs::read_to_string(&path)
        .map_err(|e| format!("reading {}: {e} (did the benchmark run?)", path.display()))?;
    let estimates: serde_json::Value =
        serde_json::from_str(&json).map_err(|e| format!("reading {}: {e}", path.display()))?;
    point_estimate(&estimates).ok_or_else(|| format!("no estimate in {}", path.display()))
}

/// The slope's point estimate in criterion's estimates, or else the mean's (the slope is null
/// when criterion did not sample linearly).
fn point_estimate(estimates: &serde_json::Value) -> Option<f64> {
    ["slope", "mean"]
        .iter()
        .find_map(|key| estimates[key]["point_estimate"].as_f64())
}

/// Runs every cargo-fuzz target in `fuzz/` for `secs` seconds each, starting from its committed
/// seeds (`fuzz/corpus/<target>`, read-only) and keeping what it finds under `target/fuzz-corpus`.
/// A crash fails the task; libFuzzer's output for each target is in `target/fuzz-logs`.
fn fuzz(secs: u64) -> Result {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn native_runs_are_read_from_the_simulator_benchmark() {
        let out = "fencepost-sim (goals: >= 5 M events/s, >= 100 k paused-worker runs/s)\n\
                   paused-worker, trace recorded                  987615 runs/s       29409287 events/s       1.01 µs/run\n\
                   paused-worker, verdict only                   1051891 runs/s       35764291 events/s       0.95 µs/run\n";
        assert_eq!(native_runs(out), Some(987_615.0));
        assert_eq!(native_runs("no figures"), None);
    }
    use clap::CommandFactory;
    use clap::error::ErrorKind;

    fn parse(args: &[&str]) -> std::result::Result<Task, clap::Error> {
        Cli::try_parse_from(std::iter::once("xtask").chain(args.iter().copied())).map(|c| c.task)
    }

    #[test]
    fn every_task_keeps_its_name() {
        Cli::command().debug_assert();
        let names: Vec<String> = Cli::command()
            .get_subcommands()
            .map(|c| c.get_name().to_string())
            .collect();
        assert_eq!(
            names,
            [
                "demo",
                "test",
                "bench",
                "test-npm",
                "test-edge",
                "test-web",
                "test-store",
                "test-service",
                "shape",
                "bench-npm",
                "bench-web",
                "bench-store",
                "bench-service",
                "dist",
                "abi",
                "size",
                "chaos",
                "fuzz"
            ]
        );
        assert!(matches!(parse(&["test-npm"]), Ok(Task::TestNpm)));
        assert!(matches!(parse(&["abi"]), Ok(Task::Abi)));
        assert!(matches!(parse(&["bench-web"]), Ok(Task::BenchWeb)));
        assert!(matches!(parse(&["test-edge"]), Ok(Task::TestEdge)));
        assert!(matches!(parse(&["test-store"]), Ok(Task::TestStore)));
        assert!(matches!(parse(&["bench-store"]), Ok(Task::BenchStore)));
        assert!(matches!(parse(&["bench-service"]), Ok(Task::BenchService)));
    }

    #[test]
    fn chaos_runs_ten_minutes_of_three_clients_on_a_fresh_seed_by_default() {
        let Ok(Task::Chaos {
            seconds,
            seed,
            clients,
        }) = parse(&["chaos"])
        else {
            panic!("chaos did not parse");
        };
        assert_eq!((seconds, seed, clients), (600, None, 3));
        let Ok(Task::Chaos {
            seconds,
            seed,
            clients,
        }) = parse(&["chaos", "--seconds", "90", "--seed", "27", "--clients", "5"])
        else {
            panic!("chaos with flags did not parse");
        };
        assert_eq!((seconds, seed, clients), (90, Some(27), 5));
        let e = parse(&["chaos", "--seed", "-1"]).err().unwrap();
        assert_eq!(e.exit_code(), 2);
    }

    #[test]
    fn fuzz_takes_seconds_30_by_default() {
        assert!(matches!(parse(&["fuzz"]), Ok(Task::Fuzz { secs: 30 })));
        assert!(matches!(parse(&["fuzz", "5"]), Ok(Task::Fuzz { secs: 5 })));
        let e = parse(&["fuzz", "soon"]).err().unwrap();
        assert_eq!(e.kind(), ErrorKind::ValueValidation);
        assert_eq!(e.exit_code(), 2);
    }

    #[test]
    fn an_unknown_task_is_refused_with_a_suggestion() {
        let e = parse(&["tset"]).err().unwrap();
        assert_eq!(e.kind(), ErrorKind::InvalidSubcommand);
        assert_eq!(e.exit_code(), 2);
        let text = e.to_string();
        assert!(
            text.contains(
                "tip: some similar subcommands exist: 'test-store', 'test-edge', 'test-npm', 'test-web', 'test'"
            ),
            "{text}"
        );
        let e = parse(&[]).err().unwrap();
        assert_eq!(e.exit_code(), 2);
    }

    #[test]
    fn help_lists_every_task_with_its_line() {
        let help = Cli::command().render_help().to_string();
        assert!(help.contains("Usage: cargo xtask <COMMAND>"), "{help}");
        for line in [
            "  test-npm       Only the npm package's checks of `test` (build, sizes, Node, tsc, workerd, Deno, Chromium)",
            "  test-store     Only `fencepost/store`'s checks of `test`: SQLite, Postgres (a server started and stopped for them), Durable Object SQL in workerd, Deno KV in Deno",
            "  fuzz           Run every fuzz target for SECS seconds each",
        ] {
            assert!(help.contains(line), "{line}\n{help}");
        }
    }

    #[test]
    fn criterion_estimates_prefer_the_slope() {
        let slope = serde_json::json!({
            "mean": {"point_estimate": 2.5, "standard_error": 0.1},
            "slope": {"confidence_interval": {"lower_bound": 1.0}, "point_estimate": 1.25}
        });
        assert_eq!(point_estimate(&slope), Some(1.25));
        let no_slope = serde_json::json!({"mean": {"point_estimate": 1099.0}, "slope": null});
        assert_eq!(point_estimate(&no_slope), Some(1099.0));
        assert_eq!(point_estimate(&serde_json::json!({"median": {}})), None);
    }

    #[test]
    fn estimates_are_read_from_criterion_files() {
        let dir = std::env::temp_dir().join(format!("xtask-estimates-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("new")).unwrap();
        std::fs::write(
            dir.join("new/estimates.json"),
            r#"{"mean":{"confidence_interval":{"confidence_level":0.95,"lower_bound":133.1,"upper_bound":134.0},"point_estimate":133.5,"standard_error":0.2},"slope":null}"#,
        )
        .unwrap();
        assert_eq!(estimate_ns(&dir), Ok(133.5));
        std::fs::write(dir.join("new/estimates.json"), "{ not json").unwrap();
        assert!(
            estimate_ns(&dir)
                .unwrap_err()
                .contains("estimates.json: key must be a string")
        );
        std::fs::remove_dir_all(&dir).ok();
        assert!(
            estimate_ns(&dir)
                .unwrap_err()
                .contains("did the benchmark run?")
        );
    }
}
