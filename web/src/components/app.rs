//! The page.

use std::cell::Cell;
use std::rc::Rc;

use fencepost_sim::Actor;
use gloo_events::{EventListener, EventListenerOptions};
use gloo_timers::callback::Interval;
use wasm_bindgen::JsCast;
use yew::prelude::*;

use super::explore_panel::ExplorePanel;
use super::help::Help;
use super::legend::Legend;
use super::messages::Messages;
use super::narration::Narration;
use super::play_bar::PlayBar;
use super::scenario_panel::ScenarioPanel;
use super::share_panel::SharePanel;
use super::storage_panel::StoragePanel;
use super::timeline::Timeline;
use super::tour_card::TourCard;
use super::verdict::Verdict;
use super::{send, send_and_refocus, target};
use crate::address::{AddressBar, Entry, follow_address, landing};
use crate::dom;
use crate::model::{Playhead, TokenStyle};
use crate::state::{Action, Edit, Message, Play, State, Switch, TourStep};

/// localStorage key remembering that the visitor has left the tour (finished or not).
const TOUR_SEEN: &str = "fencepost.tour-seen";
/// Playback clock period.
const FRAME_MS: u32 = 16;

/// The state a visitor lands on (see [`landing`]).
fn initial_state() -> State {
    let embed = dom::has_flag(&dom::query(), "embed");
    let seen = dom::stored(TOUR_SEEN).is_some();
    landing(&dom::hash(), dom::history_note().as_deref(), embed, seen)
}

/// Whether `target` takes typed keys itself (text boxes, selects): shortcuts leave them alone.
fn is_text_field(target: &web_sys::Element) -> bool {
    match target.tag_name().to_ascii_lowercase().as_str() {
        "textarea" | "select" => true,
        "input" => !matches!(
            target.get_attribute("type").as_deref(),
            Some("checkbox" | "radio" | "button" | "submit" | "reset" | "file" | "range")
        ),
        _ => target
            .get_attribute("contenteditable")
            .is_some_and(|v| v != "false"),
    }
}

/// Whether Space and Enter on `target` activate it (buttons, checkboxes, links, summaries):
/// those keys are then the control's, not the page's.
fn is_activator(target: &web_sys::Element) -> bool {
    match target.tag_name().to_ascii_lowercase().as_str() {
        "button" | "summary" => true,
        "a" => target.has_attribute("href"),
        "input" => matches!(
            target.get_attribute("type").as_deref(),
            Some("checkbox" | "radio" | "button" | "submit" | "reset" | "file")
        ),
        _ => matches!(
            target.get_attribute("role").as_deref(),
            Some("button" | "checkbox" | "link" | "switch")
        ),
    }
}

#[component]
pub fn App() -> Html {
    let state = use_reducer(initial_state);
    let dispatch = state.dispatcher();
    let bench = use_memo((), |_| dom::has_flag(&dom::query(), "bench"));
    let bench = *bench;
    // The event list is long: it is drawn in a task of its own once the first timeline is up.
    let list_ready = use_state(|| false);
    let on_drawn = {
        let list_ready = list_ready.clone();
        let pending = use_mut_ref(|| None::<gloo_timers::callback::Timeout>);
        Callback::from(move |()| {
            if !*list_ready && pending.borrow().is_none() {
                let list_ready = list_ready.clone();
                *pending.borrow_mut() = Some(gloo_timers::callback::Timeout::new(0, move || {
                    list_ready.set(true)
                }));
            }
        })
    };

    // Playback clock: an interval that lives exactly as long as playback; dropping it stops it.
    {
        let dispatch = dispatch.clone();
        use_effect_with(state.play.playing, move |playing| {
            let clock = playing.then(|| {
                let last = Rc::new(Cell::new(dom::now()));
                Interval::new(FRAME_MS, move || {
                    let now = dom::now();
                    let real = now - last.replace(now);
                    if bench {
                        dom::frame_start();
                    }
                    dispatch.dispatch(Action::Play(Play::Tick(real)));
                })
            });
            move || drop(clock)
        });
    }

    // Keyboard shortcuts.
    {
        let dispatch = dispatch.clone();
        use_effect_with((), move |_| {
            let listener = web_sys::window().and_then(|w| w.document()).map(|doc| {
                EventListener::new_with_options(
                    &doc,
                    "keydown",
                    EventListenerOptions::enable_prevent_default(),
                    move |e| {
                        let Some(e) = e.dyn_ref::<web_sys::KeyboardEvent>() else {
                            return;
                        };
                        if e.ctrl_key() || e.meta_key() || e.alt_key() {
                            return;
                        }
                        let el = target::<web_sys::Element>(e);
                        let in_field = el.as_ref().is_some_and(is_text_field);
                        let activator = el.as_ref().is_some_and(is_activator);
                        let on_range = target::<web_sys::HtmlInputElement>(e)
                            .is_some_and(|i| i.type_() == "range");
                        let action = match e.key().as_str() {
                            _ if in_field && e.key() != "Escape" => None,
                            " " | "Enter" if activator => None,
                            " " => Some(Action::Play(Play::Toggle)),
                            "ArrowRight" if !on_range => Some(Action::Play(Play::Next)),
                            "ArrowLeft" if !on_range => Some(Action::Play(Play::Prev)),
                            "Home" if !on_range => Some(Action::Play(Play::Restart)),
                            "End" if !on_range => Some(Action::Play(Play::End)),
                            "f" | "F" => Some(Action::Edit(Edit::Toggle(Switch::Fencing))),
                            "?" => Some(Action::ToggleHelp),
                            "Escape" => Some(Action::Message(Message::Dismiss)),
                            _ => None,
                        };
                        if let Some(a) = action {
                            e.prevent_default();
                            dispatch.dispatch(a);
                        }
                    },
                )
            });
            move || drop(listener)
        });
    }

    // A link pasted into the address bar of an open page.
    {
        let dispatch = dispatch.clone();
        use_effect_with((), move |_| {
            let listener = web_sys::window().map(|w| {
                EventListener::new(&w, "hashchange", move |_| {
                    if let Some(a) = follow_address(&dom::hash(), dom::history_note().as_deref()) {
                        dispatch.dispatch(a);
                    }
                })
            });
            move || drop(listener)
        });
    }

    // The URL carries the scenario (during the tour, the chapter). Each
    // story loaded gets a history entry of its own, so that Back returns to the one before; edits
    // replace the current entry. A link that failed to load stays in the address bar until the
    // learner changes something: it is theirs to fix or pass back.
    {
        let bar = use_mut_ref(|| AddressBar::new(&state, &dom::hash()));
        use_effect_with(
            (
                state.story.scenario.clone(),
                state.tour.chapter,
                state.story.entry,
                state.story.origin,
            ),
            move |(scenario, tour, story, origin)| {
                let entry = bar
                    .borrow_mut()
                    .follow(scenario, *tour, *story, *origin, &dom::hash());
                match entry {
                    Entry::Keep => {}
                    Entry::Replace { fragment, note } => dom::replace_hash(&fragment, note),
                    Entry::Push { fragment, note } => dom::push_hash(&fragment, note),
                    Entry::Back => dom::history_back(),
                }
            },
        );
    }
    // Leaving the tour once is enough: it does not come back on the next visit. A visit that never
    // showed it (a shared link, an embed) leaves it for the first plain visit.
    {
        let touring = state.tour.chapter.is_some() && !state.embed;
        let shown = use_mut_ref(|| false);
        use_effect_with(touring, move |touring| {
            if *touring {
                *shown.borrow_mut() = true;
            } else if shown.replace(false) {
                dom::store(TOUR_SEEN, "1");
            }
        });
    }

    let head = state.play.head;
    let end = state.end();
    let highlight: Vec<Actor> = state.tour.actors();
    // The pause the last lane click added, marked on its lane until the playhead reaches it.
    let pending = state.story.clicks.pending();
    let on_lane_click = {
        let dispatch = dispatch.clone();
        Callback::from(move |(worker, at): (usize, u64)| {
            dispatch.dispatch(Action::Edit(Edit::LaneClick { worker, at }));
        })
    };

    let timelines = match &state.compare {
        Some([off, on]) => {
            let off_head = Playhead::at_time(&off.trace, head.t);
            let on_head = Playhead::at_time(&on.trace, head.t);
            html! {
                <div class="compare">
                    <div class="compare-one">
                        <Timeline run={off.clone()} t={head.t} upto={off_head.upto} end={end} zoom={state.play.zoom_factor()}
                            id="timeline-off" caption={Some(AttrValue::from("Fencing off: the storage keeps whatever arrives last"))}
                            highlight={highlight.clone()} on_lane_click={Some(on_lane_click.clone())} pending={pending} bench={bench}
                            on_drawn={Some(on_drawn.clone())} />
                        <Verdict trace={off.trace.clone()} upto={off_head.upto} compact=true tokens={off.timeline.tokens} />
                    </div>
                    <div class="compare-one">
                        <Timeline run={on.clone()} t={head.t} upto={on_head.upto} end={end} zoom={state.play.zoom_factor()}
                            id="timeline-on" caption={Some(AttrValue::from(fenced_caption(on.timeline.tokens)))}
                            highlight={highlight.clone()} on_lane_click={Some(on_lane_click.clone())} pending={pending} />
                        <Verdict trace={on.trace.clone()} upto={on_head.upto} compact=true tokens={on.timeline.tokens} />
                    </div>
                </div>
            }
        }
        None => html! {
            <Timeline run={state.run.clone()} t={head.t} upto={head.upto} end={end} zoom={state.play.zoom_factor()}
                id="timeline-main" highlight={highlight.clone()}
                on_lane_click={(!state.embed).then_some(on_lane_click.clone())} pending={pending} bench={bench}
                on_drawn={Some(on_drawn.clone())} />
        },
    };

    let playbar = html! {
        <PlayBar t={head.t} end={end} playing={state.play.playing} speed={state.play.speed}
            speed_factor={state.play.speed_factor()} zoom={state.play.zoom} dispatch={dispatch.clone()} />
    };

    if state.embed {
        return html! {
            <main class="app embed">
                { timelines }
                { playbar }
                <Verdict trace={state.run.trace.clone()} upto={head.upto} compact=true tokens={state.run.timeline.tokens} />
            </main>
        };
    }

    // In compare mode the panels beside and below describe the scenario's own run: say which
    // of the two timelines that is.
    let which = state.compare.as_ref().map(|_| {
        AttrValue::from(if state.story.scenario.protections.fencing {
            "Showing the lower timeline: fencing on, as the scenario has it."
        } else {
            "Showing the upper timeline: fencing off, as the scenario has it."
        })
    });
    let start_tour = send_and_refocus(&dispatch, Action::Tour(TourStep::Start));
    let help = send(&dispatch, Action::ToggleHelp);
    html! {
        <div class={classes!("app", state.tour.chapter.is_some().then_some("touring"))}>
            <header class="top">
                <div class="brand">
                    <h1>{ "fencepost" }</h1>
                    <p class="tagline">{ "Leases, frozen workers and fencing tokens — simulated, step by step." }</p>
                </div>
                <nav class="top-buttons" aria-label="Page">
                    if state.tour.chapter.is_none() {
                        <button type="button" onclick={start_tour}>{ "Take the tour" }</button>
                    }
                    <button type="button" onclick={help} aria-label="Keyboard shortcuts" aria-expanded={state.help.to_string()}>{ "?" }</button>
                </nav>
            </header>
            if state.help {
                <Help dispatch={dispatch.clone()} />
            }
            <Messages error={state.messages.error.clone()} notice={state.messages.notice.clone()} link={state.messages.link.clone()}
                undo={!state.story.clicks.is_empty()} dispatch={dispatch.clone()} />
            if let Some(ch) = state.tour.chapter {
                <TourCard chapter={ch} dispatch={dispatch.clone()} />
            }
            <main class="stage">
                if state.compare.is_none() {
                    <Verdict trace={state.run.trace.clone()} upto={head.upto} tokens={state.run.timeline.tokens} />
                }
                <div class="stage-row">
                    <div class="stage-main">
                        { timelines }
                        { playbar }
                        <Narration ready={*list_ready} trace={state.run.trace.clone()} upto={head.upto} playing={state.play.playing}
                            tokens={state.run.timeline.tokens} which={which.clone()} dispatch={dispatch.clone()} />
                    </div>
                    <aside class="stage-side">
                        <StoragePanel trace={state.run.trace.clone()} upto={head.upto} tokens={state.run.timeline.tokens} which={which} />
                        <Legend tokens={state.run.timeline.tokens} />
                    </aside>
                </div>
            </main>
            // The panels below the fold come with the event list, after the first timeline.
            if *list_ready {
            <div class="lower">
                <ScenarioPanel scenario={state.story.scenario.clone()} preset={state.preset_name()} origin={state.story.origin} pause_ms={state.story.pause_ms}
                    compare={state.compare.is_some()} t={head.t} field_error={state.messages.field_error.clone()} dispatch={dispatch.clone()} />
                <SharePanel scenario={state.story.scenario.clone()} trace={state.run.trace.clone()}
                    layout={state.run.timeline.clone()} compare={state.compare.is_some()} dispatch={dispatch.clone()} />
            </div>
            <ExplorePanel scenario={state.story.scenario.clone()} dispatch={dispatch.clone()} />
            }
            <footer>
                <p>{ "Every lease, token and check here is computed by fencepost's own code, running in this page." }</p>
            </footer>
        </div>
    }
}

/// The caption of compare mode's lower timeline: what the storage does with the tokens it gets.
fn fenced_caption(tokens: TokenStyle) -> &'static str {
    match tokens {
        TokenStyle::Number => "Fencing on: the storage refuses tokens below the highest",
        TokenStyle::UniqueId => {
            "Fencing on, with unique ids: the storage cannot tell old tokens from new"
        }
    }
}
