//! The share panel: copy a link, export the timeline as SVG, the trace or the scenario as JSON,
//! import a scenario.

use std::rc::Rc;

use fencepost_sim::Scenario;
use yew::prelude::*;

use super::callbacks::{Dispatch, target};
use super::timeline::export;
use crate::dom;
use crate::model::Timeline;
use crate::share::encode_fragment;
use crate::state::{Action, Load, Message, Origin};

#[derive(Properties, PartialEq)]
pub struct ShareProps {
    pub scenario: Scenario,
    pub trace: Rc<fencepost_sim::Trace>,
    pub layout: Rc<Timeline>,
    /// Compare mode: the page shows two timelines, fencing off and on, instead of one.
    pub compare: bool,
    pub dispatch: Dispatch,
}

/// The timeline's styles, embedded in exported SVG files.
pub const TIMELINE_CSS: &str = include_str!("../../timeline.css");

/// Copy link, export SVG / trace JSON / scenario JSON, import a scenario.
#[component]
pub fn SharePanel(p: &ShareProps) -> Html {
    let d = &p.dispatch;
    let base = p.scenario.name.clone();
    let base = if base.is_empty() {
        "scenario".to_string()
    } else {
        base
    };
    let copy = copy_link(d, &p.scenario);
    let export_svg = export_svg(d, p.layout.clone(), p.compare, &base);
    let export_trace = {
        let trace = p.trace.clone();
        download_json(d, format!("{base}-trace.json"), "trace", move || {
            trace.to_json()
        })
    };
    let export_scenario = {
        let json = serde_json::to_string(&p.scenario).unwrap_or_default();
        download_json(d, format!("{base}.json"), "scenario", move || json.clone())
    };
    let import = import(d);
    html! {
        <section class="share-panel" aria-label="Share and export">
            <h2>{ "Share" }</h2>
            <div class="buttons">
                <button type="button" onclick={copy}>{ "Copy link" }</button>
                <button type="button" onclick={export_svg}>{ "Export SVG" }</button>
                <button type="button" onclick={export_trace}>{ "Export trace JSON" }</button>
                <button type="button" onclick={export_scenario}>{ "Export scenario JSON" }</button>
                <label class="import button">
                    { "Import scenario JSON" }
                    <input type="file" accept=".json,application/json" onchange={import} class="sr-only-file" />
                </label>
            </div>
        </section>
    }
}

/// Copies the link to `scenario`, or shows it to copy by hand.
fn copy_link(d: &Dispatch, scenario: &Scenario) -> Callback<MouseEvent> {
    let d = d.clone();
    let frag = encode_fragment(scenario);
    Callback::from(move |_| {
        let href = dom::href();
        let url = format!("{}#{frag}", href.split('#').next().unwrap_or(""));
        let d = d.clone();
        wasm_bindgen_futures::spawn_local(async move {
            let notice = if dom::copy(&url).await {
                "Link copied to the clipboard."
            } else {
                "The browser did not allow copying; copy the link below."
            };
            d.dispatch(Action::Message(Message::Notice(notice.into())));
            d.dispatch(Action::Message(Message::Link(url)));
        });
    })
}

/// Downloads what the page shows as an SVG file: in compare mode, both timelines (the same
/// lanes), captioned.
fn export_svg(
    d: &Dispatch,
    layout: Rc<Timeline>,
    compare: bool,
    base: &str,
) -> Callback<MouseEvent> {
    let d = d.clone();
    let (ids, name): (&[&str], _) = if compare {
        (
            &["timeline-off", "timeline-on"],
            format!("{base}-timeline-compare.svg"),
        )
    } else {
        (&["timeline-main"], format!("{base}-timeline.svg"))
    };
    Callback::from(move |_| {
        let result = export::export_svg(ids, &layout, TIMELINE_CSS)
            .ok_or_else(|| "the timeline is not on the page".to_string())
            .and_then(|svg| dom::download(&name, "image/svg+xml", &svg));
        if let Err(e) = result {
            d.dispatch(Action::Message(Message::Error(format!(
                "Could not export the SVG: {e}."
            ))));
        }
    })
}

/// Downloads the JSON `json` makes as the file `name`; `what` names it in an error.
fn download_json(
    d: &Dispatch,
    name: String,
    what: &'static str,
    json: impl Fn() -> String + 'static,
) -> Callback<MouseEvent> {
    let d = d.clone();
    Callback::from(move |_| {
        if let Err(e) = dom::download(&name, "application/json", &json()) {
            d.dispatch(Action::Message(Message::Error(format!(
                "Could not export the {what}: {e}."
            ))));
        }
    })
}

/// Loads the scenario file picked in the input the event comes from.
fn import(d: &Dispatch) -> Callback<Event> {
    let d = d.clone();
    Callback::from(move |e: Event| {
        let Some(input) = target::<web_sys::HtmlInputElement>(&e) else {
            return;
        };
        let Some(file) = input.files().and_then(|f| f.get(0)) else {
            return;
        };
        input.set_value("");
        wasm_bindgen_futures::spawn_local(import_file(d.clone(), file));
    })
}

/// Reads `file` and loads the scenario in it, or says why not.
async fn import_file(d: Dispatch, file: web_sys::File) {
    let name = file.name();
    let error = match dom::read_file(&file).await {
        Ok(text) if text.len() > crate::share::MAX_FRAGMENT => {
            format!("Could not import {name}: the file is too large for a scenario.")
        }
        Ok(text) => match Scenario::from_json(&text) {
            Ok(s) => {
                d.dispatch(Action::Load(Load::Scenario(Box::new(s), Origin::Import)));
                d.dispatch(Action::Message(Message::Notice(format!(
                    "Imported {name}."
                ))));
                return;
            }
            Err(err) => format!("Could not import {name}: {err}"),
        },
        Err(err) => format!("Could not import: {err}."),
    };
    d.dispatch(Action::Message(Message::Error(error)));
}
