//! The play bar: play / pause, step, restart, scrub, speed, zoom.

use fencepost_sim::trace::fmt_secs;
use yew::prelude::*;

use super::callbacks::{Dispatch, input_value, send};
use crate::state::{Action, Play, SPEED_MAX, SPEED_MIN, ZOOM_MAX};
use crate::text::{fixed0, fixed1};

/// Formats a speed factor: `0.1×`, `10×`, `316×`.
pub fn speed_label(factor: f64) -> String {
    if factor < 1.0 {
        format!("{}×", fixed1(factor))
    } else {
        format!("{}×", fixed0(factor))
    }
}

/// Characters the clock needs for any time up to `end` (`12.345 s / 46.1 s`), so that it keeps
/// one width while playing and nothing beside it moves.
pub fn clock_width(end: u64) -> usize {
    let whole = (end / 1000).max(1).ilog10() as usize + 1;
    // "<whole>.<3 digits> s" + " / " + the end.
    whole + 6 + 3 + fmt_secs(end).len()
}

#[derive(Properties, PartialEq)]
pub struct PlayBarProps {
    pub t: u64,
    pub end: u64,
    pub playing: bool,
    pub speed: i32,
    pub speed_factor: f64,
    pub zoom: u32,
    pub dispatch: Dispatch,
}

/// Play / pause, step, restart, scrub, speed, zoom.
#[component]
pub fn PlayBar(p: &PlayBarProps) -> Html {
    let d = &p.dispatch;
    let scrub = {
        let d = d.clone();
        Callback::from(move |e: InputEvent| {
            if let Ok(t) = input_value(&e).parse::<u64>() {
                d.dispatch(Action::Play(Play::Seek(t)));
            }
        })
    };
    let speed = {
        let d = d.clone();
        Callback::from(move |e: InputEvent| {
            if let Ok(v) = input_value(&e).parse::<i32>() {
                d.dispatch(Action::Play(Play::SetSpeed(v)));
            }
        })
    };
    html! {
        <div class="playbar" role="group" aria-label="Playback">
            <div class="buttons">
                <button type="button" onclick={send(d, Action::Play(Play::Restart))} aria-label="Restart" title="Restart (Home)">{ "⇤" }</button>
                <button type="button" onclick={send(d, Action::Play(Play::Prev))} aria-label="Previous event" title="Previous event (←)">{ "◀" }</button>
                <button type="button" class="play primary" onclick={send(d, Action::Play(Play::Toggle))}
                    aria-label={if p.playing { "Pause" } else { "Play" }} title="Play / pause (Space)"
                    data-other={if p.playing { "▶ Play" } else { "❚❚ Pause" }}>
                    <span>{ if p.playing { "❚❚ Pause" } else { "▶ Play" } }</span>
                </button>
                <button type="button" onclick={send(d, Action::Play(Play::Next))} aria-label="Next event" title="Next event (→)">{ "▶" }</button>
                <button type="button" onclick={send(d, Action::Play(Play::End))} aria-label="Go to the end" title="End (End)">{ "⇥" }</button>
            </div>
            <label class="scrub">
                <span class="sr-only">{ "Playhead" }</span>
                <input type="range" min="0" max={p.end.to_string()} step="10" value={p.t.to_string()}
                    oninput={scrub} aria-valuetext={fmt_secs(p.t)} />
            </label>
            <span class="clock" aria-label="Time" style={format!("min-width:{}ch", clock_width(p.end))}>
                { format!("{} / {}", fmt_secs(p.t), fmt_secs(p.end)) }
            </span>
            <label class="speed">
                { "Speed " }
                <input type="range" min={SPEED_MIN.to_string()} max={SPEED_MAX.to_string()} step="1"
                    value={p.speed.to_string()} oninput={speed} aria-label="Playback speed"
                    aria-valuetext={speed_label(p.speed_factor)} />
                <output>{ speed_label(p.speed_factor) }</output>
            </label>
            <div class="zoom" role="group" aria-label="Zoom">
                <button type="button" onclick={send(d, Action::Play(Play::Zoom(-1)))} disabled={p.zoom == 0} aria-label="Zoom out">{ "−" }</button>
                <button type="button" onclick={send(d, Action::Play(Play::Zoom(1)))} disabled={p.zoom >= ZOOM_MAX} aria-label="Zoom in">{ "+" }</button>
            </div>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clock_is_as_wide_as_its_longest_reading() {
        for end in [0u64, 999, 46_100, 46_150, 100_000_044] {
            let longest = (0..=end)
                .step_by((end as usize / 997).max(1))
                .chain([end, end.saturating_sub(1)])
                .map(|t| format!("{} / {}", fmt_secs(t), fmt_secs(end)).len())
                .max()
                .unwrap();
            assert!(clock_width(end) >= longest, "{end}");
            assert!(clock_width(end) <= longest + 4, "{end}");
        }
        assert_eq!(clock_width(46_100), 17);
    }

    #[test]
    fn speeds_read_well() {
        assert_eq!(speed_label(0.1), "0.1×");
        assert_eq!(speed_label(10.0), "10×");
        assert_eq!(speed_label(1000.0), "1000×");
    }
}
