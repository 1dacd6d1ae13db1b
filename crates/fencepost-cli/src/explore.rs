//! `fencepost explore` (seed sweeps, exhaustive search) and `fencepost check` (write histories).

use std::io::{BufRead, BufReader, Read, Write};
use std::time::Instant;

use fencepost_sim::explore::{Scope, Search, SearchOptions, SearchReport, world_of};
use fencepost_sim::history::HistoryChecker;
use fencepost_sim::sweep::{Sweep, SweepOptions, SweepReport};
use fencepost_sim::template::{self, Source, Template};
use fencepost_sim::trace::fmt_secs;
use fencepost_sim::{Invariant, Scenario, preset};

use crate::args::{CheckArgs, ExploreArgs, Format};
use crate::{Fail, bad, io, load};

/// A template file (or a built-in template's name).
pub(crate) fn load_template(what: &str) -> Result<Template, Fail> {
    if let Some(t) = template::template(what) {
        return Ok(t);
    }
    let text = std::fs::read_to_string(what).map_err(|e| {
        bad(format!(
            "{what}: {e} (not a built-in template or a readable template file)"
        ))
    })?;
    Template::from_json(&text).map_err(|e| bad(format!("{what}: {e}")))
}

/// What `explore` was pointed at.
enum Target {
    Scenario(Scenario),
    Template(Template),
}

fn target(what: &str) -> Result<Target, Fail> {
    if preset(what).is_some() {
        return load(what).map(Target::Scenario);
    }
    if let Some(t) = template::template(what) {
        return Ok(Target::Template(t));
    }
    let text = std::fs::read_to_string(what).map_err(|e| {
        bad(format!(
            "{what}: {e} (not a preset, a built-in template or a readable file)"
        ))
    })?;
    // Templates describe their workers with an object (count and ranges), scenarios with a list.
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| bad(format!("{what}: {e}")))?;
    if value
        .get("workers")
        .is_some_and(serde_json::Value::is_object)
    {
        Template::from_json(&text)
            .map(Target::Template)
            .map_err(|e| bad(format!("{what}: {e}")))
    } else {
        Scenario::from_json(&text)
            .map(Target::Scenario)
            .map_err(|e| bad(format!("{what}: {e}")))
    }
}

pub(crate) fn explore(args: &ExploreArgs, out: &mut impl Write) -> Result<u8, Fail> {
    let what = &args.target;
    let (first_seed, exhaustive, max_faults) = (args.first_seed, args.exhaustive, args.max_faults);
    let fencing = !args.no_fencing;
    let json = args.format == Format::Json;
    let target = target(what)?;
    // Without --exhaustive, or with --seeds, sweep seeds (1000 by default).
    let seeds = match (args.seeds, exhaustive) {
        (Some(n), _) => Some(n),
        (None, false) => Some(1000),
        (None, true) => None,
    };
    if let Some(n) = seeds {
        let room = fencepost_sim::sweep::seeds_from(first_seed);
        if n > room {
            return Err(bad(format!(
                "--seeds: only {room} seeds from --first-seed {first_seed} to {}, got {n}",
                u64::MAX
            )));
        }
    }
    let mut violated = false;
    let mut doc = serde_json::Map::new();
    if let Some(n) = seeds {
        let source = match &target {
            Target::Scenario(s) => Source::Fixed(s.clone()),
            Target::Template(t) => Source::Template(t.clone()),
        };
        let mut sweep = Sweep::new(source, first_seed, n, SweepOptions::default());
        let start = Instant::now();
        let report = sweep.run_to_end().clone();
        let secs = start.elapsed().as_secs_f64();
        violated |= report.mode(fencing).is_some_and(|m| m.violating_runs > 0);
        if json {
            let mut v = serde_json::to_value(&report).map_err(|e| bad(e.to_string()))?;
            v["runs_per_sec"] = serde_json::json!(report.runs_per_sec(secs).round());
            doc.insert("sweep".into(), v);
        } else {
            write_sweep(out, &report, what, &target, secs).map_err(io)?;
        }
    }
    if exhaustive {
        let scenario = match &target {
            Target::Scenario(s) => s.clone(),
            Target::Template(t) => t.derive(first_seed),
        };
        let world = world_of(&scenario);
        let scope = Scope::around_ttl(world.lease_ttl_ms, max_faults);
        let opts = SearchOptions {
            fencing: Some(fencing),
            ..SearchOptions::default()
        };
        let search = Search::new(&world, &scope, opts).map_err(|e| bad(format!("{what}: {e}")))?;
        let start = Instant::now();
        let report = search.run().map_err(|e| bad(format!("{what}: {e}")))?;
        let secs = start.elapsed().as_secs_f64();
        violated |= report.counterexample.is_some();
        if json {
            let mut v = serde_json::to_value(&report).map_err(|e| bad(e.to_string()))?;
            v["distinct_states_per_sec"] =
                serde_json::json!(per_sec(report.distinct_states, secs).round());
            v["states_generated_per_sec"] =
                serde_json::json!(per_sec(report.states_generated, secs).round());
            v["scope"] = serde_json::to_value(&scope).map_err(|e| bad(e.to_string()))?;
            doc.insert("exhaustive".into(), v);
        } else {
            write_search(out, &report, &world, &scope, secs).map_err(io)?;
        }
    }
    if json {
        writeln!(out, "{}", serde_json::Value::Object(doc)).map_err(io)?;
    }
    Ok(u8::from(violated))
}

fn per_sec(n: u64, secs: f64) -> f64 {
    if secs > 0.0 { n as f64 / secs } else { 0.0 }
}

fn human(rate: f64) -> String {
    if rate >= 1e6 {
        format!("{:.2} M", rate / 1e6)
    } else if rate >= 1e3 {
        format!("{:.1} k", rate / 1e3)
    } else {
        format!("{rate:.0}")
    }
}

fn list(invs: &[Invariant]) -> String {
    invs.iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

fn write_sweep(
    out: &mut impl Write,
    r: &SweepReport,
    what: &str,
    target: &Target,
    secs: f64,
) -> std::io::Result<()> {
    let what = crate::shown_text(what);
    writeln!(
        out,
        "seed sweep of {what}: seeds {}..{}, each run with fencing on and off ({} runs/s)",
        r.first_seed,
        u128::from(r.first_seed) + u128::from(r.seeds),
        human(r.runs_per_sec(secs))
    )?;
    for fencing in [true, false] {
        let Some(m) = r.mode(fencing) else { continue };
        let label = if fencing {
            "fencing on "
        } else {
            "fencing off"
        };
        write!(
            out,
            "  {label}: {} of {} runs violated",
            m.violating_runs, r.runs
        )?;
        if m.violating_runs > 0 {
            let per: Vec<String> = Invariant::ALL
                .iter()
                .filter(|i| m.by_invariant.get(**i) > 0)
                .map(|i| format!("{i} {}", m.by_invariant.get(*i)))
                .collect();
            let first: Vec<String> = m
                .first_violating
                .iter()
                .map(|h| h.seed.to_string())
                .collect();
            write!(
                out,
                " ({}); first seeds: {}",
                per.join(", "),
                first.join(" ")
            )?;
        }
        writeln!(out)?;
        if let (Some(hit), Target::Template(_)) = (m.first_violating.first(), target) {
            let flag = if fencing { "" } else { " --no-fencing" };
            writeln!(
                out,
                "               replay: fencepost sim --template {what} --seed {}{flag}",
                hit.seed
            )?;
        }
    }
    Ok(())
}

fn write_search(
    out: &mut impl Write,
    r: &SearchReport,
    world: &Scenario,
    scope: &Scope,
    secs: f64,
) -> std::io::Result<()> {
    let kinds: Vec<&str> = [
        (!scope.pause_ms.is_empty(), "pauses"),
        (!scope.hold_ms.is_empty(), "held writes"),
        (!scope.jump_ms.is_empty(), "clock jumps"),
    ]
    .into_iter()
    .filter_map(|(on, k)| on.then_some(k))
    .collect();
    writeln!(
        out,
        "exhaustive search of the {} world ({} workers), fencing {}, at most {} faults ({}; lengths around the {} lease)",
        if world.name.is_empty() {
            "scenario".into()
        } else {
            crate::shown_text(&world.name)
        },
        world.workers.len(),
        if r.fencing { "on" } else { "off" },
        scope.max_faults,
        kinds.join(", "),
        fmt_secs(world.lease_ttl_ms)
    )?;
    writeln!(
        out,
        "  {} distinct states ({} generated, {} explored), depth {}{}; {} distinct states/s, {} generated/s",
        r.distinct_states,
        r.states_generated,
        r.states_explored,
        r.depth,
        if r.complete { ", the whole scope" } else { "" },
        human(per_sec(r.distinct_states, secs)),
        human(per_sec(r.states_generated, secs))
    )?;
    match &r.counterexample {
        None if r.complete => writeln!(out, "  no violation anywhere in the scope")?,
        None => writeln!(out, "  no violation found (the search was cut short)")?,
        Some(cx) => {
            writeln!(
                out,
                "  shortest counterexample: {} actions, breaks {} at {}",
                cx.depth,
                list(&cx.broken),
                fmt_secs(cx.t_ms)
            )?;
            for f in &cx.faults {
                writeln!(out, "    - {}", crate::shown_text(&f.describe()))?;
            }
            writeln!(
                out,
                "  the scenario (save it and run `fencepost sim FILE` to replay it):"
            )?;
            writeln!(out, "{}", cx.scenario.to_json())?;
        }
    }
    Ok(())
}

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
            Some(false) => fencepost_sim::history::LineReport {
                malformed: Some(checker.skip_long_line()),
                findings: Vec::new(),
            },
        };
        if let Some(m) = &report.malformed {
            if json {
                let v = serde_json::json!({ "malformed": m });
                writeln!(out, "{v}").map_err(io)?;
            } else {
                writeln!(out, "{}", crate::shown_text(&m.to_string())).map_err(io)?;
            }
        }
        for f in &report.findings {
            if json {
                let v = serde_json::json!({ "finding": f });
                writeln!(out, "{v}").map_err(io)?;
            } else {
                writeln!(out, "{}", crate::shown_text(&f.to_string())).map_err(io)?;
            }
        }
    }
    let secs = start.elapsed().as_secs_f64();
    let s = *checker.summary();
    if json {
        let v =
            serde_json::json!({ "summary": s, "lines_per_sec": per_sec(s.lines, secs).round() });
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
    }
    out.flush().map_err(io)?;
    Ok(if s.violated() {
        1
    } else if s.malformed > 0 {
        2
    } else {
        0
    })
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
