//! The bounds the WebAssembly package reserves memory by (`run_bytes`, `search_bytes`, the
//! history checker's `held_bytes` and `line_bytes`) hold: the most bytes a run, search or check
//! ever has allocated at once stays below them, for runs that hit their event limit with as many
//! messages and writes per event as scenarios allow, for searches stopped by their state limit,
//! and for write logs made to take as much as a line can (new resources with the longest names,
//! findings with them, long malformed lines).
//!
//! A counting allocator measures; it counts every request as the block the module's allocator
//! would take for it (a power of two of at least 16 bytes, see `block_bytes`), as the bounds do,
//! so it checks both that the tables grow no further than the bounds assume and that the bounds
//! round every block as the module does.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

use fencepost_sim::engine::run_bytes;
use fencepost_sim::explore::{Scope, Search, SearchOptions, search_bytes, world_of};
use fencepost_sim::history::{
    HistoryChecker, HistoryReport, MAX_LINE_BYTES, MAX_MESSAGE, line_bytes,
};
use fencepost_sim::scenario::{MAX_FAULTS, MAX_WORKERS, scenario_bytes};
use fencepost_sim::{RunOptions, Scenario, growth_bytes, preset, run_with};

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
/// One measurement at a time (tests run on several threads).
static ONE: Mutex<()> = Mutex::new(());

std::thread_local! {
    /// Whether this thread's allocations are counted: only the measuring thread's are, so that
    /// what the test harness's other threads allocate meanwhile is not taken for the measured
    /// code's.
    static COUNTED: Cell<bool> = const { Cell::new(false) };
}

fn counted() -> bool {
    COUNTED.try_with(Cell::get).unwrap_or(false)
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if counted() {
            let size = blk(layout.size());
            let live = LIVE.fetch_add(size, Ordering::SeqCst) + size;
            PEAK.fetch_max(live, Ordering::SeqCst);
        }
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        if counted() {
            LIVE.fetch_sub(blk(layout.size()), Ordering::SeqCst);
        }
        unsafe { System.dealloc(p, layout) }
    }
}

/// Counts this thread's allocations (and no other's) until dropped.
struct Measuring(#[allow(dead_code)] MutexGuard<'static, ()>);

fn measuring() -> Measuring {
    let one = ONE.lock().unwrap_or_else(PoisonError::into_inner);
    COUNTED.set(true);
    Measuring(one)
}

impl Drop for Measuring {
    fn drop(&mut self) {
        COUNTED.set(false);
    }
}

/// What a request of `size` bytes takes from the WebAssembly module's allocator.
fn blk(size: usize) -> usize {
    fencepost_sim::block_bytes(size as u64) as usize
}

#[global_allocator]
static A: Counting = Counting;

/// The most bytes live at once while `f` runs, above what was live before.
fn peak<R>(f: impl FnOnce() -> R) -> (usize, R) {
    let before = LIVE.load(Ordering::SeqCst);
    PEAK.store(before, Ordering::SeqCst);
    let r = f();
    (PEAK.load(Ordering::SeqCst) - before, r)
}

fn busy(workers: usize, latency: u64, renew: u64) -> Scenario {
    let workers: Vec<String> = (0..workers)
        .map(|i| {
            format!(
                r#"{{"name":"w{i}","start_ms":{i},"job":{{"work_ms":1000000,"writes":1000,"renew_every_ms":{renew},"retry_after_ms":1}}}}"#
            )
        })
        .collect();
    Scenario::from_json(&format!(
        r#"{{"version":1,"lease_ttl_ms":1000000000,"latency_ms":{{"min":0,"max":{latency}}},"workers":[{}],
        "faults":[{{"kind":"pause","worker":"w0","at":5,"for":50}},{{"kind":"crash","worker":"w0","at":9,"restart_after":3}}]}}"#,
        workers.join(",")
    ))
    .unwrap()
}

#[test]
fn growth_bytes_counts_every_power_of_two_block() {
    assert_eq!(growth_bytes(0, 8), 16);
    assert_eq!(growth_bytes(1, 8), 16);
    // Capacities 1, 2, 4: blocks of 24 -> 32, 48 -> 64, 96 -> 128 bytes.
    assert_eq!(growth_bytes(3, 24), 32 + 64 + 128);
    assert_eq!(growth_bytes(4, 24), 32 + 64 + 128);
    assert_eq!(growth_bytes(5, 24), 32 + 64 + 128 + 256);
    assert!(growth_bytes(u64::MAX, 1 << 20) > 0);
}

#[test]
fn the_largest_scenario_stays_within_scenario_bytes() {
    // As many workers and faults as a scenario may have, every name as long as allowed, and names
    // with escapes (read through serde's scratch buffer).
    let worker = |i: usize| format!("{i:0>31}\\u0041");
    let workers: Vec<String> = (0..MAX_WORKERS)
        .map(|i| format!(r#"{{"name":"{}","job":{{"work_ms":1}}}}"#, worker(i)))
        .collect();
    let faults: Vec<String> = (0..MAX_FAULTS)
        .map(|i| {
            format!(
                r#"{{"kind":"pause","worker":"{}","at":{i},"for":1}}"#,
                worker(i % MAX_WORKERS)
            )
        })
        .collect();
    let json = format!(
        r#"{{"version":1,"name":"{}","lease_ttl_ms":10,"workers":[{}],"faults":[{}]}}"#,
        "n".repeat(64),
        workers.join(","),
        faults.join(",")
    );
    let _m = measuring();
    let (bytes, scenario) = peak(|| Scenario::from_json(&json).unwrap());
    assert_eq!(scenario.workers.len(), MAX_WORKERS);
    assert_eq!(scenario.faults.len(), MAX_FAULTS);
    assert!(
        bytes as u64 <= scenario_bytes(),
        "{bytes} > {}",
        scenario_bytes()
    );
}

#[test]
fn runs_stay_within_run_bytes() {
    let _one = measuring();
    let mut cases: Vec<Scenario> = vec![
        busy(64, 0, 1),
        busy(64, 20, 1),
        busy(8, 3, 2),
        busy(1, 0, 1),
    ];
    cases.extend(fencepost_sim::PRESETS.iter().map(|p| p.scenario()));
    for sc in &cases {
        for max_events in [1, 100, 5_000, 60_000] {
            for record in [true, false] {
                let opts = RunOptions {
                    max_events,
                    record,
                    ..RunOptions::default()
                };
                let before = LIVE.load(Ordering::SeqCst);
                let (bytes, trace) = peak(|| {
                    let t = run_with(sc, opts);
                    // Writing the trace out (into nothing: the module writes its text in pieces,
                    // counted in the room the package leaves for values written out) is part of
                    // what a run takes.
                    serde_json::to_writer(std::io::sink(), &t).unwrap();
                    t
                });
                // What the finished trace keeps is within what it says it holds.
                let kept = (LIVE.load(Ordering::SeqCst) - before) as u64;
                assert!(
                    kept <= trace.held_bytes(),
                    "{}: a trace of {} events keeps {kept} bytes, held_bytes {}",
                    sc.name,
                    trace.events.len(),
                    trace.held_bytes()
                );
                let bound = run_bytes(max_events, record);
                assert!(
                    (bytes as u64) < bound,
                    "{}: {bytes} bytes for {max_events} events (record {record}), bound {bound}",
                    sc.name
                );
                if record {
                    assert!(trace.events.len() <= max_events + 16);
                }
            }
        }
    }
}

#[test]
fn searches_stay_within_search_bytes() {
    let _one = measuring();
    for name in ["paused-worker", "delayed-write"] {
        let world = world_of(&preset(name).unwrap().scenario());
        for max_states in [2, 1_000, 30_000] {
            let scope = Scope::around_ttl(world.lease_ttl_ms, 4);
            let opts = SearchOptions {
                fencing: Some(true),
                max_states,
                stop_at_first: false,
                ..SearchOptions::default()
            };
            let (bytes, ()) = peak(|| {
                let mut s = Search::new(&world, &scope, opts).unwrap();
                while !s.step(1000).unwrap() {}
                drop(s);
            });
            let bound = search_bytes(max_states);
            assert!(
                (bytes as u64) < bound,
                "{name}: {bytes} bytes for {max_states} states, bound {bound}"
            );
        }
    }
}

/// A write log line.
fn write_line(t: u64, resource: &str, writer: &str, token: u64) -> String {
    format!(
        r#"{{"t":{t},"resource":"{resource}","writer":"{writer}","token":{token},"result":"ok"}}"#
    )
}

/// Checks `text` in pieces of `lines` lines with one checker and report, asserting for each piece
/// that the most bytes live while it is checked stay within what the checker and report held
/// before plus `line_bytes`, and that what they hold after stays within their `held_bytes`.
fn check_in_pieces(text: &str, lines: usize, keep: usize) -> HistoryReport {
    let all: Vec<&str> = text.split_inclusive('\n').collect();
    let pieces: Vec<String> = all.chunks(lines).map(|p| p.concat()).collect();
    let start = LIVE.load(Ordering::SeqCst);
    let mut report = HistoryReport::default();
    let mut checker = HistoryChecker::new();
    for piece in &pieces {
        let held = checker.held_bytes() + report.held_bytes();
        let bound = held + line_bytes(piece.len() as u64, lines as u64, report.held_bytes());
        let base = LIVE.load(Ordering::SeqCst);
        let (peak, ()) = peak(|| checker.check_lines(piece, keep, &mut report));
        let live = (base + peak - start) as u64;
        assert!(live <= bound, "{live} bytes live, bound {bound}");
        let after = (LIVE.load(Ordering::SeqCst) - start) as u64;
        let held = checker.held_bytes() + report.held_bytes();
        assert!(after <= held, "{after} bytes held, bound {held}");
    }
    report
}

/// `n` malformed log lines, each with `value` (JSON string text) where its token belongs.
fn string_tokens(n: u64, value: &str) -> String {
    (0..n)
        .map(|i| {
            format!(r#"{{"t":{i},"resource":"r","writer":"w","token":"{value}","result":"ok"}}"#)
                + "\n"
        })
        .collect()
}

/// A name of 80 three-byte characters and a number: 246 bytes.
fn long(c: char, i: u64) -> String {
    let mut s: String = core::iter::repeat_n(c, 80).collect();
    s.push_str(&format!("{i:06}"));
    s
}

#[test]
fn a_history_check_stays_within_its_bounds() {
    // Held throughout: building the logs allocates too.
    let _one = measuring();
    // New resources with short names, in order and out of order (the map's nodes).
    let ordered: String = (0..20_000u64)
        .map(|i| write_line(i, &format!("{i:06}"), "w", 1) + "\n")
        .collect();
    let r = check_in_pieces(&ordered, 4096, 100);
    assert_eq!(r.summary.resources, 20_000);
    let shuffled: String = (0..20_000u64)
        .map(|i| write_line(i, &format!("{:06}", i * 7919 % 20_000), "w", 1) + "\n")
        .collect();
    check_in_pieces(&shuffled, 1000, 100);
    // The longest names, of three-byte characters: each line a new resource or a new owner.
    let names: String = (0..5_000u64)
        .flat_map(|i| {
            [
                write_line(i, &long('\u{4e16}', i), &long('\u{4e17}', i), 10),
                write_line(i, &long('\u{4e16}', i), &long('\u{4e18}', i), 11),
            ]
        })
        .map(|l| l + "\n")
        .collect();
    check_in_pieces(&names, 512, 100);
    // Findings with the longest names, all kept, then stale writes past what is kept.
    let mut stale = write_line(0, &long('\u{4e16}', 0), &long('\u{4e17}', 0), 100) + "\n";
    for i in 1..6_000u64 {
        stale += &(write_line(i, &long('\u{4e16}', 0), &long('\u{4e19}', i), 50) + "\n");
    }
    let r = check_in_pieces(&stale, 700, 10_000);
    assert_eq!(r.findings.len(), 10_000);
    // Malformed lines quoting a long value of control characters (escaped twice over), kept.
    let value: String = core::iter::repeat_n(r"\u0001", 100_000).collect();
    let r = check_in_pieces(&string_tokens(40, &value), 7, 100);
    assert_eq!(r.malformed.len(), 40);
    let m = &r.malformed[0].message;
    assert!(
        m.len() <= MAX_MESSAGE && m.len() > MAX_MESSAGE - 4,
        "{}",
        m.len()
    );
    assert!(m.starts_with(r#"invalid type: string "\u{1}\u{1}"#), "{m}");
    assert!(
        m.ends_with(r#"\u{1}", expected u64 (column 600045)"#),
        "{m}"
    );
    // Malformed lines whose messages, quoting a value, stay just under the longest kept whole.
    let near = check_in_pieces(&string_tokens(2_000, &"x".repeat(160)), 100, 10_000);
    assert_eq!(near.malformed.len(), 2_000);
    let m = &near.malformed[0].message;
    assert!(m.len() > 200 && m.len() <= MAX_MESSAGE, "{m}");
    // Lines of escapes right at the longest a line may be (each one read), and lines four times
    // that (not read: counted at the longest, not at their length).
    let at_limit = r"\u0001".repeat((MAX_LINE_BYTES - 100) / 6);
    let text = string_tokens(3, &at_limit);
    assert!(text.lines().all(|l| l.len() <= MAX_LINE_BYTES));
    assert_eq!(check_in_pieces(&text, 3, 100).malformed.len(), 3);
    let over = check_in_pieces(&string_tokens(2, &at_limit.repeat(4)), 2, 100);
    assert_eq!(over.malformed[1].message, "longer than 1048576 bytes");
}

#[test]
fn a_campaign_check_stays_within_its_bounds() {
    let _one = measuring();
    // Each round: a new lock and resource with the longest names, eight believers at once on it
    // (an overlap naming every one, kept), grants out of order, acknowledged writes, a fault on a
    // new target; then a final row below them.
    let mut text = String::new();
    for i in 0..600u64 {
        let (lock, doc) = (long('\u{4e16}', i), long('\u{4e17}', i));
        let t = i * 10;
        for p in 0..9u64 {
            let who = long('\u{4e18}', p);
            text += &format!(
                r#"{{"t":{t},"kind":"fault","nemesis":"clock-slow","target":"{}","phase":"start","within_drift":false}}"#,
                // The first believer's clock, so that the overlap is beyond drift; else new targets.
                if p == 0 {
                    who.clone()
                } else {
                    long('\u{4e19}', i * 9 + p)
                }
            );
            text += "\n";
            text += &format!(
                r#"{{"t":{t},"kind":"grant","process":"{who}","lock":"{lock}","token":{}}}"#,
                9 - p
            );
            text += "\n";
            text += &format!(
                r#"{{"t":{t},"kind":"belief","process":"{who}","lock":"{lock}","state":"held","safe_until":{}}}"#,
                t + 5
            );
            text += "\n";
            text += &format!(
                r#"{{"t":{t},"kind":"write","process":"{who}","resource":"{doc}","token":{},"result":"ok"}}"#,
                100 + p
            );
            text += "\n";
        }
        if i % 2 == 0 {
            text += &format!(r#"{{"t":{t},"kind":"final","resource":"{doc}","token":1}}"#);
            text += "\n";
        }
    }
    for (lines, keep) in [(37, 100), (500, 100_000)] {
        let all: Vec<&str> = text.split_inclusive('\n').collect();
        let pieces: Vec<String> = all.chunks(lines).map(|p| p.concat()).collect();
        let start = LIVE.load(Ordering::SeqCst);
        let mut report = HistoryReport::default();
        let mut checker = HistoryChecker::new();
        for piece in &pieces {
            let held = checker.held_bytes() + report.held_bytes();
            let bound = held + line_bytes(piece.len() as u64, lines as u64, report.held_bytes());
            let base = LIVE.load(Ordering::SeqCst);
            let (peak, ()) = peak(|| checker.check_lines(piece, keep, &mut report));
            let live = (base + peak - start) as u64;
            assert!(live <= bound, "{live} bytes live, bound {bound}");
            let after = (LIVE.load(Ordering::SeqCst) - start) as u64;
            let held = checker.held_bytes() + report.held_bytes();
            assert!(after <= held, "{after} bytes held, bound {held}");
        }
        let held = checker.held_bytes() + report.held_bytes();
        let bound = held + checker.finish_bytes(report.held_bytes());
        let base = LIVE.load(Ordering::SeqCst);
        let (peak, ()) = peak(|| checker.finish_into(keep, &mut report));
        let live = (base + peak - start) as u64;
        assert!(live <= bound, "finish: {live} bytes live, bound {bound}");
        if keep > 100 {
            let t = report.totals;
            assert_eq!(report.malformed, [], "{t:?}");
            assert_eq!(t.lock.grant_order_violations, 600 * 8);
            assert_eq!(t.lock.overlaps_beyond_drift, 600, "{:?}", t.lock);
            // Nine tokens above a final row: the eight highest counted ("at least"); without a
            // final row, every acknowledged write.
            assert_eq!(t.resource.acknowledged_lost, 300 * 8 + 300 * 9);
        }
    }
}
