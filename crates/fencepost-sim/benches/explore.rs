//! Explorer benchmarks: exhaustive search (states generated/s, distinct states/s), seed sweeps
//! (runs/s) and the history checker (lines/s and peak memory on 1 M generated lines).
//!
//! A summary with the headline figures is printed first (one timed pass of each), then criterion
//! measures each properly.

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput};
use fencepost_sim::explore::{Scope, SearchOptions, search, world_of};
use fencepost_sim::history::HistoryChecker;
use fencepost_sim::sweep::{Sweep, SweepOptions};
use fencepost_sim::template::{Source, template};
use fencepost_sim::{Job, Scenario, Worker, preset};

/// Counts live heap bytes and their peak, so the history checker's memory can be measured.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards every call to the system allocator unchanged; only counts sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: same contract as the caller's.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new: usize) -> *mut u8 {
        // SAFETY: same contract as the caller's.
        let p = unsafe { System.realloc(ptr, layout, new) };
        if !p.is_null() {
            let now = LIVE.fetch_add(new, Ordering::Relaxed) + new;
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// The paused-worker world with two more workers of two writes each: a scope big enough to time.
fn four_workers() -> Scenario {
    let mut s = world_of(&preset("paused-worker").expect("preset").scenario());
    s.name = "four-workers".into();
    for (name, start) in [("C", 20_000), ("D", 25_000)] {
        s.workers.push(Worker {
            name: name.into(),
            start_ms: start,
            job: Job {
                work_ms: 1500,
                writes: 2,
                renew_every_ms: None,
                retry_after_ms: None,
            },
        });
    }
    s
}

fn search_opts() -> SearchOptions {
    SearchOptions {
        fencing: Some(true),
        stop_at_first: false,
        ..SearchOptions::default()
    }
}

/// `n` history lines over 64 resources and 16 writers, tokens rising with a few stale ones.
fn history(n: usize) -> String {
    let mut s = String::with_capacity(n * 80);
    for i in 0..n {
        let resource = i % 64;
        let writer = (i / 64) % 16;
        let token = 1 + i / 64 - usize::from(i % 97 == 0);
        let result = if i % 13 == 0 { "rejected" } else { "ok" };
        s.push_str(&format!(
            "{{\"t\":{},\"resource\":\"orders/{resource}\",\"writer\":\"worker-{writer}\",\"token\":{},\"result\":\"{result}\"}}\n",
            i * 10,
            token.max(1)
        ));
    }
    s
}

fn check_all(text: &str) -> u64 {
    let mut c = HistoryChecker::new();
    for line in text.lines() {
        black_box(c.check_line(line.as_bytes()));
    }
    c.summary().lines
}

fn summary() {
    let world = four_workers();
    let scope = Scope::around_ttl(world.lease_ttl_ms, 3);
    let start = Instant::now();
    let r = search(&world, &scope, search_opts()).expect("the world is in scope");
    let secs = start.elapsed().as_secs_f64();
    println!(
        "exhaustive search, {} workers, {} faults at most, fencing on: {} distinct / {} generated states, depth {}, complete {}",
        world.workers.len(),
        scope.max_faults,
        r.distinct_states,
        r.states_generated,
        r.depth,
        r.complete
    );
    println!(
        "  {:.2} M distinct states/s, {:.2} M states generated/s",
        r.distinct_states as f64 / secs / 1e6,
        r.states_generated as f64 / secs / 1e6
    );

    let t = template("pauses-holds-skew").expect("built-in template");
    let mut sweep = Sweep::new(Source::Template(t), 0, 10_000, SweepOptions::default());
    let start = Instant::now();
    let report = sweep.run_to_end().clone();
    let secs = start.elapsed().as_secs_f64();
    println!(
        "seed sweep, pauses-holds-skew, 10,000 seeds x 2 modes: {:.0} k runs/s",
        report.runs_per_sec(secs) / 1e3
    );

    let text = history(1_000_000);
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let start = Instant::now();
    let lines = check_all(&text);
    let secs = start.elapsed().as_secs_f64();
    let peak = PEAK.load(Ordering::Relaxed) - before;
    println!(
        "history checker, {lines} lines ({:.1} MB): {:.2} M lines/s, peak memory above the input {:.1} KiB",
        text.len() as f64 / 1e6,
        lines as f64 / secs / 1e6,
        peak as f64 / 1024.0
    );
}

fn benches(c: &mut Criterion) {
    let world = four_workers();
    let scope = Scope::around_ttl(world.lease_ttl_ms, 3);
    let r = search(&world, &scope, search_opts()).expect("the world is in scope");
    let mut g = c.benchmark_group("exhaustive");
    g.sample_size(10).measurement_time(Duration::from_secs(5));
    g.throughput(Throughput::Elements(r.distinct_states));
    g.bench_function("distinct_states", |b| {
        b.iter(|| search(&world, &scope, search_opts()).map(|r| r.distinct_states))
    });
    g.throughput(Throughput::Elements(r.states_generated));
    g.bench_function("states_generated", |b| {
        b.iter(|| search(&world, &scope, search_opts()).map(|r| r.states_generated))
    });
    g.finish();

    let t = template("pauses-holds-skew").expect("built-in template");
    let mut g = c.benchmark_group("sweep");
    g.sample_size(10).measurement_time(Duration::from_secs(5));
    g.throughput(Throughput::Elements(2_000));
    g.bench_function("pauses_holds_skew_runs", |b| {
        b.iter(|| {
            let mut s = Sweep::new(
                Source::Template(t.clone()),
                0,
                1_000,
                SweepOptions::default(),
            );
            s.run_to_end().runs
        })
    });
    g.finish();

    let text = history(1_000_000);
    let mut g = c.benchmark_group("history");
    g.sample_size(10).measurement_time(Duration::from_secs(8));
    g.throughput(Throughput::Elements(1_000_000));
    g.bench_function("check_1m_lines", |b| b.iter(|| check_all(&text)));
    g.finish();
}

fn main() {
    summary();
    let mut c = Criterion::default().configure_from_args();
    benches(&mut c);
    c.final_summary();
}
