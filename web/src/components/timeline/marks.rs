//! The marks laid out from the trace along the lanes: pauses, downtime, lease bars, zombie
//! stretches and the message arrows ([`super::messages`]), drawn once per trace and zoom; and the
//! mark of a lane click's pause that the playhead has not reached yet.

use std::rc::Rc;

use fencepost_sim::Actor;
use fencepost_sim::trace::fmt_secs;
use yew::prelude::*;

use super::geom::{Geom, LANE_H, coord};
use super::messages::arrows;
use crate::model::{LeaseEnd, Timeline as Layout};

#[derive(Properties, PartialEq)]
pub struct MarksProps {
    pub layout: Rc<Layout>,
    pub geom: Geom,
    /// The timeline's id, which its patterns are named after.
    pub id: AttrValue,
}

/// Everything laid out from the trace: drawn once per trace and zoom.
#[component]
pub fn Marks(props: &MarksProps) -> Html {
    let (l, g, id) = (&*props.layout, props.geom, &props.id);
    html! {
        <g class="static">
            { for pauses(l, g, id) }
            { for down(l, g, id) }
            { for leases(l, g) }
            { for zombies(l, g, id) }
            <g class="arrows">{ for arrows(l, g, id) }</g>
        </g>
    }
}

/// Height of a bar's top above its lane's.
const BAR_Y: f64 = 8.0;
/// A bar's height.
const BAR_H: f64 = 18.0;

/// The top of `actor`'s lane.
fn lane_y(l: &Layout, g: Geom, actor: Actor) -> Option<f64> {
    l.lane_of(actor).map(|i| g.y(i))
}

/// The hatched stretches where a worker was frozen.
fn pauses<'a>(l: &'a Layout, g: Geom, id: &'a str) -> impl Iterator<Item = Html> + 'a {
    l.pauses.iter().filter_map(move |p| {
        let y = lane_y(l, g, Actor::Worker(p.worker))?;
        let (x1, x2) = (g.x(p.from), g.x(p.to));
        Some(html! {
            <g class="pause">
                <rect x={coord(x1)} y={coord(y + 2.0)} width={coord((x2 - x1).max(1.0))} height={coord(LANE_H - 4.0)} fill={format!("url(#hatch-{id})")}>
                    <title>{ format!("paused from {} to {}", fmt_secs(p.from), fmt_secs(p.to)) }</title>
                </rect>
            </g>
        })
    })
}

/// The cross-hatched stretches where a worker's process was down.
fn down<'a>(l: &'a Layout, g: Geom, id: &'a str) -> impl Iterator<Item = Html> + 'a {
    l.down.iter().filter_map(move |p| {
        let y = lane_y(l, g, Actor::Worker(p.worker))?;
        let (x1, x2) = (g.x(p.from), g.x(p.to));
        Some(html! {
            <rect class="down" x={coord(x1)} y={coord(y + 2.0)} width={coord((x2 - x1).max(1.0))} height={coord(LANE_H - 4.0)} fill={format!("url(#down-{id})")}>
                <title>{ format!("process down from {} to {}", fmt_secs(p.from), fmt_secs(p.to)) }</title>
            </rect>
        })
    })
}

/// The lease bars, each on the lock service's lane and on its holder's.
fn leases<'a>(l: &'a Layout, g: Geom) -> impl Iterator<Item = Html> + 'a {
    l.leases.iter().flat_map(move |b| {
        let (x1, x2) = (g.x(b.from), g.x(b.to));
        let w = (x2 - x1).max(2.0);
        let end = match b.end {
            LeaseEnd::Expired => "expired",
            LeaseEnd::Released => "released",
            LeaseEnd::Forgotten => "forgotten by a restart",
            LeaseEnd::Open => "still held",
        };
        let token = l.tokens.show(b.token);
        let name = l.worker_name(b.worker);
        let title = format!(
            "lease of {name} with token {token}: {} to {} ({end})",
            fmt_secs(b.from),
            fmt_secs(b.to)
        );
        let mut out = Vec::new();
        for (actor, text) in [
            (Actor::Lock, format!("{name} · {token}")),
            (Actor::Worker(b.worker), format!("lease {token}")),
        ] {
            if let Some(y) = lane_y(l, g, actor) {
                out.push(html! {
                    <g class={classes!("lease", (b.end == LeaseEnd::Open).then_some("open"))}>
                        <rect x={coord(x1)} y={coord(y + BAR_Y)} width={coord(w)} height={coord(BAR_H)} rx="3">
                            <title>{ title.clone() }</title>
                        </rect>
                        if w > 44.0 {
                            <text x={coord(x1 + 5.0)} y={coord(y + BAR_Y + 13.0)}>{ text }</text>
                        }
                    </g>
                });
            }
        }
        out
    })
}

/// The striped stretches where a worker believes in a lease the lock service no longer gives it.
fn zombies<'a>(l: &'a Layout, g: Geom, id: &'a str) -> impl Iterator<Item = Html> + 'a {
    l.zombies.iter().filter_map(move |z| {
        let y = lane_y(l, g, Actor::Worker(z.worker))?;
        let (x1, x2) = (g.x(z.from), g.x(z.to));
        let w = (x2 - x1).max(2.0);
        Some(html! {
            <g class="zombie">
                <rect x={coord(x1)} y={coord(y + BAR_Y)} width={coord(w)} height={coord(BAR_H)} rx="3" fill={format!("url(#zombie-{id})")}>
                    <title>{ format!(
                        "zombie: {} still believes it holds token {} from {} to {}, but the lock service no longer gives it",
                        l.worker_name(z.worker), l.tokens.show(z.token), fmt_secs(z.from), fmt_secs(z.to)
                    ) }</title>
                </rect>
                if w > 90.0 {
                    <text x={coord(x1 + 5.0)} y={coord(y + BAR_Y + 13.0)}>{ format!("zombie: thinks {}", l.tokens.show(z.token)) }</text>
                }
            </g>
        })
    })
}

/// A dashed mark where a lane click added a pause the playhead has not reached yet.
pub fn pending_mark(layout: &Layout, geom: &Geom, pending: Option<(usize, u64)>, t: u64) -> Html {
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
            <line x1={coord(x)} x2={coord(x)} y1={coord(y + 4.0)} y2={coord(y + LANE_H - 4.0)} />
            <text x={coord(x + 4.0)} y={coord(y + LANE_H - 8.0)}>{ "pause added here" }</text>
        </g>
    }
}
