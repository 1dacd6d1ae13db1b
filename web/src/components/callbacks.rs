//! What the components share: the app's dispatcher, the click handlers made of it, and the
//! element or value an event came from.

use wasm_bindgen::JsCast;
use yew::prelude::*;

use crate::state::{Action, State};

/// The app's dispatcher, as the components pass it around.
pub type Dispatch = yew::functional::UseReducerDispatcher<State>;

/// A click handler that dispatches `a`.
pub fn send(d: &Dispatch, a: Action) -> Callback<MouseEvent> {
    let d = d.clone();
    Callback::from(move |_| d.dispatch(a.clone()))
}

/// Where focus goes when the control a person used goes away with the change it made ("Take
/// the tour", "Finish the tour", Undo): the tour card's next step, else the Play button.
const FOCUS_AFTER: &[&str] = &[".tour .tour-buttons .primary", ".playbar .play"];

/// A click handler that dispatches `a` and, if the clicked control then goes away, puts focus
/// where the learner goes on from (not back at the top of the page).
pub fn send_and_refocus(d: &Dispatch, a: Action) -> Callback<MouseEvent> {
    let d = d.clone();
    Callback::from(move |_| {
        d.dispatch(a.clone());
        crate::dom::refocus_soon(FOCUS_AFTER);
    })
}

/// The element an event came from, as a `T`, if it is one.
pub fn target<T: JsCast>(e: &Event) -> Option<T> {
    e.target().and_then(|t| t.dyn_into::<T>().ok())
}

/// The value of the input an event came from (empty if it came from something else).
pub fn input_value(e: &Event) -> String {
    target::<web_sys::HtmlInputElement>(e)
        .map(|i| i.value())
        .unwrap_or_default()
}

/// The value of the select an event came from (empty if it came from something else).
pub fn select_value(e: &Event) -> String {
    target::<web_sys::HtmlSelectElement>(e)
        .map(|s| s.value())
        .unwrap_or_default()
}
