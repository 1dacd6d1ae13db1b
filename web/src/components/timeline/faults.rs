//! A recorded run's faults that strike no lane of their own (service instances, engine members,
//! proxies, clocks): a thin span each along the bottom of the lease service's lane, from its
//! start to its end, named in its tooltip. A client's pause is drawn on its own lane, as a
//! simulated pause is.

use std::rc::Rc;

use fencepost_sim::history::Nemesis;
use fencepost_sim::history::recorded::Fault;
use yew::prelude::*;

use super::geom::{Geom, LANE_H, coord};
use crate::state::fault_line;

/// Rows the spans are spread over, so that faults at once stay apart.
const ROWS: usize = 3;
/// A span's height.
const SPAN_H: f64 = 4.0;

#[derive(Properties, PartialEq)]
pub struct FaultsProps {
    pub faults: Rc<Vec<Fault>>,
    pub geom: Geom,
}

/// The spans.
#[component]
pub fn Faults(props: &FaultsProps) -> Html {
    let g = props.geom;
    let bottom = g.y(0) + LANE_H - 2.0;
    let spans = props
        .faults
        .iter()
        .filter(|f| f.nemesis != Nemesis::PauseClient)
        .enumerate()
        .map(|(i, f)| {
            let (x0, x1) = (g.x(f.from), g.x(f.to.unwrap_or(g.end)));
            let y = bottom - ((i % ROWS) + 1) as f64 * (SPAN_H + 1.0);
            html! {
                <rect class={classes!("fault-span", f.nemesis.name())} x={coord(x0)} y={coord(y)}
                    width={coord((x1 - x0).max(2.0))} height={coord(SPAN_H)}>
                    <title>{ fault_line(f) }</title>
                </rect>
            }
        });
    html! { <g class="fault-spans">{ for spans }</g> }
}
