//! Simulator throughput: events/s and runs/s for the paused-worker story and for a 16-worker
//! scenario with a random mix of faults. Prints figures; asserts nothing about time.

use std::hint::black_box;
use std::time::{Duration, Instant};

use fencepost_sim::rng::SplitMix64;
use fencepost_sim::{
    Fault, Job, Latency, Protections, RunOptions, Scenario, Worker, preset, run_with,
};

/// Runs `f` repeatedly for about `budget`, returns (iterations, elapsed).
fn measure(budget: Duration, mut f: impl FnMut() -> usize) -> (u64, usize, Duration) {
    // Warm up.
    for _ in 0..100 {
        black_box(f());
    }
    let start = Instant::now();
    let mut iters = 0u64;
    let mut events = 0usize;
    while start.elapsed() < budget {
        for _ in 0..64 {
            events += black_box(f());
            iters += 1;
        }
    }
    (iters, events, start.elapsed())
}

/// 16 workers, renewals, latency jitter and ten random faults, all from one seed.
fn sixteen_workers(seed: u64) -> Scenario {
    let mut r = SplitMix64::new(seed);
    let names: Vec<String> = (0..16).map(|i| format!("w{i}")).collect();
    let workers = names
        .iter()
        .map(|n| Worker {
            name: n.clone(),
            start_ms: r.range(0, 20_000),
            job: Job {
                work_ms: r.range(200, 3_000),
                writes: r.range(1, 4) as u32,
                renew_every_ms: r.chance(500_000).then(|| r.range(2_000, 8_000)),
                retry_after_ms: None,
            },
        })
        .collect();
    let faults = (0..10)
        .map(|_| {
            let worker = names[r.range(0, 15) as usize].clone();
            match r.range(0, 3) {
                0 => Fault::Pause {
                    worker,
                    at: r.range(0, 60_000),
                    for_ms: r.range(1_000, 40_000),
                },
                1 => Fault::Hold {
                    worker,
                    nth_write: r.range(1, 3) as u32,
                    for_ms: r.range(1_000, 30_000),
                },
                2 => Fault::Clock {
                    worker,
                    skew_ms: 0,
                    drift_ppm: -(r.range(0, 500_000) as i32),
                    jump_at: None,
                    jump_ms: 0,
                },
                _ => Fault::Crash {
                    worker,
                    at: r.range(0, 60_000),
                    restart_after: Some(r.range(500, 5_000)),
                },
            }
        })
        .collect();
    Scenario {
        version: 1,
        name: "sixteen".into(),
        seed,
        lease_ttl_ms: 10_000,
        lock_delay_ms: 0,
        first_token: 1,
        latency_ms: Latency { min: 5, max: 80 },
        protections: Protections::default(),
        workers,
        faults,
        end_ms: None,
    }
}

fn report(name: &str, (iters, events, elapsed): (u64, usize, Duration)) {
    let secs = elapsed.as_secs_f64();
    println!(
        "{name:<40} {:>12.0} runs/s {:>14.0} events/s {:>10.2} µs/run",
        iters as f64 / secs,
        events as f64 / secs,
        secs * 1e6 / iters as f64
    );
}

fn main() {
    // `cargo bench` passes --bench; a filter argument may follow.
    let budget = Duration::from_millis(1_500);
    let story = preset("paused-worker")
        .map(|p| p.scenario())
        .expect("the preset exists");
    let recorded = RunOptions::default();
    let quiet = RunOptions {
        record: false,
        ..RunOptions::default()
    };
    println!("fencepost-sim (goals: >= 5 M events/s, >= 100 k paused-worker runs/s)");
    report(
        "paused-worker, trace recorded",
        measure(budget, || run_with(&story, recorded).events.len()),
    );
    let n = run_with(&story, recorded).events.len();
    report(
        "paused-worker, verdict only",
        measure(budget, || {
            black_box(run_with(&story, quiet).verdict.ok);
            n
        }),
    );
    let big = sixteen_workers(7);
    let m = run_with(&big, recorded).events.len();
    println!("(16-worker scenario: {m} events per run)");
    report(
        "16 workers + 10 random faults, recorded",
        measure(budget, || run_with(&big, recorded).events.len()),
    );
    report(
        "16 workers + 10 random faults, verdict only",
        measure(budget, || {
            black_box(run_with(&big, quiet).verdict.ok);
            m
        }),
    );
}
