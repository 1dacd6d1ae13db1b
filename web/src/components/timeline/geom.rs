//! The lanes' pixel geometry: where a time and a lane are on the picture, and how wide the
//! page lets the lanes be.

use crate::text::fixed1;

/// Height of one lane.
pub const LANE_H: f64 = 68.0;
/// Height of the time axis above the lanes.
pub const AXIS_H: f64 = 26.0;
/// Space before time 0.
pub const PAD_LEFT: f64 = 14.0;
/// Space after the axis end (room for the last badges).
pub const PAD_RIGHT: f64 = 110.0;
/// Plot width at zoom 1 before the page is measured.
pub const BASE_WIDTH: f64 = 900.0;
/// Narrowest plot at zoom 1: below this the lanes scroll sideways instead of squeezing.
pub const MIN_WIDTH: f64 = 560.0;

/// Pixel geometry of one timeline.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Geom {
    /// Pixels per virtual millisecond.
    pub px_per_ms: f64,
    /// Lanes.
    pub lanes: usize,
    /// Axis end.
    pub end: u64,
}

impl Geom {
    /// Geometry for `lanes` lanes over `0..end`, the axis `plot_width` pixels long.
    pub fn new(lanes: usize, end: u64, plot_width: f64) -> Geom {
        let end = end.max(1);
        Geom {
            px_per_ms: plot_width.max(1.0) / end as f64,
            lanes,
            end,
        }
    }

    /// x of virtual time `t`.
    pub fn x(&self, t: u64) -> f64 {
        PAD_LEFT + t as f64 * self.px_per_ms
    }

    /// Virtual time at x (clamped to the axis).
    pub fn t(&self, x: f64) -> u64 {
        let t = ((x - PAD_LEFT) / self.px_per_ms).max(0.0);
        (t as u64).min(self.end)
    }

    /// Top of lane `i`.
    pub fn y(&self, lane: usize) -> f64 {
        AXIS_H + lane as f64 * LANE_H
    }

    /// Total width.
    pub fn width(&self) -> f64 {
        self.x(self.end) + PAD_RIGHT
    }

    /// Total height.
    pub fn height(&self) -> f64 {
        self.y(self.lanes) + 4.0
    }
}

/// The width style.css gives the lanes' scroller in a window `viewport` pixels wide (0 if
/// unknown): the page's padding, the side panel beside the timeline above 940 px, the lane labels
/// and the borders.
pub fn expected_lanes_width(viewport: f64) -> f64 {
    if viewport <= 0.0 {
        return 0.0;
    }
    let page = viewport.min(1280.0);
    if viewport > 940.0 {
        page - 32.0 - 306.0 - 158.0 - 2.0
    } else if viewport > 600.0 {
        page - 32.0 - 158.0 - 2.0
    } else {
        page - 20.0 - 104.0 - 2.0
    }
}

/// A coordinate as the SVG gets it: one decimal.
pub fn coord(v: f64) -> String {
    fixed1(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geometry_maps_time_to_pixels_and_back() {
        let g = Geom::new(4, 49_000, BASE_WIDTH);
        assert_eq!(g.x(0), PAD_LEFT);
        assert!((g.x(49_000) - (PAD_LEFT + BASE_WIDTH)).abs() < 1e-9);
        assert_eq!(g.t(g.x(30_000) + 0.01), 30_000);
        assert_eq!(g.t(-50.0), 0);
        assert_eq!(g.t(1e9), 49_000);
        assert_eq!(g.y(2), AXIS_H + 2.0 * LANE_H);
        let zoomed = Geom::new(4, 49_000, BASE_WIDTH * 2.25);
        assert!(zoomed.width() > 2.0 * g.width());
        // A zero-length trace, or a zero width, still has an axis.
        assert!(Geom::new(3, 0, BASE_WIDTH).px_per_ms.is_finite());
        assert!(Geom::new(3, 10, 0.0).px_per_ms > 0.0);
    }

    #[test]
    fn the_expected_width_follows_the_stylesheet() {
        assert_eq!(expected_lanes_width(1280.0), 782.0);
        assert_eq!(expected_lanes_width(1600.0), 782.0);
        assert_eq!(expected_lanes_width(800.0), 608.0);
        assert_eq!(expected_lanes_width(375.0), 249.0);
        assert_eq!(expected_lanes_width(0.0), 0.0);
    }
}
