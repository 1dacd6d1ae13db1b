//! The history checker: a recorded history fed line by line or in slices, and its findings.

use fencepost_sim::history::{Finding, HistoryChecker, HistoryReport, Malformed};
use serde::Serialize;
use wasm_bindgen::JsValue;
use wasm_bindgen::prelude::wasm_bindgen;

use crate::NONE;
use crate::errors::{make_room, missing};
use crate::failure::Failure;
use crate::interop::{OUT_BYTES, to_js};
use crate::state::{RC_BYTES, State, add_bytes, adopt, fail, lend, with};

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
