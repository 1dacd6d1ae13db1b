//! Native tests of what runs without JavaScript: reading values into the simulator's types, the
//! tables of objects and the errors kept for the caller. The JavaScript boundary itself is tested
//! in real Node (tests/node/sim*.test.mjs).

use super::*;
use crate::failure::{Failure, kind};
use crate::interop;
use crate::state::{adopt, with};
use fencepost_sim::Scenario;
use fencepost_sim::explore::{Scope, Search, SearchOptions, world_of};
use fencepost_sim::history::{HistoryChecker, HistoryReport};
use fencepost_sim::sweep::{Modes, Sweep, SweepOptions};
use fencepost_sim::template::{Source, Template};
use fencepost_wasm_rt::Slots;

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

const OK: &str = r#"{"version":1,"lease_ttl_ms":1000,"workers":[{"name":"A","job":{"work_ms":10}},{"name":"B","job":{"work_ms":10}}]}"#;

/// A scenario as the package hands it over, read and validated.
fn scenario_of(json: &str) -> Result<Scenario, Failure> {
    let s: Scenario = interop::typed(serde_json::from_str(json).unwrap())?;
    s.validate().map_err(Failure::invalid)?;
    Ok(s)
}

#[test]
fn scenarios_are_read_like_from_json_and_errors_name_their_field() {
    assert_eq!(scenario_of(OK), Ok(Scenario::from_json(OK).unwrap()));
    let e = scenario_of(&OK.replace(
        "\"B\",\"job\":{\"work_ms\":10",
        "\"B\",\"job\":{\"wrk\":1,\"work_ms\":10",
    ))
    .unwrap_err();
    assert_eq!(
        (e.kind, e.field.as_str()),
        (kind::TYPE, "workers[1].job.wrk")
    );
    assert!(
        e.message
            .starts_with("unknown field `wrk`, expected one of"),
        "{}",
        e.message
    );
    let e = scenario_of(&OK.replace(
        "\"B\",\"job\":{\"work_ms\":10",
        "\"B\",\"job\":{\"work_ms\":-3",
    ))
    .unwrap_err();
    assert_eq!(
        (e.kind, e.field.as_str(), e.message.as_str()),
        (
            kind::RANGE,
            "workers[1].job.work_ms",
            "invalid value: integer `-3`, expected u64"
        )
    );
    let e = scenario_of(&OK.replace("1000", "1.5")).unwrap_err();
    assert_eq!(
        (e.kind, e.field.as_str(), e.message.as_str()),
        (
            kind::TYPE,
            "lease_ttl_ms",
            "invalid type: floating point `1.5`, expected u64"
        )
    );
    let e = scenario_of(&OK.replace("\"A\"", "\"lock\"")).unwrap_err();
    assert_eq!(
        (e.kind, e.field.as_str(), e.message.as_str()),
        (kind::RANGE, "workers[0].name", "`lock` is reserved")
    );
}

#[test]
fn a_prepared_preset_runs_and_explains() {
    let s = Scenario::from_json(fencepost_sim::preset("paused-worker").unwrap().json).unwrap();
    let p = adopt(Ok(s), |st| &mut st.scenarios);
    assert_ne!(p, NONE);
    let i = run_prepared(p, 2, false, 0, 1_000_000);
    assert_ne!(i, NONE);
    let n = run_events(i);
    assert!(n > 10);
    assert_eq!(run_explain(i, 0), "A sends acquire to lock, due at 0.050 s");
    assert_eq!(run_explain(i, n), "");
    run_drop(i);
    assert_eq!(run_events(i), 0);
    scenario_drop(p);
    assert_eq!(run_prepared(p, 0, false, 0, 10), NONE);
    assert_eq!(
        (error_kind(), error_message().as_str()),
        (kind::TYPE, "no such prepared scenario")
    );
}

#[test]
fn sweeps_and_searches_advance_in_slices_and_missing_ones_are_errors() {
    let t = Template::from_json(fencepost_sim::template::PAUSES_HOLDS_SKEW).unwrap();
    let opts = SweepOptions {
        modes: Modes::Both,
        keep_seeds: 5,
        max_events: 100_000,
    };
    let s = adopt(Ok(Sweep::new(Source::Template(t), 0, 30, opts)), |st| {
        &mut st.sweeps
    });
    assert_eq!(sweep_total(s), 30.0);
    assert_eq!(sweep_step(s, 20, 100_000), 20.0);
    assert_eq!(sweep_step(s, 20, 100_000), 30.0);
    sweep_drop(s);
    assert_eq!(sweep_step(s, 20, 100_000), -1.0);
    assert_eq!(
        (error_kind(), error_message().as_str()),
        (kind::TYPE, "no such sweep")
    );

    let s = Scenario::from_json(fencepost_sim::preset("paused-worker").unwrap().json).unwrap();
    let world = world_of(&s);
    let opts = SearchOptions {
        fencing: Some(false),
        max_depth: 10_000,
        max_states: 1_000_000,
        stop_at_first: true,
    };
    let search = Search::new(&world, &Scope::around_ttl(world.lease_ttl_ms, 1), opts).unwrap();
    let q = adopt(Ok(search), |st| &mut st.searches);
    while search_step(q, 100, 1e6) == 0 {}
    search_drop(q);
    assert_eq!(search_step(q, 100, 1e6), NONE);
    assert_eq!(
        (error_kind(), error_message().as_str()),
        (kind::TYPE, "no such search")
    );
    assert_eq!(run_explain(NONE, 0), "");
}

#[test]
fn an_object_lent_out_by_a_call_that_never_returned_is_given_back_by_lent_release() {
    let c = adopt(
        Ok((HistoryChecker::new(), HistoryReport::default())),
        |st| &mut st.checkers,
    );
    assert!(history_feed(c, "{\"t\":1}\n", 10));
    let depth = lent_depth();
    // As a setter that throws while a value of the checker is written out: the call's frames
    // are left without returning (here by a panic), its object still lent out.
    let left = std::panic::catch_unwind(|| {
        state::lend(c, |st| &mut st.checkers, |_| panic!("thrown through"))
    });
    assert!(left.is_err());
    assert_eq!(lent_depth(), depth + 1);
    assert!(!history_feed(c, "{\"t\":2}\n", 10));
    assert_eq!(
        (error_kind(), error_message().as_str()),
        (
            kind::TYPE,
            "this checker cannot change while a value of it is being handed to JavaScript"
        )
    );
    // Freed meanwhile (a setter may call back in to free it): the lent clone keeps it alive
    // until it is given back.
    history_drop(c);
    lent_release(depth);
    assert_eq!(lent_depth(), depth);
    let d = adopt(
        Ok((HistoryChecker::new(), HistoryReport::default())),
        |st| &mut st.checkers,
    );
    assert!(history_feed(d, "{\"t\":2}\n", 10));
    history_drop(d);
}

#[test]
fn finishing_a_history_adds_what_only_its_end_shows() {
    let c = history_new();
    let write = r#"{"t":1,"kind":"write","process":"p","resource":"d","token":3,"result":"ok"}"#;
    assert!(history_feed(c, &format!("{write}\n"), 10));
    assert!(history_finish(c, 10));
    let findings = with(0, |st| st.checkers.get(c).map_or(0, |r| r.1.findings.len()));
    assert_eq!(findings, 1);
    // Finishing again finds nothing more.
    assert!(history_finish(c, 10));
    let findings = with(0, |st| st.checkers.get(c).map_or(0, |r| r.1.findings.len()));
    assert_eq!(findings, 1);
    history_drop(c);
    assert!(!history_finish(c, 10));
}
