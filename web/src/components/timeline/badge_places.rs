//! Where each badge goes on its lane, so that neighbours do not overlap.

use std::rc::Rc;

use super::geom::Geom;
use crate::model::Timeline as Layout;

/// How far right of its event's time a badge may be moved to clear its neighbours.
pub const MAX_PUSH: f64 = 80.0;

/// Where each badge goes: a row (0 or 1) and an x, so that neighbours do not overlap. A badge
/// sits at its event's time in the first row that is free there; when both are taken it goes
/// right after the row that ends first, but never more than [`MAX_PUSH`] from its time: in a
/// crowd it covers part of the badge before it rather than drift away from its moment. Near the
/// end of the axis it grows leftwards.
pub fn badge_places(layout: &Layout, geom: &Geom) -> Vec<(u8, f64)> {
    let mut last_end: Vec<[f64; 2]> = vec![[f64::MIN; 2]; layout.lanes.len()];
    let right = geom.width() - 2.0;
    layout
        .badges
        .iter()
        .map(|b| {
            let lane = layout.lane_of(b.actor).unwrap_or(0);
            let x = geom.x(b.t);
            let w = badge_width(&b.text);
            let Some(ends) = last_end.get_mut(lane) else {
                return (0, x);
            };
            let (row, x) = if x >= ends[0] + 2.0 {
                (0, x)
            } else if x >= ends[1] + 2.0 {
                (1, x)
            } else {
                let row = usize::from(ends[1] < ends[0]);
                (row, (ends[row] + 2.0).min(x + MAX_PUSH))
            };
            let x = x.min(right - w).max(0.0);
            ends[row] = x + w;
            (row as u8, x)
        })
        .collect()
}

pub fn badge_width(text: &str) -> f64 {
    text.chars().count() as f64 * 6.6 + 10.0
}

/// The badges' places, computed once per layout and geometry: compared by identity, so that
/// the chunks' props are cheap to compare on every frame of playback.
#[derive(Clone)]
pub struct Places(pub Rc<Vec<(u8, f64)>>);

impl PartialEq for Places {
    fn eq(&self, other: &Places) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::components::timeline::geom::BASE_WIDTH;
    use fencepost_sim::{preset, run};

    #[test]
    fn in_a_crowd_badges_stay_near_their_moment() {
        let workers: Vec<String> = "ABCDEF"
            .chars()
            .enumerate()
            .map(|(i, n)| {
                format!(
                    r#"{{ "name": "{n}", "start_ms": {}, "job": {{ "work_ms": 500, "writes": 5 }} }}"#,
                    i * 300
                )
            })
            .collect();
        let json = format!(
            r#"{{ "version": 1, "name": "crowd", "seed": 1, "lease_ttl_ms": 5000, "first_token": 33,
                "latency_ms": {{ "min": 20, "max": 200 }}, "workers": [{}], "faults": [] }}"#,
            workers.join(",")
        );
        let t = run(&fencepost_sim::Scenario::from_json(&json).unwrap());
        let layout = Layout::of(&t, crate::model::TokenStyle::Number);
        let g = Geom::new(layout.lanes.len(), layout.end, BASE_WIDTH);
        let places = badge_places(&layout, &g);
        let mut pushed = 0;
        for (b, &(_, x)) in layout.badges.iter().zip(&places) {
            let at = g.x(b.t);
            let edge = g.width() - 2.0 - badge_width(&b.text);
            assert!(
                x <= at + MAX_PUSH + 1e-9,
                "badge {} at {x}, its time at {at}",
                b.seq
            );
            assert!(
                x >= at.min(edge) - 1e-9,
                "badge {} at {x}, its time at {at}",
                b.seq
            );
            pushed += usize::from(x > at + 1.0);
        }
        assert!(
            pushed > 0,
            "a crowd where nothing had to move proves nothing"
        );
    }

    #[test]
    fn close_badges_take_the_second_row_or_move_right() {
        let t = run(&preset("paused-worker").unwrap().scenario());
        let layout = Layout::of(&t, crate::model::TokenStyle::Number);
        let g = Geom::new(layout.lanes.len(), layout.end, BASE_WIDTH);
        let places = badge_places(&layout, &g);
        assert_eq!(places.len(), layout.badges.len());
        let place = |seq: u32| {
            layout
                .badges
                .iter()
                .position(|b| b.seq == seq)
                .map(|i| places[i])
                .unwrap()
        };
        // On the lock lane the 33 grant and the "no: B" denial are 10 s apart: both in row 0,
        // at their times.
        assert_eq!(place(2), (0, g.x(50)));
        assert_eq!(place(8), (0, g.x(10_050)));
        // B's grant (30.1 s) comes right after A's expiry (30.05 s): second row, at its time.
        assert_eq!(place(14), (1, g.x(30_100)));
        // B's release (31.3 s) finds both rows taken: it goes right after the one ending first.
        let (row, x) = place(25);
        assert_eq!(row, 1);
        assert!(x > g.x(31_300));
        // No two badges of a lane overlap in a row, and all stay inside the picture.
        for (i, a) in layout.badges.iter().enumerate() {
            let (ra, xa) = places[i];
            assert!(xa >= 0.0 && xa + badge_width(&a.text) <= g.width());
            for (j, b) in layout.badges.iter().enumerate().skip(i + 1) {
                let (rb, xb) = places[j];
                if a.actor == b.actor && ra == rb {
                    let disjoint =
                        xa + badge_width(&a.text) <= xb || xb + badge_width(&b.text) <= xa;
                    assert!(disjoint, "badges {} and {} overlap", a.seq, b.seq);
                }
            }
        }
    }
}
