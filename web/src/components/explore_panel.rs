//! The Explore panel: a seed sweep run in slices (progress, cancel, counts with and without
//! fencing, violating seeds to load) and an exhaustive search for a shortest counterexample.
//!
//! The work is done by fencepost-sim's [`Sweep`] and [`Search`], a slice at a time: each slice runs
//! for a few milliseconds, then yields to the browser with a zero-delay timeout, so the page keeps
//! responding. Dropping the pending timeout cancels the job.

use std::cell::RefCell;
use std::rc::Rc;

use fencepost_sim::explore::{Scope, Search, SearchOptions, SearchReport, world_of};
use fencepost_sim::sweep::{Progress, Sweep, SweepOptions, SweepReport};
use fencepost_sim::template::{Source, TEMPLATES, template};
use fencepost_sim::{Invariant, Scenario};
use gloo_timers::callback::Timeout;
use yew::prelude::*;

use super::{Dispatch, input_value, select_value};
use crate::dom;
use crate::state::{Action, Load, Origin};

/// Time one slice may take before yielding to the browser.
const SLICE_MS: f64 = 12.0;
/// Most seeds one sweep may cover.
pub const MAX_SEEDS: u64 = 1_000_000;
/// Most faults on one path of the exhaustive search.
const SEARCH_FAULTS: u32 = 2;

/// What the sweep runs: the scenario on screen (only latency draws change with the seed) or a
/// built-in template (a new scenario per seed).
#[derive(Clone, Debug, PartialEq)]
pub enum SweepSource {
    /// The scenario being shown.
    Current,
    /// A built-in template, by name.
    Template(&'static str),
}

/// Seeds typed by a person: a whole number from 1 to [`MAX_SEEDS`].
pub fn parse_seeds(text: &str) -> Result<u64, String> {
    match text.trim().replace('_', "").parse::<u64>() {
        Ok(n) if (1..=MAX_SEEDS).contains(&n) => Ok(n),
        _ => Err(format!(
            "The number of seeds must be a whole number from 1 to {MAX_SEEDS}."
        )),
    }
}

/// `I1 I2 I4`.
pub fn invariants(list: &[Invariant]) -> String {
    list.iter()
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

enum Job {
    Sweep(Box<Sweep>),
    Search(Box<Search>),
}

/// What the panel shows: the last sweep and the last search, and which one is running.
#[derive(Clone, Debug, PartialEq, Default)]
struct View {
    running: bool,
    /// The running job is the search.
    searching: bool,
    /// The last sweep was cancelled.
    sweep_cancelled: bool,
    /// The last search was cancelled.
    search_cancelled: bool,
    progress: Option<Progress>,
    sweep: Option<SweepReport>,
    /// What the last sweep ran: its seeds load from this, whatever the source picker and the
    /// scenario on screen say now.
    swept: Option<Rc<Source>>,
    search: Option<SearchReport>,
    runs_per_sec: Option<f64>,
    error: Option<String>,
}

struct Runner {
    job: Option<Job>,
    pending: Option<Timeout>,
    busy_ms: f64,
}

/// Runs one slice of the job, publishes what it found, and schedules the next slice.
fn pump(runner: Rc<RefCell<Runner>>, view: UseStateHandle<View>) {
    let mut r = runner.borrow_mut();
    let start = dom::now();
    let mut next = (*view).clone();
    match r.job.as_mut() {
        Some(Job::Sweep(sweep)) => {
            let mut p = sweep.progress();
            // Step in small batches until the slice is used up.
            while !p.finished() && dom::now() - start < SLICE_MS {
                p = sweep.step(4);
            }
            next.progress = Some(p);
            next.sweep = Some(sweep.report().clone());
            if p.finished() {
                next.running = false;
            }
        }
        Some(Job::Search(search)) => {
            let mut done = search.finished();
            let mut failed = None;
            while !done && dom::now() - start < SLICE_MS {
                match search.step(256) {
                    Ok(d) => done = d,
                    Err(e) => {
                        failed = Some(e.to_string());
                        done = true;
                    }
                }
            }
            next.search = Some(search.report().clone());
            next.error = failed;
            if done {
                next.running = false;
                next.searching = false;
            }
        }
        None => {
            next.running = false;
            next.searching = false;
        }
    }
    r.busy_ms += dom::now() - start;
    // The rate is the sweep's: a search running later must not divide its time into those runs.
    if let (Some(Job::Sweep(_)), Some(rep)) = (&r.job, &next.sweep) {
        next.runs_per_sec = Some(rep.runs_per_sec(r.busy_ms / 1000.0));
    }
    if next.running {
        let (runner2, view2) = (runner.clone(), view.clone());
        r.pending = Some(Timeout::new(0, move || pump(runner2, view2)));
    } else {
        r.pending = None;
        r.job = None;
    }
    drop(r);
    view.set(next);
}

#[derive(Properties, PartialEq)]
pub struct ExploreProps {
    pub scenario: Scenario,
    pub dispatch: Dispatch,
}

/// The Explore panel.
#[component]
pub fn ExplorePanel(props: &ExploreProps) -> Html {
    let view = use_state(View::default);
    let runner = use_mut_ref(|| Runner {
        job: None,
        pending: None,
        busy_ms: 0.0,
    });
    let source = use_state(|| SweepSource::Template(TEMPLATES[0].0));
    let seeds_text = use_state(|| "1000".to_string());
    // Leaving the page (or the panel) stops the job.
    {
        let runner = runner.clone();
        use_effect_with((), move |_| {
            move || {
                let mut r = runner.borrow_mut();
                r.pending = None;
                r.job = None;
            }
        });
    }

    let start_job = {
        let runner = runner.clone();
        let view = view.clone();
        move |job: Job, fresh: View| {
            let mut r = runner.borrow_mut();
            r.pending = None;
            r.job = Some(job);
            r.busy_ms = 0.0;
            let (runner2, view2) = (runner.clone(), view.clone());
            r.pending = Some(Timeout::new(0, move || pump(runner2, view2)));
            drop(r);
            view.set(fresh);
        }
    };

    let run_sweep = {
        let start_job = start_job.clone();
        let source = source.clone();
        let scenario = props.scenario.clone();
        let seeds_text = seeds_text.clone();
        let view = view.clone();
        Callback::from(move |_: MouseEvent| {
            let seeds = match parse_seeds(&seeds_text) {
                Ok(n) => n,
                Err(e) => {
                    view.set(View {
                        error: Some(e),
                        ..(*view).clone()
                    });
                    return;
                }
            };
            let src = match &*source {
                SweepSource::Current => Source::Fixed(scenario.clone()),
                SweepSource::Template(name) => match template(name) {
                    Some(t) => Source::Template(t),
                    None => return,
                },
            };
            let swept = Rc::new(src.clone());
            let sweep = Sweep::new(src, 0, seeds, SweepOptions::default());
            let fresh = View {
                running: true,
                progress: Some(sweep.progress()),
                sweep: Some(sweep.report().clone()),
                swept: Some(swept),
                search: view.search.clone(),
                search_cancelled: view.search_cancelled,
                ..View::default()
            };
            start_job(Job::Sweep(Box::new(sweep)), fresh);
        })
    };

    let run_search = {
        let start_job = start_job.clone();
        let scenario = props.scenario.clone();
        let view = view.clone();
        Callback::from(move |_: MouseEvent| {
            let world = world_of(&scenario);
            let scope = Scope::around_ttl(scenario.lease_ttl_ms, SEARCH_FAULTS);
            match Search::new(&world, &scope, SearchOptions::default()) {
                Ok(search) => {
                    let fresh = View {
                        running: true,
                        searching: true,
                        search: Some(search.report().clone()),
                        sweep: view.sweep.clone(),
                        swept: view.swept.clone(),
                        progress: view.progress,
                        runs_per_sec: view.runs_per_sec,
                        sweep_cancelled: view.sweep_cancelled,
                        ..View::default()
                    };
                    start_job(Job::Search(Box::new(search)), fresh);
                }
                Err(e) => view.set(View {
                    error: Some(format!(
                        "The exhaustive search cannot model this scenario: {e}"
                    )),
                    search: None,
                    ..(*view).clone()
                }),
            }
        })
    };

    let cancel = {
        let runner = runner.clone();
        let view = view.clone();
        Callback::from(move |_: MouseEvent| {
            let mut r = runner.borrow_mut();
            r.pending = None;
            let was = r.job.take();
            drop(r);
            view.set(View {
                running: false,
                searching: false,
                sweep_cancelled: view.sweep_cancelled || matches!(was, Some(Job::Sweep(_))),
                search_cancelled: view.search_cancelled || matches!(was, Some(Job::Search(_))),
                ..(*view).clone()
            });
        })
    };

    let on_seeds = {
        let seeds_text = seeds_text.clone();
        Callback::from(move |e: InputEvent| seeds_text.set(input_value(&e)))
    };

    let pick_source = {
        let source = source.clone();
        Callback::from(move |e: Event| {
            let v = select_value(&e);
            let s = match v.strip_prefix("template:") {
                Some(name) => TEMPLATES
                    .iter()
                    .find(|(n, _)| *n == name)
                    .map_or(SweepSource::Current, |(n, _)| SweepSource::Template(n)),
                None => SweepSource::Current,
            };
            source.set(s);
        })
    };

    // Loading a violating seed: the scenario that seed ran in the sweep, with fencing as it was run.
    let load_seed = {
        let dispatch = props.dispatch.clone();
        let swept = view.swept.clone();
        move |seed: u64, fencing: bool| {
            let dispatch = dispatch.clone();
            let swept = swept.clone();
            Callback::from(move |_: MouseEvent| {
                let Some(source) = &swept else { return };
                let mut s = source.derive(seed);
                s.protections.fencing = fencing;
                dispatch.dispatch(Action::Load(Load::Scenario(Box::new(s), Origin::Explore)));
                dom::scroll_to_top();
            })
        }
    };

    let v = &*view;
    let mode_row = |label: &str, fencing: bool| {
        let rep = v.sweep.as_ref().and_then(|r| r.mode(fencing));
        let Some(rep) = rep else { return html! {} };
        let runs = v.sweep.as_ref().map_or(0, |r| r.runs);
        let by: Vec<String> = Invariant::ALL
            .iter()
            .filter(|i| rep.by_invariant.get(**i) > 0)
            .map(|i| format!("{i} {}", rep.by_invariant.get(*i)))
            .collect();
        html! {
            <tr>
                <th scope="row">{ label }</th>
                <td class="count">{ format!("{} of {runs}", rep.violating_runs) }</td>
                <td>{ if by.is_empty() { "—".to_string() } else { by.join(", ") } }</td>
                <td class="seeds">
                    { for rep.first_violating.iter().map(|hit| html! {
                        <button type="button" class="small seed" onclick={load_seed(hit.seed, fencing)}
                            aria-label={format!("Load seed {} ({}), fencing {}", hit.seed, invariants(&hit.broken), if fencing { "on" } else { "off" })}>
                            { format!("seed {} ({})", hit.seed, invariants(&hit.broken)) }
                        </button>
                    }) }
                </td>
            </tr>
        }
    };

    let load_cx = v
        .search
        .as_ref()
        .and_then(|r| r.counterexample.clone())
        .map(|cx| {
            let dispatch = props.dispatch.clone();
            let s = cx.scenario.clone();
            Callback::from(move |_: MouseEvent| {
                dispatch.dispatch(Action::Load(Load::Scenario(
                    Box::new(s.clone()),
                    Origin::Explore,
                )));
                dom::scroll_to_top();
            })
        });

    html! {
        <section class="explore-panel" aria-label="Explore">
            <h2>{ "Explore" }</h2>
            <p class="hint">{ "Run many seeds and count what breaks, with and without fencing; or search every combination of a few faults for the shortest run that breaks something." }</p>
            <div class="explore-controls">
                <label>{ "Sweep " }
                    <select onchange={pick_source} aria-label="What to sweep">
                        { for TEMPLATES.iter().map(|(name, _)| html! {
                            <option value={format!("template:{name}")} selected={*source == SweepSource::Template(name)}>
                                { format!("template {name}: new faults every seed") }
                            </option>
                        }) }
                        <option value="current" selected={*source == SweepSource::Current}>{ "this scenario: only latency varies by seed" }</option>
                    </select>
                </label>
                <label>{ " over " }
                    <input type="text" inputmode="numeric" size="7" value={(*seeds_text).clone()} oninput={on_seeds} aria-label="Number of seeds" />
                    { " seeds" }
                </label>
                <button type="button" class="primary" onclick={run_sweep} disabled={v.running}>{ "Run sweep" }</button>
                <button type="button" onclick={run_search} disabled={v.running}>{ "Find the shortest counterexample" }</button>
                <button type="button" onclick={cancel} disabled={!v.running}>{ "Cancel" }</button>
            </div>
            if let Some(e) = &v.error {
                <p class="error-inline" role="alert">{ e.clone() }</p>
            }
            if let Some(p) = v.progress {
                <div class="progress">
                    <progress max={p.total.to_string()} value={p.done.to_string()} aria-label="Sweep progress" />
                    <span class="progress-text" aria-live="polite">
                        { format!("{} / {} seeds", p.done, p.total) }
                        if v.sweep_cancelled { { " — cancelled" } }
                        else if p.finished() { { " — done" } }
                        if let Some(rps) = v.runs_per_sec {
                            { format!(" ({} runs/s)", crate::text::fixed0(rps)) }
                        }
                    </span>
                </div>
            }
            if v.sweep.is_some() {
                <table class="sweep">
                    <thead><tr><th scope="col">{ "Fencing" }</th><th scope="col">{ "Runs that broke something" }</th><th scope="col">{ "By invariant" }</th><th scope="col">{ "First violating seeds (click to load)" }</th></tr></thead>
                    <tbody>
                        { mode_row("on", true) }
                        { mode_row("off", false) }
                    </tbody>
                </table>
            }
            if let Some(r) = &v.search {
                <div class="search-result" aria-live="polite">
                    <p>{ format!(
                        "Exhaustive search, fencing {}: {} distinct states{}.",
                        if r.fencing { "on" } else { "off" },
                        r.distinct_states,
                        if v.searching { ", searching…" } else if v.search_cancelled { ", cancelled" } else if r.complete { ", the whole scope" } else { "" }
                    ) }</p>
                    if let Some(cx) = &r.counterexample {
                        <p class="cx">
                            <strong>{ format!("Shortest counterexample: {} actions, breaks {} at {}.", cx.depth, invariants(&cx.broken), fencepost_sim::trace::fmt_secs(cx.t_ms)) }</strong>
                        </p>
                        <ul>{ for cx.faults.iter().map(|f| html! { <li>{ f.describe() }</li> }) }</ul>
                        <button type="button" onclick={load_cx}>{ "Load the counterexample" }</button>
                    } else if !v.running && r.complete {
                        <p class="verdict-ok">{ format!("✓ No violation anywhere in the scope (up to {SEARCH_FAULTS} pauses, held writes or clock jumps around the lease TTL).") }</p>
                    }
                </div>
            }
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_typed_by_people() {
        assert_eq!(parse_seeds("1000"), Ok(1000));
        assert_eq!(parse_seeds(" 10_000 "), Ok(10_000));
        assert!(parse_seeds("0").is_err());
        assert!(parse_seeds("-5").is_err());
        assert!(parse_seeds("1e9").is_err());
        assert!(parse_seeds(&(MAX_SEEDS + 1).to_string()).is_err());
        assert_eq!(
            invariants(&[Invariant::I1, Invariant::I4]),
            "I1 I4".to_string()
        );
    }

    #[test]
    fn the_default_search_scope_finds_the_paused_worker_counterexample_only_without_fencing() {
        let mut s = fencepost_sim::preset("paused-worker").unwrap().scenario();
        let scope = Scope::around_ttl(s.lease_ttl_ms, SEARCH_FAULTS);
        let on = fencepost_sim::explore::search(&world_of(&s), &scope, SearchOptions::default())
            .unwrap();
        assert!(on.complete);
        assert!(on.counterexample.is_none());
        s.protections.fencing = false;
        let off = fencepost_sim::explore::search(&world_of(&s), &scope, SearchOptions::default())
            .unwrap();
        let cx = off.counterexample.unwrap();
        assert!(!fencepost_sim::run(&cx.scenario).verdict.ok);
    }
}
