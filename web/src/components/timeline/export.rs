//! The timelines on the page as one standalone SVG document, for the export.

use super::geom::{AXIS_H, LANE_H};
use crate::model::Timeline as Layout;
use crate::text::{escape, fixed0, fixed1};

/// Height of a caption line above a timeline in an exported SVG.
const EXPORT_CAPTION_H: f64 = 22.0;

/// The timelines with these element ids, one above the other, as one standalone SVG document:
/// each with its caption (if it has one) and lane labels, and the styles.
pub fn export_svg(ids: &[&str], layout: &Layout, css: &str) -> Option<String> {
    let doc = web_sys::window()?.document()?;
    let label_w = 130.0;
    let (mut body, mut width, mut y) = (String::new(), 0.0f64, 0.0f64);
    for id in ids {
        let svg = doc.query_selector(&format!("#{id} svg.lanes")).ok()??;
        let w: f64 = svg.get_attribute("width")?.parse().ok()?;
        let h: f64 = svg.get_attribute("height")?.parse().ok()?;
        if let Some(caption) = doc
            .query_selector(&format!("#{id} figcaption"))
            .ok()
            .flatten()
            .and_then(|c| c.text_content())
        {
            y += EXPORT_CAPTION_H;
            body.push_str(&format!(
                "<text class=\"export-label\" x=\"8\" y=\"{}\">{}</text>\n",
                fixed1(y - 6.0),
                escape(&caption)
            ));
        }
        for (i, lane) in layout.lanes.iter().enumerate() {
            let ly = y + AXIS_H + i as f64 * LANE_H + LANE_H / 2.0 + 4.0;
            body.push_str(&format!(
                "<text class=\"export-label\" x=\"8\" y=\"{}\">{}</text>\n",
                fixed1(ly),
                escape(&lane.label)
            ));
        }
        let at = format!("<svg x=\"{}\" y=\"{}\" ", fixed0(label_w), fixed0(y));
        body.push_str(&svg.outer_html().replacen("<svg ", &at, 1));
        body.push('\n');
        width = width.max(w);
        y += h;
    }
    Some(format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"fencepost-export\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\">\n<style>{css}</style>\n<rect class=\"export-bg\" width=\"100%\" height=\"100%\"/>\n{body}</svg>\n",
        w = fixed0(width + label_w),
        h = fixed0(y),
    ))
}
