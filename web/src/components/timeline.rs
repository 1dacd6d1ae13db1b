//! The timeline: one SVG lane per actor on a time axis.
//!
//! Three layers: a static one (lease bars, zombie intervals, pauses, arrows), drawn once per trace
//! and zoom and revealed up to the playhead by a clip path; badges of the events that have
//! happened; and what moves (the playhead, messages in flight). Playback therefore only touches
//! a handful of nodes per frame.
//!
//! Each layer has its file under `timeline/`: the pixel geometry ([`geom`]), the lane bands
//! ([`backdrop`]) and labels ([`lane_labels`]), the axis and its ticks ([`axis`]), the marks
//! ([`marks`]), each worker's safe-until band ([`safe_bands`]), the badges ([`badge_places`], [`badge_layer`], [`badge_chunk`]), the messages
//! ([`messages`]), the patterns ([`defs`]) and the SVG export ([`export`]). This file assembles
//! them; they use [`geom`] and each other downwards, never this file.

use std::rc::Rc;

use fencepost_sim::trace::fmt_secs;
use fencepost_sim::{Actor, Trace};
use gloo_events::EventListener;
use yew::prelude::*;

use crate::dom;
use crate::model::Timeline as Layout;
use crate::state::Run;

pub mod axis;
pub mod backdrop;
pub mod badge_chunk;
pub mod badge_layer;
pub mod badge_places;
pub mod defs;
pub mod export;
pub mod faults;
pub mod geom;
pub mod lane_labels;
pub mod marks;
pub mod messages;
pub mod safe_bands;

use axis::{Axis, head_label_span};
use backdrop::Backdrop;
use badge_layer::BadgeLayer;
use defs::Defs;
use faults::Faults;
use geom::{
    AXIS_H, BASE_WIDTH, Geom, LANE_H, MIN_WIDTH, PAD_LEFT, PAD_RIGHT, coord, expected_lanes_width,
};
use lane_labels::LaneLabels;
use marks::{Marks, pending_mark};
use messages::in_flight;
use safe_bands::SafeBands;

#[derive(Properties, PartialEq)]
pub struct TimelineProps {
    /// The run to draw.
    pub run: Run,
    /// Playhead time.
    pub t: u64,
    /// Events that have happened.
    pub upto: usize,
    /// Axis end (shared in compare mode).
    pub end: u64,
    /// Zoom factor.
    pub zoom: f64,
    /// Unique id (for clip paths and the export).
    pub id: AttrValue,
    /// A caption above the lanes.
    #[prop_or_default]
    pub caption: Option<AttrValue>,
    /// Actors to highlight (the tour).
    #[prop_or_default]
    pub highlight: Vec<Actor>,
    /// Clicking a worker lane: (worker index, time).
    #[prop_or_default]
    pub on_lane_click: Option<Callback<(usize, u64)>>,
    /// Record frame timings (bench mode).
    #[prop_or_default]
    pub bench: bool,
    /// Called once the layers are drawn.
    #[prop_or_default]
    pub on_drawn: Option<Callback<()>>,
    /// Where the last lane click added a pause (worker index, time): marked on the lane while
    /// the playhead has not reached it, so a click ahead of the playhead shows where it landed.
    #[prop_or_default]
    pub pending: Option<(usize, u64)>,
    /// A recorded run's faults.
    #[prop_or_default]
    pub faults: Option<Rc<Vec<fencepost_sim::history::recorded::Fault>>>,
}

#[component]
pub fn Timeline(props: &TimelineProps) -> Html {
    let layout = props.run.timeline.clone();
    let svg_ref = use_node_ref();
    let scroll_ref = use_node_ref();
    // The plot fills the visible width at zoom 1 (never narrower than MIN_WIDTH); the first
    // render uses the width the stylesheet will give the lanes (so the timeline is drawn once,
    // at once), and the measurement corrects it if the page differs.
    let avail = use_state(|| expected_lanes_width(dom::viewport_width()));
    {
        let (scroll_ref, avail) = (scroll_ref.clone(), avail.clone());
        use_effect_with((), move |_| {
            let listener = watch_width(scroll_ref, avail);
            move || drop(listener)
        });
    }
    let drawn = *avail > 0.0;
    let base = if drawn {
        (*avail - PAD_LEFT - PAD_RIGHT).max(MIN_WIDTH)
    } else {
        BASE_WIDTH
    };
    let geom = Geom::new(
        layout.lanes.len(),
        props.end.max(layout.end),
        base * props.zoom,
    );
    let on_drawn = props.on_drawn.clone();
    use_effect_with(drawn, move |drawn| first_drawn(*drawn, on_drawn));
    {
        let (svg_ref, bench) = (svg_ref.clone(), props.bench);
        use_effect_with((props.t, props.upto), move |_| {
            if bench {
                dom::frame_end(svg_ref.cast::<web_sys::Element>().as_ref());
            }
        });
    }
    // Keep the playhead in view while it moves.
    {
        let (scroll_ref, x) = (scroll_ref.clone(), geom.x(props.t));
        use_effect_with(x as i64, move |_| keep_in_view(&scroll_ref, x));
    }
    let beliefs = props.run.trace.beliefs_after(props.upto);
    html! {
        <figure class="timeline" id={props.id.clone()}>
            if let Some(c) = &props.caption {
                <figcaption>{ c.clone() }</figcaption>
            }
            <div class="timeline-body">
                <LaneLabels trace={props.run.trace.clone()} layout={layout.clone()} beliefs={Rc::new(beliefs)} highlight={props.highlight.clone()} />
                <div class="lanes-scroll" ref={scroll_ref} tabindex="0" aria-label="Timeline lanes (scroll sideways)">
                    { lanes(props, geom, svg_ref, drawn) }
                </div>
            </div>
        </figure>
    }
}

/// The lanes' picture: the backdrop and the axis, the marks and badges up to the playhead, the
/// messages in flight, and the playhead.
fn lanes(props: &TimelineProps, geom: Geom, svg_ref: NodeRef, drawn: bool) -> Html {
    let layout = &props.run.timeline;
    let onclick = props
        .on_lane_click
        .clone()
        .map(|cb| lane_click(svg_ref.clone(), layout.clone(), geom, cb));
    let clip_id = format!("past-{}", props.id);
    let px = geom.x(props.t);
    let head_text = fmt_secs(props.t);
    let head_label = head_label_span(px, &head_text);
    let label = aria_label(&props.run.trace, layout, &head_text);
    html! {
        <svg
            ref={svg_ref}
            class={classes!("lanes", props.on_lane_click.is_some().then_some("clickable"))}
            xmlns="http://www.w3.org/2000/svg"
            width={coord(geom.width())}
            height={coord(geom.height())}
            viewBox={format!("0 0 {} {}", coord(geom.width()), coord(geom.height()))}
            role="img"
            aria-label={label}
            {onclick}
        >
            <Defs id={props.id.clone()} />
            <clipPath id={clip_id.clone()}>
                <rect x="0" y="0" width={coord(px + 0.5)} height={coord(geom.height())} />
            </clipPath>
            <Backdrop layout={layout.clone()} geom={geom} highlight={props.highlight.clone()} />
            <Axis geom={geom} head_label={head_label} />
            if drawn {
                <g clip-path={format!("url(#{clip_id})")}>
                    <Marks layout={layout.clone()} geom={geom} id={props.id.clone()} />
                    if let Some(faults) = &props.faults {
                        <Faults faults={faults.clone()} geom={geom} />
                    }
                </g>
                <SafeBands layout={layout.clone()} geom={geom} upto={props.upto} />
                <BadgeLayer layout={layout.clone()} geom={geom} upto={props.upto}
                    head_x={(props.t < props.end).then_some(px)} />
                { in_flight(layout, &geom, props.t) }
            }
            { pending_mark(layout, &geom, props.pending, props.t) }
            <g class="playhead">
                <line x1={coord(px)} x2={coord(px)} y1={coord(AXIS_H - 6.0)} y2={coord(geom.height())} />
                <text x={coord(px + 4.0)} y={coord(AXIS_H - 9.0)} class="playhead-time">{ head_text }</text>
            </g>
        </svg>
    }
}

/// Measures the lanes' scroller into `avail` now and whenever the window resizes, for as long as
/// the listener it returns lives.
fn watch_width(scroll_ref: NodeRef, avail: UseStateHandle<f64>) -> Option<EventListener> {
    let measure = move || {
        if let Some(el) = scroll_ref.cast::<web_sys::Element>() {
            avail.set(f64::from(el.client_width()));
        }
    };
    measure();
    web_sys::window().map(|w| EventListener::new(&w, "resize", move |_| measure()))
}

/// Says once the layers are `drawn` (the measured width is known).
fn first_drawn(drawn: bool, on_drawn: Option<Callback<()>>) {
    if drawn {
        dom::first_timeline();
        if let Some(cb) = on_drawn {
            cb.emit(());
        }
    }
}

/// Scrolls the lanes so that the playhead, at `x`, stays in view.
fn keep_in_view(scroll_ref: &NodeRef, x: f64) {
    if let Some(el) = scroll_ref.cast::<web_sys::Element>() {
        let left = f64::from(el.scroll_left());
        let width = f64::from(el.client_width());
        if width > 0.0 && (x < left || x > left + width - 40.0) {
            el.set_scroll_left((x - width / 3.0).max(0.0) as i32);
        }
    }
}

/// A click on the lanes: on a worker's lane, `cb` gets the worker and the time clicked.
fn lane_click(
    svg_ref: NodeRef,
    layout: Rc<Layout>,
    geom: Geom,
    cb: Callback<(usize, u64)>,
) -> Callback<MouseEvent> {
    Callback::from(move |e: MouseEvent| {
        let Some(svg) = svg_ref.cast::<web_sys::Element>() else {
            return;
        };
        // Badges and labels are things to read, not places on the lane: clicking one (to
        // select its text, or by mistake) does not change the story.
        let on_mark = super::callbacks::target::<web_sys::Element>(&e).is_some_and(|t| {
            t.tag_name() == "text" || t.closest(".badge").ok().flatten().is_some()
        });
        if on_mark {
            return;
        }
        let r = svg.get_bounding_client_rect();
        let x = f64::from(e.client_x()) - r.left();
        let y = f64::from(e.client_y()) - r.top();
        if y < AXIS_H {
            return;
        }
        let lane = ((y - AXIS_H) / LANE_H) as usize;
        if let Some(Actor::Worker(w)) = layout.lanes.get(lane).map(|l| l.actor) {
            // Whole tenths of a second: clicks make tidy scenarios.
            let t = geom.t(x) / 100 * 100;
            cb.emit((usize::from(w), t));
        }
    })
}

/// What the timeline is, for a screen reader.
fn aria_label(trace: &Trace, layout: &Layout, head_text: &str) -> String {
    format!(
        "Timeline of {}: {} lanes, {} events; playhead at {head_text}",
        if trace.scenario.is_empty() {
            "the scenario"
        } else {
            trace.scenario.as_str()
        },
        layout.lanes.len(),
        trace.events.len(),
    )
}
