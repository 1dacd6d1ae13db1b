//! Messages on the timeline: an arrow from each send to its delivery (among the marks drawn
//! once per trace), and a dot for each one in flight at the playhead.

use fencepost_sim::Actor;
use fencepost_sim::trace::fmt_secs;
use yew::prelude::*;

use super::geom::{Geom, LANE_H, coord};
use crate::model::{ArrowKind, Timeline as Layout, in_flight_at};

pub fn in_flight(layout: &Layout, geom: &Geom, t: u64) -> Html {
    let dots = in_flight_at(&layout.arrows, t).into_iter().filter_map(|f| {
        let a = layout.arrows.get(f.arrow)?;
        let (y1, y2) = (
            lane_mid(layout, geom, a.from)?,
            lane_mid(layout, geom, a.to)?,
        );
        let x = geom.x(a.sent) + (geom.x(a.arrived) - geom.x(a.sent)) * f.progress;
        let y = y1 + (y2 - y1) * f.progress;
        Some(html! {
            <circle class={classes!("in-flight", arrow_class(a.kind))} cx={coord(x)} cy={coord(y)} r="4.5">
                <title>{ format!("{} in flight", a.label) }</title>
            </circle>
        })
    });
    html! { <g class="in-flight-layer">{ for dots }</g> }
}

pub fn lane_mid(layout: &Layout, geom: &Geom, actor: Actor) -> Option<f64> {
    layout.lane_of(actor).map(|i| geom.y(i) + LANE_H * 0.5)
}

pub fn arrow_class(kind: ArrowKind) -> &'static str {
    match kind {
        ArrowKind::Request => "request",
        ArrowKind::Reply => "reply",
        ArrowKind::Write => "write",
        ArrowKind::Ack => "ack",
        ArrowKind::Refused => "refused",
    }
}

/// An arrow from each send to its delivery (dashed if the message was never handled).
pub fn arrows<'a>(l: &'a Layout, g: Geom, id: &'a str) -> impl Iterator<Item = Html> + 'a {
    l.arrows.iter().filter_map(move |a| {
        let (y1, y2) = (lane_mid(l, &g, a.from)?, lane_mid(l, &g, a.to)?);
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
    })
}
