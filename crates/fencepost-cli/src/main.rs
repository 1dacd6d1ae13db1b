//! The `fencepost` command.
//!
//! ```text
//! fencepost presets
//! fencepost sim <preset | file.json> [--fencing | --no-fencing] [--seed N] [--format text|json]
//! fencepost sim --template <template.json> --seed N [--fencing | --no-fencing] [--format text|json]
//! fencepost explore <preset | template | file.json> [--seeds N] [--first-seed S] [--exhaustive]
//!                   [--max-faults K] [--no-fencing] [--format text|json]
//! fencepost check <history.jsonl | -> [--format text|json]
//! fencepost check-scenario <file.json>
//! ```
//!
//! Exit status: 0 when every invariant held, 1 when one was violated, 2 on bad input.

use std::io::Write;
use std::process::ExitCode;

use fencepost_sim::trace::fmt_secs;
use fencepost_sim::{Actor, Detail, Msg, PRESETS, RunOptions, Scenario, Trace, preset, run_with};

mod explore;

const USAGE: &str = "usage:
  fencepost presets
  fencepost sim <preset | file.json> [--fencing | --no-fencing] [--seed N] [--format text|json]
  fencepost sim --template <template.json> --seed N [--fencing | --no-fencing] [--format text|json]
  fencepost explore <preset | template | file.json> [--seeds N] [--first-seed S] [--exhaustive]
                    [--max-faults K] [--no-fencing] [--format text|json]
  fencepost check <history.jsonl | -> [--format text|json]
  fencepost check-scenario <file.json>

exit status: 0 all invariants held, 1 an invariant was violated, 2 bad input
(check: 1 a violation was found, 2 no violation but malformed lines were skipped)";

/// A failure to report: message and exit code.
pub(crate) struct Fail(pub(crate) String, pub(crate) u8);

/// Reads the value of `--format`: whether it asks for JSON.
pub(crate) fn format_is_json(value: Option<&String>) -> Result<bool, Fail> {
    match value.map(String::as_str) {
        Some("json") => Ok(true),
        Some("text") => Ok(false),
        Some(other) => Err(bad(format!("--format takes text or json, not `{other}`"))),
        None => Err(bad("--format needs a value: text or json")),
    }
}

/// Takes a command's one positional argument; refuses unknown options and a second positional.
pub(crate) fn positional(slot: &mut Option<String>, arg: &str) -> Result<(), Fail> {
    if arg.starts_with("--") {
        return Err(bad(format!("usage: unknown option `{arg}`")));
    }
    if slot.is_some() {
        return Err(bad(format!("usage: unexpected argument `{arg}`")));
    }
    *slot = Some(arg.to_string());
    Ok(())
}

pub(crate) fn bad(msg: impl Into<String>) -> Fail {
    Fail(msg.into(), 2)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut out = std::io::stdout().lock();
    match dispatch(&args, &mut out) {
        Ok(code) => ExitCode::from(code),
        Err(Fail(msg, code)) => {
            let _ = out.flush();
            eprintln!("fencepost: {msg}");
            if code == 2 && msg.starts_with("usage") {
                eprintln!("{USAGE}");
            }
            ExitCode::from(code)
        }
    }
}

fn dispatch(args: &[String], out: &mut impl Write) -> Result<u8, Fail> {
    let io = |e: std::io::Error| Fail(format!("writing output: {e}"), 2);
    // `<command> --help` (or -h, anywhere after it) shows the usage, as `--help` alone does.
    if args.len() > 1 && args[1..].iter().any(|a| a == "--help" || a == "-h") {
        writeln!(out, "{USAGE}").map_err(io)?;
        return Ok(0);
    }
    match args.first().map(String::as_str) {
        Some("presets") => {
            if let Some(extra) = args.get(1) {
                return Err(bad(format!(
                    "usage: presets takes no argument, got `{extra}`"
                )));
            }
            for p in PRESETS {
                writeln!(out, "{:<32} {}", p.name, p.title).map_err(io)?;
            }
            Ok(0)
        }
        Some("sim") => sim(&args[1..], out),
        Some("explore") => explore::explore(&args[1..], out),
        Some("check") => explore::check(&args[1..], out),
        Some("check-scenario") => {
            let [path] = &args[1..] else {
                return Err(bad("usage: fencepost check-scenario <file.json>"));
            };
            let s = load(path)?;
            writeln!(
                out,
                "{path}: ok ({} workers, {} faults)",
                s.workers.len(),
                s.faults.len()
            )
            .map_err(io)?;
            Ok(0)
        }
        Some("-h" | "--help" | "help") => {
            writeln!(out, "{USAGE}").map_err(io)?;
            Ok(0)
        }
        Some(other) => Err(bad(format!("usage: unknown command `{other}`"))),
        None => Err(bad("usage: a command is required")),
    }
}

/// Loads a preset by name, or a scenario file.
pub(crate) fn load(what: &str) -> Result<Scenario, Fail> {
    if let Some(p) = preset(what) {
        return Ok(p.scenario());
    }
    if !what.ends_with(".json") && !std::path::Path::new(what).exists() {
        return Err(bad(format!(
            "`{what}` is neither a preset (see `fencepost presets`) nor a scenario file"
        )));
    }
    let text = std::fs::read_to_string(what).map_err(|e| bad(format!("{what}: {e}")))?;
    Scenario::from_json(&text).map_err(|e| bad(format!("{what}: {e}")))
}

fn sim(args: &[String], out: &mut impl Write) -> Result<u8, Fail> {
    let mut target = None;
    let mut template = None;
    let mut opts = RunOptions::default();
    let mut json = false;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--template" => {
                let v = it.next().ok_or_else(|| bad("--template needs a file"))?;
                template = Some(explore::load_template(v)?);
            }
            "--fencing" => opts.fencing = Some(true),
            "--no-fencing" => opts.fencing = Some(false),
            "--seed" => {
                let v = it.next().ok_or_else(|| bad("--seed needs a number"))?;
                opts.seed = Some(
                    v.parse()
                        .map_err(|_| bad(format!("--seed: `{v}` is not a whole number")))?,
                );
            }
            "--format" => json = format_is_json(it.next())?,
            other => positional(&mut target, other)?,
        }
    }
    let scenario = match (template, target) {
        (Some(t), None) => {
            // The seed picks the scenario; its own seed (latency draws) comes with it.
            let seed = opts
                .seed
                .take()
                .ok_or_else(|| bad("usage: sim --template needs --seed N"))?;
            t.derive(seed)
        }
        (Some(_), Some(extra)) => {
            return Err(bad(format!(
                "usage: unexpected argument `{extra}` with --template"
            )));
        }
        (None, Some(target)) => load(&target)?,
        (None, None) => return Err(bad("usage: sim needs a preset or a scenario file")),
    };
    let trace = run_with(&scenario, opts);
    let io = |e: std::io::Error| Fail(format!("writing output: {e}"), 2);
    if json {
        writeln!(out, "{}", trace.to_json()).map_err(io)?;
    } else {
        write_text(&trace, out).map_err(io)?;
    }
    Ok(if trace.verdict.ok { 0 } else { 1 })
}

/// The readable timeline: one line per event, a column per actor, and the explanation.
fn write_text(trace: &Trace, out: &mut impl Write) -> std::io::Result<()> {
    let shown = printable(trace);
    let trace = shown.as_ref().unwrap_or(trace);
    let mut lanes: Vec<Actor> = vec![Actor::Lock];
    lanes.extend((0..trace.workers.len() as u16).map(Actor::Worker));
    lanes.push(Actor::Storage);
    let width = lanes
        .iter()
        .map(|a| trace.name(*a).chars().count())
        .max()
        .unwrap_or(4)
        .max(7);
    writeln!(
        out,
        "{} (fencing {}, seed {})",
        if trace.scenario.is_empty() {
            "scenario"
        } else {
            &trace.scenario
        },
        if trace.fencing { "on" } else { "off" },
        trace.seed
    )?;
    write!(out, "{:>10}  ", "time")?;
    for a in &lanes {
        write!(out, "{:<width$} ", trace.name(*a))?;
    }
    writeln!(out)?;
    let mut paused = vec![false; trace.workers.len()];
    for e in &trace.events {
        if let (Actor::Worker(w), Detail::PauseStart { .. }) = (e.actor, e.detail) {
            paused[usize::from(w)] = true;
        }
        write!(out, "{:>10}  ", fmt_secs(e.t_ms))?;
        for a in &lanes {
            let cell = if *a == e.actor {
                tag(e)
            } else if let Actor::Worker(w) = a {
                if paused[usize::from(*w)] { "zz" } else { "|" }
            } else {
                "|"
            };
            write!(out, "{cell:<width$} ")?;
        }
        writeln!(out, "#{} {}", e.seq, trace.explain(e))?;
        if let (Actor::Worker(w), Detail::PauseEnd) = (e.actor, e.detail) {
            paused[usize::from(w)] = false;
        }
    }
    writeln!(out)?;
    if trace.truncated {
        writeln!(
            out,
            "(stopped early: the scenario's end_ms or the event limit was reached)"
        )?;
    }
    let doc: Vec<String> = trace
        .document
        .iter()
        .map(|d| {
            format!(
                "{}#{}@{}",
                trace.name(Actor::Worker(d.writer)),
                d.op,
                d.token
            )
        })
        .collect();
    writeln!(out, "document: [{}]", doc.join(", "))?;
    if trace.verdict.ok {
        writeln!(out, "verdict: ok, every invariant held")?;
    } else {
        for v in &trace.verdict.violations {
            writeln!(
                out,
                "VIOLATION {} at #{} ({}): {} -- because {}",
                v.invariant,
                v.seq,
                fmt_secs(v.t_ms),
                v.invariant.description(),
                v.because
            )?;
        }
    }
    Ok(())
}

/// The trace with control characters in its names escaped (`\n` as `\n`, ESC as `\u{1b}`), so a
/// name cannot break the one-line-per-event layout or drive the terminal; None when no name has
/// one.
fn printable(trace: &Trace) -> Option<Trace> {
    let unsafe_name = |n: &str| n.chars().any(char::is_control);
    if !unsafe_name(&trace.scenario) && !trace.workers.iter().any(|n| unsafe_name(n)) {
        return None;
    }
    let escape = |n: &str| shown_text(n).into_owned();
    let mut shown = trace.clone();
    shown.scenario = escape(&shown.scenario);
    for n in &mut shown.workers {
        *n = escape(n);
    }
    for v in &mut shown.verdict.violations {
        v.because = escape(&v.because);
    }
    Some(shown)
}

/// `s` with its control characters escaped (`\n` as `\n`, ESC as `\u{1b}`): text from a file (a
/// name, a resource) written into one line of output cannot start another line or drive the
/// terminal.
pub(crate) fn shown_text(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.chars().any(char::is_control) {
        return std::borrow::Cow::Borrowed(s);
    }
    let escaped = s
        .chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect();
    std::borrow::Cow::Owned(escaped)
}

/// A short mark for the acting actor's column.
fn tag(e: &fencepost_sim::Event) -> &'static str {
    match e.detail {
        Detail::Send {
            what: Msg::Write { .. },
            ..
        } => "write->",
        Detail::Send { .. } => "send->",
        Detail::Deliver { .. } => "<-recv",
        Detail::Grant { .. } => "GRANT",
        Detail::Deny { .. } => "deny",
        Detail::Renew { .. } => "renew",
        Detail::RenewLost { .. } => "LOST",
        Detail::Release { .. } => "release",
        Detail::Expire { .. } => "EXPIRE",
        Detail::PauseStart { .. } => "PAUSE",
        Detail::PauseEnd => "RESUME",
        Detail::WriteAccepted { .. } => "ok",
        Detail::WriteRejected { .. } => "REJECT",
        Detail::WriteDeduplicated { .. } => "dedup",
        Detail::JobDone { .. } => "done",
        Detail::Crash => "CRASH",
        Detail::Restart { .. } => "restart",
        Detail::ClockJump { .. } => "clock!",
        Detail::AuthorityRestart { .. } => "RESTART",
    }
}
