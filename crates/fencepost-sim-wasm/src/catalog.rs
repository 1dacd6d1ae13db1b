//! The catalog: every preset and every built-in template.

use fencepost_sim::template::TEMPLATES;
use fencepost_sim::{Invariant, PRESETS};
use serde::Serialize;
use wasm_bindgen::JsValue;
use wasm_bindgen::prelude::wasm_bindgen;

use crate::errors::make_room;
use crate::interop::{OUT_BYTES, to_js};

#[derive(Serialize)]
struct PresetJs {
    name: &'static str,
    title: &'static str,
    story: &'static str,
    /// The scenario's file, as JSON text: the package parses it as it parses any scenario file.
    json: &'static str,
    with_fencing: &'static [Invariant],
    without_fencing: &'static [Invariant],
}

/// Every preset: name, title, story, scenario and the invariants it breaks with fencing forced
/// on and off.
#[wasm_bindgen]
pub fn presets() -> JsValue {
    let bytes = (PRESETS.len() * core::mem::size_of::<PresetJs>()) as u64;
    if !make_room(OUT_BYTES + 2 * bytes) {
        return JsValue::UNDEFINED;
    }
    let list: Vec<PresetJs> = PRESETS
        .iter()
        .map(|p| PresetJs {
            name: p.name,
            title: p.title,
            story: p.story,
            json: p.json,
            with_fencing: p.with_fencing,
            without_fencing: p.without_fencing,
        })
        .collect();
    to_js(&list)
}

#[derive(Serialize)]
struct TemplateJs {
    name: &'static str,
    json: &'static str,
}

/// Every built-in template, with its name and file (JSON text).
#[wasm_bindgen]
pub fn templates() -> JsValue {
    let bytes = (TEMPLATES.len() * core::mem::size_of::<TemplateJs>()) as u64;
    if !make_room(OUT_BYTES + 2 * bytes) {
        return JsValue::UNDEFINED;
    }
    let list: Vec<TemplateJs> = TEMPLATES
        .iter()
        .map(|&(name, json)| TemplateJs { name, json })
        .collect();
    to_js(&list)
}
