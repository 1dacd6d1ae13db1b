//! WebAssembly bindings of the fencepost simulator, for the npm package's `fencepost/sim` entry.
//!
//! As thin as the core's bindings: every rule lives in `fencepost-sim` (and, through it, in the
//! `fencepost` core). This crate only converts, through serde-wasm-bindgen (see [`interop`]):
//! scenarios, templates and scopes come in as JavaScript objects, read and validated by the
//! simulator's own definitions (unknown fields refused, then `validate`), so every error names
//! its field; traces and reports go out as JavaScript objects shaped like the simulator's JSON.
//!
//! Runs, sweeps, searches and history checkers live in tables of the instance and are known to
//! JavaScript by their index (as in the core's bindings), so a trace stays in the module for
//! `explain` and `beliefs_at` and a sweep or search can be advanced in slices.
//!
//! Nothing here may trap the instance. The package's JavaScript (`npm/src/sim/api.js`) checks
//! every argument's type and range and hands over plain data only; every call first makes room
//! for the most memory it can take ([`state::room`]), and whatever still fails returns the
//! function's "nothing" value ([`NONE`], `undefined` or an empty string) and leaves an error kind
//! ([`error_kind`]: a TypeError or a RangeError) and message ([`error_message`]) for the caller to
//! throw.
//!
//! 64-bit integers go out as bigints; the package's JavaScript keeps seeds, tokens and history
//! times so and makes every other integer (times, counts) a number.

extern crate alloc;

mod failure;
mod interop;
mod state;

use fencepost_sim::explore::{Scope, Search, SearchOptions, world_of};
use fencepost_sim::history::{Finding, HistoryChecker, HistoryReport, Malformed};
use fencepost_sim::sweep::{Modes, Sweep, SweepOptions};
use fencepost_sim::template::{Source, TEMPLATES, Template};
use fencepost_sim::{Invariant, PRESETS, RunOptions, Scenario, Trace, run_with};
use serde::Serialize;
use wasm_bindgen::JsValue;
use wasm_bindgen::prelude::wasm_bindgen;

use failure::{Failure, kind};
use interop::{OUT_BYTES, input_bytes, read, to_js};
use state::{RC_BYTES, State, add_bytes, adopt, fail, lend, room, shared, with};

/// `u32::MAX`: no object was made (see [`error_kind`]).
pub const NONE: u32 = u32::MAX;

// ---------------------------------------------------------------------------------------------
// Errors and memory.

fn last<R>(fallback: R, f: impl FnOnce(&Failure) -> R) -> R {
    with(None, |st| st.error.as_ref().map(f)).unwrap_or(fallback)
}

/// The kind of the last error (only meaningful right after a call reported one).
#[wasm_bindgen]
pub fn error_kind() -> u32 {
    last(kind::NONE, |f| f.kind)
}

/// A copy of `text` of the last error, or an empty one when there is no room to make it.
fn copied(text: impl FnOnce(&Failure) -> &String) -> String {
    last(String::new(), |f| {
        let t = text(f);
        if room(2 * t.len() as u64 + OUT_BYTES) {
            t.clone()
        } else {
            String::new()
        }
    })
}

/// The field the last error is about (empty: the whole value).
#[wasm_bindgen]
pub fn error_field() -> String {
    copied(|f| &f.field)
}

/// What is wrong, for the last error.
#[wasm_bindgen]
pub fn error_message() -> String {
    copied(|f| &f.message)
}

/// Which object argument of the call the last error is about (0: the first, 1: the second).
#[wasm_bindgen]
pub fn error_part() -> u32 {
    last(0, |f| f.part)
}

/// How many objects are lent out (see `state`): the package notes it before a call that writes
/// values to JavaScript.
#[wasm_bindgen]
pub fn lent_depth() -> u32 {
    state::lent_depth()
}

/// Gives back what a call that JavaScript code threw through had lent out (those above `depth`).
#[wasm_bindgen]
pub fn lent_release(depth: u32) {
    state::lent_release(depth)
}

/// Makes room for `bytes` of arguments the package is about to copy into the module (a string's
/// UTF-8): false when the memory cannot grow that far.
#[wasm_bindgen]
pub fn room_for(bytes: f64) -> bool {
    // A string is copied in by growing a block up to three times: five times its UTF-8 bound
    // covers the blocks.
    room(5 * bytes as u64 + OUT_BYTES)
}

/// Records that the module's memory cannot grow as far as a call needs; returns `nothing`.
fn no_room<R>(nothing: R) -> R {
    fail(nothing, Failure::memory())
}

/// `undefined`, with the error that there is no such `what`.
fn missing(what: &str) -> JsValue {
    fail(JsValue::UNDEFINED, Failure::missing(what))
}

/// Makes room for `bytes` (see [`state::room`]): false, with [`kind::MEMORY`] recorded, when the
/// memory cannot grow that far.
fn make_room(bytes: u64) -> bool {
    room(bytes) || no_room(false)
}

/// How far the allocator's heap reaches now (`SizeClasses::carved`): below it, what the module
/// holds and blocks it keeps for reuse; above it, memory grown but not used yet (the package's
/// memory accounting starts there).
#[wasm_bindgen]
pub fn memory_carved() -> f64 {
    state::carved() as f64
}

// ---------------------------------------------------------------------------------------------
// Presets and templates.

#[derive(Serialize)]
struct PresetJs {
    name: &'static str,
    title: &'static str,
    story: &'static str,
    /// The scenario's file, as JSON text: the package parses it as it parses any scenario file.
    json: &'static str,
    with_fencing: &'static [Invariant],
    without_fencing: &'static [Invariant],
}

/// Every preset: name, title, story, scenario and the invariants it breaks with fencing forced
/// on and off.
#[wasm_bindgen]
pub fn presets() -> JsValue {
    let bytes = (PRESETS.len() * core::mem::size_of::<PresetJs>()) as u64;
    if !make_room(OUT_BYTES + 2 * bytes) {
        return JsValue::UNDEFINED;
    }
    let list: Vec<PresetJs> = PRESETS
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
struct TemplateJs {
    name: &'static str,
    json: &'static str,
}

/// Every built-in template, with its name and file (JSON text).
#[wasm_bindgen]
pub fn templates() -> JsValue {
    let bytes = (TEMPLATES.len() * core::mem::size_of::<TemplateJs>()) as u64;
    if !make_room(OUT_BYTES + 2 * bytes) {
        return JsValue::UNDEFINED;
    }
    let list: Vec<TemplateJs> = TEMPLATES
        .iter()
        .map(|&(name, json)| TemplateJs { name, json })
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

fn run_options(fencing_code: u32, set_seed: bool, seed: u64, max_events: u32) -> RunOptions {
    RunOptions {
        fencing: fencing(fencing_code),
        seed: set_seed.then_some(seed),
        max_events: max_events as usize,
        record: true,
    }
}

/// A scenario read from a plain JavaScript value and validated as `Scenario::from_json` does.
fn scenario(value: JsValue) -> Result<Scenario, Failure> {
    let s: Scenario = read(value)?;
    s.validate().map_err(Failure::invalid)?;
    Ok(s)
}

/// Most bytes making a run of up to `max_events` events and keeping it can take.
fn run_room(max_events: u32) -> u64 {
    fencepost_sim::engine::run_bytes(max_events as usize, true) + RC_BYTES + add_bytes()
}

/// Runs a scenario (a plain object of `values` values and `chars` characters); `fencing` 0 as
/// the scenario says, 1 on, 2 off; the seed replaces the scenario's when `set_seed`. Returns the
/// run's index, or [`NONE`].
#[wasm_bindgen]
pub fn run_scenario(
    scenario_value: JsValue,
    values: u32,
    chars: u32,
    fencing_code: u32,
    set_seed: bool,
    seed: u64,
    max_events: u32,
) -> u32 {
    if !make_room(input_bytes(values, chars) + run_room(max_events)) {
        return NONE;
    }
    let opts = run_options(fencing_code, set_seed, seed, max_events);
    let made = scenario(scenario_value).map(|s| run_with(&s, opts));
    adopt(made, |st| &mut st.runs)
}

/// Reads a scenario (a plain object) once, so that many runs of it skip reading it again.
/// Returns its index, or [`NONE`].
#[wasm_bindgen]
pub fn scenario_prepare(scenario_value: JsValue, values: u32, chars: u32) -> u32 {
    let bytes = input_bytes(values, chars) + fencepost_sim::scenario::scenario_bytes();
    if !make_room(bytes + RC_BYTES + add_bytes()) {
        return NONE;
    }
    adopt(scenario(scenario_value), |st| &mut st.scenarios)
}

/// Frees prepared scenario `i`.
#[wasm_bindgen]
pub fn scenario_drop(i: u32) {
    with((), |st| st.scenarios.remove(i))
}

/// Runs prepared scenario `s` as [`run_scenario`] runs a scenario object. Returns the run's
/// index, or [`NONE`].
#[wasm_bindgen]
pub fn run_prepared(s: u32, fencing_code: u32, set_seed: bool, seed: u64, max_events: u32) -> u32 {
    if !make_room(run_room(max_events)) {
        return NONE;
    }
    let opts = run_options(fencing_code, set_seed, seed, max_events);
    let made = shared(s, |st| &mut st.scenarios)
        .map(|sc| run_with(&sc, opts))
        .ok_or_else(|| Failure::missing("prepared scenario"));
    adopt(made, |st| &mut st.runs)
}

/// The most bytes of the module's memory an object could take, which the package checks is left
/// before it makes one: `what` 0 a recorded run stopped at `n` events, 1 a sweep whose runs stop
/// at `n` events, 2 a search of at most `n` states, 3 a prepared scenario (`n` unused).
#[wasm_bindgen]
pub fn memory_bound(what: u32, n: f64) -> f64 {
    let n = n as u64;
    let bytes = match what {
        0 => fencepost_sim::engine::run_bytes(n as usize, true),
        1 => fencepost_sim::sweep::sweep_bytes(n as usize),
        3 => fencepost_sim::scenario::scenario_bytes(),
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

/// Frees run `i` (its trace is freed with it, unless a clone is still out: see `state`).
#[wasm_bindgen]
pub fn run_drop(i: u32) {
    with((), |st| st.runs.remove(i))
}

/// Run `i`'s whole trace (events, verdict, final document), shaped like the CLI's JSON.
#[wasm_bindgen]
pub fn run_trace(i: u32) -> JsValue {
    if !make_room(OUT_BYTES) {
        return JsValue::UNDEFINED;
    }
    lend(i, |st| &mut st.runs, to_js).unwrap_or_else(|| missing("run"))
}

/// Run `i`'s verdict.
#[wasm_bindgen]
pub fn run_verdict(i: u32) -> JsValue {
    if !make_room(OUT_BYTES) {
        return JsValue::UNDEFINED;
    }
    lend(i, |st| &mut st.runs, |t| to_js(&t.verdict)).unwrap_or_else(|| missing("run"))
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
    // A sentence of a few names and numbers, and its building.
    if !make_room(OUT_BYTES) {
        return String::new();
    }
    shared(i, |st| &mut st.runs)
        .and_then(|t| t.events.get(seq as usize).map(|e| t.explain(e)))
        .unwrap_or_default()
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
pub fn run_beliefs(i: u32, t_ms: f64) -> JsValue {
    let t_ms = t_ms as u64;
    // The beliefs of each worker, twice (the simulator's and the ones written out).
    let workers = with(0, |st| st.runs.get(i).map_or(0, |t| t.workers.len())) as u64;
    let per_worker = core::mem::size_of::<WorkerBeliefJs<'_>>() as u64 + 64;
    if !make_room(OUT_BYTES + 4 * per_worker * workers) {
        return JsValue::UNDEFINED;
    }
    lend(i, |st| &mut st.runs, |t| to_js(&beliefs(t, t_ms))).unwrap_or_else(|| missing("run"))
}

/// What every actor of `t` believes at `t_ms`, shaped for JavaScript.
fn beliefs(t: &Trace, t_ms: u64) -> BeliefsJs<'_> {
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
    BeliefsJs {
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
    }
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

/// A template read from a plain JavaScript value and validated as `Template::from_json` does.
fn template_of(value: JsValue) -> Result<Template, Failure> {
    let t: Template = read(value)?;
    t.validate().map_err(Failure::invalid)?;
    Ok(t)
}

/// A sweep over a scenario or (`is_template`) a template, a plain object of `values` values and
/// `chars` characters.
#[wasm_bindgen]
#[allow(clippy::too_many_arguments)]
pub fn sweep_new(
    source: JsValue,
    values: u32,
    chars: u32,
    is_template: bool,
    first_seed: u64,
    seeds: u64,
    modes_code: u32,
    keep_seeds: u32,
    max_events: u32,
) -> u32 {
    // The sweep's own growth is counted by the package (`sweep_bytes`) and made room for at
    // each step; here, reading its source and keeping it.
    let bytes = input_bytes(values, chars) + fencepost_sim::scenario::scenario_bytes();
    if !make_room(bytes + RC_BYTES + add_bytes()) {
        return NONE;
    }
    let source = if is_template {
        template_of(source).map(Source::Template)
    } else {
        scenario(source).map(Source::Fixed)
    };
    let opts = SweepOptions {
        modes: modes(modes_code),
        keep_seeds: keep_seeds as usize,
        max_events: max_events as usize,
    };
    let made = source.map(|s| Sweep::new(s, first_seed, seeds, opts));
    adopt(made, |st| &mut st.sweeps)
}

/// Frees sweep `i`.
#[wasm_bindgen]
pub fn sweep_drop(i: u32) {
    with((), |st| st.sweeps.remove(i))
}

/// Runs the next `n` seeds of sweep `i`, whose runs stop at `max_events` events (as it was
/// made); returns how many seeds it has run in all, or -1 on an error (see [`error_kind`]).
#[wasm_bindgen]
pub fn sweep_step(i: u32, n: u32, max_events: u32) -> f64 {
    if !make_room(fencepost_sim::sweep::sweep_bytes(max_events as usize)) {
        return -1.0;
    }
    let stepped = with(Err(Failure::missing("sweep")), |st| {
        State::unshared(&mut st.sweeps, i, "sweep").map(|s| s.step(u64::from(n)).done as f64)
    });
    stepped.unwrap_or_else(|f| fail(-1.0, f))
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
pub fn sweep_report(i: u32) -> JsValue {
    if !make_room(OUT_BYTES) {
        return JsValue::UNDEFINED;
    }
    lend(i, |st| &mut st.sweeps, |s| to_js(s.report())).unwrap_or_else(|| missing("sweep"))
}

// ---------------------------------------------------------------------------------------------
// Exhaustive search.

/// A search of the world of a scenario within a scope (both plain objects, of `values` values
/// and `chars` characters between them; `undefined` for pauses, holds and clock jumps around the
/// lease TTL, at most `max_faults` of them).
#[wasm_bindgen]
#[allow(clippy::too_many_arguments)]
pub fn search_new(
    scenario_value: JsValue,
    scope: JsValue,
    values: u32,
    chars: u32,
    max_faults: u32,
    fencing_code: u32,
    max_depth: u32,
    max_states: f64,
    stop_at_first: bool,
) -> u32 {
    // The search's own growth is counted by the package (`search_bytes`) and made room for at
    // each step; here, reading its arguments, its world and its first state.
    let bytes = 2 * input_bytes(values, chars) + fencepost_sim::scenario::scenario_bytes();
    if !make_room(bytes + RC_BYTES + add_bytes()) {
        return NONE;
    }
    let made = (|| {
        let s = scenario(scenario_value)?;
        let world = world_of(&s);
        let scope = if scope.is_undefined() {
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
        Search::new(&world, &scope, opts).map_err(Failure::invalid)
    })();
    adopt(made, |st| &mut st.searches)
}

/// Frees search `i`.
#[wasm_bindgen]
pub fn search_drop(i: u32) {
    with((), |st| st.searches.remove(i))
}

/// Expands up to `budget` states of search `i`, made with at most `max_states` states: 1 when it
/// has finished, 0 when not, [`NONE`] on an error (see [`error_kind`]).
#[wasm_bindgen]
pub fn search_step(i: u32, budget: u32, max_states: f64) -> u32 {
    if !make_room(fencepost_sim::explore::search_bytes(max_states as u64)) {
        return NONE;
    }
    let stepped = with(Err(Failure::missing("search")), |st| {
        State::unshared(&mut st.searches, i, "search")
            .and_then(|s| s.step(u64::from(budget)).map_err(Failure::invalid))
    });
    match stepped {
        Ok(done) => u32::from(done),
        Err(f) => fail(NONE, f),
    }
}

/// What search `i` covered and found so far.
#[wasm_bindgen]
pub fn search_report(i: u32) -> JsValue {
    if !make_room(OUT_BYTES) {
        return JsValue::UNDEFINED;
    }
    lend(i, |st| &mut st.searches, |s| to_js(s.report())).unwrap_or_else(|| missing("search"))
}

// ---------------------------------------------------------------------------------------------
// The history checker.

/// A checker that has seen nothing.
#[wasm_bindgen]
pub fn history_new() -> u32 {
    let bytes = core::mem::size_of::<(HistoryChecker, HistoryReport)>() as u64;
    if !make_room(bytes.next_power_of_two() + RC_BYTES + add_bytes()) {
        return NONE;
    }
    adopt(
        Ok((HistoryChecker::new(), HistoryReport::default())),
        |st| &mut st.checkers,
    )
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

/// Most bytes checking `bytes` bytes of `lines` lines with checker `i` can take (see
/// [`history_need`]).
fn line_room(i: u32, bytes: f64, lines: f64) -> u64 {
    OUT_BYTES + history_need(i, bytes, lines) as u64
}

/// Checks the next line (`bytes` bytes of UTF-8) with checker `i`: what was wrong with it, if
/// anything.
#[wasm_bindgen]
pub fn history_line(i: u32, line: &str) -> JsValue {
    if !make_room(line_room(i, line.len() as f64, 1.0)) {
        return JsValue::UNDEFINED;
    }
    let checked = with(Err(Failure::missing("checker")), |st| {
        State::unshared(&mut st.checkers, i, "checker").map(|(c, _)| c.check_line(line.as_bytes()))
    });
    match checked {
        Ok(r) => to_js(&LineJs {
            malformed: r.malformed,
            findings: r.findings,
        }),
        Err(f) => fail(JsValue::UNDEFINED, f),
    }
}

/// Checker `i`'s totals.
#[wasm_bindgen]
pub fn history_summary(i: u32) -> JsValue {
    if !make_room(OUT_BYTES) {
        return JsValue::UNDEFINED;
    }
    lend(i, |st| &mut st.checkers, |c| to_js(c.0.summary())).unwrap_or_else(|| missing("checker"))
}

/// Most bytes checker `i` and its report hold (see `HistoryChecker::held_bytes`); 0 if there is
/// no such checker.
#[wasm_bindgen]
pub fn history_held(i: u32) -> f64 {
    with(0.0, |st| {
        st.checkers
            .get(i)
            .map_or(0.0, |c| (c.0.held_bytes() + c.1.held_bytes()) as f64)
    })
}

/// Most bytes checking `lines` lines of `bytes` bytes with checker `i` can take on top of what it
/// holds (`history::line_bytes`).
#[wasm_bindgen]
pub fn history_need(i: u32, bytes: f64, lines: f64) -> f64 {
    let report = with(0, |st| st.checkers.get(i).map_or(0, |c| c.1.held_bytes()));
    fencepost_sim::history::line_bytes(bytes as u64, lines as u64, report) as f64
}

/// Checks the lines of `text` (a piece of a history ending with a newline, or its end) with
/// checker `i`, adding to its report while it has fewer than `keep` findings and malformed lines
/// each. False on an error (see [`error_kind`]).
#[wasm_bindgen]
pub fn history_feed(i: u32, text: &str, keep: u32) -> bool {
    let lines = text.bytes().filter(|&b| b == b'\n').count() + 1;
    if !make_room(line_room(i, text.len() as f64, lines as f64)) {
        return false;
    }
    let fed = with(Err(Failure::missing("checker")), |st| {
        State::unshared(&mut st.checkers, i, "checker")
            .map(|(c, r)| c.check_lines(text, keep as usize, r))
    });
    fed.map_or_else(|f| fail(false, f), |()| true)
}

/// Ends checker `i`'s history, adding to its report (while it has fewer than `keep` findings)
/// what only the end shows: overlaps still open, acknowledged writes with no final row. False on
/// an error (see [`error_kind`]).
#[wasm_bindgen]
pub fn history_finish(i: u32, keep: u32) -> bool {
    let need = with(0, |st| {
        st.checkers
            .get(i)
            .map_or(0, |c| c.0.finish_bytes(c.1.held_bytes()))
    });
    if !make_room(OUT_BYTES + need) {
        return false;
    }
    let done = with(Err(Failure::missing("checker")), |st| {
        State::unshared(&mut st.checkers, i, "checker")
            .map(|(c, r)| c.finish_into(keep as usize, r))
    });
    done.map_or_else(|f| fail(false, f), |()| true)
}

/// Of checker `i`'s report, `n` findings (`part` 0) or malformed lines (1) from `from` (short or
/// empty past the end).
#[wasm_bindgen]
pub fn history_more(i: u32, part: u32, from: u32, n: u32) -> JsValue {
    if !make_room(OUT_BYTES) {
        return JsValue::UNDEFINED;
    }
    lend(
        i,
        |st| &mut st.checkers,
        |(_, r)| {
            if part == 0 {
                to_js(slice(&r.findings, from, n))
            } else {
                to_js(slice(&r.malformed, from, n))
            }
        },
    )
    .unwrap_or_else(|| missing("checker"))
}

/// Up to `n` elements of `all` from `from` (none past the end).
fn slice<T>(all: &[T], from: u32, n: u32) -> &[T] {
    let from = (from as usize).min(all.len());
    &all[from..all.len().min(from.saturating_add(n as usize))]
}

#[cfg(test)]
mod tests;
