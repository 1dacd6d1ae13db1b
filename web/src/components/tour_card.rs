//! The guided tour's card: the chapter's text and the buttons to move through the tour.

use yew::prelude::*;

use super::callbacks::{Dispatch, send_and_refocus};
use crate::state::{Action, TourStep};
use crate::tour::CHAPTERS;

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
