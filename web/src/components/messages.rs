//! Messages: an error, a notice (with Undo after a lane click), a link to copy by hand.

use yew::prelude::*;

use super::callbacks::{Dispatch, send, send_and_refocus};
use crate::state::{Action, Edit, Message};

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
