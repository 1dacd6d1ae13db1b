//! The keyboard shortcuts: which key does what, and where the page leaves keys to the control
//! that has focus. Not a component: the app listens with it once.

use gloo_events::{EventListener, EventListenerOptions};
use wasm_bindgen::JsCast;

use super::callbacks::{Dispatch, target};
use crate::state::{Action, Edit, Message, Play, Switch};

/// Listens to the page's keys for as long as the listener it returns lives.
pub fn listen_for_shortcuts(dispatch: Dispatch) -> Option<EventListener> {
    web_sys::window().and_then(|w| w.document()).map(|doc| {
        EventListener::new_with_options(
            &doc,
            "keydown",
            EventListenerOptions::enable_prevent_default(),
            move |e| {
                let Some(e) = e.dyn_ref::<web_sys::KeyboardEvent>() else {
                    return;
                };
                if let Some(a) = shortcut(e) {
                    e.prevent_default();
                    dispatch.dispatch(a);
                }
            },
        )
    })
}

/// What key event `e` does, if it is a shortcut where it was pressed.
fn shortcut(e: &web_sys::KeyboardEvent) -> Option<Action> {
    if e.ctrl_key() || e.meta_key() || e.alt_key() {
        return None;
    }
    let el = target::<web_sys::Element>(e);
    let in_field = el.as_ref().is_some_and(is_text_field);
    let activator = el.as_ref().is_some_and(is_activator);
    let on_range = target::<web_sys::HtmlInputElement>(e).is_some_and(|i| i.type_() == "range");
    match e.key().as_str() {
        _ if in_field && e.key() != "Escape" => None,
        " " | "Enter" if activator => None,
        " " => Some(Action::Play(Play::Toggle)),
        "ArrowRight" if !on_range => Some(Action::Play(Play::Next)),
        "ArrowLeft" if !on_range => Some(Action::Play(Play::Prev)),
        "Home" if !on_range => Some(Action::Play(Play::Restart)),
        "End" if !on_range => Some(Action::Play(Play::End)),
        "f" | "F" => Some(Action::Edit(Edit::Toggle(Switch::Fencing))),
        "?" => Some(Action::ToggleHelp),
        "Escape" => Some(Action::Message(Message::Dismiss)),
        _ => None,
    }
}

/// Whether `target` takes typed keys itself (text boxes, selects): shortcuts leave them alone.
fn is_text_field(target: &web_sys::Element) -> bool {
    match target.tag_name().to_ascii_lowercase().as_str() {
        "textarea" | "select" => true,
        "input" => !matches!(
            target.get_attribute("type").as_deref(),
            Some("checkbox" | "radio" | "button" | "submit" | "reset" | "file" | "range")
        ),
        _ => target
            .get_attribute("contenteditable")
            .is_some_and(|v| v != "false"),
    }
}

/// Whether Space and Enter on `target` activate it (buttons, checkboxes, links, summaries):
/// those keys are then the control's, not the page's.
fn is_activator(target: &web_sys::Element) -> bool {
    match target.tag_name().to_ascii_lowercase().as_str() {
        "button" | "summary" => true,
        "a" => target.has_attribute("href"),
        "input" => matches!(
            target.get_attribute("type").as_deref(),
            Some("checkbox" | "radio" | "button" | "submit" | "reset" | "file")
        ),
        _ => matches!(
            target.get_attribute("role").as_deref(),
            Some("button" | "checkbox" | "link" | "switch")
        ),
    }
}
