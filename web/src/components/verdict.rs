//! The verdict: the violation banner once an invariant has broken, else a quiet line.

use yew::prelude::*;

use super::trace_at::TraceAt;
use crate::model::banner_at;
use crate::text::sentence_case;

/// The violation banner, once an invariant has broken; otherwise a quiet verdict line.
#[component]
pub fn Verdict(props: &TraceAt) -> Html {
    let t = &props.trace;
    let end = props.upto >= t.events.len();
    match banner_at(t, props.upto, props.tokens) {
        Some(b) => html! {
            <div class="banner" role="alert">
                <span class="banner-icon" aria-hidden="true">{ "⚠" }</span>
                <div>
                    <strong class="headline">{ sentence_case(&b.headline) }</strong>
                    if !props.compact {
                        <details>
                            <summary>{ format!("Invariants broken ({})", b.details.len()) }</summary>
                            <ul>{ for b.details.iter().map(|d| html! { <li>{ d.clone() }</li> }) }</ul>
                        </details>
                    }
                </div>
            </div>
        },
        None => html! {
            <p class="verdict-ok">
                <span aria-hidden="true">{ "✓ " }</span>
                { if end { "Every invariant held." } else { "Every invariant holds so far." } }
                if t.truncated && end {
                    { format!(" (The run was cut after {} events.)", t.events.len()) }
                }
            </p>
        },
    }
}
