//! Panels around the timeline: storage, violation banner, narration, tour, help, messages.

use std::rc::Rc;

use fencepost_sim::trace::fmt_secs;
use fencepost_sim::{Actor, Trace};
use wasm_bindgen::JsCast;
use yew::prelude::*;

use super::{Dispatch, send, send_and_refocus, target};
use crate::model::{TokenStyle, banner_at, storage_at};
use crate::state::{Action, Edit, Message, Play, TourStep};
use crate::text::sentence_case;
use crate::tour::CHAPTERS;

/// Writes listed in the storage panel (the latest ones).
const DOC_LINES: usize = 8;

#[derive(Properties, PartialEq)]
pub struct TraceAt {
    pub trace: Rc<Trace>,
    pub upto: usize,
    #[prop_or_default]
    pub compact: bool,
    /// How tokens are written.
    #[prop_or_default]
    pub tokens: TokenStyle,
    /// In compare mode: which of the two timelines this describes.
    #[prop_or_default]
    pub which: Option<AttrValue>,
}

/// The storage: highest accepted token and the document, as of the playhead.
#[component]
pub fn StoragePanel(props: &TraceAt) -> Html {
    let s = storage_at(&props.trace, props.upto);
    let ids = props.tokens == TokenStyle::UniqueId;
    let show = |t: u64| props.tokens.show(t);
    // The latest writes; older ones are counted.
    let skip = s.document.len().saturating_sub(DOC_LINES);
    let doc = s.document.iter().enumerate().skip(skip).map(|(i, d)| {
        let top = i + 1 == s.document.len();
        html! {
            <li class={classes!(top.then_some("top"), d.stale.then_some("stale"))}>
                <span class="who">{ format!("{}'s data", d.writer) }</span>
                { format!(" — write #{}{}, at {}", d.op,
                    d.token.map_or(String::new(), |t| format!(", token {}", show(t))), fmt_secs(d.t)) }
                if d.stale { <strong class="stale-mark">{ " ⚠ stale" }</strong> }
                if top { <span class="top-mark">{ " ← current value" }</span> }
            </li>
        }
    });
    html! {
        <section class="storage-panel" aria-label="Storage">
            <h2>{ "Storage" }</h2>
            if let Some(w) = &props.which {
                <p class="which-run">{ w.clone() }</p>
            }
            if ids {
                <p class="highest">
                    { "last token " }
                    <strong>{ s.document.last().and_then(|d| d.token).map_or("none yet".to_string(), show) }</strong>
                </p>
            } else {
                <p class="highest">
                    { "highest " }
                    <strong>{ s.highest.map_or("none yet".to_string(), |h| h.to_string()) }</strong>
                </p>
            }
            <p class="fence-note">
                if s.fencing && ids {
                    { "Unique ids: the storage can only check that a token is not one it saw \
                       replaced before. Ids carry no order, so it cannot tell an old owner's \
                       token from a new one, and a late write with an unused token gets in." }
                } else if s.fencing {
                    { "Fencing on: refuses any token below the highest." }
                } else {
                    { "Fencing off: keeps whatever arrives last." }
                }
            </p>
            <h3>{ "Document" }</h3>
            if s.document.is_empty() {
                <p class="empty">{ "(empty)" }</p>
            } else {
                if skip > 0 {
                    <p class="earlier">{ format!("… {skip} earlier write{}", if skip == 1 { "" } else { "s" }) }</p>
                }
                <ol class="document" start={(skip + 1).to_string()}>{ for doc }</ol>
            }
            if s.refused > 0 {
                <p class="refused">{ format!("✗ refused: {} write{}", s.refused, if s.refused == 1 { "" } else { "s" }) }</p>
            }
        </section>
    }
}

/// The violation banner, once an invariant has broken; otherwise a quiet verdict line.
#[component]
pub fn Verdict(props: &TraceAt) -> Html {
    let t = &props.trace;
    let end = props.upto >= t.events.len();
    match banner_at(t, props.upto, props.tokens) {
        Some(b) => html! {
            <div class="banner" role="alert">
                <span class="banner-icon" aria-hidden="true">{ "⚠" }</span>
                <div>
                    <strong class="headline">{ sentence_case(&b.headline) }</strong>
                    if !props.compact {
                        <details>
                            <summary>{ format!("Invariants broken ({})", b.details.len()) }</summary>
                            <ul>{ for b.details.iter().map(|d| html! { <li>{ d.clone() }</li> }) }</ul>
                        </details>
                    }
                </div>
            </div>
        },
        None => html! {
            <p class="verdict-ok">
                <span aria-hidden="true">{ "✓ " }</span>
                { if end { "Every invariant held." } else { "Every invariant holds so far." } }
                if t.truncated && end {
                    { format!(" (The run was cut after {} events.)", t.events.len()) }
                }
            </p>
        },
    }
}

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

#[derive(Properties, PartialEq)]
struct EventListProps {
    trace: Rc<Trace>,
    tokens: TokenStyle,
    dispatch: Dispatch,
    list_ref: NodeRef,
}

/// Every event with its sentence; clicking one moves the playhead there. Rendered once per
/// trace: the current item is marked directly in the DOM by [`Narration`].
#[component]
fn EventList(props: &EventListProps) -> Html {
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

#[derive(Properties, PartialEq)]
pub struct TourProps {
    pub chapter: usize,
    pub dispatch: Dispatch,
}

/// The guided tour's card.
#[component]
pub fn TourCard(props: &TourProps) -> Html {
    let i = props.chapter.min(CHAPTERS.len().saturating_sub(1));
    let Some(ch) = CHAPTERS.get(i) else {
        return html! {};
    };
    let go = |to: usize| send_and_refocus(&props.dispatch, Action::Tour(TourStep::Go(to)));
    let leave = send_and_refocus(&props.dispatch, Action::Tour(TourStep::Leave));
    let last = i + 1 == CHAPTERS.len();
    html! {
        <section class="tour" aria-label="Guided tour" aria-live="polite">
            <p class="tour-step">{ format!("Guided tour · chapter {} of {}", i + 1, CHAPTERS.len()) }</p>
            <h2>{ ch.title }</h2>
            <p class="tour-text">{ ch.text }</p>
            <div class="tour-buttons">
                <button type="button" onclick={go(i.saturating_sub(1))} disabled={i == 0}>{ "← Back" }</button>
                if last {
                    <button type="button" class="primary" onclick={leave.clone()}>{ "Finish the tour" }</button>
                } else {
                    <button type="button" class="primary" onclick={go(i + 1)}>{ "Next →" }</button>
                }
                <button type="button" class="leave" onclick={leave}>{ "Leave tour" }</button>
            </div>
        </section>
    }
}

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

#[derive(Properties, PartialEq)]
pub struct MessagesProps {
    pub error: Option<String>,
    pub notice: Option<String>,
    pub link: Option<String>,
    /// The notice reports a change that can be undone.
    #[prop_or_default]
    pub undo: bool,
    pub dispatch: Dispatch,
}

/// Errors, notices and a link to copy by hand.
#[component]
pub fn Messages(props: &MessagesProps) -> Html {
    let dismiss = send(&props.dispatch, Action::Message(Message::Dismiss));
    // A lane click's notice (and its Undo) may be above the screen on a phone scrolled down to
    // the timeline: bring it into view, just enough to show it.
    let notice_ref = use_node_ref();
    {
        let notice_ref = notice_ref.clone();
        use_effect_with((props.notice.clone(), props.undo), move |(_, undo)| {
            if *undo && let Some(el) = notice_ref.cast::<web_sys::Element>() {
                let r = el.get_bounding_client_rect();
                let height = web_sys::window()
                    .and_then(|w| w.inner_height().ok())
                    .and_then(|h| h.as_f64())
                    .unwrap_or(f64::INFINITY);
                if r.top() < 0.0 || r.bottom() > height {
                    el.scroll_into_view_with_bool(r.top() < 0.0);
                }
            }
        });
    }
    html! {
        <div class="messages">
            if let Some(e) = &props.error {
                <div class="error" role="alert">
                    <span aria-hidden="true">{ "✗ " }</span>
                    <span class="error-text">{ e.clone() }</span>
                    <button type="button" onclick={dismiss.clone()} aria-label="Dismiss the message">{ "×" }</button>
                </div>
            }
            if let Some(n) = &props.notice {
                <div class="notice" role="status" ref={notice_ref}>
                    <span class="notice-text">{ n.clone() }</span>
                    if props.undo {
                        <button type="button" class="small" onclick={send_and_refocus(&props.dispatch, Action::Edit(Edit::Undo))}>{ "Undo" }</button>
                    }
                </div>
            }
            if let Some(l) = &props.link {
                <label class="link-out">{ "Link to this scenario: " }
                    <input type="text" readonly=true value={l.clone()} />
                </label>
            }
        </div>
    }
}
