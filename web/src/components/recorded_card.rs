//! What the page says of a recorded run above its timeline: the file, what happened at its first
//! refused stale write (where the playhead opens), the lock drawn, what was skipped, its faults,
//! and the way back to the simulator.

use std::rc::Rc;

use yew::prelude::*;

use super::callbacks::{Dispatch, send_and_refocus};
use crate::state::{Action, Load, Recorded, fault_line};

/// The card's props.
#[derive(Properties, PartialEq)]
pub struct RecordedCardProps {
    /// The run shown.
    pub recorded: Rc<Recorded>,
    /// The app's dispatcher.
    pub dispatch: Dispatch,
}

/// The recorded run's card.
#[component]
pub fn RecordedCard(props: &RecordedCardProps) -> Html {
    let r = &props.recorded;
    let back = send_and_refocus(&props.dispatch, Action::Load(Load::LeaveRecorded));
    let locks = match r.locks {
        1 => "the only lock granted in this run".to_string(),
        n => format!("one of {n} locks granted in this run"),
    };
    html! {
        <section class="recorded" aria-label="Recorded run">
            <h2>{ format!("Recorded run: {}", r.name) }</h2>
            if let Some(refusal) = &r.refusal {
                <p class="recorded-sentence">{ refusal.sentence.clone() }</p>
            }
            <p class="recorded-lock">
                { format!("Lock {}, {locks}: each client process is a lane; the lane of the lock shows the lease service's grants of it, the stores' lane the writes made with its tokens.", r.lock) }
            </p>
            { for r.notes.iter().map(|n| html! { <p class="recorded-note">{ n.clone() }</p> }) }
            if !r.faults.is_empty() {
                <details class="recorded-faults">
                    <summary>{ format!("Faults ({})", r.faults.len()) }</summary>
                    <ul>{ for r.faults.iter().map(|f| html! { <li>{ fault_line(f) }</li> }) }</ul>
                </details>
            }
            <button type="button" onclick={back}>{ "Back to the simulator" }</button>
        </section>
    }
}
