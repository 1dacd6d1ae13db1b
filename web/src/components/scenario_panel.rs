//! The scenario editor: the story picker, protections, sliders, seed, and the faults.

use fencepost_sim::trace::fmt_secs;
use fencepost_sim::{PRESETS, Scenario, TokenKind, preset};
use yew::prelude::*;

use super::callbacks::{Dispatch, input_value, select_value, send};
use crate::state::{
    Action, Edit, Field, LATENCY_RANGE, Load, Message, Origin, PAUSE_RANGE, Switch, TTL_RANGE,
};
use crate::text::fixed1;

#[derive(Properties, PartialEq)]
pub struct ScenarioProps {
    pub scenario: Scenario,
    pub preset: Option<&'static str>,
    /// Where the scenario came from, while unchanged since.
    #[prop_or_default]
    pub origin: Option<Origin>,
    pub pause_ms: u64,
    pub compare: bool,
    pub t: u64,
    /// An error of one of the editor's fields, shown next to it.
    #[prop_or_default]
    pub field_error: Option<(Field, String)>,
    pub dispatch: Dispatch,
}

/// Preset picker, protections, sliders, seed, faults.
#[component]
pub fn ScenarioPanel(p: &ScenarioProps) -> Html {
    let s = &p.scenario;
    // A preset's story is told in its own kind of tokens: with the other kind it would quote
    // numbers the page no longer shows, so it is then only named.
    let story = use_memo(
        (s.name.clone(), s.protections.token_kind),
        |(name, kind)| story_text(name, *kind),
    );
    // Which option a select shows is a property of the element, not of its `selected`
    // attributes, once the learner has chosen from it: after each render it is set to the story
    // on screen, so that Undo, `f` or Back never leave the picker naming another one.
    let picker = use_node_ref();
    {
        let picker = picker.clone();
        let want = p.preset.unwrap_or("");
        use_effect(move || {
            if let Some(select) = picker.cast::<web_sys::HtmlSelectElement>()
                && select.value() != want
            {
                select.set_value(want);
            }
        });
    }
    // The pause's start follows the playhead until the learner types one; what they typed then
    // stays (through playback, and after a refusal that quotes it) until a pause is added. The
    // worker to freeze is the first one until the learner picks another.
    let form = PauseForm {
        worker_ref: use_node_ref(),
        at_ref: use_node_ref(),
        typed_at: use_state(|| None::<String>),
        worker: use_state(|| 0usize),
    };
    {
        let typed_at = form.typed_at.clone();
        use_effect_with(s.faults.len(), move |_| typed_at.set(None));
    }
    let compare = {
        let d = p.dispatch.clone();
        Callback::from(move |_: Event| d.dispatch(Action::ToggleCompare))
    };
    html! {
        <section class="scenario-panel" aria-label="Scenario">
            <h2>{ "Scenario" }</h2>
            { story_picker(p, picker, (*story).clone()) }
            { protections(s, &p.dispatch) }
            { sliders(p) }
            { faults(p, &form) }
            <label class="compare"><input type="checkbox" checked={p.compare} onchange={compare} />
                { " Compare: fencing off and on, one above the other" }</label>
        </section>
    }
}

/// What the story picker says about the preset `name`, told with `kind` tokens.
fn story_text(name: &str, kind: TokenKind) -> Option<String> {
    preset(name).map(|pr| {
        if pr.scenario().protections.token_kind == kind {
            pr.story.to_string()
        } else if kind == TokenKind::Uuid {
            format!(
                "{}, with unique ids in place of its numbered tokens.",
                pr.title
            )
        } else {
            format!(
                "{}, with numbered tokens in place of its unique ids.",
                pr.title
            )
        }
    })
}

/// The story picker and the story it names.
fn story_picker(p: &ScenarioProps, picker: NodeRef, story: Option<String>) -> Html {
    let s = &p.scenario;
    let pick = {
        let d = p.dispatch.clone();
        Callback::from(move |e: Event| {
            let v = select_value(&e);
            if !v.is_empty() {
                d.dispatch(Action::Load(Load::Preset(v)));
            }
        })
    };
    html! {
        <>
            <label class="preset">
                { "Story " }
                <select ref={picker} onchange={pick} aria-label="Preset story">
                    if p.preset.is_none() {
                        <option value="" selected=true>{ format!("{} ({})", if s.name.is_empty() { "custom" } else { s.name.as_str() },
                            p.origin.map_or("edited", Origin::label)) }</option>
                    }
                    { for PRESETS.iter().map(|pr| html! {
                        <option value={pr.name} selected={p.preset == Some(pr.name)}>{ pr.title }</option>
                    }) }
                </select>
            </label>
            if let Some(story) = story {
                <p class="story">{ story }</p>
            }
        </>
    }
}

/// The protections' checkboxes.
fn protections(s: &Scenario, d: &Dispatch) -> Html {
    let toggle = |sw: Switch| {
        let d = d.clone();
        Callback::from(move |_: Event| d.dispatch(Action::Edit(Edit::Toggle(sw))))
    };
    html! {
        <fieldset class="toggles">
            <legend>{ "Protections" }</legend>
            <label><input type="checkbox" checked={s.protections.fencing} onchange={toggle(Switch::Fencing)} />
                { " Fencing: the storage refuses old tokens " }<kbd>{ "f" }</kbd></label>
            <label><input type="checkbox" checked={s.protections.token_kind == TokenKind::Uuid} onchange={toggle(Switch::UuidTokens)} />
                { " Unique (UUID) tokens instead of increasing numbers" }</label>
            <label><input type="checkbox" checked={s.protections.idempotency_keys} onchange={toggle(Switch::Idempotency)} />
                { " Idempotency keys on writes" }</label>
            <label><input type="checkbox" checked={s.lock_delay_ms > 0} onchange={toggle(Switch::LockDelay)} />
                { format!(" Lock-delay after an expiry{}", if s.lock_delay_ms > 0 { format!(" ({})", fmt_secs(s.lock_delay_ms)) } else { String::new() }) }</label>
            <label><input type="checkbox" checked={s.protections.check_before_write} onchange={toggle(Switch::CheckBeforeWrite)} />
                { " Check the lease before each write" }</label>
        </fieldset>
    }
}

/// The error of editor field `f`, if it has one.
fn error_of(p: &ScenarioProps, f: Field) -> Option<String> {
    p.field_error
        .as_ref()
        .filter(|(which, _)| *which == f)
        .map(|(_, e)| e.clone())
}

/// The lease TTL, pause length and latency sliders, and the seed.
fn sliders(p: &ScenarioProps) -> Html {
    let d = &p.dispatch;
    let s = &p.scenario;
    let slider = |f: fn(u64) -> Action| {
        let d = d.clone();
        Callback::from(move |e: InputEvent| {
            if let Ok(v) = input_value(&e).parse::<u64>() {
                d.dispatch(f(v));
            }
        })
    };
    let seed = {
        let d = d.clone();
        Callback::from(move |e: Event| d.dispatch(Action::Edit(Edit::SetSeed(input_value(&e)))))
    };
    let seed_error = error_of(p, Field::Seed);
    let ttl = s.lease_ttl_ms;
    let lat = s.latency_ms.max;
    html! {
        <div class="sliders">
            <label>
                <span>{ "Lease TTL " }<output>{ fmt_secs(ttl) }</output></span>
                <input type="range" min={TTL_RANGE.0.to_string()} max={TTL_RANGE.1.to_string()} step="1000"
                    value={ttl.to_string()} oninput={slider(|v| Action::Edit(Edit::SetTtl(v)))} aria-valuetext={fmt_secs(ttl)} aria-label="Lease TTL" />
            </label>
            <label>
                <span>{ "Pause length " }<output>{ fmt_secs(p.pause_ms) }</output></span>
                <input type="range" min={PAUSE_RANGE.0.to_string()} max={PAUSE_RANGE.1.to_string()} step="1000"
                    value={p.pause_ms.to_string()} oninput={slider(|v| Action::Edit(Edit::SetPauseLength(v)))} aria-valuetext={fmt_secs(p.pause_ms)} aria-label="Pause length" />
            </label>
            <label>
                <span>{ "Network latency up to " }<output>{ format!("{lat} ms") }</output></span>
                <input type="range" min={LATENCY_RANGE.0.to_string()} max={LATENCY_RANGE.1.to_string()} step="10"
                    value={lat.to_string()} oninput={slider(|v| Action::Edit(Edit::SetLatency(v)))} aria-valuetext={format!("{lat} milliseconds")} aria-label="Network latency (upper bound)" />
            </label>
            <label class="seed">
                <span>{ "Seed" }</span>
                // It shows the seed in use; a refused entry is quoted in the message below it.
                <input type="text" inputmode="numeric" value={s.seed.to_string()} onchange={seed}
                    aria-describedby={seed_error.is_some().then_some("seed-error")} />
            </label>
            if let Some(e) = seed_error {
                <p class="error-inline field-error" id="seed-error" role="alert">{ e }</p>
            }
        </div>
    }
}

/// The "Freeze … at … s" form's own state.
struct PauseForm {
    /// The worker picker.
    worker_ref: NodeRef,
    /// The start box.
    at_ref: NodeRef,
    /// What the learner typed as the start, until a pause is added.
    typed_at: UseStateHandle<Option<String>>,
    /// The worker the learner picked.
    worker: UseStateHandle<usize>,
}

/// The faults, each with a remove button, and the form that adds a pause.
fn faults(p: &ScenarioProps, form: &PauseForm) -> Html {
    let d = &p.dispatch;
    let s = &p.scenario;
    let faults = s.faults.iter().enumerate().map(|(i, f)| {
        let text = f.describe();
        html! {
            <li>
                { text.clone() }
                <button type="button" class="small" onclick={send(d, Action::Edit(Edit::RemoveFault(i)))}
                    aria-label={format!("Remove: {text}")}>{ "remove" }</button>
            </li>
        }
    });
    let pause_error = error_of(p, Field::Pause);
    html! {
        <fieldset class="faults">
            <legend>{ "What goes wrong" }</legend>
            if s.faults.is_empty() {
                <p class="empty">{ "Nothing yet." }</p>
            } else {
                <ul>{ for faults }</ul>
            }
            { pause_form(p, form) }
            if let Some(e) = pause_error {
                <p class="error-inline field-error" id="pause-error" role="alert">{ e }</p>
            }
            <p class="hint">{ "Or click a worker's lane on the timeline to freeze it there." }</p>
        </fieldset>
    }
}

/// "Freeze [worker] at [seconds] s [Add pause]".
fn pause_form(p: &ScenarioProps, form: &PauseForm) -> Html {
    let s = &p.scenario;
    let on_type_at = {
        let typed_at = form.typed_at.clone();
        Callback::from(move |e: InputEvent| typed_at.set(Some(input_value(&e))))
    };
    let at_value = (*form.typed_at)
        .clone()
        .unwrap_or_else(|| fixed1((p.t / 100) as f64 / 10.0));
    let freeze = (*form.worker).min(s.workers.len().saturating_sub(1));
    let pick_worker = {
        let worker = form.worker.clone();
        Callback::from(move |e: Event| {
            if let Ok(i) = select_value(&e).parse::<usize>() {
                worker.set(i);
            }
        })
    };
    html! {
        <form class="inject" onsubmit={inject(&p.dispatch, form)}>
            <label>{ "Freeze " }
                <select ref={form.worker_ref.clone()} aria-label="Worker to freeze" onchange={pick_worker}>
                    { for s.workers.iter().enumerate().map(|(i, w)| html! {
                        <option value={i.to_string()} selected={i == freeze}>{ w.name.clone() }</option>
                    }) }
                </select>
            </label>
            <label>{ " at " }
                <input ref={form.at_ref.clone()} type="text" inputmode="decimal" size="6" value={at_value} oninput={on_type_at} aria-label="Pause start, in seconds" />
                { " s" }
            </label>
            <button type="submit">{ "Add pause" }</button>
        </form>
    }
}

/// Submitting the pause form: the pause it names, or an error next to it.
fn inject(d: &Dispatch, form: &PauseForm) -> Callback<SubmitEvent> {
    let d = d.clone();
    let (worker_ref, at_ref) = (form.worker_ref.clone(), form.at_ref.clone());
    Callback::from(move |e: SubmitEvent| {
        e.prevent_default();
        let worker = worker_ref
            .cast::<web_sys::HtmlSelectElement>()
            .and_then(|s| s.value().parse::<usize>().ok());
        let at = at_ref
            .cast::<web_sys::HtmlInputElement>()
            .map(|i| i.value())
            .unwrap_or_default();
        match (worker, parse_seconds(&at)) {
            (Some(worker), Some(at)) => d.dispatch(Action::Edit(Edit::InjectPause { worker, at })),
            _ => d.dispatch(Action::Message(Message::FieldError(
                Field::Pause,
                format!(
                    "Pause not added: `{}` is not a time in seconds.",
                    at.chars().take(20).collect::<String>()
                ),
            ))),
        }
    })
}

/// Seconds typed by a person (`12`, `12.5`, `12,5`) as milliseconds.
pub fn parse_seconds(text: &str) -> Option<u64> {
    let v: f64 = text.trim().replace(',', ".").parse().ok()?;
    if !(0.0..=1e9).contains(&v) {
        return None;
    }
    Some((v * 1000.0).round() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_typed_by_people() {
        assert_eq!(parse_seconds("12"), Some(12_000));
        assert_eq!(parse_seconds(" 12.5 "), Some(12_500));
        assert_eq!(parse_seconds("12,5"), Some(12_500));
        assert_eq!(parse_seconds("-1"), None);
        assert_eq!(parse_seconds("NaN"), None);
        assert_eq!(parse_seconds("inf"), None);
        assert_eq!(parse_seconds("1e300"), None);
        assert_eq!(parse_seconds("abc"), None);
    }

    #[test]
    fn faults_in_words() {
        let s = preset("paused-worker").unwrap().scenario();
        assert_eq!(s.faults[0].describe(), "A freezes at 1 s for 45 s");
        let s = preset("clock-skew").unwrap().scenario();
        assert_eq!(s.faults[0].describe(), "A's clock runs at 40% speed");
        let s = preset("crash-restart").unwrap().scenario();
        assert_eq!(
            s.faults[1].describe(),
            "A crashes at 1.5 s and restarts 1 s later"
        );
    }
}
