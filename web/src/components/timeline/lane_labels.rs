//! The lane labels: each lane's name and what its actor believes at the playhead.

use std::rc::Rc;

use fencepost_sim::{Actor, Beliefs, Trace};
use yew::prelude::*;

use super::geom::{AXIS_H, LANE_H};
use crate::model::{Timeline as Layout, lane_status_at};
use crate::text::fixed0;

#[derive(Properties, PartialEq)]
pub struct LaneLabelsProps {
    pub trace: Rc<Trace>,
    pub layout: Rc<Layout>,
    pub beliefs: Rc<Beliefs>,
    pub highlight: Vec<Actor>,
}

/// Lane names and what each actor believes at the playhead; stays put while the lanes scroll.
#[component]
pub fn LaneLabels(props: &LaneLabelsProps) -> Html {
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
