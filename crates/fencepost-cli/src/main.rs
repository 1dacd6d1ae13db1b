//! The `fencepost` command: `fencepost --help` lists its commands, `fencepost <command> --help`
//! explains one (the definitions are in [`args`]).
//!
//! Exit status: 0 when every invariant held, 1 when one was violated, 2 on bad input.

use std::io::Write;
use std::process::ExitCode;

use clap::{CommandFactory, Parser};
use fencepost_sim::trace::fmt_secs;
use fencepost_sim::{Actor, Detail, Msg, PRESETS, RunOptions, Scenario, Trace, preset, run_with};

mod args;
mod check;
mod explore;

use args::{Cli, Command, Format, SimArgs};

/// A failure to report: message and exit code.
pub(crate) struct Fail(pub(crate) String, pub(crate) u8);

pub(crate) fn bad(msg: impl Into<String>) -> Fail {
    Fail(msg.into(), 2)
}

pub(crate) fn io(e: std::io::Error) -> Fail {
    Fail(format!("writing output: {e}"), 2)
}

fn main() -> ExitCode {
    // Bad arguments end here, with clap's message and exit status 2.
    let cli = Cli::parse();
    let mut out = std::io::stdout().lock();
    match run(cli.command, &mut out) {
        Ok(code) => ExitCode::from(code),
        Err(Fail(msg, code)) => {
            let _ = out.flush();
            eprintln!("fencepost: {msg}");
            ExitCode::from(code)
        }
    }
}

fn run(command: Command, out: &mut impl Write) -> Result<u8, Fail> {
    match command {
        Command::Presets => {
            for p in PRESETS {
                writeln!(out, "{:<32} {}", p.name, p.title).map_err(io)?;
            }
            Ok(0)
        }
        Command::Sim(args) => sim(&args, out),
        Command::Explore(args) => explore::explore(&args, out),
        Command::Check(args) => check::check(&args, out),
        Command::CheckScenario { file } => {
            let s = load(&file)?;
            writeln!(
                out,
                "{file}: ok ({} workers, {} faults)",
                s.workers.len(),
                s.faults.len()
            )
            .map_err(io)?;
            Ok(0)
        }
        Command::Completions { shell } => {
            // Generated in memory: clap_complete panics on a failed write, and a closed pipe is
            // an error to report, not a crash.
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "fencepost", &mut script);
            out.write_all(&script).map_err(io)?;
            Ok(0)
        }
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

fn sim(args: &SimArgs, out: &mut impl Write) -> Result<u8, Fail> {
    let mut opts = RunOptions {
        fencing: args.fencing(),
        seed: args.seed,
        ..RunOptions::default()
    };
    // clap has made sure there is exactly one of the two, and a seed with a template.
    let scenario = match (&args.template, &args.scenario) {
        (Some(template), _) => {
            // The seed picks the scenario; its own seed (latency draws) comes with it.
            let seed = opts
                .seed
                .take()
                .ok_or_else(|| bad("sim --template needs --seed N"))?;
            explore::load_template(template)?.derive(seed)
        }
        (None, Some(target)) => load(target)?,
        (None, None) => return Err(bad("sim needs a preset or a scenario file")),
    };
    let trace = run_with(&scenario, opts);
    if args.format == Format::Json {
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
        Detail::LeaseLost { .. } => "lost!",
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
