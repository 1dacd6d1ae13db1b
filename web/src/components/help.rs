//! The keyboard help.

use yew::prelude::*;

use super::callbacks::{Dispatch, send};
use crate::state::Action;

#[derive(Properties, PartialEq)]
pub struct DispatchOnly {
    pub dispatch: Dispatch,
}

/// Keyboard shortcuts.
#[component]
pub fn Help(props: &DispatchOnly) -> Html {
    let close = send(&props.dispatch, Action::ToggleHelp);
    html! {
        <section class="help" role="dialog" aria-label="Keyboard shortcuts">
            <h2>{ "Keyboard" }</h2>
            <dl>
                <dt><kbd>{ "Space" }</kbd></dt><dd>{ "play / pause" }</dd>
                <dt><kbd>{ "←" }</kbd>{ " " }<kbd>{ "→" }</kbd></dt><dd>{ "previous / next event" }</dd>
                <dt><kbd>{ "Home" }</kbd>{ " " }<kbd>{ "End" }</kbd></dt><dd>{ "start / end" }</dd>
                <dt><kbd>{ "f" }</kbd></dt><dd>{ "fencing on / off" }</dd>
                <dt><kbd>{ "?" }</kbd></dt><dd>{ "this help" }</dd>
                <dt><kbd>{ "Esc" }</kbd></dt><dd>{ "close help and messages" }</dd>
            </dl>
            <button type="button" onclick={close}>{ "Close" }</button>
        </section>
    }
}
