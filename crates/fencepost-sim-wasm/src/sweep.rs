//! Seed sweeps over a scenario or a template, advanced in slices.

use fencepost_sim::sweep::{Modes, Sweep, SweepOptions};
use fencepost_sim::template::{Source, Template};
use wasm_bindgen::JsValue;
use wasm_bindgen::prelude::wasm_bindgen;

use crate::NONE;
use crate::errors::{make_room, missing};
use crate::failure::Failure;
use crate::interop::{OUT_BYTES, input_bytes, read, to_js};
use crate::runs::scenario;
use crate::state::{RC_BYTES, State, add_bytes, adopt, fail, lend, with};

pub(crate) fn modes(code: u32) -> Modes {
    match code {
        1 => Modes::FencingOn,
        2 => Modes::FencingOff,
        _ => Modes::Both,
    }
}

/// A template read from a plain JavaScript value and validated as `Template::from_json` does.
pub(crate) fn template_of(value: JsValue) -> Result<Template, Failure> {
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
