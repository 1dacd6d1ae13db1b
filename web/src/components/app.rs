//! The page: the app's state, the effects that tie it to the browser (the playback clock, the
//! keyboard, the address bar, the tour's "seen" mark), and the layout of the panels.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use fencepost_sim::Scenario;
use gloo_events::EventListener;
use gloo_timers::callback::{Interval, Timeout};
use yew::prelude::*;

use super::callbacks::{Dispatch, send, send_and_refocus};
use super::explore_panel::ExplorePanel;
use super::help::Help;
use super::legend::Legend;
use super::messages::Messages;
use super::narration::Narration;
use super::open_run::{OpenRun, listen_for_drops, open_from_address};
use super::play_bar::PlayBar;
use super::recorded_card::RecordedCard;
use super::scenario_panel::ScenarioPanel;
use super::share_panel::SharePanel;
use super::shortcuts::listen_for_shortcuts;
use super::storage_panel::StoragePanel;
use super::timeline::Timeline;
use super::tour_card::TourCard;
use super::verdict::Verdict;
use crate::address::{AddressBar, Entry, follow_address, landing};
use crate::dom;
use crate::model::{Playhead, TokenStyle};
use crate::state::{Action, Edit, Origin, Play, State, TourStep};

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

#[component]
pub fn App() -> Html {
    let state = use_reducer(initial_state);
    let dispatch = state.dispatcher();
    let bench = *use_memo((), |_| dom::has_flag(&dom::query(), "bench"));
    // The event list is long: it is drawn in a task of its own once the first timeline is up.
    let list_ready = use_state(|| false);
    let on_drawn = when_drawn(list_ready.clone(), use_mut_ref(|| None::<Timeout>));
    // Playback clock: an interval that lives exactly as long as playback; dropping it stops it.
    {
        let dispatch = dispatch.clone();
        use_effect_with(state.play.playing, move |playing| {
            let clock = playing.then(|| playback_clock(bench, dispatch));
            move || drop(clock)
        });
    }
    {
        let dispatch = dispatch.clone();
        use_effect_with((), move |_| {
            let listener = listen_for_shortcuts(dispatch);
            move || drop(listener)
        });
    }
    {
        let dispatch = dispatch.clone();
        use_effect_with((), move |_| {
            let listener = follow_pasted_links(dispatch);
            move || drop(listener)
        });
    }
    // A recorded run: dropped on the page, or named by the address.
    {
        let dispatch = dispatch.clone();
        use_effect_with((), move |_| {
            open_from_address(dispatch.clone());
            let listeners = listen_for_drops(dispatch);
            move || drop(listeners)
        });
    }
    // The URL carries the scenario (during the tour, the chapter): see `sync_address`.
    {
        let bar = use_mut_ref(|| AddressBar::new(&state, &dom::hash()));
        let story = &state.story;
        let shown = (
            story.scenario.clone(),
            state.tour.chapter,
            story.entry,
            story.origin,
        );
        use_effect_with(shown, move |shown| {
            sync_address(&mut bar.borrow_mut(), shown)
        });
    }
    {
        let touring = state.tour.is_open() && !state.embed;
        let shown = use_mut_ref(|| false);
        use_effect_with(touring, move |touring| remember_tour_seen(&shown, *touring));
    }
    let on_lane_click = {
        let dispatch = dispatch.clone();
        Callback::from(move |(worker, at): (usize, u64)| {
            dispatch.dispatch(Action::Edit(Edit::LaneClick { worker, at }));
        })
    };
    let timelines = timelines(&state, bench, &on_lane_click, &on_drawn);
    let play = &state.play;
    let playbar = html! {
        <PlayBar t={play.head.t} end={state.end()} playing={play.playing} speed={play.speed}
            speed_factor={play.speed_factor()} zoom={play.zoom} dispatch={dispatch.clone()} />
    };
    if state.embed {
        return html! {
            <main class="app embed">
                { timelines }
                { playbar }
                <Verdict trace={state.run.trace.clone()} upto={play.head.upto} compact=true tokens={state.run.timeline.tokens} />
            </main>
        };
    }
    page(&state, &dispatch, *list_ready, timelines, playbar)
}

/// The callback the first timeline calls once drawn: it lets the event list be drawn, in a task
/// of its own (`pending` holds it until it runs).
fn when_drawn(
    list_ready: UseStateHandle<bool>,
    pending: Rc<RefCell<Option<Timeout>>>,
) -> Callback<()> {
    Callback::from(move |()| {
        if !*list_ready && pending.borrow().is_none() {
            let list_ready = list_ready.clone();
            *pending.borrow_mut() = Some(Timeout::new(0, move || list_ready.set(true)));
        }
    })
}

/// The playback clock: a tick every frame with the real time since the last one.
fn playback_clock(bench: bool, dispatch: Dispatch) -> Interval {
    let last = Rc::new(Cell::new(dom::now()));
    Interval::new(FRAME_MS, move || {
        let now = dom::now();
        let real = now - last.replace(now);
        if bench {
            dom::frame_start();
        }
        dispatch.dispatch(Action::Play(Play::Tick(real)));
    })
}

/// A link pasted into the address bar of the open page is followed, for as long as the
/// listener lives.
fn follow_pasted_links(dispatch: Dispatch) -> Option<EventListener> {
    web_sys::window().map(|w| {
        EventListener::new(&w, "hashchange", move |_| {
            if let Some(a) = follow_address(&dom::hash(), dom::history_note().as_deref()) {
                dispatch.dispatch(a);
            }
        })
    })
}

/// Puts what the page `shown` (scenario, tour chapter, story counter, origin) in the address
/// bar. Each story loaded gets a history entry of its own, so that Back returns to the one
/// before; edits replace the current entry. A link that failed to load stays in the address bar
/// until the learner changes something: it is theirs to fix or pass back.
fn sync_address(bar: &mut AddressBar, shown: &(Scenario, Option<usize>, u32, Option<Origin>)) {
    let (scenario, tour, entry, origin) = shown;
    match bar.follow(scenario, *tour, *entry, *origin, &dom::hash()) {
        Entry::Keep => {}
        Entry::Replace { fragment, note } => dom::replace_hash(&fragment, note),
        Entry::Push { fragment, note } => dom::push_hash(&fragment, note),
        Entry::Back => dom::history_back(),
    }
}

/// Leaving the tour once is enough: it does not come back on the next visit. A visit that never
/// showed it (a shared link, an embed) leaves it for the first plain visit.
fn remember_tour_seen(shown: &RefCell<bool>, touring: bool) {
    if touring {
        *shown.borrow_mut() = true;
    } else if shown.replace(false) {
        dom::store(TOUR_SEEN, "1");
    }
}

/// The timeline, or in compare mode the two, each with its verdict.
fn timelines(
    state: &State,
    bench: bool,
    on_lane_click: &Callback<(usize, u64)>,
    on_drawn: &Callback<()>,
) -> Html {
    let head = state.play.head;
    let end = state.end();
    let zoom = state.play.zoom_factor();
    let highlight = state.tour.actors();
    // The pause the last lane click added, marked on its lane until the playhead reaches it.
    let pending = state.story.clicks.pending();
    let Some([off, on]) = &state.compare else {
        return html! {
            <Timeline run={state.run.clone()} t={head.t} upto={head.upto} end={end} zoom={zoom}
                id="timeline-main" highlight={highlight}
                on_lane_click={(!state.embed && state.recorded.is_none()).then_some(on_lane_click.clone())} pending={pending} bench={bench}
                on_drawn={Some(on_drawn.clone())} faults={state.recorded.as_ref().map(|r| r.faults.clone())} />
        };
    };
    let off_head = Playhead::at_time(&off.trace, head.t);
    let on_head = Playhead::at_time(&on.trace, head.t);
    html! {
        <div class="compare">
            <div class="compare-one">
                <Timeline run={off.clone()} t={head.t} upto={off_head.upto} end={end} zoom={zoom}
                    id="timeline-off" caption={Some(AttrValue::from("Fencing off: the storage keeps whatever arrives last"))}
                    highlight={highlight.clone()} on_lane_click={Some(on_lane_click.clone())} pending={pending} bench={bench}
                    on_drawn={Some(on_drawn.clone())} />
                <Verdict trace={off.trace.clone()} upto={off_head.upto} compact=true tokens={off.timeline.tokens} />
            </div>
            <div class="compare-one">
                <Timeline run={on.clone()} t={head.t} upto={on_head.upto} end={end} zoom={zoom}
                    id="timeline-on" caption={Some(AttrValue::from(fenced_caption(on.timeline.tokens)))}
                    highlight={highlight} on_lane_click={Some(on_lane_click.clone())} pending={pending} />
                <Verdict trace={on.trace.clone()} upto={on_head.upto} compact=true tokens={on.timeline.tokens} />
            </div>
        </div>
    }
}

/// The whole page around the timelines and the play bar.
fn page(
    state: &State,
    dispatch: &Dispatch,
    list_ready: bool,
    timelines: Html,
    playbar: Html,
) -> Html {
    let head = state.play.head;
    let tokens = state.run.timeline.tokens;
    // In compare mode the panels beside and below describe the scenario's own run: say which
    // of the two timelines that is.
    let which = state.compare.as_ref().map(|_| {
        AttrValue::from(if state.story.scenario.protections.fencing {
            "Showing the lower timeline: fencing on, as the scenario has it."
        } else {
            "Showing the upper timeline: fencing off, as the scenario has it."
        })
    });
    let messages = &state.messages;
    html! {
        <div class={classes!("app", state.tour.is_open().then_some("touring"))}>
            { header(state, dispatch) }
            if state.help {
                <Help dispatch={dispatch.clone()} />
            }
            <Messages error={messages.error.clone()} notice={messages.notice.clone()} link={messages.link.clone()}
                undo={!state.story.clicks.is_empty()} dispatch={dispatch.clone()} />
            if let Some(r) = &state.recorded {
                <RecordedCard recorded={r.clone()} dispatch={dispatch.clone()} />
            }
            if let Some(ch) = state.tour.chapter {
                <TourCard chapter={ch} dispatch={dispatch.clone()} />
            }
            <main class="stage">
                if state.compare.is_none() {
                    <Verdict trace={state.run.trace.clone()} upto={head.upto} tokens={tokens} />
                }
                <div class="stage-row">
                    <div class="stage-main">
                        { timelines }
                        { playbar }
                        <Narration ready={list_ready} trace={state.run.trace.clone()} upto={head.upto} playing={state.play.playing}
                            tokens={tokens} which={which.clone()} dispatch={dispatch.clone()} />
                    </div>
                    <aside class="stage-side">
                        <StoragePanel trace={state.run.trace.clone()} upto={head.upto} tokens={tokens} which={which} />
                        <Legend tokens={tokens} />
                    </aside>
                </div>
            </main>
            // The panels below the fold come with the event list, after the first timeline.
            if list_ready {
                { lower_panels(state, dispatch) }
            }
            <footer>
                <p>{ "Every lease, token and check here is computed by fencepost's own code, running in this page." }</p>
            </footer>
        </div>
    }
}

/// The title and the page's buttons (the tour, the keyboard help).
fn header(state: &State, dispatch: &Dispatch) -> Html {
    let start_tour = send_and_refocus(dispatch, Action::Tour(TourStep::Start));
    let help = send(dispatch, Action::ToggleHelp);
    html! {
        <header class="top">
            <div class="brand">
                <h1>{ "fencepost" }</h1>
                <p class="tagline">{ "Leases, frozen workers and fencing tokens — simulated, step by step." }</p>
            </div>
            <nav class="top-buttons" aria-label="Page">
                <OpenRun dispatch={dispatch.clone()} />
                if !state.tour.is_open() {
                    <button type="button" onclick={start_tour}>{ "Take the tour" }</button>
                }
                <button type="button" onclick={help} aria-label="Keyboard shortcuts" aria-expanded={state.help.to_string()}>{ "?" }</button>
            </nav>
        </header>
    }
}

/// The scenario editor, the share panel and Explore, below the fold.
fn lower_panels(state: &State, dispatch: &Dispatch) -> Html {
    let story = &state.story;
    let compare = state.compare.is_some();
    html! {
        <>
            <div class="lower">
                <ScenarioPanel scenario={story.scenario.clone()} preset={state.preset_name()} origin={story.origin} pause_ms={story.pause_ms}
                    compare={compare} t={state.play.head.t} field_error={state.messages.field_error.clone()} dispatch={dispatch.clone()} />
                <SharePanel scenario={story.scenario.clone()} trace={state.run.trace.clone()}
                    layout={state.run.timeline.clone()} compare={compare} dispatch={dispatch.clone()} />
            </div>
            <ExplorePanel scenario={story.scenario.clone()} dispatch={dispatch.clone()} />
        </>
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
