//! The event list: every event with its sentence, each a button that moves the playhead there.

use std::rc::Rc;

use fencepost_sim::trace::fmt_secs;
use fencepost_sim::{Actor, Trace};
use yew::prelude::*;

use super::callbacks::{Dispatch, target};
use crate::model::TokenStyle;
use crate::state::{Action, Play};

#[derive(Properties, PartialEq)]
pub struct EventListProps {
    pub trace: Rc<Trace>,
    pub tokens: TokenStyle,
    pub dispatch: Dispatch,
    /// The list element, which [`super::narration::Narration`] marks the current event in.
    pub list_ref: NodeRef,
}

/// Every event with its sentence; clicking one moves the playhead there. Rendered once per
/// trace: the current item is marked directly in the DOM by [`super::narration::Narration`].
#[component]
pub fn EventList(props: &EventListProps) -> Html {
    let onclick = {
        let dispatch = props.dispatch.clone();
        Callback::from(move |e: MouseEvent| {
            let Some(clicked) = target::<web_sys::Element>(&e) else {
                return;
            };
            let Some(button) = clicked.closest("button[data-i]").ok().flatten() else {
                return;
            };
            if let Some(i) = button.get_attribute("data-i").and_then(|v| v.parse().ok()) {
                dispatch.dispatch(Action::Play(Play::SeekEvent(i)));
            }
        })
    };
    let t = &props.trace;
    let items = t.events.iter().enumerate().map(|(i, e)| {
        let actor = match e.actor {
            Actor::Lock => "lock".to_string(),
            Actor::Storage => "storage".to_string(),
            a => t.name(a).to_string(),
        };
        html! {
            <li key={i}>
                <button type="button" data-i={i.to_string()}>
                    <span class="ev-time">{ fmt_secs(e.t_ms) }</span>
                    <span class="ev-actor">{ actor }</span>
                    <span class="ev-text">{ props.tokens.words(&t.explain(e)) }</span>
                </button>
            </li>
        }
    });
    html! {
        <ol class="events" ref={props.list_ref.clone()} {onclick} aria-label="Events (click one to go there)">
            { for items }
        </ol>
    }
}
