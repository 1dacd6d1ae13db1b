//! The time axis: its ticks and their labels, except labels the playhead's own label covers.

use fencepost_sim::trace::fmt_secs;
use yew::prelude::*;

use super::geom::{AXIS_H, Geom, coord};

/// A tick step (ms) giving labels at least ~70 px apart.
pub fn tick_step(px_per_ms: f64) -> u64 {
    const STEPS: [u64; 14] = [
        100, 200, 500, 1_000, 2_000, 5_000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000,
        600_000, 1_800_000,
    ];
    let min_ms = 70.0 / px_per_ms.max(f64::MIN_POSITIVE);
    STEPS
        .iter()
        .copied()
        .find(|s| *s as f64 >= min_ms)
        .unwrap_or_else(|| {
            // Whole hours beyond the table (float to int saturates; never 0).
            let ms = (min_ms.ceil() as u64).max(1);
            ms.div_ceil(3_600_000).saturating_mul(3_600_000)
        })
}

#[derive(Properties, PartialEq)]
pub struct AxisProps {
    pub geom: Geom,
    /// Where the playhead's time label spans (x from, x to): tick labels there are hidden.
    pub head_label: (i64, i64),
}

/// Width of a tick label (10 px text, centred on its tick).
pub fn tick_label_width(text: &str) -> f64 {
    text.chars().count() as f64 * 6.0 + 4.0
}

/// Width of the playhead's time label (11 px bold text, left-aligned after the playhead).
pub fn head_label_width(text: &str) -> f64 {
    text.chars().count() as f64 * 7.0 + 4.0
}

/// Where the playhead's label `text` spans (x from, x to) with the playhead at `px`: whole
/// pixels, so that the axis redraws only when the label moves by one.
pub fn head_label_span(px: f64, text: &str) -> (i64, i64) {
    (
        (px + 2.0).floor() as i64,
        (px + 4.0 + head_label_width(text)).ceil() as i64,
    )
}

/// One tick of the time axis.
#[derive(Clone, Debug, PartialEq)]
pub struct Tick {
    /// Its x.
    pub x: f64,
    /// Its label, e.g. `30 s`.
    pub label: String,
    /// Half the label's width.
    pub half: f64,
}

impl Tick {
    /// Whether the playhead's label, spanning `from..to`, covers this tick's label.
    pub fn covered(&self, (from, to): (i64, i64)) -> bool {
        self.x + self.half > from as f64 && self.x - self.half < to as f64
    }
}

/// The ticks of the axis of `g`: computed once per geometry (the run's length and the zoom), not
/// on every frame of playback.
pub fn ticks(g: &Geom) -> Vec<Tick> {
    let step = tick_step(g.px_per_ms);
    (0..=g.end / step)
        .map(|i| {
            let t = i * step;
            let label = fmt_secs(t);
            Tick {
                x: g.x(t),
                half: tick_label_width(&label) / 2.0,
                label,
            }
        })
        .collect()
}

/// The time axis: ticks and their labels, except labels the playhead's own label would cover.
#[component]
pub fn Axis(props: &AxisProps) -> Html {
    let g = props.geom;
    let all = use_memo(g, ticks);
    let ticks = all.iter().map(|tick| {
        let covered = tick.covered(props.head_label);
        html! {
            <g class="tick">
                <line x1={coord(tick.x)} x2={coord(tick.x)} y1={coord(AXIS_H - 4.0)} y2={coord(g.height())} />
                <text x={coord(tick.x)} y={coord(AXIS_H - 12.0)} class={classes!(covered.then_some("covered"))}>{ tick.label.clone() }</text>
            </g>
        }
    });
    html! { <g class="axis">{ for ticks }</g> }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::components::timeline::geom::{BASE_WIDTH, PAD_LEFT};

    #[test]
    fn ticks_are_at_least_70_px_apart() {
        for (end, zoom) in [
            (49_000u64, 1.0),
            (1_000, 1.0),
            (3_600_000, 1.0),
            (u64::MAX / 2, 1.0),
            (49_000, 25.0),
        ] {
            let g = Geom::new(4, end, BASE_WIDTH * zoom);
            let step = tick_step(g.px_per_ms);
            assert!(step as f64 * g.px_per_ms >= 70.0 - 1e-6, "{end} {zoom}");
        }
        assert_eq!(tick_step(Geom::new(4, 49_000, BASE_WIDTH).px_per_ms), 5_000);
    }

    #[test]
    fn axis_ticks_and_the_labels_the_playhead_covers() {
        let g = Geom::new(4, 49_000, BASE_WIDTH);
        let all = ticks(&g);
        let labels: Vec<&str> = all.iter().map(|t| t.label.as_str()).collect();
        assert_eq!(
            labels,
            [
                "0 s", "5 s", "10 s", "15 s", "20 s", "25 s", "30 s", "35 s", "40 s", "45 s"
            ]
        );
        assert_eq!(all[0].x, PAD_LEFT);
        assert_eq!(all[1].half, tick_label_width("5 s") / 2.0);
        // The playhead's label at 30 s, starting 2 px right of it: it covers the 30 s label.
        let covered_at = |t: u64| -> Vec<&str> {
            let head = head_label_span(g.x(t), &fmt_secs(t));
            all.iter()
                .filter(|tick| tick.covered(head))
                .map(|tick| tick.label.as_str())
                .collect()
        };
        assert_eq!(covered_at(30_000), ["30 s"]);
        // Between two ticks it covers neither label; just before one, the one it runs into.
        assert!(covered_at(31_000).is_empty(), "{:?}", covered_at(31_000));
        assert_eq!(covered_at(34_000), ["35 s"]);
    }
}
