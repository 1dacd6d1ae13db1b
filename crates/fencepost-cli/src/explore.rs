//! `fencepost explore`: seed sweeps and exhaustive search.

use std::io::Write;
use std::time::Instant;

use fencepost_sim::explore::{Scope, Search, SearchOptions, SearchReport, world_of};
use fencepost_sim::sweep::{Sweep, SweepOptions, SweepReport};
use fencepost_sim::template::{self, Source, Template};
use fencepost_sim::trace::fmt_secs;
use fencepost_sim::{Invariant, Scenario, preset};

use crate::args::{ExploreArgs, Format};
use crate::{Fail, bad, io, load};

/// A template file (or a built-in template's name).
pub(crate) fn load_template(what: &str) -> Result<Template, Fail> {
    if let Some(t) = template::template(what) {
        return Ok(t);
    }
    let text = std::fs::read_to_string(what).map_err(|e| {
        bad(format!(
            "{what}: {e} (not a built-in template or a readable template file)"
        ))
    })?;
    Template::from_json(&text).map_err(|e| bad(format!("{what}: {e}")))
}

/// What `explore` was pointed at.
enum Target {
    Scenario(Scenario),
    Template(Template),
}

fn target(what: &str) -> Result<Target, Fail> {
    if preset(what).is_some() {
        return load(what).map(Target::Scenario);
    }
    if let Some(t) = template::template(what) {
        return Ok(Target::Template(t));
    }
    let text = std::fs::read_to_string(what).map_err(|e| {
        bad(format!(
            "{what}: {e} (not a preset, a built-in template or a readable file)"
        ))
    })?;
    // Templates describe their workers with an object (count and ranges), scenarios with a list.
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| bad(format!("{what}: {e}")))?;
    if value
        .get("workers")
        .is_some_and(serde_json::Value::is_object)
    {
        Template::from_json(&text)
            .map(Target::Template)
            .map_err(|e| bad(format!("{what}: {e}")))
    } else {
        Scenario::from_json(&text)
            .map(Target::Scenario)
            .map_err(|e| bad(format!("{what}: {e}")))
    }
}

pub(crate) fn explore(args: &ExploreArgs, out: &mut impl Write) -> Result<u8, Fail> {
    let what = &args.target;
    let (first_seed, exhaustive, max_faults) = (args.first_seed, args.exhaustive, args.max_faults);
    let fencing = !args.no_fencing;
    let json = args.format == Format::Json;
    let target = target(what)?;
    // Without --exhaustive, or with --seeds, sweep seeds (1000 by default).
    let seeds = match (args.seeds, exhaustive) {
        (Some(n), _) => Some(n),
        (None, false) => Some(1000),
        (None, true) => None,
    };
    if let Some(n) = seeds {
        let room = fencepost_sim::sweep::seeds_from(first_seed);
        if n > room {
            return Err(bad(format!(
                "--seeds: only {room} seeds from --first-seed {first_seed} to {}, got {n}",
                u64::MAX
            )));
        }
    }
    let mut violated = false;
    let mut doc = serde_json::Map::new();
    if let Some(n) = seeds {
        let source = match &target {
            Target::Scenario(s) => Source::Fixed(s.clone()),
            Target::Template(t) => Source::Template(t.clone()),
        };
        let mut sweep = Sweep::new(source, first_seed, n, SweepOptions::default());
        let start = Instant::now();
        let report = sweep.run_to_end().clone();
        let secs = start.elapsed().as_secs_f64();
        violated |= report.mode(fencing).is_some_and(|m| m.violating_runs > 0);
        if json {
            let mut v = serde_json::to_value(&report).map_err(|e| bad(e.to_string()))?;
            v["runs_per_sec"] = serde_json::json!(report.runs_per_sec(secs).round());
            doc.insert("sweep".into(), v);
        } else {
            write_sweep(out, &report, what, &target, secs).map_err(io)?;
        }
    }
    if exhaustive {
        let scenario = match &target {
            Target::Scenario(s) => s.clone(),
            Target::Template(t) => t.derive(first_seed),
        };
        let world = world_of(&scenario);
        let scope = Scope::around_ttl(world.lease_ttl_ms, max_faults);
        let opts = SearchOptions {
            fencing: Some(fencing),
            ..SearchOptions::default()
        };
        let search = Search::new(&world, &scope, opts).map_err(|e| bad(format!("{what}: {e}")))?;
        let start = Instant::now();
        let report = search.run().map_err(|e| bad(format!("{what}: {e}")))?;
        let secs = start.elapsed().as_secs_f64();
        violated |= report.counterexample.is_some();
        if json {
            let mut v = serde_json::to_value(&report).map_err(|e| bad(e.to_string()))?;
            v["distinct_states_per_sec"] =
                serde_json::json!(per_sec(report.distinct_states, secs).round());
            v["states_generated_per_sec"] =
                serde_json::json!(per_sec(report.states_generated, secs).round());
            v["scope"] = serde_json::to_value(&scope).map_err(|e| bad(e.to_string()))?;
            doc.insert("exhaustive".into(), v);
        } else {
            write_search(out, &report, &world, &scope, secs).map_err(io)?;
        }
    }
    if json {
        writeln!(out, "{}", serde_json::Value::Object(doc)).map_err(io)?;
    }
    Ok(u8::from(violated))
}

pub(crate) fn per_sec(n: u64, secs: f64) -> f64 {
    if secs > 0.0 { n as f64 / secs } else { 0.0 }
}

pub(crate) fn human(rate: f64) -> String {
    if rate >= 1e6 {
        format!("{:.2} M", rate / 1e6)
    } else if rate >= 1e3 {
        format!("{:.1} k", rate / 1e3)
    } else {
        format!("{rate:.0}")
    }
}

fn list(invs: &[Invariant]) -> String {
    invs.iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

fn write_sweep(
    out: &mut impl Write,
    r: &SweepReport,
    what: &str,
    target: &Target,
    secs: f64,
) -> std::io::Result<()> {
    let what = crate::shown_text(what);
    writeln!(
        out,
        "seed sweep of {what}: seeds {}..{}, each run with fencing on and off ({} runs/s)",
        r.first_seed,
        u128::from(r.first_seed) + u128::from(r.seeds),
        human(r.runs_per_sec(secs))
    )?;
    for fencing in [true, false] {
        let Some(m) = r.mode(fencing) else { continue };
        let label = if fencing {
            "fencing on "
        } else {
            "fencing off"
        };
        write!(
            out,
            "  {label}: {} of {} runs violated",
            m.violating_runs, r.runs
        )?;
        if m.violating_runs > 0 {
            let per: Vec<String> = Invariant::ALL
                .iter()
                .filter(|i| m.by_invariant.get(**i) > 0)
                .map(|i| format!("{i} {}", m.by_invariant.get(*i)))
                .collect();
            let first: Vec<String> = m
                .first_violating
                .iter()
                .map(|h| h.seed.to_string())
                .collect();
            write!(
                out,
                " ({}); first seeds: {}",
                per.join(", "),
                first.join(" ")
            )?;
        }
        writeln!(out)?;
        if let (Some(hit), Target::Template(_)) = (m.first_violating.first(), target) {
            let flag = if fencing { "" } else { " --no-fencing" };
            writeln!(
                out,
                "               replay: fencepost sim --template {what} --seed {}{flag}",
                hit.seed
            )?;
        }
    }
    Ok(())
}

fn write_search(
    out: &mut impl Write,
    r: &SearchReport,
    world: &Scenario,
    scope: &Scope,
    secs: f64,
) -> std::io::Result<()> {
    let kinds: Vec<&str> = [
        (!scope.pause_ms.is_empty(), "pauses"),
        (!scope.hold_ms.is_empty(), "held writes"),
        (!scope.jump_ms.is_empty(), "clock jumps"),
    ]
    .into_iter()
    .filter_map(|(on, k)| on.then_some(k))
    .collect();
    writeln!(
        out,
        "exhaustive search of the {} world ({} workers), fencing {}, at most {} faults ({}; lengths around the {} lease)",
        if world.name.is_empty() {
            "scenario".into()
        } else {
            crate::shown_text(&world.name)
        },
        world.workers.len(),
        if r.fencing { "on" } else { "off" },
        scope.max_faults,
        kinds.join(", "),
        fmt_secs(world.lease_ttl_ms)
    )?;
    writeln!(
        out,
        "  {} distinct states ({} generated, {} explored), depth {}{}; {} distinct states/s, {} generated/s",
        r.distinct_states,
        r.states_generated,
        r.states_explored,
        r.depth,
        if r.complete { ", the whole scope" } else { "" },
        human(per_sec(r.distinct_states, secs)),
        human(per_sec(r.states_generated, secs))
    )?;
    match &r.counterexample {
        None if r.complete => writeln!(out, "  no violation anywhere in the scope")?,
        None => writeln!(out, "  no violation found (the search was cut short)")?,
        Some(cx) => {
            writeln!(
                out,
                "  shortest counterexample: {} actions, breaks {} at {}",
                cx.depth,
                list(&cx.broken),
                fmt_secs(cx.t_ms)
            )?;
            for f in &cx.faults {
                writeln!(out, "    - {}", crate::shown_text(&f.describe()))?;
            }
            writeln!(
                out,
                "  the scenario (save it and run `fencepost sim FILE` to replay it):"
            )?;
            writeln!(out, "{}", cx.scenario.to_json())?;
        }
    }
    Ok(())
}
