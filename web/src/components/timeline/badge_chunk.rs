//! One chunk of badges: a run of consecutive badges, drawn together.

use std::rc::Rc;

use yew::prelude::*;

use super::badge_places::{Places, badge_width};
use super::geom::{Geom, coord};
use crate::model::{BadgeKind, Timeline as Layout};

#[derive(Properties, PartialEq)]
pub struct ChunkProps {
    pub layout: Rc<Layout>,
    pub geom: Geom,
    pub rows: Places,
    pub from: usize,
    pub to: usize,
    /// The x no badge may start right of (the playhead's), when one of these would.
    pub limit: Option<f64>,
}

#[component]
pub fn BadgeChunk(props: &ChunkProps) -> Html {
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
                <rect x={coord(x)} y={coord(y)} width={coord(w)} height="15" rx="7" />
                <text x={coord(x + 5.0)} y={coord(y + 11.5)}>{ b.text.clone() }</text>
            </g>
        })
    });
    html! { <g>{ for badges }</g> }
}

pub fn badge_class(k: BadgeKind) -> &'static str {
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
