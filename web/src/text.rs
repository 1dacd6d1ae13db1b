//! Text helpers shared by the components and the plain-data modules: sentence case, numbers with
//! a fixed number of decimals, and escaping for markup.
//!
//! They avoid the standard library's float formatting and Unicode case tables on purpose: both
//! are large in a wasm download, and every string they handle is one of ours.

/// `Stale write …` from `stale write …` (ASCII only: the sentences are ours, and Unicode case
/// tables would cost the download several kilobytes).
pub fn sentence_case(s: &str) -> String {
    let mut out = s.to_string();
    if let Some(first) = out.get_mut(..1) {
        first.make_ascii_uppercase();
    }
    out
}

/// `v` with one decimal (`12.5`, `-3.0`; `0.0` for NaN), without the float formatting machinery,
/// which is large in a wasm download.
pub fn fixed1(v: f64) -> String {
    let tenths = (v * 10.0).round();
    let tenths = if tenths.is_finite() {
        tenths.clamp(-9.0e17, 9.0e17) as i64
    } else {
        0
    };
    let sign = if tenths < 0 { "-" } else { "" };
    let a = tenths.unsigned_abs();
    format!("{sign}{}.{}", a / 10, a % 10)
}

/// `v` rounded to a whole number, as text (see [`fixed1`]).
pub fn fixed0(v: f64) -> String {
    let r = v.round();
    if r.is_finite() {
        (r.clamp(-9.0e18, 9.0e18) as i64).to_string()
    } else {
        "0".to_string()
    }
}

/// `s` with the characters that mean something in XML written as entities.
pub fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentence_case_capitalises_ascii_and_leaves_the_rest() {
        assert_eq!(
            sentence_case("stale write accepted"),
            "Stale write accepted"
        );
        assert_eq!(sentence_case("Already"), "Already");
        assert_eq!(sentence_case(""), "");
        assert_eq!(sentence_case("élan"), "élan");
        assert_eq!(sentence_case("✗ refused"), "✗ refused");
    }

    #[test]
    fn numbers_with_one_decimal() {
        assert_eq!(fixed1(12.34), "12.3");
        assert_eq!(fixed1(12.35), "12.4");
        assert_eq!(fixed1(-0.26), "-0.3");
        assert_eq!(fixed1(0.0), "0.0");
        assert_eq!(fixed1(f64::NAN), "0.0");
        assert_eq!(fixed1(f64::INFINITY), "0.0");
        assert_eq!(fixed1(1e300), "90000000000000000.0");
        assert_eq!(fixed0(316.2), "316");
        assert_eq!(fixed0(f64::NAN), "0");
    }

    #[test]
    fn markup_characters_are_escaped() {
        assert_eq!(escape(r#"A & B <"x">"#), "A &amp; B &lt;&quot;x&quot;&gt;");
        assert_eq!(escape("worker A"), "worker A");
    }
}
