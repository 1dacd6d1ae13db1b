//! WebAssembly bindings of the fencepost simulator, for the npm package's `fencepost/sim` entry.
//!
//! As thin as the core's bindings: every rule lives in `fencepost-sim` (and, through it, in the
//! `fencepost` core). This crate only converts. Scenarios, templates and scopes come in as the
//! JSON text the package's JavaScript writes from plain objects, and are read and validated by the
//! simulator's own parsers (serde with unknown fields refused, then `validate`), so every error
//! names its field (or the column of the JSON where reading stopped, which the JavaScript turns
//! back into a field). Traces and reports go out as the simulator's own JSON text (`fencepost sim
//! --format json`), which the JavaScript parses into plain objects after the call: nothing runs
//! JavaScript while the module works, so no setter or getter a program defined can throw through
//! a call or call back in.
//!
//! Runs, sweeps, searches and history checkers live in tables of the instance and are known to
//! JavaScript by their index (as in the core's bindings), so a trace stays in the module for
//! `explain` and `beliefs_at` and a sweep or search can be advanced in slices.
//!
//! Nothing here may trap the instance. The package's JavaScript (`npm/src/sim/api.js`) checks
//! every argument's type and range and hands over plain data only; whatever still fails here
//! returns the function's "nothing" value ([`NONE`], `undefined` or an empty string) and leaves an
//! error kind ([`error_kind`]: a TypeError or a RangeError) and message ([`error_message`]) for the
//! caller to throw.
//!
//! The JavaScript side reads seeds, tokens and history times as exact `bigint`s (the keys that
//! hold them are known to it) and every other integer (times, counts) as a number.

use fencepost_sim::explore::{Scope, Search, SearchOptions, world_of};
use fencepost_sim::history::{Finding, HistoryChecker, HistoryReport, Malformed};
use fencepost_sim::sweep::{Modes, Sweep, SweepOptions};
use fencepost_sim::template::{Source, TEMPLATES, Template};
use fencepost_sim::{Invariant, PRESETS, RunOptions, Scenario, ScenarioError, Trace, run_with};
use serde::Serialize;
use serde::de::DeserializeOwned;
use wasm_bindgen::prelude::wasm_bindgen;

/// `u32::MAX`: no object was made (see [`error_kind`]).
pub const NONE: u32 = u32::MAX;

// ---------------------------------------------------------------------------------------------
// Errors.

/// Kinds of error, as [`error_kind`] reports them.
pub mod kind {
    /// No error.
    pub const NONE: u32 = 0;
    /// A value of the wrong type, a missing or unknown field: a `TypeError`.
    pub const TYPE: u32 = 1;
    /// A value out of range or otherwise refused: a `RangeError`.
    pub const RANGE: u32 = 2;
}

/// An error for the caller: its kind, the field it is about (a path such as
/// `workers[1].job.work_ms`, or empty) and what is wrong; for JSON the module could not read into
/// the type, the column (1-based) where reading stopped, from which the caller (who wrote that
/// JSON) names the field.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
struct Failure {
    kind: u32,
    field: String,
    message: String,
    column: u32,
    /// Which of the call's JSON arguments it is about (0: the first).
    part: u32,
}

/// A refusal of the simulator's validation (a value out of range, a name that does not exist).
fn invalid(e: ScenarioError) -> Failure {
    Failure {
        kind: kind::RANGE,
        field: e.field,
        message: e.message,
        ..Failure::default()
    }
}

/// JSON serde could not turn into the type: a wrong type, a missing or unknown field, or (a
/// RangeError) a number out of range or an unknown name.
fn unreadable(e: &serde_json::Error) -> Failure {
    let mut message = e.to_string();
    fencepost_sim::strip_json_position(&mut message);
    let kind = if message.starts_with("invalid value")
        || message.starts_with("invalid length")
        || message.starts_with("unknown variant")
    {
        kind::RANGE
    } else {
        kind::TYPE
    };
    Failure {
        kind,
        field: String::new(),
        message,
        column: u32::try_from(e.column()).unwrap_or(u32::MAX),
        part: 0,
    }
}

/// Reads `T` from JSON with the simulator's own (serde) definitions of its formats.
fn read<T: DeserializeOwned>(json: &str) -> Result<T, Failure> {
    // From bytes, as the history checker reads its lines: one JSON reader in the module, not two.
    serde_json::from_slice(json.as_bytes()).map_err(|e| unreadable(&e))
}

/// A scenario, read and validated as `Scenario::from_json` does (unknown fields are refused).
fn scenario(json: &str) -> Result<Scenario, Failure> {
    let s: Scenario = read(json)?;
    s.validate().map_err(invalid)?;
    Ok(s)
}

/// A template, read and validated as `Template::from_json` does.
fn template_of(json: &str) -> Result<Template, Failure> {
    let t: Template = read(json)?;
    t.validate().map_err(invalid)?;
    Ok(t)
}

/// Whether `json` reads as a scenario (`what` 0), a template (1) or a scope (2), validation left
/// out: the caller narrows down which element of a list an error is about (serde reports an
/// error inside one of the `faults` only once the whole list is read).
#[wasm_bindgen]
pub fn reads(what: u32, json: &str) -> bool {
    match what {
        0 => read::<Scenario>(json).is_ok(),
        1 => read::<Template>(json).is_ok(),
        _ => read::<Scope>(json).is_ok(),
    }
}

fn last<R>(fallback: R, f: impl FnOnce(&Failure) -> R) -> R {
    with(None, |st| st.error.as_ref().map(f)).unwrap_or(fallback)
}

/// The kind of the last error (only meaningful right after a call reported one).
#[wasm_bindgen]
pub fn error_kind() -> u32 {
    last(kind::NONE, |f| f.kind)
}

/// The field the last error is about (empty: see [`error_column`], or the whole value).
#[wasm_bindgen]
pub fn error_field() -> String {
    last(String::new(), |f| f.field.clone())
}

/// What is wrong, for the last error.
#[wasm_bindgen]
pub fn error_message() -> String {
    last(String::new(), |f| f.message.clone())
}

/// For JSON that could not be read: the column (1-based) where reading stopped; 0 otherwise.
#[wasm_bindgen]
pub fn error_column() -> u32 {
    last(0, |f| f.column)
}

/// Which JSON argument of the call the last error is about (0: the first, 1: the second).
#[wasm_bindgen]
pub fn error_part() -> u32 {
    last(0, |f| f.part)
}

// ---------------------------------------------------------------------------------------------
// Values out.

/// A value as the JSON text the simulator writes (`fencepost sim --format json`), which the
/// package's JavaScript turns into plain objects with `JSON.parse` once the call has returned: no
/// JavaScript runs while the module writes a value out, so none can throw through it or call
/// back in. `None` (JavaScript's `undefined`) only if serde refuses the value (it never does for
/// these types).
fn to_js<T: Serialize + ?Sized>(value: &T) -> Option<String> {
    serde_json::to_string(value).ok()
}

// ---------------------------------------------------------------------------------------------
// The instance's objects.

extern crate alloc;

use fencepost_wasm_rt::Slots;

// The core module's allocator (power-of-two size classes) instead of std's dlmalloc: a few
// hundred bytes of code instead of several kilobytes. Runs, sweeps and searches allocate in
// patterns it handles well: vectors that double, and tables of objects freed and made again.
#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOC: fencepost_wasm_rt::SizeClasses = fencepost_wasm_rt::SizeClasses::new();

struct State {
    error: Option<Failure>,
    runs: Slots<Trace>,
    sweeps: Slots<Sweep>,
    searches: Slots<Search>,
    /// History checkers, each with the report [`history_feed`] adds to.
    checkers: Slots<(HistoryChecker, HistoryReport)>,
}

impl State {
    const fn new() -> State {
        State {
            error: None,
            runs: Slots::new(),
            sweeps: Slots::new(),
            searches: Slots::new(),
            checkers: Slots::new(),
        }
    }
}

/// The module runs on one thread: one plain static, without std's thread-local machinery (as in
/// the core's bindings); natively (tests) each thread gets its own state.
#[cfg(target_arch = "wasm32")]
mod single {
    use super::State;
    use core::cell::{Cell, UnsafeCell};

    pub struct Global {
        busy: Cell<bool>,
        state: UnsafeCell<State>,
    }
    // SAFETY: wasm32-unknown-unknown without the atomics feature has exactly one thread.
    unsafe impl Sync for Global {}
    static STATE: Global = Global {
        busy: Cell::new(false),
        state: UnsafeCell::new(State::new()),
    };

    /// Runs `f` on the instance's state; `fallback` if it is already in use. No JavaScript runs
    /// during a call into the module (values leave as JSON text, read once the call returned),
    /// so nothing can call back in; the flag keeps the state's one `&mut` sound should this
    /// crate ever nest two uses.
    pub fn with<R>(fallback: R, f: impl FnOnce(&mut State) -> R) -> R {
        if STATE.busy.replace(true) {
            return fallback;
        }
        // SAFETY: one thread, and `busy` makes this the only reference while `f` runs.
        let r = f(unsafe { &mut *STATE.state.get() });
        STATE.busy.set(false);
        r
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod single {
    use super::State;
    use std::cell::RefCell;

    std::thread_local! {
        static STATE: RefCell<State> = const { RefCell::new(State::new()) };
    }

    /// Runs `f` on the instance's state (`fallback` if it is in use: never, on one thread).
    pub fn with<R>(fallback: R, f: impl FnOnce(&mut State) -> R) -> R {
        STATE.with(|st| match st.try_borrow_mut() {
            Ok(mut st) => f(&mut st),
            Err(_) => fallback,
        })
    }
}

use single::with;

/// Records `failure` for the caller and returns `nothing`.
fn fail<R>(nothing: R, failure: Failure) -> R {
    with((), |st| st.error = Some(failure));
    nothing
}

/// Adds the object `made` (or records its error); returns its index or [`NONE`].
fn adopt<T>(made: Result<T, Failure>, table: impl FnOnce(&mut State) -> &mut Slots<T>) -> u32 {
    match made {
        Ok(item) => with(NONE, |st| table(st).add(item)),
        Err(f) => fail(NONE, f),
    }
}

// ---------------------------------------------------------------------------------------------
// Presets and templates.

#[derive(Serialize)]
struct PresetJs<'a> {
    name: &'a str,
    title: &'a str,
    story: &'a str,
    /// The scenario as JSON text (parsed on the JavaScript side: the module then reads it like
    /// any other scenario, with one decoder for all of them).
    json: &'a str,
    with_fencing: &'a [Invariant],
    without_fencing: &'a [Invariant],
}

/// Every preset: name, title, story, scenario and the invariants it breaks with fencing forced
/// on and off.
#[wasm_bindgen]
pub fn presets() -> Option<String> {
    let list: Vec<PresetJs<'_>> = PRESETS
        .iter()
        .map(|p| PresetJs {
            name: p.name,
            title: p.title,
            story: p.story,
            json: p.json,
            with_fencing: p.with_fencing,
            without_fencing: p.without_fencing,
        })
        .collect();
    to_js(&list)
}

#[derive(Serialize)]
struct TemplateJs<'a> {
    name: &'a str,
    json: &'a str,
}

/// Every built-in template, with its name.
#[wasm_bindgen]
pub fn templates() -> Option<String> {
    let list: Vec<TemplateJs<'_>> = TEMPLATES
        .iter()
        .map(|(name, json)| TemplateJs { name, json })
        .collect();
    to_js(&list)
}

// ---------------------------------------------------------------------------------------------
// Runs.

/// How fencing is set for a run or a search: as the scenario says, forced on, or forced off.
fn fencing(code: u32) -> Option<bool> {
    match code {
        1 => Some(true),
        2 => Some(false),
        _ => None,
    }
}

/// Runs a scenario (JSON text); `fencing` 0 as the scenario says, 1 on, 2 off; the seed
/// replaces the scenario's when `set_seed`. Returns the run's index, or [`NONE`].
#[wasm_bindgen]
pub fn run_scenario(
    json: &str,
    fencing_code: u32,
    set_seed: bool,
    seed: u64,
    max_events: u32,
) -> u32 {
    let opts = RunOptions {
        fencing: fencing(fencing_code),
        seed: set_seed.then_some(seed),
        max_events: max_events as usize,
        record: true,
    };
    let made = scenario(json).map(|s| run_with(&s, opts));
    adopt(made, |st| &mut st.runs)
}

/// The most bytes of the module's memory an object could take, which the package checks is left
/// before it makes one: `what` 0 a recorded run stopped at `n` events, 1 a sweep whose runs stop
/// at `n` events, 2 a search of at most `n` states.
#[wasm_bindgen]
pub fn memory_bound(what: u32, n: f64) -> f64 {
    let n = n as u64;
    let bytes = match what {
        0 => fencepost_sim::engine::run_bytes(n as usize, true),
        1 => fencepost_sim::sweep::sweep_bytes(n as usize),
        _ => fencepost_sim::explore::search_bytes(n),
    };
    bytes as f64
}

/// Most bytes run `i`'s trace holds (`Trace::held_bytes`); 0 if there is no such run.
#[wasm_bindgen]
pub fn run_held(i: u32) -> f64 {
    with(0.0, |st| {
        st.runs.get(i).map_or(0.0, |t| t.held_bytes() as f64)
    })
}

/// Frees run `i`.
#[wasm_bindgen]
pub fn run_drop(i: u32) {
    with((), |st| st.runs.remove(i))
}

/// Up to `n` elements of `all` from `from` (none past the end).
fn slice<T>(all: &[T], from: u32, n: u32) -> &[T] {
    let from = (from as usize).min(all.len());
    &all[from..all.len().min(from.saturating_add(n as usize))]
}

/// A piece of run `i`'s trace as JSON text, so that a long trace never needs one text of its
/// size: `part` 0 is the whole trace with only its first `n` events and first `n` applied writes,
/// 1 is `n` events from `from` (a JSON array), 2 is `n` applied writes of its document from
/// `from`. Past the end, an array is short or empty.
#[wasm_bindgen]
pub fn run_json(i: u32, part: u32, from: u32, n: u32) -> Option<String> {
    with(None, |st| {
        let t = st.runs.get(i)?;
        match part {
            0 => to_js(&t.json_part(slice(&t.events, 0, n), slice(&t.document, 0, n))),
            1 => to_js(&t.events_json(slice(&t.events, from, n))),
            _ => to_js(&t.document_json(slice(&t.document, from, n))),
        }
    })
}

/// Run `i`'s verdict.
#[wasm_bindgen]
pub fn run_verdict(i: u32) -> Option<String> {
    with(None, |st| st.runs.get(i).and_then(|t| to_js(&t.verdict)))
}

/// How many events run `i` has.
#[wasm_bindgen]
pub fn run_events(i: u32) -> u32 {
    with(0, |st| {
        st.runs
            .get(i)
            .map_or(0, |t| u32::try_from(t.events.len()).unwrap_or(u32::MAX))
    })
}

/// One sentence saying what event `seq` of run `i` means (empty if there is no such event).
#[wasm_bindgen]
pub fn run_explain(i: u32, seq: u32) -> String {
    with(String::new(), |st| {
        st.runs
            .get(i)
            .and_then(|t| t.events.get(seq as usize).map(|e| t.explain(e)))
            .unwrap_or_default()
    })
}

#[derive(Serialize)]
struct WorkerBeliefJs<'a> {
    name: &'a str,
    holds: Option<u64>,
    until: Option<u64>,
    paused_until: Option<u64>,
    crashed: bool,
    zombie: bool,
}

#[derive(Serialize)]
struct HolderJs<'a> {
    worker: &'a str,
    token: u64,
    until: u64,
}

#[derive(Serialize)]
struct StorageJs<'a> {
    highest: Option<u64>,
    writes: u32,
    last_writer: Option<&'a str>,
}

#[derive(Serialize)]
struct BeliefsJs<'a> {
    t_ms: u64,
    workers: Vec<WorkerBeliefJs<'a>>,
    authority: Option<HolderJs<'a>>,
    storage: StorageJs<'a>,
}

/// What every actor of run `i` believes at `t_ms` (after every event at or before it).
#[wasm_bindgen]
pub fn run_beliefs(i: u32, t_ms: f64) -> Option<String> {
    let t_ms = t_ms as u64;
    with(None, |st| {
        let t = st.runs.get(i)?;
        let b = t.beliefs_at(t_ms);
        let name = |w: u16| t.workers.get(usize::from(w)).map_or("?", String::as_str);
        let workers = b
            .workers
            .iter()
            .enumerate()
            .map(|(w, wb)| WorkerBeliefJs {
                name: t.workers.get(w).map_or("?", String::as_str),
                holds: wb.holds,
                until: wb.until,
                paused_until: wb.paused_until,
                crashed: wb.crashed,
                zombie: u16::try_from(w).is_ok_and(|w| b.is_zombie(w)),
            })
            .collect();
        to_js(&BeliefsJs {
            t_ms,
            workers,
            authority: b.authority.map(|h| HolderJs {
                worker: name(h.worker),
                token: h.token,
                until: h.until,
            }),
            storage: StorageJs {
                highest: b.storage_highest,
                writes: b.storage_writes,
                last_writer: b.storage_last_writer.map(name),
            },
        })
    })
}

// ---------------------------------------------------------------------------------------------
// Seed sweeps.

fn modes(code: u32) -> Modes {
    match code {
        1 => Modes::FencingOn,
        2 => Modes::FencingOff,
        _ => Modes::Both,
    }
}

fn sweep_options(modes_code: u32, keep_seeds: u32, max_events: u32) -> SweepOptions {
    SweepOptions {
        modes: modes(modes_code),
        keep_seeds: keep_seeds as usize,
        max_events: max_events as usize,
    }
}

/// A sweep over a scenario or (`is_template`) a template, given as JSON text.
#[wasm_bindgen]
pub fn sweep_new(
    json: &str,
    is_template: bool,
    first_seed: u64,
    seeds: u64,
    modes_code: u32,
    keep_seeds: u32,
    max_events: u32,
) -> u32 {
    let source = if is_template {
        template_of(json).map(Source::Template)
    } else {
        scenario(json).map(Source::Fixed)
    };
    let opts = sweep_options(modes_code, keep_seeds, max_events);
    let made = source.map(|s| Sweep::new(s, first_seed, seeds, opts));
    adopt(made, |st| &mut st.sweeps)
}

/// Frees sweep `i`.
#[wasm_bindgen]
pub fn sweep_drop(i: u32) {
    with((), |st| st.sweeps.remove(i))
}

/// Runs the next `n` seeds of sweep `i`; returns how many seeds it has run in all.
#[wasm_bindgen]
pub fn sweep_step(i: u32, n: u32) -> f64 {
    with(0.0, |st| {
        st.sweeps
            .get(i)
            .map_or(0.0, |s| s.step(u64::from(n)).done as f64)
    })
}

/// How many seeds sweep `i` covers.
#[wasm_bindgen]
pub fn sweep_total(i: u32) -> f64 {
    with(0.0, |st| {
        st.sweeps.get(i).map_or(0.0, |s| s.progress().total as f64)
    })
}

/// What sweep `i` found so far.
#[wasm_bindgen]
pub fn sweep_report(i: u32) -> Option<String> {
    with(None, |st| st.sweeps.get(i).and_then(|s| to_js(s.report())))
}

// ---------------------------------------------------------------------------------------------
// Exhaustive search.

/// A search of the world of a scenario (JSON text) within a scope (JSON text, or empty for
/// pauses, holds and clock jumps around the lease TTL, at most `max_faults` of them).
#[wasm_bindgen]
#[allow(clippy::too_many_arguments)]
pub fn search_new(
    json: &str,
    scope: &str,
    max_faults: u32,
    fencing_code: u32,
    max_depth: u32,
    max_states: f64,
    stop_at_first: bool,
) -> u32 {
    let made = (|| {
        let s = scenario(json)?;
        let world = world_of(&s);
        let scope = if scope.is_empty() {
            Scope::around_ttl(world.lease_ttl_ms, max_faults)
        } else {
            read::<Scope>(scope).map_err(|f| Failure { part: 1, ..f })?
        };
        let opts = SearchOptions {
            fencing: fencing(fencing_code),
            max_depth,
            max_states: max_states as u64,
            stop_at_first,
        };
        Search::new(&world, &scope, opts).map_err(invalid)
    })();
    adopt(made, |st| &mut st.searches)
}

/// Frees search `i`.
#[wasm_bindgen]
pub fn search_drop(i: u32) {
    with((), |st| st.searches.remove(i))
}

/// Expands up to `budget` states of search `i`: 1 when it has finished, 0 when not, [`NONE`] on
/// an error (see [`error_kind`]).
#[wasm_bindgen]
pub fn search_step(i: u32, budget: u32) -> u32 {
    let stepped = with(Ok(true), |st| {
        st.searches
            .get(i)
            .map_or(Ok(true), |s| s.step(u64::from(budget)))
    });
    match stepped {
        Ok(done) => u32::from(done),
        Err(e) => fail(NONE, invalid(e)),
    }
}

/// What search `i` covered and found so far.
#[wasm_bindgen]
pub fn search_report(i: u32) -> Option<String> {
    with(None, |st| {
        st.searches.get(i).and_then(|s| to_js(s.report()))
    })
}

// ---------------------------------------------------------------------------------------------
// The history checker.

/// A checker that has seen nothing.
#[wasm_bindgen]
pub fn history_new() -> u32 {
    with(NONE, |st| {
        st.checkers
            .add((HistoryChecker::new(), HistoryReport::default()))
    })
}

/// Frees checker `i`.
#[wasm_bindgen]
pub fn history_drop(i: u32) {
    with((), |st| st.checkers.remove(i))
}

#[derive(Serialize)]
struct LineJs {
    malformed: Option<Malformed>,
    findings: Vec<Finding>,
}

/// Checks the next line with checker `i`: what was wrong with it, if anything.
#[wasm_bindgen]
pub fn history_line(i: u32, line: &str) -> Option<String> {
    with(None, |st| {
        let (c, _) = st.checkers.get(i)?;
        let r = c.check_line(line.as_bytes());
        to_js(&LineJs {
            malformed: r.malformed,
            findings: r.findings,
        })
    })
}

/// Checker `i`'s totals.
#[wasm_bindgen]
pub fn history_summary(i: u32) -> Option<String> {
    with(None, |st| to_js(st.checkers.get(i)?.0.summary()))
}

/// Most bytes checker `i` and its report hold (see `HistoryChecker::held_bytes`); 0 if there is
/// no such checker.
#[wasm_bindgen]
pub fn history_held(i: u32) -> f64 {
    with(0.0, |st| {
        st.checkers
            .get(i)
            .map_or(0.0, |(c, r)| (c.held_bytes() + r.held_bytes()) as f64)
    })
}

/// Most bytes checking `lines` lines of `bytes` bytes with checker `i` can take on top of what it
/// holds (`history::line_bytes`).
#[wasm_bindgen]
pub fn history_need(i: u32, bytes: f64, lines: f64) -> f64 {
    let report = with(0, |st| {
        st.checkers.get(i).map_or(0, |(_, r)| r.held_bytes())
    });
    fencepost_sim::history::line_bytes(bytes as u64, lines as u64, report) as f64
}

/// Checks the lines of `text` (a piece of a history ending with a newline, or its end) with
/// checker `i`, adding to its report while it has fewer than `keep` findings and malformed lines
/// each. False if there is no such checker.
#[wasm_bindgen]
pub fn history_feed(i: u32, text: &str, keep: u32) -> bool {
    with(false, |st| {
        st.checkers
            .get(i)
            .map(|(c, r)| c.check_lines(text, keep as usize, r))
            .is_some()
    })
}

/// Of checker `i`'s report, `n` findings (`part` 0) or malformed lines (1) from `from`, as a JSON
/// array (short or empty past the end).
#[wasm_bindgen]
pub fn history_more(i: u32, part: u32, from: u32, n: u32) -> Option<String> {
    with(None, |st| {
        let (_, r) = st.checkers.get(i)?;
        if part == 0 {
            to_js(slice(&r.findings, from, n))
        } else {
            to_js(slice(&r.malformed, from, n))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_reuse_indices() {
        let mut s = Slots::new();
        let a = s.add(1);
        let b = s.add(2);
        s.remove(a);
        s.remove(a);
        assert_eq!(s.get(a), None);
        assert_eq!(s.add(3), a);
        assert_eq!(s.get(b).copied(), Some(2));
        assert_eq!(s.get(NONE), None);
    }

    const OK: &str =
        r#"{"version":1,"lease_ttl_ms":1000,"workers":[{"name":"A","job":{"work_ms":10}}]}"#;

    #[test]
    fn scenarios_are_read_and_validated_like_from_json() {
        assert_eq!(scenario(OK), Ok(Scenario::from_json(OK).unwrap()));
        let e = scenario(&OK.replace("10}", "10,\"wrk\":1}")).unwrap_err();
        assert_eq!(e.kind, kind::TYPE);
        assert!(
            e.message.starts_with("unknown field `wrk`"),
            "{}",
            e.message
        );
        assert_eq!((e.field.as_str(), e.column), ("", 81));
        let e = scenario(&OK.replace("1000", "-1")).unwrap_err();
        assert_eq!(
            (e.kind, e.message.as_str(), e.column),
            (kind::RANGE, "invalid value: integer `-1`, expected u64", 30)
        );
        let e = scenario(&OK.replace("\"A\"", "\"lock\"")).unwrap_err();
        assert_eq!(
            (e.kind, e.field.as_str(), e.message.as_str(), e.column),
            (kind::RANGE, "workers[0].name", "`lock` is reserved", 0)
        );
    }

    #[test]
    fn failures_are_kept_for_the_caller() {
        assert_eq!(run_scenario("{", 0, false, 0, 10), NONE);
        assert_eq!(
            (error_kind(), error_message(), error_column(), error_part()),
            (kind::TYPE, "EOF while parsing an object".into(), 1, 0)
        );
        assert_eq!(
            search_new(OK, "{\"max_faults\":\"x\"}", 2, 0, 10, 10.0, true),
            NONE
        );
        assert_eq!(
            (error_kind(), error_column(), error_part()),
            (kind::TYPE, 17, 1)
        );
        assert_eq!(run_explain(NONE, 0), "");
        assert_eq!(sweep_step(NONE, 10), 0.0);
        assert_eq!(search_step(NONE, 10), 1);
        assert_eq!(run_events(NONE), 0);
    }

    #[test]
    fn a_preset_runs_and_explains() {
        let json = fencepost_sim::preset("paused-worker").unwrap().json;
        let i = run_scenario(json, 2, false, 0, 1_000_000);
        assert_ne!(i, NONE);
        let n = run_events(i);
        assert!(n > 10);
        assert_eq!(run_explain(i, 0), "A sends acquire to lock, due at 0.050 s");
        assert_eq!(run_explain(i, n), "");
        run_drop(i);
        assert_eq!(run_events(i), 0);
    }

    #[test]
    fn sweeps_and_searches_advance_in_slices() {
        let json = fencepost_sim::template::PAUSES_HOLDS_SKEW;
        let s = sweep_new(json, true, 0, 30, 0, 5, 100_000);
        assert_ne!(s, NONE);
        assert_eq!(sweep_total(s), 30.0);
        assert_eq!(sweep_step(s, 20), 20.0);
        assert_eq!(sweep_step(s, 20), 30.0);
        sweep_drop(s);
        let world = fencepost_sim::preset("paused-worker").unwrap().json;
        let q = search_new(world, "", 1, 2, 10_000, 1e6, true);
        assert_ne!(q, NONE);
        while search_step(q, 100) == 0 {}
        search_drop(q);
    }
}
