//! Each worker's safe-until band: from when it learned of its lease to the deadline its keeper
//! counts after the events that have happened ([`crate::model::SafeBand::at`]). Unlike the
//! marks, it reaches ahead of the playhead: how long the worker may still act is what it shows.
//! A band still running to its deadline ends in a tick labelled with it; the moment the worker's
//! keeper said the lease is lost is marked on the band's row, where it happened.

use std::rc::Rc;

use fencepost_sim::Actor;
use fencepost_sim::trace::{LossWhy, fmt_secs};
use yew::prelude::*;

use super::geom::{Geom, coord};
use crate::model::{BandAt, SafeBand, Timeline as Layout};

#[derive(Properties, PartialEq)]
pub struct SafeBandsProps {
    pub layout: Rc<Layout>,
    pub geom: Geom,
    /// Events that have happened.
    pub upto: usize,
}

/// The band's top below its lane's, and its height: around the lease bar, clear of the badges.
const TOP: f64 = 4.0;
const HEIGHT: f64 = 26.0;
/// Room the deadline's label needs inside the band to be written there.
const LABEL_W: f64 = 104.0;

/// The safe-until bands at the playhead.
#[component]
pub fn SafeBands(props: &SafeBandsProps) -> Html {
    let (l, g) = (&*props.layout, props.geom);
    let bands = l
        .safe_bands
        .iter()
        .filter_map(|b| Some((b, b.at(props.upto)?)))
        .filter_map(|(b, at)| band(l, g, b, at));
    html! { <g class="safe-bands">{ for bands }</g> }
}

fn band(l: &Layout, g: Geom, b: &SafeBand, at: BandAt) -> Option<Html> {
    let y = g.y(l.lane_of(Actor::Worker(b.worker))?);
    let name = l.worker_name(b.worker);
    let (x1, x2) = (g.x(at.from), g.x(at.to));
    let reaches_deadline = at.to == at.until;
    let lost = at.lost.map(|(_, why)| match why {
        LossWhy::Expired => "expired",
        LossWhy::Refused => "refused",
    });
    let token = l.tokens.show(b.token);
    let title = match at.lost {
        Some((t, _)) => format!(
            "{name}'s keeper counted lease {token} safe until {}; at {} it said the lease is lost",
            fmt_secs(at.until),
            fmt_secs(t)
        ),
        None => format!(
            "{name}'s keeper counts lease {token} safe until {}",
            fmt_secs(at.until)
        ),
    };
    let label = format!("safe until {}", fmt_secs(at.until));
    let inside = x2 - x1 >= LABEL_W;
    Some(html! {
        <g class={classes!("safe-band", lost.is_some().then_some("lost"))}
            data-worker={name.to_string()} data-token={token.clone()}
            data-from={at.from.to_string()} data-to={at.to.to_string()}
            data-until={at.until.to_string()} data-lost={lost}>
            <title>{ title }</title>
            <rect x={coord(x1)} y={coord(y + TOP)} width={coord((x2 - x1).max(2.0))} height={coord(HEIGHT)} rx="4" />
            if let Some((t, why)) = at.lost {
                { lost_mark(g.x(t), y, why) }
            }
            if reaches_deadline {
                <line class="deadline" x1={coord(x2)} x2={coord(x2)} y1={coord(y + 1.0)} y2={coord(y + TOP + HEIGHT + 2.0)} />
                <text class="deadline-label"
                    x={coord(if inside { x2 - 4.0 } else { x2 + 4.0 })}
                    y={coord(y + TOP + 17.0)}
                    text-anchor={if inside { "end" } else { "start" }}>{ label }</text>
            }
        </g>
    })
}

/// The mark at `x` on a band's row of the lane at `y`: the worker's keeper says the lease is lost.
fn lost_mark(x: f64, y: f64, why: LossWhy) -> Html {
    let text = match why {
        LossWhy::Expired => "✗ knows: lost",
        LossWhy::Refused => "✗ knows: refused",
    };
    html! {
        <g class="lost-mark">
            <line x1={coord(x)} x2={coord(x)} y1={coord(y + 1.0)} y2={coord(y + TOP + HEIGHT + 2.0)} />
            <text x={coord(x + 4.0)} y={coord(y + TOP + 17.0)}>{ text }</text>
        </g>
    }
}
