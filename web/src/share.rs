//! Scenarios in URL fragments: `#s=<base64url of the scenario's JSON>`.
//!
//! The fragment carries the whole scenario (preset, edits, seed, protections, injected faults), so
//! opening a link re-runs the very same trace. `#preset=<name>` is accepted too, for hand-written
//! links, and `#tour=<n>` names a chapter of the tour (whose story is the default). Anything else
//! is an error to show, never a panic.

use fencepost_sim::{Scenario, preset};

/// Longest fragment accepted, in bytes (a scenario at its limits fits well within it).
pub const MAX_FRAGMENT: usize = 256 * 1024;

/// The fragment (without `#`) for `scenario`.
pub fn encode_fragment(scenario: &Scenario) -> String {
    let json = serde_json::to_string(scenario).unwrap_or_default();
    format!("s={}", base64url_encode(json.as_bytes()))
}

/// Reads a fragment (with or without the leading `#`). `Ok(None)`: there is none.
pub fn decode_fragment(fragment: &str) -> Result<Option<Scenario>, String> {
    let f = fragment.strip_prefix('#').unwrap_or(fragment).trim();
    if f.is_empty() {
        return Ok(None);
    }
    if f.len() > MAX_FRAGMENT {
        return Err("the link is too long to be a fencepost scenario".into());
    }
    if let Some(data) = f.strip_prefix("s=") {
        let bytes =
            base64url_decode(data).ok_or("the link's scenario is garbled (not valid base64url)")?;
        let json = String::from_utf8(bytes).map_err(|_| "the link's scenario is not text")?;
        return Scenario::from_json(&json)
            .map(Some)
            .map_err(|e| format!("the link's scenario is invalid: {e}"));
    }
    if let Some(name) = f.strip_prefix("preset=") {
        return preset(name)
            .map(|p| Some(p.scenario()))
            .ok_or_else(|| format!("there is no preset named `{}`", truncate(name, 40)));
    }
    if let Some(n) = f.strip_prefix("tour=") {
        // A chapter of the tour names no scenario of its own: the tour's story is the default.
        if tour_chapter(f).is_some() {
            return Ok(None);
        }
        return Err(format!(
            "the tour has no chapter `{}`: its chapters are #tour=1 to #tour={}",
            truncate(n, 40),
            crate::tour::CHAPTERS.len()
        ));
    }
    Err(
        "the link's fragment is not a fencepost scenario (expected #s=…, #preset=… or #tour=…)"
            .into(),
    )
}

/// The tour chapter an address names (`#tour=3`: the third), if it names one that exists.
pub fn tour_chapter(fragment: &str) -> Option<usize> {
    let f = fragment.strip_prefix('#').unwrap_or(fragment).trim();
    let n: usize = f.strip_prefix("tour=")?.parse().ok()?;
    (1..=crate::tour::CHAPTERS.len())
        .contains(&n)
        .then(|| n - 1)
}

/// The address of tour chapter `i` (from 0).
pub fn tour_fragment(i: usize) -> String {
    format!("tour={}", i + 1)
}

fn truncate(s: &str, max: usize) -> &str {
    match s.char_indices().nth(max) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// Base64url without padding.
pub fn base64url_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        let chars = chunk.len() + 1;
        for i in 0..chars {
            let idx = (n >> (18 - 6 * i)) & 63;
            out.push(char::from(ALPHABET[idx as usize]));
        }
    }
    out
}

/// Decodes base64url (padding optional; `+` and `/` accepted too). `None` if malformed.
pub fn base64url_decode(text: &str) -> Option<Vec<u8>> {
    let text = text.trim_end_matches('=');
    let mut out = Vec::with_capacity(text.len() / 4 * 3 + 2);
    let mut acc: u32 = 0;
    let mut bits = 0;
    for c in text.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'-' | b'+' => 62,
            b'_' | b'/' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    // A lone trailing character carries fewer than 8 bits: not valid.
    if bits >= 6 {
        return None;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use fencepost_sim::{Fault, PRESETS, run};

    #[test]
    fn base64url_round_trips_every_length() {
        let data: Vec<u8> = (0..=255u8).collect();
        for n in 0..data.len() {
            let enc = base64url_encode(&data[..n]);
            assert!(!enc.contains(['+', '/', '=']));
            assert_eq!(base64url_decode(&enc).as_deref(), Some(&data[..n]));
        }
        assert_eq!(base64url_encode(b"fencepost"), "ZmVuY2Vwb3N0");
        assert_eq!(base64url_encode(b"ab"), "YWI");
        assert_eq!(base64url_decode("YWI=").as_deref(), Some(&b"ab"[..]));
        assert_eq!(base64url_decode("Y"), None);
        assert_eq!(base64url_decode("YW*"), None);
    }

    #[test]
    fn a_fragment_reproduces_the_scenario_and_its_trace() {
        for p in PRESETS {
            let mut s = p.scenario();
            s.seed = 77;
            s.faults.push(Fault::Pause {
                worker: s.workers[0].name.clone(),
                at: 1234,
                for_ms: 20_000,
            });
            let frag = encode_fragment(&s);
            let back = decode_fragment(&format!("#{frag}")).unwrap().unwrap();
            assert_eq!(back, s, "{}", p.name);
            assert_eq!(run(&back).to_json(), run(&s).to_json());
        }
    }

    #[test]
    fn bad_fragments_are_errors_not_panics() {
        assert_eq!(decode_fragment(""), Ok(None));
        assert_eq!(decode_fragment("#"), Ok(None));
        assert_eq!(
            decode_fragment("#s=%%%"),
            Err("the link's scenario is garbled (not valid base64url)".into())
        );
        let not_json = base64url_encode(b"{\"version\":1,");
        assert!(
            decode_fragment(&format!("s={not_json}"))
                .unwrap_err()
                .starts_with("the link's scenario is invalid: ")
        );
        let bad = base64url_encode(br#"{"version":1,"lease_ttl_ms":0,"workers":[]}"#);
        assert_eq!(
            decode_fragment(&format!("s={bad}")),
            Err("the link's scenario is invalid: lease_ttl_ms: must be greater than 0".into())
        );
        assert_eq!(
            decode_fragment("#preset=nope"),
            Err("there is no preset named `nope`".into())
        );
        assert_eq!(
            decode_fragment("#hello"),
            Err(
                "the link's fragment is not a fencepost scenario (expected #s=…, #preset=… or #tour=…)"
                    .into()
            )
        );
        let latin1 = base64url_encode(&[0xff, 0xfe]);
        assert_eq!(
            decode_fragment(&format!("s={latin1}")),
            Err("the link's scenario is not text".into())
        );
        assert_eq!(
            decode_fragment("#preset=paused-worker")
                .unwrap()
                .map(|s| s.name),
            Some("paused-worker".to_string())
        );
    }

    #[test]
    fn a_tour_chapter_that_does_not_exist_is_said_to_be_one() {
        for bad in ["99", "0", "-1", "", "3x"] {
            assert_eq!(
                decode_fragment(&format!("#tour={bad}")),
                Err(format!(
                    "the tour has no chapter `{bad}`: its chapters are #tour=1 to #tour=9"
                )),
            );
        }
        assert_eq!(decode_fragment("#tour=3"), Ok(None));
    }

    #[test]
    fn tour_chapters_in_the_address() {
        assert_eq!(tour_chapter("#tour=1"), Some(0));
        assert_eq!(tour_chapter("tour=9"), Some(8));
        assert_eq!(tour_fragment(3), "tour=4");
        for bad in ["#tour=0", "#tour=10", "#tour=x", "#tour=", "#s=abc", ""] {
            assert_eq!(tour_chapter(bad), None, "{bad}");
        }
    }
}
