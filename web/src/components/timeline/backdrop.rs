//! The lane bands behind everything, lit for the actors the tour talks about.

use std::rc::Rc;

use fencepost_sim::Actor;
use yew::prelude::*;

use super::geom::{Geom, LANE_H, coord};
use crate::model::Timeline as Layout;

#[derive(Properties, PartialEq)]
pub struct BackdropProps {
    pub layout: Rc<Layout>,
    pub geom: Geom,
    /// Actors to highlight (the tour).
    #[prop_or_default]
    pub highlight: Vec<Actor>,
}

/// The lane bands.
#[component]
pub fn Backdrop(props: &BackdropProps) -> Html {
    let g = props.geom;
    let lanes = props.layout.lanes.iter().enumerate().map(|(i, lane)| {
        let lit = props.highlight.contains(&lane.actor);
        html! {
            <rect
                class={classes!("lane-band", (i % 2 == 1).then_some("odd"), lit.then_some("lit"))}
                x="0" y={coord(g.y(i))} width={coord(g.width())} height={coord(LANE_H)}
            />
        }
    });
    html! {
        <g class="backdrop">
            { for lanes }
        </g>
    }
}
