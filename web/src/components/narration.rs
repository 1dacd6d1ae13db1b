//! The narration: what just happened, announced politely, above the whole event list.

use std::rc::Rc;

use fencepost_sim::Trace;
use fencepost_sim::trace::fmt_secs;
use wasm_bindgen::JsCast;
use yew::prelude::*;

use super::callbacks::Dispatch;
use super::event_list::EventList;
use crate::model::TokenStyle;

#[derive(Properties, PartialEq)]
pub struct NarrationProps {
    /// Whether to draw the (long) event list yet: the app waits until the timeline is drawn.
    pub ready: bool,
    pub trace: Rc<Trace>,
    pub upto: usize,
    pub playing: bool,
    /// How tokens are written.
    #[prop_or_default]
    pub tokens: TokenStyle,
    /// In compare mode: which of the two timelines this describes.
    #[prop_or_default]
    pub which: Option<AttrValue>,
    pub dispatch: Dispatch,
}

/// What just happened, announced politely, and the whole event list.
#[component]
pub fn Narration(props: &NarrationProps) -> Html {
    let list_ref = use_node_ref();
    let settled = props.ready;
    {
        let list_ref = list_ref.clone();
        let current = props.upto.checked_sub(1);
        let trace = props.trace.clone();
        use_effect_with((current, trace, settled), move |(current, _, _)| {
            let Some(ol) = list_ref.cast::<web_sys::Element>() else {
                return;
            };
            if let Ok(old) = ol.query_selector_all("li.current") {
                for i in 0..old.length() {
                    if let Some(el) = old
                        .item(i)
                        .and_then(|n| n.dyn_into::<web_sys::Element>().ok())
                    {
                        let _ = el.class_list().remove_1("current");
                        let _ = el.remove_attribute("aria-current");
                    }
                }
            }
            let Some(i) = current else { return };
            let Some(li) = ol.children().item(*i as u32) else {
                return;
            };
            let _ = li.class_list().add_1("current");
            let _ = li.set_attribute("aria-current", "step");
            // Scroll the list (not the page) so the current event stays visible.
            if let Some(scroller) = ol.parent_element() {
                let top = li
                    .dyn_ref::<web_sys::HtmlElement>()
                    .map_or(0, |h| h.offset_top());
                let h = scroller.client_height();
                let st = scroller.scroll_top();
                if top < st || top > st + h - 40 {
                    scroller.set_scroll_top((top - h / 3).max(0));
                }
            }
        });
    }
    let now = props
        .upto
        .checked_sub(1)
        .and_then(|i| props.trace.events.get(i))
        .map(|e| {
            format!(
                "{} — {}",
                fmt_secs(e.t_ms),
                props.tokens.words(&props.trace.explain(e))
            )
        })
        .unwrap_or_else(|| "Nothing has happened yet. Press play, or step with →.".into());
    html! {
        <section class="narration" aria-label="Narration">
            <h2>{ "What happens" }</h2>
            if let Some(w) = &props.which {
                <p class="which-run">{ w.clone() }</p>
            }
            <p class="now" aria-live={if props.playing { "polite" } else { "off" }}>{ now }</p>
            // Every event is a button: one Tab stop that jumps past them all to the editor.
            <button type="button" class="skip" onclick={Callback::from(|_: MouseEvent| crate::dom::focus(".scenario-panel select"))}>
                { "Skip the event list, to the scenario editor" }
            </button>
            <div class="events-scroll">
                if settled {
                    <EventList trace={props.trace.clone()} tokens={props.tokens} dispatch={props.dispatch.clone()} list_ref={list_ref} />
                }
            </div>
        </section>
    }
}
