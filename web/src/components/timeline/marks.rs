//! The marks laid out from the trace along the lanes: pauses, downtime, lease bars, zombie
//! stretches and the message arrows, drawn once per trace and zoom; and the mark of a lane
//! click's pause that the playhead has not reached yet.

use std::rc::Rc;

use fencepost_sim::Actor;
use fencepost_sim::trace::fmt_secs;
use yew::prelude::*;

use super::geom::{Geom, LANE_H, coord};
use super::messages::arrow_class;
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
                <rect x={coord(x1)} y={coord(y + 2.0)} width={coord((x2 - x1).max(1.0))} height={coord(LANE_H - 4.0)} fill={format!("url(#hatch-{id})")}>
                    <title>{ format!("paused from {} to {}", fmt_secs(p.from), fmt_secs(p.to)) }</title>
                </rect>
            </g>
        })
    });
    let down = l.down.iter().filter_map(|p| {
        let y = lane_y(Actor::Worker(p.worker))?;
        let (x1, x2) = (g.x(p.from), g.x(p.to));
        Some(html! {
            <rect class="down" x={coord(x1)} y={coord(y + 2.0)} width={coord((x2 - x1).max(1.0))} height={coord(LANE_H - 4.0)} fill={format!("url(#down-{id})")}>
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
                        <rect x={coord(x1)} y={coord(y + bar_y)} width={coord(w)} height={coord(bar_h)} rx="3">
                            <title>{ title.clone() }</title>
                        </rect>
                        if w > 44.0 {
                            <text x={coord(x1 + 5.0)} y={coord(y + bar_y + 13.0)}>{ text }</text>
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
                <rect x={coord(x1)} y={coord(y + bar_y)} width={coord(w)} height={coord(bar_h)} rx="3" fill={format!("url(#zombie-{id})")}>
                    <title>{ format!(
                        "zombie: {} still believes it holds token {} from {} to {}, but the lock service no longer gives it",
                        names(z.worker), l.tokens.show(z.token), fmt_secs(z.from), fmt_secs(z.to)
                    ) }</title>
                </rect>
                if w > 90.0 {
                    <text x={coord(x1 + 5.0)} y={coord(y + bar_y + 13.0)}>{ format!("zombie: thinks {}", l.tokens.show(z.token)) }</text>
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
                x1={coord(x1)} y1={coord(y1)} x2={coord(x2)} y2={coord(y2)}
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
