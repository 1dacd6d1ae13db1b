//! The patterns and the arrowhead the timeline's marks are filled and ended with.

use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct DefsProps {
    pub id: AttrValue,
}

#[component]
pub fn Defs(props: &DefsProps) -> Html {
    let id = &props.id;
    html! {
        <defs>
            <pattern id={format!("hatch-{id}")} width="7" height="7" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
                <rect class="hatch-bg" width="7" height="7" />
                <line class="hatch-line" x1="0" y1="0" x2="0" y2="7" />
            </pattern>
            <pattern id={format!("zombie-{id}")} width="10" height="10" patternUnits="userSpaceOnUse" patternTransform="rotate(-45)">
                <rect class="zombie-bg" width="10" height="10" />
                <rect class="zombie-stripe" width="4" height="10" />
            </pattern>
            <pattern id={format!("down-{id}")} width="8" height="8" patternUnits="userSpaceOnUse">
                <rect class="hatch-bg" width="8" height="8" />
                <path class="hatch-line" d="M0 0 L8 8 M8 0 L0 8" />
            </pattern>
            <marker id={format!("head-{id}")} viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
                <path class="arrowhead" d="M0 0 L10 5 L0 10 z" />
            </marker>
        </defs>
    }
}
