//! Runs: a scenario run (or prepared once and run many times), its trace, verdict, explanations and
//! beliefs.

use fencepost_sim::{RunOptions, Scenario, Trace, run_with};
use serde::Serialize;
use wasm_bindgen::JsValue;
use wasm_bindgen::prelude::wasm_bindgen;

use crate::NONE;
use crate::errors::{make_room, missing};
use crate::failure::Failure;
use crate::interop::{OUT_BYTES, input_bytes, read, to_js};
use crate::state::{RC_BYTES, add_bytes, adopt, lend, shared, with};

/// How fencing is set for a run or a search: as the scenario says, forced on, or forced off.
pub(crate) fn fencing(code: u32) -> Option<bool> {
    match code {
        1 => Some(true),
        2 => Some(false),
        _ => None,
    }
}

pub(crate) fn run_options(
    fencing_code: u32,
    set_seed: bool,
    seed: u64,
    max_events: u32,
) -> RunOptions {
    RunOptions {
        fencing: fencing(fencing_code),
        seed: set_seed.then_some(seed),
        max_events: max_events as usize,
        record: true,
    }
}

/// A scenario read from a plain JavaScript value and validated as `Scenario::from_json` does.
pub(crate) fn scenario(value: JsValue) -> Result<Scenario, Failure> {
    let s: Scenario = read(value)?;
    s.validate().map_err(Failure::invalid)?;
    Ok(s)
}

/// Most bytes making a run of up to `max_events` events and keeping it can take.
pub(crate) fn run_room(max_events: u32) -> u64 {
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
