//! Opening a recorded run: the "Open a recorded run" file picker, a history file dropped
//! anywhere on the page, and the run the address names (`?run=run.jsonl`, as
//! `cargo xtask demo --run FILE` serves it). The simulator reads the history
//! ([`RecordedRun::read`]); this file only fetches its text.

use std::rc::Rc;

use fencepost_sim::history::recorded::{MAX_RUN_BYTES, RecordedRun};
use gloo_events::{EventListener, EventListenerOptions};
use wasm_bindgen::JsCast;
use yew::prelude::*;

use super::callbacks::{Dispatch, target};
use crate::dom;
use crate::state::{Action, Load, Message};

/// The picker's props.
#[derive(Properties, PartialEq)]
pub struct OpenRunProps {
    /// The app's dispatcher.
    pub dispatch: Dispatch,
}

/// The "Open a recorded run" button: a file picker for a campaign's history.
#[component]
pub fn OpenRun(props: &OpenRunProps) -> Html {
    let d = props.dispatch.clone();
    let onchange = Callback::from(move |e: Event| {
        let Some(input) = target::<web_sys::HtmlInputElement>(&e) else {
            return;
        };
        let Some(file) = input.files().and_then(|f| f.get(0)) else {
            return;
        };
        input.set_value("");
        wasm_bindgen_futures::spawn_local(open_file(d.clone(), file));
    });
    html! {
        <label class="open-run button" title="A history recorded by cargo xtask chaos (JSON Lines); or drop the file on the page">
            { "Open a recorded run" }
            <input type="file" accept=".jsonl,.json,.txt,application/jsonl,application/json,text/plain"
                onchange={onchange} class="sr-only-file" />
        </label>
    }
}

/// Reads `file` and shows the run in it, or says why not.
async fn open_file(d: Dispatch, file: web_sys::File) {
    let name = file.name();
    // A file past the limit is refused before it is read.
    if file.size() > MAX_RUN_BYTES as f64 {
        let error = format!(
            "Could not open {name}: it is {} bytes; the page draws histories up to {MAX_RUN_BYTES} bytes (fencepost check reads any size).",
            file.size()
        );
        d.dispatch(Action::Message(Message::Error(error)));
        return;
    }
    match dom::read_file(&file).await {
        Ok(text) => open_text(&d, &text, name),
        Err(err) => d.dispatch(Action::Message(Message::Error(format!(
            "Could not open {name}: {err}."
        )))),
    }
}

/// Shows the run in `text`, read from `name`, or says why it cannot be drawn.
fn open_text(d: &Dispatch, text: &str, name: String) {
    match RecordedRun::read(text) {
        Ok(run) => d.dispatch(Action::Load(Load::Recorded(Rc::new(run), name))),
        Err(err) => d.dispatch(Action::Message(Message::Error(format!(
            "Could not open {name}: {err}."
        )))),
    }
}

/// Opens a history file dropped anywhere on the page, for as long as the listeners live.
pub fn listen_for_drops(d: Dispatch) -> Option<[EventListener; 2]> {
    let w = web_sys::window()?;
    let options = EventListenerOptions::enable_prevent_default();
    // Without this the browser would open the dropped file in place of the page.
    let over = EventListener::new_with_options(&w, "dragover", options, |e| {
        e.prevent_default();
    });
    let drop = EventListener::new_with_options(&w, "drop", options, move |e| {
        e.prevent_default();
        let file = e
            .dyn_ref::<web_sys::DragEvent>()
            .and_then(web_sys::DragEvent::data_transfer)
            .and_then(|t| t.files())
            .and_then(|f| f.get(0));
        if let Some(file) = file {
            wasm_bindgen_futures::spawn_local(open_file(d.clone(), file));
        }
    });
    Some([over, drop])
}

/// Opens the run the address names (`?run=PATH`, fetched from the page's own server), if any.
pub fn open_from_address(d: Dispatch) {
    let Some(path) = dom::query_value(&dom::query(), "run") else {
        return;
    };
    wasm_bindgen_futures::spawn_local(async move {
        let name = path.rsplit('/').next().unwrap_or(&path).to_string();
        match dom::fetch_text(&path).await {
            Ok(text) if text.len() > MAX_RUN_BYTES => {
                d.dispatch(Action::Message(Message::Error(format!(
                    "Could not open {name}: it is {} bytes; the page draws histories up to {MAX_RUN_BYTES} bytes.",
                    text.len()
                ))));
            }
            Ok(text) => open_text(&d, &text, name),
            Err(err) => d.dispatch(Action::Message(Message::Error(format!(
                "Could not open {name}: {err}."
            )))),
        }
    });
}
