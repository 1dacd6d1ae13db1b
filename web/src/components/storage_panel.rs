//! The storage panel: the highest token accepted and the document, as of the playhead.

use fencepost_sim::trace::fmt_secs;
use yew::prelude::*;

use super::trace_at::TraceAt;
use crate::model::{TokenStyle, storage_at};

/// Writes listed in the storage panel (the latest ones).
const DOC_LINES: usize = 8;

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
