//! Thin, failure-tolerant wrappers over the browser: URL, storage, clipboard, downloads, timing.
//!
//! Every function here degrades to doing nothing (or returning `None`) outside a browser or when
//! the browser refuses; none of them panics.

use std::cell::Cell;

use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};

fn window() -> Option<web_sys::Window> {
    web_sys::window()
}

/// `performance.now()`, or 0.
pub fn now() -> f64 {
    window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

/// `window.innerWidth`, or 0.
pub fn viewport_width() -> f64 {
    window()
        .and_then(|w| w.inner_width().ok())
        .and_then(|v| v.as_f64())
        .unwrap_or(0.0)
}

/// The page's query string, without `?`.
pub fn query() -> String {
    window()
        .and_then(|w| w.location().search().ok())
        .map(|s| s.trim_start_matches('?').to_string())
        .unwrap_or_default()
}

/// Whether the query string has the flag `name` (`?embed`, `?embed=1`, `?a&embed`).
pub fn has_flag(query: &str, name: &str) -> bool {
    query
        .split('&')
        .any(|p| p == name || p.strip_prefix(name).is_some_and(|r| r.starts_with('=')))
}

/// The value of parameter `name` in a query string, decoded (`?run=run.jsonl`).
pub fn query_value(query: &str, name: &str) -> Option<String> {
    let raw = query
        .split('&')
        .find_map(|p| p.strip_prefix(name)?.strip_prefix('='))?;
    js_sys::decode_uri_component(raw)
        .ok()
        .and_then(|v| v.as_string())
}

/// The URL fragment, with its `#`.
pub fn hash() -> String {
    window()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default()
}

/// Sets the fragment, with `note` kept as the entry's state, without firing `hashchange`: in a
/// new history entry if `push` (Back returns to the one before), else in the current one.
fn set_hash(fragment: &str, note: &str, push: bool) {
    let Some(h) = window().and_then(|w| w.history().ok()) else {
        return;
    };
    let (state, url) = (JsValue::from_str(note), format!("#{fragment}"));
    let _ = if push {
        h.push_state_with_url(&state, "", Some(&url))
    } else {
        h.replace_state_with_url(&state, "", Some(&url))
    };
}

/// Replaces the fragment (and the entry's note) without adding a history entry or firing
/// `hashchange`.
pub fn replace_hash(fragment: &str, note: &str) {
    set_hash(fragment, note, false);
}

/// Sets the fragment in a new history entry (Back returns to the one before), with a note,
/// without firing `hashchange`.
pub fn push_hash(fragment: &str, note: &str) {
    set_hash(fragment, note, true);
}

/// The note kept with the current history entry, if any.
pub fn history_note() -> Option<String> {
    window()
        .and_then(|w| w.history().ok())
        .and_then(|h| h.state().ok())
        .and_then(|v| v.as_string())
}

/// Goes one entry back in the history (as the Back button does; `hashchange` follows).
pub fn history_back() {
    if let Some(w) = window()
        && let Ok(h) = w.history()
    {
        let _ = h.back();
    }
}

/// The first element of `doc` matching `selector`, if it is one that can take focus.
fn focusable(doc: &web_sys::Document, selector: &str) -> Option<web_sys::HtmlElement> {
    doc.query_selector(selector)
        .ok()
        .flatten()
        .and_then(|el| el.dyn_into::<web_sys::HtmlElement>().ok())
}

/// Focuses the first element matching `selector`, if there is one.
pub fn focus(selector: &str) {
    if let Some(el) = window()
        .and_then(|w| w.document())
        .and_then(|d| focusable(&d, selector))
    {
        let _ = el.focus();
    }
}

/// After the page has redrawn: if the focused control went away with the change (focus fell to
/// the page), focus the first of `selectors` that is on the page.
///
/// The callback is handed to the browser as a one-shot function: it frees itself once it has
/// run, so each call costs nothing after its timer fired (a `Timeout` that must outlive this
/// function could only be kept by leaking it).
pub fn refocus_soon(selectors: &'static [&'static str]) {
    let Some(w) = window() else { return };
    let refocus = Closure::once_into_js(move || {
        let Some(doc) = window().and_then(|w| w.document()) else {
            return;
        };
        let lost = doc
            .active_element()
            .is_none_or(|el| doc.body().is_some_and(|b| b.is_same_node(Some(&el))));
        if !lost {
            return;
        }
        if let Some(el) = selectors.iter().find_map(|s| focusable(&doc, s)) {
            let _ = el.focus();
        }
    });
    let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(refocus.unchecked_ref(), 0);
}

/// Scrolls the page back to its top, where the timeline is.
pub fn scroll_to_top() {
    if let Some(w) = window() {
        w.scroll_to_with_x_and_y(0.0, 0.0);
    }
}

/// The page's full address.
pub fn href() -> String {
    window()
        .and_then(|w| w.location().href().ok())
        .unwrap_or_default()
}

/// A value from localStorage.
pub fn stored(key: &str) -> Option<String> {
    window()?.local_storage().ok()??.get_item(key).ok()?
}

/// Stores a value in localStorage (ignored if storage is unavailable).
pub fn store(key: &str, value: &str) {
    if let Some(s) = window().and_then(|w| w.local_storage().ok().flatten()) {
        let _ = s.set_item(key, value);
    }
}

/// Offers `text` as a file download named `name`.
pub fn download(name: &str, mime: &str, text: &str) -> Result<(), String> {
    let fail = |_| format!("the browser refused to save {name}");
    let document = window()
        .and_then(|w| w.document())
        .ok_or("no document to download from")?;
    let parts = js_sys::Array::of1(&JsValue::from_str(text));
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type(mime);
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &opts).map_err(fail)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(fail)?;
    let a: web_sys::HtmlAnchorElement = document
        .create_element("a")
        .map_err(fail)?
        .dyn_into()
        .map_err(|_| "could not create a link".to_string())?;
    a.set_href(&url);
    a.set_download(name);
    a.click();
    let _ = web_sys::Url::revoke_object_url(&url);
    Ok(())
}

/// Copies `text` to the clipboard; resolves to whether it worked.
pub async fn copy(text: &str) -> bool {
    let Some(w) = window() else { return false };
    let promise = w.navigator().clipboard().write_text(text);
    wasm_bindgen_futures::JsFuture::from(promise).await.is_ok()
}

/// Reads a picked file as text.
pub async fn read_file(file: &web_sys::File) -> Result<String, String> {
    let text = wasm_bindgen_futures::JsFuture::from(file.text())
        .await
        .map_err(|_| format!("could not read {}", file.name()))?;
    text.as_string()
        .ok_or_else(|| format!("{} is not text", file.name()))
}

/// Fetches `url` (same origin) as text: the text and its name (the path's last part), or why not.
pub async fn fetch_text(url: &str) -> Result<String, String> {
    let w = window().ok_or("no window")?;
    let answer = wasm_bindgen_futures::JsFuture::from(w.fetch_with_str(url))
        .await
        .map_err(|_| format!("could not fetch {url}"))?;
    let response: web_sys::Response = answer.dyn_into().map_err(|_| "not a response")?;
    if !response.ok() {
        return Err(format!("{url} answered {}", response.status()));
    }
    let text = response
        .text()
        .map_err(|_| format!("could not read {url}"))?;
    let text = wasm_bindgen_futures::JsFuture::from(text)
        .await
        .map_err(|_| format!("could not read {url}"))?;
    text.as_string().ok_or_else(|| format!("{url} is not text"))
}

fn set_global(name: &str, value: &JsValue) {
    if let Some(w) = window() {
        let _ = js_sys::Reflect::set(&w, &JsValue::from_str(name), value);
    }
}

fn get_global(name: &str) -> Option<JsValue> {
    let w = window()?;
    js_sys::Reflect::get(&w, &JsValue::from_str(name))
        .ok()
        .filter(|v| !v.is_undefined())
}

thread_local! {
    static FRAME_START: Cell<f64> = const { Cell::new(-1.0) };
}

/// Marks the start of a playback frame (bench mode).
pub fn frame_start() {
    FRAME_START.with(|c| c.set(now()));
}

/// Ends a playback frame: forces style and layout, then records the frame's duration in
/// `window.__fencepostFrames` (bench mode).
pub fn frame_end(layout_of: Option<&web_sys::Element>) {
    let start = FRAME_START.with(|c| c.replace(-1.0));
    if start < 0.0 {
        return;
    }
    if let Some(el) = layout_of {
        let _ = el.get_bounding_client_rect();
    }
    let took = now() - start;
    let frames = match get_global("__fencepostFrames") {
        Some(v) => v,
        None => {
            let a = js_sys::Array::new();
            set_global("__fencepostFrames", &a);
            a.into()
        }
    };
    if let Ok(a) = frames.dyn_into::<js_sys::Array>() {
        a.push(&JsValue::from_f64(took));
    }
}

/// Records `performance.now()` in `window[name]`.
pub fn mark(name: &str) {
    set_global(name, &JsValue::from_f64(now()));
}

/// Records, once, when the first timeline was drawn (`window.__fencepostFirstTimeline`, in ms
/// since navigation start).
pub fn first_timeline() {
    if get_global("__fencepostFirstTimeline").is_none() {
        set_global("__fencepostFirstTimeline", &JsValue::from_f64(now()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_in_the_query_string() {
        assert!(has_flag("embed", "embed"));
        assert!(has_flag("a=1&embed=1", "embed"));
        assert!(!has_flag("embedded", "embed"));
        assert!(!has_flag("", "embed"));
        assert!(has_flag("bench", "bench"));
    }
}
