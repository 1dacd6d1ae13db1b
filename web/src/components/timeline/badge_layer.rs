//! The badges of the events that have happened, in chunks that playback leaves alone once
//! they are all shown.

use std::rc::Rc;

use yew::prelude::*;

use super::badge_chunk::BadgeChunk;
use super::badge_places::{Places, badge_places};
use super::geom::Geom;
use crate::model::Timeline as Layout;

#[derive(Properties, PartialEq)]
pub struct BadgeProps {
    pub layout: Rc<Layout>,
    pub geom: Geom,
    pub upto: usize,
    /// The playhead's x before the end of the run: no badge starts right of it. At the end
    /// the last badges may use the room after it.
    pub head_x: Option<f64>,
}

/// Badges per chunk: a chunk whose badges have all happened keeps equal props and is skipped on
/// re-render, so playback only redraws the chunk at the playhead.
const CHUNK: usize = 24;

/// Badges of the events that have happened.
#[component]
pub fn BadgeLayer(props: &BadgeProps) -> Html {
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
