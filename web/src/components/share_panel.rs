//! The share panel: copy a link, export the timeline as SVG, the trace or the scenario as JSON,
//! import a scenario.

use std::rc::Rc;

use fencepost_sim::Scenario;
use yew::prelude::*;

use super::{Dispatch, target};
use crate::dom;
use crate::share::encode_fragment;
use crate::state::{Action, Load, Message, Origin};

#[derive(Properties, PartialEq)]
pub struct ShareProps {
    pub scenario: Scenario,
    pub trace: Rc<fencepost_sim::Trace>,
    pub layout: Rc<crate::model::Timeline>,
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
    let copy = {
        let d = d.clone();
        let frag = encode_fragment(&p.scenario);
        Callback::from(move |_| {
            let href = dom::href();
            let url = format!("{}#{frag}", href.split('#').next().unwrap_or(""));
            let d = d.clone();
            wasm_bindgen_futures::spawn_local(async move {
                if dom::copy(&url).await {
                    d.dispatch(Action::Message(Message::Notice(
                        "Link copied to the clipboard.".into(),
                    )));
                } else {
                    d.dispatch(Action::Message(Message::Notice(
                        "The browser did not allow copying; copy the link below.".into(),
                    )));
                }
                d.dispatch(Action::Message(Message::Link(url)));
            });
        })
    };
    let export_svg = {
        let d = d.clone();
        let layout = p.layout.clone();
        // What the page shows: in compare mode, both timelines (the same lanes), captioned.
        let (ids, name): (&[&str], _) = if p.compare {
            (
                &["timeline-off", "timeline-on"],
                format!("{base}-timeline-compare.svg"),
            )
        } else {
            (&["timeline-main"], format!("{base}-timeline.svg"))
        };
        Callback::from(move |_| {
            let result = super::timeline::export::export_svg(ids, &layout, TIMELINE_CSS)
                .ok_or_else(|| "the timeline is not on the page".to_string())
                .and_then(|svg| dom::download(&name, "image/svg+xml", &svg));
            if let Err(e) = result {
                d.dispatch(Action::Message(Message::Error(format!(
                    "Could not export the SVG: {e}."
                ))));
            }
        })
    };
    let export_trace = {
        let d = d.clone();
        let trace = p.trace.clone();
        let name = format!("{base}-trace.json");
        Callback::from(move |_| {
            if let Err(e) = dom::download(&name, "application/json", &trace.to_json()) {
                d.dispatch(Action::Message(Message::Error(format!(
                    "Could not export the trace: {e}."
                ))));
            }
        })
    };
    let export_scenario = {
        let d = d.clone();
        let json = serde_json::to_string(&p.scenario).unwrap_or_default();
        let name = format!("{base}.json");
        Callback::from(move |_| {
            if let Err(e) = dom::download(&name, "application/json", &json) {
                d.dispatch(Action::Message(Message::Error(format!(
                    "Could not export the scenario: {e}."
                ))));
            }
        })
    };
    let import = {
        let d = d.clone();
        Callback::from(move |e: Event| {
            let Some(input) = target::<web_sys::HtmlInputElement>(&e) else {
                return;
            };
            let Some(file) = input.files().and_then(|f| f.get(0)) else {
                return;
            };
            input.set_value("");
            let d = d.clone();
            wasm_bindgen_futures::spawn_local(async move {
                let name = file.name();
                match dom::read_file(&file).await {
                    Ok(text) if text.len() > crate::share::MAX_FRAGMENT => {
                        d.dispatch(Action::Message(Message::Error(format!(
                            "Could not import {name}: the file is too large for a scenario."
                        ))))
                    }
                    Ok(text) => match Scenario::from_json(&text) {
                        Ok(s) => {
                            d.dispatch(Action::Load(Load::Scenario(Box::new(s), Origin::Import)));
                            d.dispatch(Action::Message(Message::Notice(format!(
                                "Imported {name}."
                            ))));
                        }
                        Err(err) => d.dispatch(Action::Message(Message::Error(format!(
                            "Could not import {name}: {err}"
                        )))),
                    },
                    Err(err) => d.dispatch(Action::Message(Message::Error(format!(
                        "Could not import: {err}."
                    )))),
                }
            });
        })
    };
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
