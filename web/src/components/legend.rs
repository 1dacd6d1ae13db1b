//! The key: what the timeline's marks mean, in words and shapes (never colour alone).

use yew::prelude::*;

use crate::model::TokenStyle;

#[derive(Properties, PartialEq)]
pub struct LegendProps {
    /// How the timeline writes tokens: the examples are written the same way.
    pub tokens: TokenStyle,
}

/// What the marks mean, in words and shapes (never colour alone).
#[component]
pub fn Legend(p: &LegendProps) -> Html {
    let (old, new) = (p.tokens.show(33), p.tokens.show(34));
    let writes = match p.tokens {
        TokenStyle::Number => html! {
            <>
                <li><span class="legend-badge accepted">{ format!("✓ {new}") }</span>{ " write applied" }</li>
                <li><span class="legend-badge rejected">{ format!("✗ {old} < {new}") }</span>{ " write refused: its token is older" }</li>
            </>
        },
        TokenStyle::UniqueId => html! {
            <>
                <li><span class="legend-badge accepted">{ format!("✓ {new}") }</span>{ " write applied" }</li>
                <li><span class="legend-badge accepted-stale">{ format!("✓ {old} stale") }</span>
                    { " stale write applied: ids carry no order, so the storage cannot tell it is older" }</li>
                <li><span class="legend-badge rejected">{ format!("✗ {old} reused") }</span>
                    { " write refused: the storage has seen this id replaced" }</li>
            </>
        },
    };
    html! {
        <section class="legend" aria-label="Legend">
            <h2>{ "Key" }</h2>
            <ul>
                <li><span class="swatch lease" aria-hidden="true"></span>{ " lease, as the lock service sees it" }</li>
                <li><span class="swatch safe" aria-hidden="true"></span>{ " safe until: how long the worker's lease keeper lets it act" }</li>
                <li><span class="swatch zombie" aria-hidden="true"></span>{ " zombie: the worker still believes it holds the lock" }</li>
                <li><span class="swatch pause" aria-hidden="true"></span>{ " paused (frozen)" }</li>
                { writes }
                <li><span class="legend-arrows">{ "── ⇢" }</span>{ " messages: requests solid, replies dashed" }</li>
            </ul>
        </section>
    }
}
