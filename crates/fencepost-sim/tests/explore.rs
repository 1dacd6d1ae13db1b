//! Exhaustive search: the model agrees with the engine, fencing holds in the whole scope, and
//! without it the search returns a shortest counterexample that the engine replays.

use fencepost_sim::explore::{Scope, SearchOptions, random_walk, search, world_of};
use fencepost_sim::{Detail, Fault, Invariant, Scenario, preset, run};

fn world(name: &str) -> Scenario {
    world_of(&preset(name).unwrap().scenario())
}

/// Storage decisions: (time, writer, token, accepted).
type Writes = Vec<(u64, u16, u64, bool)>;

/// The engine's storage decisions and broken invariants.
fn engine_writes(s: &Scenario) -> (Writes, Vec<Invariant>) {
    let t = run(s);
    let w = t
        .events
        .iter()
        .filter_map(|e| match e.detail {
            Detail::WriteAccepted { writer, .. } => Some((e.t_ms, writer, e.token?, true)),
            Detail::WriteRejected { writer, .. } => Some((e.t_ms, writer, e.token?, false)),
            _ => None,
        })
        .collect();
    (w, t.verdict.broken())
}

/// Worlds the model covers: presets without their faults, and a third worker.
fn worlds() -> Vec<Scenario> {
    let mut v: Vec<Scenario> = [
        "paused-worker",
        "delayed-write",
        "check-then-pause",
        "lock-delay",
        "authority-restart-persisted",
        "crash-restart",
    ]
    .into_iter()
    .map(world)
    .collect();
    v.push(three_workers());
    let mut jittery = three_workers();
    jittery.latency_ms.min = 10;
    jittery.latency_ms.max = 900;
    jittery.protections.check_before_write = true;
    jittery.faults.push(fencepost_sim::Fault::Clock {
        worker: "B".into(),
        skew_ms: -300,
        drift_ppm: -250_000,
        jump_at: None,
        jump_ms: 0,
    });
    v.push(jittery);
    v
}

/// The paused-worker world with a third worker, C, whose job has two writes.
fn three_workers() -> Scenario {
    let mut s = world("paused-worker");
    s.name = "three-workers".into();
    s.workers.push(fencepost_sim::Worker {
        name: "C".into(),
        start_ms: 20_000,
        job: fencepost_sim::Job {
            work_ms: 1500,
            writes: 2,
            renew_every_ms: None,
            retry_after_ms: None,
        },
    });
    s
}

#[test]
fn the_model_agrees_with_the_engine_on_random_paths() {
    let mut violating = 0;
    let mut walks = 0;
    for w in worlds() {
        let scope = Scope::around_ttl(w.lease_ttl_ms, 3);
        for fencing in [true, false] {
            for seed in 0..150 {
                let walk = random_walk(&w, &scope, fencing, seed, 250_000).unwrap();
                let (writes, broken) = engine_writes(&walk.scenario);
                assert_eq!(
                    (&walk.writes, &walk.broken),
                    (&writes, &broken),
                    "{} fencing {fencing} seed {seed}: {:?}",
                    w.name,
                    walk.scenario.faults
                );
                walks += 1;
                violating += usize::from(!broken.is_empty());
            }
        }
    }
    assert_eq!(walks, 8 * 2 * 150);
    // The walks do reach violations (the comparison covers stale writes, not only happy paths).
    assert_eq!(violating, 244);
}

fn opts(fencing: bool) -> SearchOptions {
    SearchOptions {
        fencing: Some(fencing),
        ..SearchOptions::default()
    }
}

#[test]
fn paused_worker_world_with_fencing_holds_in_the_whole_scope() {
    let w = world("paused-worker");
    let scope = Scope::pauses_and_holds(w.lease_ttl_ms, 2);
    assert_eq!(scope.pause_ms, [15_000, 30_000, 45_000]);
    let r = search(&w, &scope, opts(true)).unwrap();
    assert!(r.complete);
    assert!(!r.depth_limited);
    assert!(r.counterexample.is_none());
    assert_eq!(r.violating_states, 0);
    assert_eq!(
        (
            r.states_explored,
            r.states_generated,
            r.distinct_states,
            r.depth
        ),
        (519, 654, 535, 20)
    );
}

#[test]
fn paused_worker_world_without_fencing_gives_a_shortest_counterexample() {
    let w = world("paused-worker");
    let scope = Scope::pauses_and_holds(w.lease_ttl_ms, 2);
    let r = search(&w, &scope, opts(false)).unwrap();
    let cx = r
        .counterexample
        .expect("a stale write lands without fencing");
    assert_eq!(cx.depth, 16);
    assert_eq!(cx.invariant, Invariant::I1);
    assert_eq!(cx.broken, [Invariant::I1, Invariant::I2, Invariant::I4]);
    assert_eq!(cx.t_ms, 32_150);
    assert_eq!(
        cx.faults,
        [Fault::Hold {
            worker: "A".into(),
            nth_write: 1,
            for_ms: 30_000
        }]
    );
    assert!(!cx.scenario.protections.fencing);
    assert_eq!(cx.scenario.name, "paused-worker-counterexample");

    // Minimal: the whole scope up to one action less holds no violation.
    let shorter = search(
        &w,
        &scope,
        SearchOptions {
            max_depth: cx.depth - 1,
            ..opts(false)
        },
    )
    .unwrap();
    assert!(shorter.counterexample.is_none());
    assert!(shorter.depth_limited);
    assert_eq!(shorter.depth, cx.depth - 1);

    // The engine replays the scenario to the same violation, at the same instant.
    let json = cx.scenario.to_json();
    let replay = run(&Scenario::from_json(&json).unwrap());
    assert_eq!(replay.verdict.broken(), cx.broken);
    let first = &replay.verdict.violations[0];
    assert_eq!((first.invariant, first.t_ms), (Invariant::I1, 32_150));
    // With fencing the same faults are harmless.
    let mut fenced = cx.scenario.clone();
    fenced.protections.fencing = true;
    assert!(run(&fenced).verdict.ok);
}

#[test]
fn three_workers_and_two_faults_are_explored_completely() {
    let w = three_workers();
    let scope = Scope::around_ttl(w.lease_ttl_ms, 2);
    let all = SearchOptions {
        stop_at_first: false,
        ..opts(true)
    };
    let r = search(&w, &scope, all).unwrap();
    assert!(r.complete);
    assert!(r.counterexample.is_none());
    assert_eq!(
        (
            r.states_explored,
            r.states_generated,
            r.distinct_states,
            r.depth
        ),
        (4590, 5274, 4780, 37)
    );
    let r = search(
        &w,
        &scope,
        SearchOptions {
            fencing: Some(false),
            ..all
        },
    )
    .unwrap();
    assert!(r.complete);
    assert_eq!((r.distinct_states, r.violating_states), (4207, 93));
    let cx = r.counterexample.unwrap();
    assert_eq!(cx.depth, 22);
    assert_eq!(run(&cx.scenario).verdict.broken(), cx.broken);
}

#[test]
fn every_counterexample_replays_in_the_engine() {
    for w in worlds() {
        let scope = Scope::around_ttl(w.lease_ttl_ms, 2);
        let r = search(&w, &scope, opts(false)).unwrap();
        if let Some(cx) = r.counterexample {
            let t = run(&cx.scenario);
            assert_eq!(t.verdict.broken(), cx.broken, "{}", w.name);
            assert_eq!(t.verdict.violations[0].t_ms, cx.t_ms, "{}", w.name);
        }
        let fenced = search(&w, &scope, opts(true)).unwrap();
        assert!(fenced.complete, "{}", w.name);
        let cx = fenced.counterexample.map(|c| c.broken);
        assert!(cx.is_none_or(|b| !b.contains(&Invariant::I1)), "{}", w.name);
    }
}

/// In a world at the edge of time (everything at 2^40 ms, the latest instant a scenario may
/// name), the search injects no clock jump a scenario could not name: every counterexample is a
/// valid scenario, and replays.
#[test]
fn counterexamples_at_the_edge_of_time_are_valid_scenarios() {
    let t = fencepost_sim::scenario::MAX_TIME_MS;
    let world = Scenario::from_json(&format!(
        r#"{{"version":1,"lease_ttl_ms":{t},"latency_ms":{{"min":{t},"max":{t}}},"workers":[
        {{"name":"A","start_ms":{t},"job":{{"work_ms":{t},"writes":1000}}}},
        {{"name":"B","start_ms":{t},"job":{{"work_ms":{t},"writes":1000}}}}]}}"#
    ))
    .unwrap();
    let scope = Scope {
        max_faults: 16,
        pause_ms: vec![t],
        hold_ms: vec![t],
        jump_ms: vec![t as i64, -(t as i64)],
        ..Scope::around_ttl(t, 16)
    };
    let mut found = 0;
    for stop_at_first in [true, false] {
        let o = SearchOptions {
            max_states: 20_000,
            stop_at_first,
            ..opts(false)
        };
        let r = search(&world, &scope, o).unwrap();
        if let Some(cx) = r.counterexample {
            found += 1;
            cx.scenario.validate().unwrap();
            let replay = run(&cx.scenario);
            assert_eq!(replay.verdict.broken(), cx.broken);
            assert_eq!(replay.verdict.violations[0].t_ms, cx.t_ms);
        }
    }
    assert_eq!(found, 2);
}

#[test]
fn what_the_model_does_not_cover_is_refused_by_field() {
    let gc = world_of(&preset("gc-pause").unwrap().scenario());
    let e = search(&gc, &Scope::around_ttl(10_000, 1), opts(true)).unwrap_err();
    assert_eq!(e.field, "workers[0].job.renew_every_ms");
    let uuid = world_of(&preset("uuid-token").unwrap().scenario());
    let e = search(&uuid, &Scope::around_ttl(10_000, 1), opts(true)).unwrap_err();
    assert_eq!(e.field, "protections.token_kind");
    let mut scope = Scope::around_ttl(10_000, 1);
    scope.workers = vec!["Z".into()];
    let e = search(&world("paused-worker"), &scope, opts(true)).unwrap_err();
    assert_eq!(e.to_string(), "scope.workers[0]: no worker is named `Z`");
    let mut scope = Scope::around_ttl(10_000, 1);
    scope.pause_ms = vec![1, 1 << 41];
    let e = search(&world("paused-worker"), &scope, opts(true)).unwrap_err();
    assert_eq!(
        e.to_string(),
        "scope.pause_ms[1]: must be at most 1099511627776 ms"
    );
}
