//! The Explore panel: a seed sweep run in slices (progress, cancel, counts with and without
//! fencing, violating seeds to load) and an exhaustive search for a shortest counterexample.
//!
//! The work is done by fencepost-sim's [`Sweep`] and [`Search`], a slice at a time, by
//! [`super::explore_runner`].

use std::cell::RefCell;
use std::rc::Rc;

use fencepost_sim::explore::{Scope, Search, SearchOptions, SearchReport, world_of};
use fencepost_sim::sweep::{Sweep, SweepOptions};
use fencepost_sim::template::{Source, TEMPLATES, template};
use fencepost_sim::trace::fmt_secs;
use fencepost_sim::{Invariant, Scenario};
use yew::prelude::*;

use super::callbacks::{Dispatch, input_value, select_value};
use super::explore_runner::{Job, Runner, View};
use crate::dom;
use crate::state::{Action, Load, Origin};
use crate::text::fixed0;

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

#[derive(Properties, PartialEq)]
pub struct ExploreProps {
    pub scenario: Scenario,
    pub dispatch: Dispatch,
}

/// The Explore panel.
#[component]
pub fn ExplorePanel(props: &ExploreProps) -> Html {
    let view = use_state(View::default);
    let runner = use_mut_ref(Runner::default);
    let source = use_state(|| SweepSource::Template(TEMPLATES[0].0));
    let seeds_text = use_state(|| "1000".to_string());
    // Leaving the page (or the panel) stops the job.
    {
        let runner = runner.clone();
        use_effect_with((), move |_| {
            move || {
                runner.borrow_mut().stop();
            }
        });
    }
    let run_sweep = run_sweep(&runner, &view, &source, &seeds_text, &props.scenario);
    let run_search = run_search(&runner, &view, &props.scenario);
    let cancel = cancel(&runner, &view);
    let on_seeds = {
        let seeds_text = seeds_text.clone();
        Callback::from(move |e: InputEvent| seeds_text.set(input_value(&e)))
    };
    let v = &*view;
    html! {
        <section class="explore-panel" aria-label="Explore">
            <h2>{ "Explore" }</h2>
            <p class="hint">{ "Run many seeds and count what breaks, with and without fencing; or search every combination of a few faults for the shortest run that breaks something." }</p>
            <div class="explore-controls">
                <label>{ "Sweep " }
                    <select onchange={pick_source(&source)} aria-label="What to sweep">
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
            { sweep_result(v, &props.dispatch) }
            if let Some(r) = &v.search {
                { search_result(v, r, &props.dispatch) }
            }
        </section>
    }
}

/// "Run sweep": the sweep over the seeds typed, of the source picked.
fn run_sweep(
    runner: &Rc<RefCell<Runner>>,
    view: &UseStateHandle<View>,
    source: &UseStateHandle<SweepSource>,
    seeds_text: &UseStateHandle<String>,
    scenario: &Scenario,
) -> Callback<MouseEvent> {
    let (runner, view, source, seeds_text) = (
        runner.clone(),
        view.clone(),
        source.clone(),
        seeds_text.clone(),
    );
    let scenario = scenario.clone();
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
        Runner::start(&runner, &view, Job::Sweep(Box::new(sweep)), fresh);
    })
}

/// "Find the shortest counterexample": the exhaustive search around the scenario's lease TTL.
fn run_search(
    runner: &Rc<RefCell<Runner>>,
    view: &UseStateHandle<View>,
    scenario: &Scenario,
) -> Callback<MouseEvent> {
    let (runner, view, scenario) = (runner.clone(), view.clone(), scenario.clone());
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
                Runner::start(&runner, &view, Job::Search(Box::new(search)), fresh);
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
}

/// "Cancel": stops the job, and says which one was cancelled.
fn cancel(runner: &Rc<RefCell<Runner>>, view: &UseStateHandle<View>) -> Callback<MouseEvent> {
    let (runner, view) = (runner.clone(), view.clone());
    Callback::from(move |_: MouseEvent| {
        let was = runner.borrow_mut().stop();
        view.set(View {
            running: false,
            searching: false,
            sweep_cancelled: view.sweep_cancelled || matches!(was, Some(Job::Sweep(_))),
            search_cancelled: view.search_cancelled || matches!(was, Some(Job::Search(_))),
            ..(*view).clone()
        });
    })
}

/// The source picker: a template by name, or the scenario on screen.
fn pick_source(source: &UseStateHandle<SweepSource>) -> Callback<Event> {
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
}

/// Loads `scenario`, from Explore, and shows it at the top of the page.
fn load(dispatch: &Dispatch, scenario: Scenario) {
    dispatch.dispatch(Action::Load(Load::Scenario(
        Box::new(scenario),
        Origin::Explore,
    )));
    dom::scroll_to_top();
}

/// The sweep's progress and its table, once a sweep ran.
fn sweep_result(v: &View, dispatch: &Dispatch) -> Html {
    html! {
        <>
            if let Some(p) = v.progress {
                <div class="progress">
                    <progress max={p.total.to_string()} value={p.done.to_string()} aria-label="Sweep progress" />
                    <span class="progress-text" aria-live="polite">
                        { format!("{} / {} seeds", p.done, p.total) }
                        if v.sweep_cancelled { { " — cancelled" } }
                        else if p.finished() { { " — done" } }
                        if let Some(rps) = v.runs_per_sec {
                            { format!(" ({} runs/s)", fixed0(rps)) }
                        }
                    </span>
                </div>
            }
            if v.sweep.is_some() {
                <table class="sweep">
                    <thead><tr><th scope="col">{ "Fencing" }</th><th scope="col">{ "Runs that broke something" }</th><th scope="col">{ "By invariant" }</th><th scope="col">{ "First violating seeds (click to load)" }</th></tr></thead>
                    <tbody>
                        { mode_row(v, "on", true, dispatch) }
                        { mode_row(v, "off", false, dispatch) }
                    </tbody>
                </table>
            }
        </>
    }
}

/// One row of the sweep's table: the runs with fencing on, or off.
fn mode_row(v: &View, label: &str, fencing: bool, dispatch: &Dispatch) -> Html {
    let rep = v.sweep.as_ref().and_then(|r| r.mode(fencing));
    let Some(rep) = rep else { return html! {} };
    let runs = v.sweep.as_ref().map_or(0, |r| r.runs);
    let by: Vec<String> = Invariant::ALL
        .iter()
        .filter(|i| rep.by_invariant.get(**i) > 0)
        .map(|i| format!("{i} {}", rep.by_invariant.get(*i)))
        .collect();
    // Loading a violating seed: the scenario that seed ran in the sweep, with fencing as it was run.
    let load_seed = |seed: u64| {
        let dispatch = dispatch.clone();
        let swept = v.swept.clone();
        Callback::from(move |_: MouseEvent| {
            let Some(source) = &swept else { return };
            let mut s = source.derive(seed);
            s.protections.fencing = fencing;
            load(&dispatch, s);
        })
    };
    html! {
        <tr>
            <th scope="row">{ label }</th>
            <td class="count">{ format!("{} of {runs}", rep.violating_runs) }</td>
            <td>{ if by.is_empty() { "—".to_string() } else { by.join(", ") } }</td>
            <td class="seeds">
                { for rep.first_violating.iter().map(|hit| html! {
                    <button type="button" class="small seed" onclick={load_seed(hit.seed)}
                        aria-label={format!("Load seed {} ({}), fencing {}", hit.seed, invariants(&hit.broken), if fencing { "on" } else { "off" })}>
                        { format!("seed {} ({})", hit.seed, invariants(&hit.broken)) }
                    </button>
                }) }
            </td>
        </tr>
    }
}

/// What the last search found: its size, and the shortest counterexample, if any.
fn search_result(v: &View, r: &SearchReport, dispatch: &Dispatch) -> Html {
    let load_cx = r.counterexample.clone().map(|cx| {
        let dispatch = dispatch.clone();
        let s = cx.scenario.clone();
        Callback::from(move |_: MouseEvent| load(&dispatch, s.clone()))
    });
    html! {
        <div class="search-result" aria-live="polite">
            <p>{ format!(
                "Exhaustive search, fencing {}: {} distinct states{}.",
                if r.fencing { "on" } else { "off" },
                r.distinct_states,
                if v.searching { ", searching…" } else if v.search_cancelled { ", cancelled" } else if r.complete { ", the whole scope" } else { "" }
            ) }</p>
            if let Some(cx) = &r.counterexample {
                <p class="cx">
                    <strong>{ format!("Shortest counterexample: {} actions, breaks {} at {}.", cx.depth, invariants(&cx.broken), fmt_secs(cx.t_ms)) }</strong>
                </p>
                <ul>{ for cx.faults.iter().map(|f| html! { <li>{ f.describe() }</li> }) }</ul>
                <button type="button" onclick={load_cx}>{ "Load the counterexample" }</button>
            } else if !v.running && r.complete {
                <p class="verdict-ok">{ format!("✓ No violation anywhere in the scope (up to {SEARCH_FAULTS} pauses, held writes or clock jumps around the lease TTL).") }</p>
            }
        </div>
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
