//! The timeline: one SVG lane per actor on a time axis.
//!
//! Three layers: a static one (lease bars, zombie intervals, pauses, arrows), drawn once per trace
//! and zoom and revealed up to the playhead by a clip path; badges of the events that have
//! happened; and what moves (the playhead, messages in flight). Playback therefore only touches
//! a handful of nodes per frame.

use std::rc::Rc;

use fencepost_sim::trace::fmt_secs;
use fencepost_sim::{Actor, Beliefs, Trace};
use yew::prelude::*;

use crate::dom;
use crate::model::{
    ArrowKind, BadgeKind, LeaseEnd, Timeline as Layout, in_flight_at, lane_status_at,
};
use crate::state::Run;
use crate::text::{escape, fixed0, fixed1};

/// Height of one lane.
pub const LANE_H: f64 = 68.0;
/// Height of the time axis above the lanes.
pub const AXIS_H: f64 = 26.0;
/// Space before time 0.
pub const PAD_LEFT: f64 = 14.0;
/// Space after the axis end (room for the last badges).
pub const PAD_RIGHT: f64 = 110.0;
/// Plot width at zoom 1 before the page is measured.
pub const BASE_WIDTH: f64 = 900.0;
/// Narrowest plot at zoom 1: below this the lanes scroll sideways instead of squeezing.
pub const MIN_WIDTH: f64 = 560.0;

/// Pixel geometry of one timeline.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Geom {
    /// Pixels per virtual millisecond.
    pub px_per_ms: f64,
    /// Lanes.
    pub lanes: usize,
    /// Axis end.
    pub end: u64,
}

impl Geom {
    /// Geometry for `lanes` lanes over `0..end`, the axis `plot_width` pixels long.
    pub fn new(lanes: usize, end: u64, plot_width: f64) -> Geom {
        let end = end.max(1);
        Geom {
            px_per_ms: plot_width.max(1.0) / end as f64,
            lanes,
            end,
        }
    }

    /// x of virtual time `t`.
    pub fn x(&self, t: u64) -> f64 {
        PAD_LEFT + t as f64 * self.px_per_ms
    }

    /// Virtual time at x (clamped to the axis).
    pub fn t(&self, x: f64) -> u64 {
        let t = ((x - PAD_LEFT) / self.px_per_ms).max(0.0);
        (t as u64).min(self.end)
    }

    /// Top of lane `i`.
    pub fn y(&self, lane: usize) -> f64 {
        AXIS_H + lane as f64 * LANE_H
    }

    /// Total width.
    pub fn width(&self) -> f64 {
        self.x(self.end) + PAD_RIGHT
    }

    /// Total height.
    pub fn height(&self) -> f64 {
        self.y(self.lanes) + 4.0
    }
}

/// The width style.css gives the lanes' scroller in a window `viewport` pixels wide (0 if
/// unknown): the page's padding, the side panel beside the timeline above 940 px, the lane labels
/// and the borders.
pub fn expected_lanes_width(viewport: f64) -> f64 {
    if viewport <= 0.0 {
        return 0.0;
    }
    let page = viewport.min(1280.0);
    if viewport > 940.0 {
        page - 32.0 - 306.0 - 158.0 - 2.0
    } else if viewport > 600.0 {
        page - 32.0 - 158.0 - 2.0
    } else {
        page - 20.0 - 104.0 - 2.0
    }
}

/// A tick step (ms) giving labels at least ~70 px apart.
pub fn tick_step(px_per_ms: f64) -> u64 {
    const STEPS: [u64; 14] = [
        100, 200, 500, 1_000, 2_000, 5_000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000,
        600_000, 1_800_000,
    ];
    let min_ms = 70.0 / px_per_ms.max(f64::MIN_POSITIVE);
    STEPS
        .iter()
        .copied()
        .find(|s| *s as f64 >= min_ms)
        .unwrap_or_else(|| {
            // Whole hours beyond the table (float to int saturates; never 0).
            let ms = (min_ms.ceil() as u64).max(1);
            ms.div_ceil(3_600_000).saturating_mul(3_600_000)
        })
}

/// How far right of its event's time a badge may be moved to clear its neighbours.
pub const MAX_PUSH: f64 = 80.0;

/// Where each badge goes: a row (0 or 1) and an x, so that neighbours do not overlap. A badge
/// sits at its event's time in the first row that is free there; when both are taken it goes
/// right after the row that ends first, but never more than [`MAX_PUSH`] from its time: in a
/// crowd it covers part of the badge before it rather than drift away from its moment. Near the
/// end of the axis it grows leftwards.
pub fn badge_places(layout: &Layout, geom: &Geom) -> Vec<(u8, f64)> {
    let mut last_end: Vec<[f64; 2]> = vec![[f64::MIN; 2]; layout.lanes.len()];
    let right = geom.width() - 2.0;
    layout
        .badges
        .iter()
        .map(|b| {
            let lane = layout.lane_of(b.actor).unwrap_or(0);
            let x = geom.x(b.t);
            let w = badge_width(&b.text);
            let Some(ends) = last_end.get_mut(lane) else {
                return (0, x);
            };
            let (row, x) = if x >= ends[0] + 2.0 {
                (0, x)
            } else if x >= ends[1] + 2.0 {
                (1, x)
            } else {
                let row = usize::from(ends[1] < ends[0]);
                (row, (ends[row] + 2.0).min(x + MAX_PUSH))
            };
            let x = x.min(right - w).max(0.0);
            ends[row] = x + w;
            (row as u8, x)
        })
        .collect()
}

fn badge_width(text: &str) -> f64 {
    text.chars().count() as f64 * 6.6 + 10.0
}

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
}

#[component]
pub fn Timeline(props: &TimelineProps) -> Html {
    let layout = props.run.timeline.clone();
    let trace = props.run.trace.clone();
    let svg_ref = use_node_ref();
    let scroll_ref = use_node_ref();
    // The plot fills the visible width at zoom 1 (never narrower than MIN_WIDTH).
    let avail = use_state(|| expected_lanes_width(dom::viewport_width()));
    {
        let scroll_ref = scroll_ref.clone();
        let avail = avail.clone();
        use_effect_with((), move |_| {
            let measure = move || {
                if let Some(el) = scroll_ref.cast::<web_sys::Element>() {
                    avail.set(f64::from(el.client_width()));
                }
            };
            measure();
            let listener = web_sys::window()
                .map(|w| gloo_events::EventListener::new(&w, "resize", move |_| measure()));
            move || drop(listener)
        });
    }
    // The first render uses the width the stylesheet will give the lanes (so the timeline is
    // drawn once, at once); the measurement corrects it if the page differs.
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

    {
        let on_drawn = props.on_drawn.clone();
        use_effect_with(drawn, move |drawn| {
            if *drawn {
                dom::first_timeline();
                if let Some(cb) = on_drawn {
                    cb.emit(());
                }
            }
        });
    }
    {
        let svg_ref = svg_ref.clone();
        let bench = props.bench;
        use_effect_with((props.t, props.upto), move |_| {
            if bench {
                dom::frame_end(svg_ref.cast::<web_sys::Element>().as_ref());
            }
        });
    }
    // Keep the playhead in view while it moves.
    {
        let scroll_ref = scroll_ref.clone();
        let x = geom.x(props.t);
        use_effect_with(x as i64, move |_| {
            if let Some(el) = scroll_ref.cast::<web_sys::Element>() {
                let left = f64::from(el.scroll_left());
                let width = f64::from(el.client_width());
                if width > 0.0 && (x < left || x > left + width - 40.0) {
                    el.set_scroll_left((x - width / 3.0).max(0.0) as i32);
                }
            }
        });
    }

    let onclick = props.on_lane_click.clone().map(|cb| {
        let svg_ref = svg_ref.clone();
        let layout = layout.clone();
        Callback::from(move |e: MouseEvent| {
            let Some(svg) = svg_ref.cast::<web_sys::Element>() else {
                return;
            };
            // Badges and labels are things to read, not places on the lane: clicking one (to
            // select its text, or by mistake) does not change the story.
            let on_mark = super::target::<web_sys::Element>(&e).is_some_and(|t| {
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
    });

    let beliefs = trace.beliefs_after(props.upto);
    let clip_id = format!("past-{}", props.id);
    let px = geom.x(props.t);
    let head_text = fmt_secs(props.t);
    let head_label = head_label_span(px, &head_text);
    let label = format!(
        "Timeline of {}: {} lanes, {} events; playhead at {}",
        if trace.scenario.is_empty() {
            "the scenario"
        } else {
            trace.scenario.as_str()
        },
        layout.lanes.len(),
        trace.events.len(),
        fmt_secs(props.t)
    );

    html! {
        <figure class="timeline" id={props.id.clone()}>
            if let Some(c) = &props.caption {
                <figcaption>{ c.clone() }</figcaption>
            }
            <div class="timeline-body">
                <LaneLabels trace={trace.clone()} layout={layout.clone()} beliefs={Rc::new(beliefs)} highlight={props.highlight.clone()} />
                <div class="lanes-scroll" ref={scroll_ref} tabindex="0" aria-label="Timeline lanes (scroll sideways)">
                    <svg
                        ref={svg_ref}
                        class={classes!("lanes", props.on_lane_click.is_some().then_some("clickable"))}
                        xmlns="http://www.w3.org/2000/svg"
                        width={fmt(geom.width())}
                        height={fmt(geom.height())}
                        viewBox={format!("0 0 {} {}", fmt(geom.width()), fmt(geom.height()))}
                        role="img"
                        aria-label={label}
                        {onclick}
                    >
                        <Defs id={props.id.clone()} />
                        <clipPath id={clip_id.clone()}>
                            <rect x="0" y="0" width={fmt(px + 0.5)} height={fmt(geom.height())} />
                        </clipPath>
                        <Backdrop layout={layout.clone()} geom={geom} highlight={props.highlight.clone()} />
                        <Axis geom={geom} head_label={head_label} />
                        if drawn {
                            <g clip-path={format!("url(#{clip_id})")}>
                                <StaticLayer layout={layout.clone()} geom={geom} id={props.id.clone()} />
                            </g>
                            <BadgeLayer layout={layout.clone()} geom={geom} upto={props.upto}
                                head_x={(props.t < props.end).then_some(px)} />
                            { in_flight(&layout, &geom, props.t) }
                        }
                        { pending_mark(&layout, &geom, props.pending, props.t) }
                        <g class="playhead">
                            <line x1={fmt(px)} x2={fmt(px)} y1={fmt(AXIS_H - 6.0)} y2={fmt(geom.height())} />
                            <text x={fmt(px + 4.0)} y={fmt(AXIS_H - 9.0)} class="playhead-time">{ head_text }</text>
                        </g>
                    </svg>
                </div>
            </div>
        </figure>
    }
}

/// A dashed mark where a lane click added a pause the playhead has not reached yet.
fn pending_mark(layout: &Layout, geom: &Geom, pending: Option<(usize, u64)>, t: u64) -> Html {
    let Some((worker, at)) = pending.filter(|&(_, at)| at > t) else {
        return Html::default();
    };
    let Some(lane) = u16::try_from(worker)
        .ok()
        .and_then(|w| layout.lane_of(Actor::Worker(w)))
    else {
        return Html::default();
    };
    let (x, y) = (geom.x(at), geom.y(lane));
    html! {
        <g class="pending-pause">
            <line x1={fmt(x)} x2={fmt(x)} y1={fmt(y + 4.0)} y2={fmt(y + LANE_H - 4.0)} />
            <text x={fmt(x + 4.0)} y={fmt(y + LANE_H - 8.0)}>{ "pause added here" }</text>
        </g>
    }
}

fn fmt(v: f64) -> String {
    fixed1(v)
}

fn in_flight(layout: &Layout, geom: &Geom, t: u64) -> Html {
    let dots = in_flight_at(&layout.arrows, t).into_iter().filter_map(|f| {
        let a = layout.arrows.get(f.arrow)?;
        let (y1, y2) = (
            lane_mid(layout, geom, a.from)?,
            lane_mid(layout, geom, a.to)?,
        );
        let x = geom.x(a.sent) + (geom.x(a.arrived) - geom.x(a.sent)) * f.progress;
        let y = y1 + (y2 - y1) * f.progress;
        Some(html! {
            <circle class={classes!("in-flight", arrow_class(a.kind))} cx={fmt(x)} cy={fmt(y)} r="4.5">
                <title>{ format!("{} in flight", a.label) }</title>
            </circle>
        })
    });
    html! { <g class="in-flight-layer">{ for dots }</g> }
}

fn lane_mid(layout: &Layout, geom: &Geom, actor: Actor) -> Option<f64> {
    layout.lane_of(actor).map(|i| geom.y(i) + LANE_H * 0.5)
}

fn arrow_class(kind: ArrowKind) -> &'static str {
    match kind {
        ArrowKind::Request => "request",
        ArrowKind::Reply => "reply",
        ArrowKind::Write => "write",
        ArrowKind::Ack => "ack",
        ArrowKind::Refused => "refused",
    }
}

#[derive(Properties, PartialEq)]
struct DefsProps {
    id: AttrValue,
}

#[component]
fn Defs(props: &DefsProps) -> Html {
    let id = &props.id;
    html! {
        <defs>
            <pattern id={format!("hatch-{id}")} width="7" height="7" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
                <rect class="hatch-bg" width="7" height="7" />
                <line class="hatch-line" x1="0" y1="0" x2="0" y2="7" />
            </pattern>
            <pattern id={format!("zombie-{id}")} width="10" height="10" patternUnits="userSpaceOnUse" patternTransform="rotate(-45)">
                <rect class="zombie-bg" width="10" height="10" />
                <rect class="zombie-stripe" width="4" height="10" />
            </pattern>
            <pattern id={format!("down-{id}")} width="8" height="8" patternUnits="userSpaceOnUse">
                <rect class="hatch-bg" width="8" height="8" />
                <path class="hatch-line" d="M0 0 L8 8 M8 0 L0 8" />
            </pattern>
            <marker id={format!("head-{id}")} viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
                <path class="arrowhead" d="M0 0 L10 5 L0 10 z" />
            </marker>
        </defs>
    }
}

#[derive(Properties, PartialEq)]
struct LayerProps {
    layout: Rc<Layout>,
    geom: Geom,
    #[prop_or_default]
    highlight: Vec<Actor>,
    #[prop_or_default]
    id: AttrValue,
}

/// Lane bands and the time axis.
#[component]
fn Backdrop(props: &LayerProps) -> Html {
    let g = props.geom;
    let lanes = props.layout.lanes.iter().enumerate().map(|(i, lane)| {
        let lit = props.highlight.contains(&lane.actor);
        html! {
            <rect
                class={classes!("lane-band", (i % 2 == 1).then_some("odd"), lit.then_some("lit"))}
                x="0" y={fmt(g.y(i))} width={fmt(g.width())} height={fmt(LANE_H)}
            />
        }
    });
    html! {
        <g class="backdrop">
            { for lanes }
        </g>
    }
}

#[derive(Properties, PartialEq)]
struct AxisProps {
    geom: Geom,
    /// Where the playhead's time label spans (x from, x to): tick labels there are hidden.
    head_label: (i64, i64),
}

/// Width of a tick label (10 px text, centred on its tick).
fn tick_label_width(text: &str) -> f64 {
    text.chars().count() as f64 * 6.0 + 4.0
}

/// Width of the playhead's time label (11 px bold text, left-aligned after the playhead).
pub fn head_label_width(text: &str) -> f64 {
    text.chars().count() as f64 * 7.0 + 4.0
}

/// Where the playhead's label `text` spans (x from, x to) with the playhead at `px`: whole
/// pixels, so that the axis redraws only when the label moves by one.
pub fn head_label_span(px: f64, text: &str) -> (i64, i64) {
    (
        (px + 2.0).floor() as i64,
        (px + 4.0 + head_label_width(text)).ceil() as i64,
    )
}

/// One tick of the time axis.
#[derive(Clone, Debug, PartialEq)]
pub struct Tick {
    /// Its x.
    pub x: f64,
    /// Its label, e.g. `30 s`.
    pub label: String,
    /// Half the label's width.
    pub half: f64,
}

impl Tick {
    /// Whether the playhead's label, spanning `from..to`, covers this tick's label.
    pub fn covered(&self, (from, to): (i64, i64)) -> bool {
        self.x + self.half > from as f64 && self.x - self.half < to as f64
    }
}

/// The ticks of the axis of `g`: computed once per geometry (the run's length and the zoom), not
/// on every frame of playback.
pub fn ticks(g: &Geom) -> Vec<Tick> {
    let step = tick_step(g.px_per_ms);
    (0..=g.end / step)
        .map(|i| {
            let t = i * step;
            let label = fmt_secs(t);
            Tick {
                x: g.x(t),
                half: tick_label_width(&label) / 2.0,
                label,
            }
        })
        .collect()
}

/// The time axis: ticks and their labels, except labels the playhead's own label would cover.
#[component]
fn Axis(props: &AxisProps) -> Html {
    let g = props.geom;
    let all = use_memo(g, ticks);
    let ticks = all.iter().map(|tick| {
        let covered = tick.covered(props.head_label);
        html! {
            <g class="tick">
                <line x1={fmt(tick.x)} x2={fmt(tick.x)} y1={fmt(AXIS_H - 4.0)} y2={fmt(g.height())} />
                <text x={fmt(tick.x)} y={fmt(AXIS_H - 12.0)} class={classes!(covered.then_some("covered"))}>{ tick.label.clone() }</text>
            </g>
        }
    });
    html! { <g class="axis">{ for ticks }</g> }
}

/// Everything laid out from the trace: drawn once per trace and zoom.
#[component]
fn StaticLayer(props: &LayerProps) -> Html {
    let l = &props.layout;
    let g = props.geom;
    let id = &props.id;
    let lane_y = |a: Actor| l.lane_of(a).map(|i| g.y(i));
    let bar_y = 8.0;
    let bar_h = 18.0;

    let pauses = l.pauses.iter().filter_map(|p| {
        let y = lane_y(Actor::Worker(p.worker))?;
        let (x1, x2) = (g.x(p.from), g.x(p.to));
        Some(html! {
            <g class="pause">
                <rect x={fmt(x1)} y={fmt(y + 2.0)} width={fmt((x2 - x1).max(1.0))} height={fmt(LANE_H - 4.0)} fill={format!("url(#hatch-{id})")}>
                    <title>{ format!("paused from {} to {}", fmt_secs(p.from), fmt_secs(p.to)) }</title>
                </rect>
            </g>
        })
    });
    let down = l.down.iter().filter_map(|p| {
        let y = lane_y(Actor::Worker(p.worker))?;
        let (x1, x2) = (g.x(p.from), g.x(p.to));
        Some(html! {
            <rect class="down" x={fmt(x1)} y={fmt(y + 2.0)} width={fmt((x2 - x1).max(1.0))} height={fmt(LANE_H - 4.0)} fill={format!("url(#down-{id})")}>
                <title>{ format!("process down from {} to {}", fmt_secs(p.from), fmt_secs(p.to)) }</title>
            </rect>
        })
    });
    let names = |w: u16| {
        l.lanes
            .iter()
            .find(|lane| lane.actor == Actor::Worker(w))
            .map(|lane| lane.label.trim_start_matches("worker ").to_string())
            .unwrap_or_default()
    };
    let leases = l.leases.iter().flat_map(|b| {
        let (x1, x2) = (g.x(b.from), g.x(b.to));
        let w = (x2 - x1).max(2.0);
        let end = match b.end {
            LeaseEnd::Expired => "expired",
            LeaseEnd::Released => "released",
            LeaseEnd::Forgotten => "forgotten by a restart",
            LeaseEnd::Open => "still held",
        };
        let token = l.tokens.show(b.token);
        let title = format!(
            "lease of {} with token {token}: {} to {} ({end})",
            names(b.worker),
            fmt_secs(b.from),
            fmt_secs(b.to)
        );
        let mut out = Vec::new();
        for (actor, text) in [
            (Actor::Lock, format!("{} · {token}", names(b.worker))),
            (Actor::Worker(b.worker), format!("lease {token}")),
        ] {
            if let Some(y) = lane_y(actor) {
                out.push(html! {
                    <g class={classes!("lease", (b.end == LeaseEnd::Open).then_some("open"))}>
                        <rect x={fmt(x1)} y={fmt(y + bar_y)} width={fmt(w)} height={fmt(bar_h)} rx="3">
                            <title>{ title.clone() }</title>
                        </rect>
                        if w > 44.0 {
                            <text x={fmt(x1 + 5.0)} y={fmt(y + bar_y + 13.0)}>{ text }</text>
                        }
                    </g>
                });
            }
        }
        out
    });
    let zombies = l.zombies.iter().filter_map(|z| {
        let y = lane_y(Actor::Worker(z.worker))?;
        let (x1, x2) = (g.x(z.from), g.x(z.to));
        let w = (x2 - x1).max(2.0);
        Some(html! {
            <g class="zombie">
                <rect x={fmt(x1)} y={fmt(y + bar_y)} width={fmt(w)} height={fmt(bar_h)} rx="3" fill={format!("url(#zombie-{id})")}>
                    <title>{ format!(
                        "zombie: {} still believes it holds token {} from {} to {}, but the lock service no longer gives it",
                        names(z.worker), l.tokens.show(z.token), fmt_secs(z.from), fmt_secs(z.to)
                    ) }</title>
                </rect>
                if w > 90.0 {
                    <text x={fmt(x1 + 5.0)} y={fmt(y + bar_y + 13.0)}>{ format!("zombie: thinks {}", l.tokens.show(z.token)) }</text>
                }
            </g>
        })
    });
    let arrows = l.arrows.iter().filter_map(|a| {
        let y1 = lane_y(a.from)? + LANE_H * 0.5;
        let y2 = lane_y(a.to)? + LANE_H * 0.5;
        let (x1, x2) = (g.x(a.sent), g.x(a.arrived));
        Some(html! {
            <line
                class={classes!("arrow", arrow_class(a.kind), (!a.delivered).then_some("lost"))}
                x1={fmt(x1)} y1={fmt(y1)} x2={fmt(x2)} y2={fmt(y2)}
                marker-end={format!("url(#head-{id})")}
            >
                <title>{ format!("{}: sent {}, {} {}", a.label, fmt_secs(a.sent),
                    if a.delivered { "handled" } else { "due" }, fmt_secs(a.arrived)) }</title>
            </line>
        })
    });
    html! {
        <g class="static">
            { for pauses }
            { for down }
            { for leases }
            { for zombies }
            <g class="arrows">{ for arrows }</g>
        </g>
    }
}

#[derive(Properties, PartialEq)]
struct BadgeProps {
    layout: Rc<Layout>,
    geom: Geom,
    upto: usize,
    /// The playhead's x before the end of the run: no badge starts right of it. At the end
    /// the last badges may use the room after it.
    head_x: Option<f64>,
}

/// Badges per chunk: a chunk whose badges have all happened keeps equal props and is skipped on
/// re-render, so playback only redraws the chunk at the playhead.
const CHUNK: usize = 24;

/// Badges of the events that have happened.
#[component]
fn BadgeLayer(props: &BadgeProps) -> Html {
    let rows = {
        let layout = props.layout.clone();
        let geom = props.geom;
        use_memo((layout, geom), |(l, g)| badge_places(l, g))
    };
    let l = &props.layout;
    // How many badges have happened (badges are in event order).
    let shown = l.badges.partition_point(|b| (b.seq as usize) < props.upto);
    let chunks = (0..shown.div_ceil(CHUNK)).map(|c| {
        let from = c * CHUNK;
        let to = (from + CHUNK).min(shown);
        // A badge moved right of its time must not show ahead of the playhead (it marks
        // something that has happened): only a chunk that has such a badge gets the limit, so
        // the others keep equal props during playback.
        let limit = props.head_x.filter(|&head| {
            rows.get(from..to)
                .is_some_and(|r| r.iter().any(|&(_, x)| x > head))
        });
        html! {
            <BadgeChunk key={c} layout={l.clone()} geom={props.geom} rows={Places(rows.clone())} from={from} to={to} limit={limit} />
        }
    });
    html! { <g class="badges">{ for chunks }</g> }
}

/// The badges' places, computed once per layout and geometry: compared by identity, so that
/// the chunks' props are cheap to compare on every frame of playback.
#[derive(Clone)]
struct Places(Rc<Vec<(u8, f64)>>);

impl PartialEq for Places {
    fn eq(&self, other: &Places) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

#[derive(Properties, PartialEq)]
struct ChunkProps {
    layout: Rc<Layout>,
    geom: Geom,
    rows: Places,
    from: usize,
    to: usize,
    /// The x no badge may start right of (the playhead's), when one of these would.
    limit: Option<f64>,
}

#[component]
fn BadgeChunk(props: &ChunkProps) -> Html {
    let l = &props.layout;
    let g = props.geom;
    let badges = (props.from..props.to).filter_map(|i| {
        let b = l.badges.get(i)?;
        let (row, x) = props.rows.0.get(i).copied().unwrap_or((0, g.x(b.t)));
        let x = props.limit.map_or(x, |l| x.min(l));
        let lane = l.lane_of(b.actor)?;
        let w = badge_width(&b.text);
        let y = g.y(lane) + 30.0 + f64::from(row) * 17.0;
        Some(html! {
            <g class={classes!("badge", badge_class(b.kind))} data-seq={b.seq.to_string()}>
                <rect x={fmt(x)} y={fmt(y)} width={fmt(w)} height="15" rx="7" />
                <text x={fmt(x + 5.0)} y={fmt(y + 11.5)}>{ b.text.clone() }</text>
            </g>
        })
    });
    html! { <g>{ for badges }</g> }
}

fn badge_class(k: BadgeKind) -> &'static str {
    match k {
        BadgeKind::Grant => "grant",
        BadgeKind::WriteSent => "write-sent",
        BadgeKind::Accepted => "accepted",
        BadgeKind::AcceptedStale => "accepted-stale",
        BadgeKind::Rejected => "rejected",
        BadgeKind::Deduplicated => "dedup",
        BadgeKind::Expired => "expired",
        BadgeKind::Denied => "denied",
        BadgeKind::Renewed => "renewed",
        BadgeKind::Released => "released",
        BadgeKind::Paused => "paused",
        BadgeKind::Resumed => "resumed",
        BadgeKind::Done => "done",
        BadgeKind::GaveUp => "gave-up",
        BadgeKind::Fault => "fault",
    }
}

#[derive(Properties, PartialEq)]
struct LaneLabelsProps {
    trace: Rc<Trace>,
    layout: Rc<Layout>,
    beliefs: Rc<Beliefs>,
    highlight: Vec<Actor>,
}

/// Lane names and what each actor believes at the playhead; stays put while the lanes scroll.
#[component]
fn LaneLabels(props: &LaneLabelsProps) -> Html {
    let labels = props.layout.lanes.iter().map(|lane| {
        let lit = props.highlight.contains(&lane.actor);
        let status = lane_status_at(
            &props.trace,
            &props.beliefs,
            lane.actor,
            props.layout.tokens,
        );
        let zombie = matches!(lane.actor, Actor::Worker(w) if props.beliefs.is_zombie(w));
        html! {
            <div
                class={classes!("lane-label", lit.then_some("lit"), zombie.then_some("is-zombie"))}
                style={format!("height:{}px", fixed0(LANE_H))}
            >
                <span class="lane-name">
                    if lit { <span class="lit-mark" aria-hidden="true">{ "▶ " }</span> }
                    { lane.label.clone() }
                </span>
                <span class="lane-status">{ status }</span>
            </div>
        }
    });
    html! {
        <div class="lane-labels">
            <div class="axis-spacer" style={format!("height:{}px", fixed0(AXIS_H))}>{ "time" }</div>
            { for labels }
        </div>
    }
}

/// Height of a caption line above a timeline in an exported SVG.
const EXPORT_CAPTION_H: f64 = 22.0;

/// The timelines with these element ids, one above the other, as one standalone SVG document:
/// each with its caption (if it has one) and lane labels, and the styles.
pub fn export_svg(ids: &[&str], layout: &Layout, css: &str) -> Option<String> {
    let doc = web_sys::window()?.document()?;
    let label_w = 130.0;
    let (mut body, mut width, mut y) = (String::new(), 0.0f64, 0.0f64);
    for id in ids {
        let svg = doc.query_selector(&format!("#{id} svg.lanes")).ok()??;
        let w: f64 = svg.get_attribute("width")?.parse().ok()?;
        let h: f64 = svg.get_attribute("height")?.parse().ok()?;
        if let Some(caption) = doc
            .query_selector(&format!("#{id} figcaption"))
            .ok()
            .flatten()
            .and_then(|c| c.text_content())
        {
            y += EXPORT_CAPTION_H;
            body.push_str(&format!(
                "<text class=\"export-label\" x=\"8\" y=\"{}\">{}</text>\n",
                fixed1(y - 6.0),
                escape(&caption)
            ));
        }
        for (i, lane) in layout.lanes.iter().enumerate() {
            let ly = y + AXIS_H + i as f64 * LANE_H + LANE_H / 2.0 + 4.0;
            body.push_str(&format!(
                "<text class=\"export-label\" x=\"8\" y=\"{}\">{}</text>\n",
                fixed1(ly),
                escape(&lane.label)
            ));
        }
        let at = format!("<svg x=\"{}\" y=\"{}\" ", fixed0(label_w), fixed0(y));
        body.push_str(&svg.outer_html().replacen("<svg ", &at, 1));
        body.push('\n');
        width = width.max(w);
        y += h;
    }
    Some(format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"fencepost-export\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\">\n<style>{css}</style>\n<rect class=\"export-bg\" width=\"100%\" height=\"100%\"/>\n{body}</svg>\n",
        w = fixed0(width + label_w),
        h = fixed0(y),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use fencepost_sim::{preset, run};

    #[test]
    fn geometry_maps_time_to_pixels_and_back() {
        let g = Geom::new(4, 49_000, BASE_WIDTH);
        assert_eq!(g.x(0), PAD_LEFT);
        assert!((g.x(49_000) - (PAD_LEFT + BASE_WIDTH)).abs() < 1e-9);
        assert_eq!(g.t(g.x(30_000) + 0.01), 30_000);
        assert_eq!(g.t(-50.0), 0);
        assert_eq!(g.t(1e9), 49_000);
        assert_eq!(g.y(2), AXIS_H + 2.0 * LANE_H);
        let zoomed = Geom::new(4, 49_000, BASE_WIDTH * 2.25);
        assert!(zoomed.width() > 2.0 * g.width());
        // A zero-length trace, or a zero width, still has an axis.
        assert!(Geom::new(3, 0, BASE_WIDTH).px_per_ms.is_finite());
        assert!(Geom::new(3, 10, 0.0).px_per_ms > 0.0);
    }

    #[test]
    fn the_expected_width_follows_the_stylesheet() {
        assert_eq!(expected_lanes_width(1280.0), 782.0);
        assert_eq!(expected_lanes_width(1600.0), 782.0);
        assert_eq!(expected_lanes_width(800.0), 608.0);
        assert_eq!(expected_lanes_width(375.0), 249.0);
        assert_eq!(expected_lanes_width(0.0), 0.0);
    }

    #[test]
    fn ticks_are_at_least_70_px_apart() {
        for (end, zoom) in [
            (49_000u64, 1.0),
            (1_000, 1.0),
            (3_600_000, 1.0),
            (u64::MAX / 2, 1.0),
            (49_000, 25.0),
        ] {
            let g = Geom::new(4, end, BASE_WIDTH * zoom);
            let step = tick_step(g.px_per_ms);
            assert!(step as f64 * g.px_per_ms >= 70.0 - 1e-6, "{end} {zoom}");
        }
        assert_eq!(tick_step(Geom::new(4, 49_000, BASE_WIDTH).px_per_ms), 5_000);
    }

    #[test]
    fn axis_ticks_and_the_labels_the_playhead_covers() {
        let g = Geom::new(4, 49_000, BASE_WIDTH);
        let all = ticks(&g);
        let labels: Vec<&str> = all.iter().map(|t| t.label.as_str()).collect();
        assert_eq!(
            labels,
            [
                "0 s", "5 s", "10 s", "15 s", "20 s", "25 s", "30 s", "35 s", "40 s", "45 s"
            ]
        );
        assert_eq!(all[0].x, PAD_LEFT);
        assert_eq!(all[1].half, tick_label_width("5 s") / 2.0);
        // The playhead's label at 30 s, starting 2 px right of it: it covers the 30 s label.
        let covered_at = |t: u64| -> Vec<&str> {
            let head = head_label_span(g.x(t), &fmt_secs(t));
            all.iter()
                .filter(|tick| tick.covered(head))
                .map(|tick| tick.label.as_str())
                .collect()
        };
        assert_eq!(covered_at(30_000), ["30 s"]);
        // Between two ticks it covers neither label; just before one, the one it runs into.
        assert!(covered_at(31_000).is_empty(), "{:?}", covered_at(31_000));
        assert_eq!(covered_at(34_000), ["35 s"]);
    }

    #[test]
    fn in_a_crowd_badges_stay_near_their_moment() {
        let workers: Vec<String> = "ABCDEF"
            .chars()
            .enumerate()
            .map(|(i, n)| {
                format!(
                    r#"{{ "name": "{n}", "start_ms": {}, "job": {{ "work_ms": 500, "writes": 5 }} }}"#,
                    i * 300
                )
            })
            .collect();
        let json = format!(
            r#"{{ "version": 1, "name": "crowd", "seed": 1, "lease_ttl_ms": 5000, "first_token": 33,
                "latency_ms": {{ "min": 20, "max": 200 }}, "workers": [{}], "faults": [] }}"#,
            workers.join(",")
        );
        let t = run(&fencepost_sim::Scenario::from_json(&json).unwrap());
        let layout = Layout::of(&t, crate::model::TokenStyle::Number);
        let g = Geom::new(layout.lanes.len(), layout.end, BASE_WIDTH);
        let places = badge_places(&layout, &g);
        let mut pushed = 0;
        for (b, &(_, x)) in layout.badges.iter().zip(&places) {
            let at = g.x(b.t);
            let edge = g.width() - 2.0 - badge_width(&b.text);
            assert!(
                x <= at + MAX_PUSH + 1e-9,
                "badge {} at {x}, its time at {at}",
                b.seq
            );
            assert!(
                x >= at.min(edge) - 1e-9,
                "badge {} at {x}, its time at {at}",
                b.seq
            );
            pushed += usize::from(x > at + 1.0);
        }
        assert!(
            pushed > 0,
            "a crowd where nothing had to move proves nothing"
        );
    }

    #[test]
    fn close_badges_take_the_second_row_or_move_right() {
        let t = run(&preset("paused-worker").unwrap().scenario());
        let layout = Layout::of(&t, crate::model::TokenStyle::Number);
        let g = Geom::new(layout.lanes.len(), layout.end, BASE_WIDTH);
        let places = badge_places(&layout, &g);
        assert_eq!(places.len(), layout.badges.len());
        let place = |seq: u32| {
            layout
                .badges
                .iter()
                .position(|b| b.seq == seq)
                .map(|i| places[i])
                .unwrap()
        };
        // On the lock lane the 33 grant and the "no: B" denial are 10 s apart: both in row 0,
        // at their times.
        assert_eq!(place(2), (0, g.x(50)));
        assert_eq!(place(8), (0, g.x(10_050)));
        // B's grant (30.1 s) comes right after A's expiry (30.05 s): second row, at its time.
        assert_eq!(place(14), (1, g.x(30_100)));
        // B's release (31.3 s) finds both rows taken: it goes right after the one ending first.
        let (row, x) = place(25);
        assert_eq!(row, 1);
        assert!(x > g.x(31_300));
        // No two badges of a lane overlap in a row, and all stay inside the picture.
        for (i, a) in layout.badges.iter().enumerate() {
            let (ra, xa) = places[i];
            assert!(xa >= 0.0 && xa + badge_width(&a.text) <= g.width());
            for (j, b) in layout.badges.iter().enumerate().skip(i + 1) {
                let (rb, xb) = places[j];
                if a.actor == b.actor && ra == rb {
                    let disjoint =
                        xa + badge_width(&a.text) <= xb || xb + badge_width(&b.text) <= xa;
                    assert!(disjoint, "badges {} and {} overlap", a.seq, b.seq);
                }
            }
        }
    }
}
