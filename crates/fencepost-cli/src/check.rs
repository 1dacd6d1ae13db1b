//! `fencepost check`: a write log or a campaign's history, streamed through the checker.

use std::io::{BufRead, BufReader, Read, Write};
use std::time::Instant;

use fencepost_sim::history::{Finding, HistoryChecker, LineReport, Malformed, Nemesis, Totals};

use crate::args::{CheckArgs, Format};
use crate::explore::{human, per_sec};
use crate::{Fail, bad, io};

/// Longest line `check` reads (the history checker's); longer ones are reported and skipped
/// without being held in memory.
const MAX_LINE: usize = fencepost_sim::history::MAX_LINE_BYTES;

/// Reads the next line into `buf` (without its newline), keeping at most `MAX_LINE + 1` bytes:
/// a line at the limit with the `\r` of a `\r\n` ending, which the checker drops. Returns `None`
/// at the end, `Some(false)` for a longer line, which is not kept; the checker judges the rest.
fn next_line(r: &mut impl BufRead, buf: &mut Vec<u8>) -> std::io::Result<Option<bool>> {
    buf.clear();
    let mut too_long = false;
    let mut any = false;
    loop {
        let chunk = r.fill_buf()?;
        if chunk.is_empty() {
            return Ok(any.then_some(!too_long));
        }
        any = true;
        let (part, done) = match chunk.iter().position(|b| *b == b'\n') {
            Some(i) => (&chunk[..i], Some(i + 1)),
            None => (chunk, None),
        };
        if !too_long {
            if buf.len() + part.len() > MAX_LINE + 1 {
                too_long = true;
                buf.clear();
            } else {
                buf.extend_from_slice(part);
            }
        }
        let used = done.unwrap_or(chunk.len());
        r.consume(used);
        if done.is_some() {
            return Ok(Some(!too_long));
        }
    }
}

/// Writes a malformed line or a finding, as a line of text or of JSON.
fn emit(
    out: &mut impl Write,
    json: bool,
    malformed: Option<&Malformed>,
    findings: &[Finding],
) -> Result<(), Fail> {
    if let Some(m) = malformed {
        if json {
            writeln!(out, "{}", serde_json::json!({ "malformed": m })).map_err(io)?;
        } else {
            writeln!(out, "{}", crate::shown_text(&m.to_string())).map_err(io)?;
        }
    }
    for f in findings {
        if json {
            writeln!(out, "{}", serde_json::json!({ "finding": f })).map_err(io)?;
        } else {
            writeln!(out, "{}", crate::shown_text(&f.to_string())).map_err(io)?;
        }
    }
    Ok(())
}

pub(crate) fn check(args: &CheckArgs, out: &mut impl Write) -> Result<u8, Fail> {
    let path = &args.history;
    let json = args.format == Format::Json;
    let input: Box<dyn Read> = if path == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        Box::new(std::fs::File::open(path).map_err(|e| bad(format!("{path}: {e}")))?)
    };
    let mut reader = BufReader::with_capacity(1 << 16, input);
    let mut out = std::io::BufWriter::new(out);
    let mut checker = HistoryChecker::new();
    let mut buf = Vec::with_capacity(512);
    let start = Instant::now();
    loop {
        let line = next_line(&mut reader, &mut buf).map_err(|e| bad(format!("{path}: {e}")))?;
        let report = match line {
            None => break,
            Some(true) => checker.check_line(&buf),
            Some(false) => LineReport {
                malformed: Some(checker.skip_long_line()),
                findings: Vec::new(),
            },
        };
        emit(&mut out, json, report.malformed.as_ref(), &report.findings)?;
    }
    let last = checker.finish();
    emit(&mut out, json, None, &last)?;
    let secs = start.elapsed().as_secs_f64();
    let s = *checker.summary();
    let totals = *checker.totals();
    if json {
        let mut summary = serde_json::to_value(s).map_err(|e| bad(e.to_string()))?;
        if totals.campaign {
            campaign_json(&checker, &mut summary)?;
        }
        let v = serde_json::json!({ "summary": summary, "lines_per_sec": per_sec(s.lines, secs).round() });
        writeln!(out, "{v}").map_err(io)?;
    } else {
        writeln!(
            out,
            "{path}: {} lines, {} resources, {} accepted, {} rejected, {} malformed; {} token regressions, {} stale-owner writes ({} lines/s)",
            s.lines,
            s.resources,
            s.accepted,
            s.rejected,
            s.malformed,
            s.token_regressions,
            s.stale_owners,
            human(per_sec(s.lines, secs))
        )
        .map_err(io)?;
        if totals.campaign {
            write_table(&mut out, &totals).map_err(io)?;
            writeln!(out, "{}", verdict(&totals)).map_err(io)?;
        }
    }
    out.flush().map_err(io)?;
    Ok(if checker.violated() {
        1
    } else if s.malformed > 0 {
        2
    } else {
        0
    })
}

/// Adds a campaign's totals to the JSON summary: the whole history's figures beside today's,
/// then per nemesis, per lock and per resource.
fn campaign_json(checker: &HistoryChecker, summary: &mut serde_json::Value) -> Result<(), Fail> {
    let totals = serde_json::to_value(checker.totals()).map_err(|e| bad(e.to_string()))?;
    let (Some(into), serde_json::Value::Object(from)) = (summary.as_object_mut(), totals) else {
        return Err(bad("a summary is an object"));
    };
    into.extend(from);
    let by_lock: serde_json::Map<String, serde_json::Value> = checker
        .locks()
        .map(|(k, v)| (k.to_string(), serde_json::json!(v)))
        .collect();
    let by_resource: serde_json::Map<String, serde_json::Value> = checker
        .resources()
        .map(|(k, v)| (k.to_string(), serde_json::json!(v)))
        .collect();
    into.insert("by_lock".into(), by_lock.into());
    into.insert("by_resource".into(), by_resource.into());
    Ok(())
}

/// The table per nemesis: each nemesis that struck or saw a finding, and the findings while none
/// was active.
fn write_table(out: &mut impl Write, t: &Totals) -> std::io::Result<()> {
    const HEAD: [&str; 8] = [
        "faults",
        "stale refused",
        "stale accepted",
        "stale owners",
        "grant order",
        "ack lost",
        "overlaps within",
        "overlaps beyond",
    ];
    write!(out, "{:<15}", "nemesis")?;
    for h in HEAD {
        write!(out, "  {h}")?;
    }
    writeln!(out)?;
    let rows = Nemesis::ALL
        .iter()
        .map(|n| (n.name(), t.by_nemesis.get(*n)))
        .chain([("(none active)", &t.without_faults)]);
    for (name, r) in rows {
        if *r == Default::default() {
            continue;
        }
        let cells = [
            r.faults,
            r.stale_refused,
            r.token_regressions,
            r.stale_owners,
            r.grant_order_violations,
            r.acknowledged_lost,
            r.overlaps_within_drift,
            r.overlaps_beyond_drift,
        ];
        write!(out, "{name:<15}")?;
        for (h, c) in HEAD.iter().zip(cells) {
            write!(out, "  {c:>w$}", w = h.len())?;
        }
        writeln!(out)?;
    }
    Ok(())
}

/// The last line: every figure that must be 0, and the overlaps beyond drift, which are allowed.
fn verdict(t: &Totals) -> String {
    format!(
        "verdict: {} operations, {} faults, stale writes accepted {}, grant order violations {}, acknowledged writes lost {}, belief overlaps {} within drift ({} beyond drift, allowed)",
        t.operations,
        t.faults,
        t.resource.stale_accepted,
        t.lock.grant_order_violations,
        t.resource.acknowledged_lost,
        t.lock.overlaps_within_drift,
        t.lock.overlaps_beyond_drift
    )
}

#[cfg(test)]
mod tests {
    use super::{MAX_LINE, next_line};
    use fencepost_sim::history::HistoryChecker;
    use std::io::{BufReader, Cursor};

    /// Every line `next_line` reads from `text` (through a small buffer, so lines span reads),
    /// as the checker then sees it: malformed or not.
    fn malformed(text: &[u8]) -> Vec<bool> {
        let mut r = BufReader::with_capacity(4096, Cursor::new(text));
        let mut buf = Vec::new();
        let mut checker = HistoryChecker::new();
        let mut out = Vec::new();
        while let Some(kept) = next_line(&mut r, &mut buf).unwrap() {
            let m = if kept {
                checker.check_line(&buf).malformed
            } else {
                Some(checker.skip_long_line())
            };
            out.push(m.is_some());
        }
        out
    }

    #[test]
    fn a_line_of_the_longest_length_is_read_with_either_line_ending() {
        // A write padded with spaces to the longest a line may be.
        let w = br#"{"t":1,"resource":"r","writer":"A","token":1,"result":"ok"}"#;
        let longest = [&w[..], &vec![b' '; MAX_LINE - w.len()]].concat();
        let with = |line: &[u8], end: &[u8]| [line, end, &w[..], b"\n"].concat();
        assert_eq!(malformed(&with(&longest, b"\n")), [false, false]);
        // The `\r` of `\r\n` is kept for the checker to drop, and does not count.
        assert_eq!(malformed(&with(&longest, b"\r\n")), [false, false]);
        assert_eq!(malformed(&longest), [false]);
        // One byte more is too long, whatever ends it, and the next line is read.
        let over = [longest.as_slice(), b" "].concat();
        for end in [&b"\n"[..], b"\r\n"] {
            assert_eq!(
                malformed(&with(&over, end)),
                [true, false],
                "ending {end:?}"
            );
        }
        assert_eq!(malformed(&over), [true]);
        // Far longer: not kept at all.
        let mut buf = Vec::new();
        let huge = [over.as_slice(), &vec![b' '; 5 * MAX_LINE], b"\n"].concat();
        let mut r = BufReader::with_capacity(4096, Cursor::new(huge));
        assert_eq!(next_line(&mut r, &mut buf).unwrap(), Some(false));
        assert!(buf.is_empty());
    }
}
