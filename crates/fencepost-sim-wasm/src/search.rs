//! Exhaustive search of a scope, advanced in slices.

use fencepost_sim::explore::{Scope, Search, SearchOptions, world_of};
use wasm_bindgen::JsValue;
use wasm_bindgen::prelude::wasm_bindgen;

use crate::NONE;
use crate::errors::{make_room, missing};
use crate::failure::Failure;
use crate::interop::{OUT_BYTES, input_bytes, read, to_js};
use crate::runs::{fencing, scenario};
use crate::state::{RC_BYTES, State, add_bytes, adopt, fail, lend, with};

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
