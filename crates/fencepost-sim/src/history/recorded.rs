//! A recorded run on the timeline: a fault campaign's history turned into a [`Trace`], so that
//! the visualizer draws it with the lanes, safe-until bands, grants and fenced writes of a
//! simulated one.
//!
//! A trace has one lock service, one storage and its workers; a campaign has many locks, each
//! with its own resources. So a recorded run shows **one lock** (the one of the first write its
//! store refused as stale, or else the first one granted): every client process is a worker's
//! lane (sorted by name); the lock service's lane carries that lock's grants and releases; the
//! storage's lane the writes made with that lock's tokens (a write belongs to the lock its
//! process was granted its token on), whatever resource they went to; a write its client gave up
//! on (unknown) and the store refused later, as a request held in the network arrives, is drawn
//! refused from the store's own line. Beliefs become what a
//! simulated worker learns: the first `held` or `uncertain` of a lease is its grant learned, the
//! next ones its renewals, `lost` its keeper saying the lease is gone, `released` its release
//! sent. A `pause-client` fault is a pause on its client's lane; every fault is also listed in
//! [`RecordedRun::faults`], for the lanes a trace has no place for (service instances, etcd
//! members, proxies).
//!
//! Lines are read one at a time by the checker's own reader, twice (once to find the lock to
//! show, once to draw it): nothing is kept per line but the events drawn. A line the checker
//! would call malformed is skipped and reported with the checker's message. The checker itself
//! (its counts, findings and reports) is not run: the page that draws a run would carry it for
//! nothing but those messages.

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

use super::Malformed;
use super::draw::Draw;
use super::parse::{Answer, Event as Line, Outcome, parse};
use crate::trace::Trace;

pub use super::draw::{Fault, MAX_RUN_EVENTS};
pub use super::refusal::Refusal;

/// Largest history read, in bytes (a 60 s campaign records about 0.3 MB).
pub const MAX_RUN_BYTES: usize = 8 << 20;
/// Most client processes drawn, each a lane: the lines of others are left out.
pub const MAX_PROCESSES: usize = 32;
/// Malformed lines kept with their messages (all are counted).
pub const KEEP_MALFORMED: usize = 5;

/// A history, ready to draw.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordedRun {
    /// One lock's part of the run, as a trace (workers: the client processes).
    pub trace: Trace,
    /// The lock shown.
    pub lock: String,
    /// Every lock the history grants, by name.
    pub locks: Vec<String>,
    /// Every fault, in the order they started.
    pub faults: Vec<Fault>,
    /// The first write refused as stale, if any.
    pub refusal: Option<Refusal>,
    /// Lines read.
    pub lines: u64,
    /// Lines skipped as malformed.
    pub malformed: u64,
    /// The first [`KEEP_MALFORMED`] of them, with the checker's messages.
    pub first_malformed: Vec<Malformed>,
    /// Client processes left out past [`MAX_PROCESSES`].
    pub processes_left_out: usize,
}

/// Why a history cannot be drawn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunError {
    /// Larger than [`MAX_RUN_BYTES`].
    TooLarge {
        /// Its size.
        bytes: usize,
    },
    /// No line could be read.
    Unreadable {
        /// Lines in it (blank ones included).
        lines: u64,
        /// The first malformed lines.
        malformed: Vec<Malformed>,
    },
    /// Readable, but no client was granted a lock: nothing to draw on the lanes.
    NoGrants {
        /// Lines in it.
        lines: u64,
    },
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::TooLarge { bytes } => write!(
                f,
                "this history is {bytes} bytes; the page draws histories up to {MAX_RUN_BYTES} bytes (fencepost check reads any size)"
            ),
            RunError::Unreadable { lines: 0, .. } => write!(f, "this file is empty"),
            RunError::Unreadable { lines, malformed } => {
                write!(f, "no line of this file is a history line ({lines} lines)")?;
                match malformed.first() {
                    Some(m) => write!(f, "; {m}"),
                    None => Ok(()),
                }
            }
            RunError::NoGrants { lines } => write!(
                f,
                "no client was granted a lock in these {lines} lines (a store's write log alone has no lanes to draw; fencepost check reads it)"
            ),
        }
    }
}

/// What the first reading finds: the processes, the locks, who was granted which token.
#[derive(Default)]
struct Scan {
    /// Lines seen, blank ones included (the checker's numbering).
    lines: u64,
    /// Lines read.
    read: u64,
    malformed: u64,
    first_malformed: Vec<Malformed>,
    processes: BTreeSet<String>,
    locks: Vec<String>,
    /// (process, token) -> the lock it was granted on.
    tokens: BTreeMap<(String, u64), String>,
    /// The lock of the first write refused as stale.
    refused: Option<String>,
}

impl Scan {
    fn line(&mut self, bytes: &[u8]) {
        self.lines += 1;
        let line = match readable(bytes) {
            None => return,
            Some(Ok(line)) => line,
            Some(Err(message)) => {
                self.malformed += 1;
                if self.first_malformed.len() < KEEP_MALFORMED {
                    self.first_malformed.push(Malformed {
                        line: self.lines,
                        message: super::shortened(message),
                    });
                }
                return;
            }
        };
        self.read += 1;
        match line {
            Line::Grant {
                process,
                lock,
                token,
                ..
            } => {
                if !self.locks.iter().any(|l| *l == lock) {
                    self.locks.push(lock.to_string());
                }
                self.processes.insert(process.to_string());
                self.tokens
                    .insert((process.into_owned(), token), lock.into_owned());
            }
            Line::Belief { process, .. } => {
                self.processes.insert(process.into_owned());
            }
            Line::Write {
                process,
                token,
                answer,
                ..
            } => {
                if answer == Answer::Rejected && self.refused.is_none() {
                    let key = (process.to_string(), token);
                    self.refused = self.tokens.get(&key).cloned();
                }
                self.processes.insert(process.into_owned());
            }
            Line::Store(l) if l.result == Outcome::Rejected && self.refused.is_none() => {
                let key = (l.writer.into_owned(), l.token);
                self.refused = self.tokens.get(&key).cloned();
            }
            _ => {}
        }
    }
}

/// A line as the checker reads it (see [`super::HistoryChecker::check_line`]): None if blank, else the
/// event or why it is malformed.
fn readable(bytes: &[u8]) -> Option<Result<Line<'_>, String>> {
    let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
    if bytes.len() > super::MAX_LINE_BYTES {
        Some(Err(super::too_long()))
    } else if bytes.iter().all(u8::is_ascii_whitespace) {
        None
    } else {
        Some(parse(bytes))
    }
}

impl RecordedRun {
    /// Reads a history (JSON Lines, as `fencepost check` reads it) and draws the lock of its first
    /// write refused as stale, or else the first lock granted.
    pub fn read(text: &str) -> Result<RecordedRun, RunError> {
        RecordedRun::read_lock(text, None)
    }

    /// Reads a history and draws `lock` (None: as [`RecordedRun::read`] chooses; a lock the
    /// history never grants draws empty lanes).
    pub fn read_lock(text: &str, lock: Option<&str>) -> Result<RecordedRun, RunError> {
        if text.len() > MAX_RUN_BYTES {
            return Err(RunError::TooLarge { bytes: text.len() });
        }
        let mut scan = Scan::default();
        for line in text.split_terminator('\n') {
            scan.line(line.as_bytes());
        }
        let lines = scan.lines;
        if scan.read == 0 {
            return Err(RunError::Unreadable {
                lines,
                malformed: scan.first_malformed,
            });
        }
        let Some(first) = scan.locks.first() else {
            return Err(RunError::NoGrants { lines });
        };
        let lock = lock
            .map(str::to_string)
            .or(scan.refused.clone())
            .unwrap_or_else(|| first.clone());
        let processes: Vec<String> = scan.processes.iter().take(MAX_PROCESSES).cloned().collect();
        let mut draw = Draw::new(&lock, &processes, &scan.tokens);
        for line in text.split_terminator('\n') {
            if let Some(Ok(l)) = readable(line.as_bytes()) {
                draw.line(l);
            }
        }
        let (trace, faults, refusal) = draw.finish();
        Ok(RecordedRun {
            trace,
            lock: lock.clone(),
            locks: scan.locks,
            faults,
            refusal,
            lines,
            malformed: scan.malformed,
            first_malformed: scan.first_malformed,
            processes_left_out: scan.processes.len() - processes.len(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::{HistoryChecker, Nemesis};
    use crate::invariants::Invariant;
    use crate::trace::{Actor, Detail, LossWhy, Msg, RejectReason};
    use alloc::format;
    use alloc::vec;

    /// The story in miniature: client-1 holds token 1, is paused past its lease; client-2 takes
    /// token 2 and writes; client-1 wakes and writes with 1: refused.
    const STORY: &str = r#"{"t":100,"kind":"grant","process":"client-1","lock":"L","token":1,"expires_at":1}
{"t":100,"kind":"belief","process":"client-1","lock":"L","state":"held","token":1,"safe_until":1100}
{"t":200,"kind":"write","process":"client-1","resource":"d","token":1,"via":"fetch","result":"ok"}
{"t":200,"resource":"d","writer":"client-1","token":1,"result":"ok"}
{"t":300,"kind":"fault","process":"nemesis","nemesis":"pause-client","target":"client-1","phase":"start"}
{"t":1200,"kind":"grant","process":"client-2","lock":"L","token":2,"expires_at":1}
{"t":1200,"kind":"belief","process":"client-2","lock":"L","state":"held","token":2,"safe_until":2200}
{"t":1300,"kind":"write","process":"client-2","resource":"d","token":2,"via":"store","result":"ok"}
{"t":1300,"resource":"d","writer":"client-2","token":2,"result":"ok"}
{"t":1500,"kind":"fault","process":"nemesis","nemesis":"pause-client","target":"client-1","phase":"end"}
{"t":1500,"kind":"belief","process":"client-1","lock":"L","state":"lost"}
{"t":1600,"kind":"write","process":"client-1","resource":"d","token":1,"via":"fetch","result":"rejected","highest":2}
{"t":1600,"resource":"d","writer":"client-1","token":1,"result":"rejected"}
{"t":2000,"kind":"belief","process":"client-2","lock":"L","state":"released"}
{"t":3000,"kind":"final","process":"runner","resource":"d","token":2,"writer":"client-2"}
"#;

    fn ev(
        t_ms: u64,
        actor: Actor,
        token: Option<u64>,
        detail: Detail,
    ) -> (u64, Actor, Option<u64>, Detail) {
        (t_ms, actor, token, detail)
    }

    fn events(run: &RecordedRun) -> Vec<(u64, Actor, Option<u64>, Detail)> {
        run.trace
            .events
            .iter()
            .enumerate()
            .map(|(i, e)| {
                assert_eq!(e.seq as usize, i);
                (e.t_ms, e.actor, e.token, e.detail)
            })
            .collect()
    }

    #[test]
    fn the_story_becomes_a_trace_with_a_lane_per_client() {
        let run = RecordedRun::read(STORY).unwrap();
        assert_eq!(run.trace.workers, ["client-1", "client-2"]);
        assert_eq!(
            (run.lock.as_str(), run.locks.clone()),
            ("L", vec!["L".to_string()])
        );
        assert_eq!(
            (run.lines, run.malformed, run.processes_left_out),
            (15, 0, 0)
        );
        let (c1, c2) = (Actor::Worker(0), Actor::Worker(1));
        let granted = |msg, until| Detail::Deliver {
            msg,
            from: Actor::Lock,
            what: Msg::Granted { expires_at: until },
            sent_at: if msg == 1 { 100 } else { 1200 },
            believed_until: Some(until),
        };
        let grant = |holder, expires_at| Detail::Grant {
            holder,
            expires_at,
            reentry: false,
        };
        assert_eq!(
            events(&run),
            [
                ev(100, Actor::Lock, Some(1), grant(0, 1100)),
                ev(100, c1, Some(1), granted(1, 1100)),
                ev(
                    200,
                    Actor::Storage,
                    Some(1),
                    Detail::WriteAccepted {
                        writer: 0,
                        op: 1,
                        previous: None
                    }
                ),
                ev(300, c1, None, Detail::PauseStart { until: 1500 }),
                ev(1200, Actor::Lock, Some(2), grant(1, 2200)),
                ev(1200, c2, Some(2), granted(2, 2200)),
                ev(
                    1300,
                    Actor::Storage,
                    Some(2),
                    Detail::WriteAccepted {
                        writer: 1,
                        op: 2,
                        previous: Some(1)
                    }
                ),
                ev(1500, c1, None, Detail::PauseEnd),
                ev(
                    1500,
                    c1,
                    Some(1),
                    Detail::LeaseLost {
                        why: LossWhy::Expired,
                        believed_until: Some(1100)
                    }
                ),
                ev(
                    1600,
                    Actor::Storage,
                    Some(1),
                    Detail::WriteRejected {
                        writer: 0,
                        op: 3,
                        reason: RejectReason::Stale,
                        highest: Some(2)
                    }
                ),
                ev(
                    2000,
                    c2,
                    Some(2),
                    Detail::Send {
                        msg: 3,
                        to: Actor::Lock,
                        what: Msg::Release,
                        deliver_at: 2000,
                        believed_until: None
                    }
                ),
                ev(
                    2000,
                    Actor::Lock,
                    Some(2),
                    Detail::Deliver {
                        msg: 3,
                        from: c2,
                        what: Msg::Release,
                        sent_at: 2000,
                        believed_until: None
                    }
                ),
                ev(
                    2000,
                    Actor::Lock,
                    Some(2),
                    Detail::Release {
                        holder: 1,
                        ok: true
                    }
                ),
            ]
        );
        assert!(run.trace.verdict.ok && !run.trace.truncated);
        assert_eq!(
            run.trace
                .document
                .iter()
                .map(|w| (w.writer, w.token, w.seq))
                .collect::<Vec<_>>(),
            [(0, 1, 2), (1, 2, 6)]
        );
        assert_eq!(
            run.faults,
            [Fault {
                nemesis: Nemesis::PauseClient,
                target: "client-1".into(),
                from: 300,
                to: Some(1500)
            }]
        );
        let r = run.refusal.unwrap();
        assert_eq!((r.seq, r.resource.as_str()), (9, "d"));
        assert_eq!(
            r.sentence,
            "client-1 wrote to d with token 1 at 1.6 s, after its lease ran out at 1.1 s while it \
             was paused (0.3 s to 1.5 s); the store had already accepted token 2 from client-2 at \
             1.3 s, so it refused the write."
        );
    }

    #[test]
    fn a_held_belief_before_its_grant_learns_the_token_from_it() {
        // The client's keeper says `held` as the answer arrives, before the grant is recorded.
        let text = r#"{"t":10,"kind":"belief","process":"c","lock":"L","state":"acquiring"}
{"t":20,"kind":"belief","process":"c","lock":"L","state":"held","token":7,"safe_until":2020}
{"t":20,"kind":"grant","process":"c","lock":"L","token":7,"expires_at":2020}
{"t":900,"kind":"belief","process":"c","lock":"L","state":"uncertain","token":7,"safe_until":2500}
{"t":950,"kind":"write","process":"c","resource":"L","token":7,"via":"fetch","result":"unknown"}
"#;
        let run = RecordedRun::read(text).unwrap();
        let got: Vec<_> = events(&run)
            .into_iter()
            .map(|(t, a, k, d)| (t, a, k, d.kind()))
            .collect();
        use crate::trace::Kind;
        let c = Actor::Worker(0);
        assert_eq!(
            got,
            [
                (20, c, Some(7), Kind::Deliver),
                (20, Actor::Lock, Some(7), Kind::Grant),
                (900, c, Some(7), Kind::Deliver),
                (950, c, Some(7), Kind::Send),
            ]
        );
        assert_eq!(
            run.trace.events[1].detail,
            Detail::Grant {
                holder: 0,
                expires_at: 2020,
                reentry: false
            }
        );
        assert!(matches!(
            run.trace.events[2].detail,
            Detail::Deliver {
                what: Msg::Renewed { .. },
                believed_until: Some(2500),
                ..
            }
        ));
        assert_eq!(run.refusal, None);
    }

    #[test]
    fn the_lock_shown_is_the_first_refused_one_and_others_can_be_asked_for() {
        let other = r#"{"t":50,"kind":"grant","process":"client-3","lock":"M","token":9,"expires_at":1}
{"t":60,"kind":"write","process":"client-3","resource":"store:M","token":9,"via":"store","result":"ok"}
"#;
        let text = format!("{other}{STORY}");
        let run = RecordedRun::read(&text).unwrap();
        assert_eq!(run.lock, "L");
        assert_eq!(run.locks, ["M", "L"]);
        // Every client is a lane; M's lines are not drawn.
        assert_eq!(run.trace.workers, ["client-1", "client-2", "client-3"]);
        assert_eq!(run.trace.events.len(), 13);
        assert_eq!(run.refusal.as_ref().map(|r| r.seq), Some(9));
        let m = RecordedRun::read_lock(&text, Some("M")).unwrap();
        assert_eq!(m.lock, "M");
        assert_eq!(
            events(&m)[..2],
            [
                ev(
                    50,
                    Actor::Lock,
                    Some(9),
                    Detail::Grant {
                        holder: 2,
                        expires_at: 50,
                        reentry: false
                    }
                ),
                ev(
                    60,
                    Actor::Storage,
                    Some(9),
                    Detail::WriteAccepted {
                        writer: 2,
                        op: 1,
                        previous: None
                    }
                ),
            ]
        );
        // The pause of client-1 is its lane's, whichever lock is shown.
        assert_eq!(m.trace.events[2].detail, Detail::PauseStart { until: 1500 });
        assert_eq!(m.refusal, None);
    }

    #[test]
    fn a_write_its_client_gave_up_on_is_refused_in_the_services_line() {
        // client-1's request is held in the network: it records unknown at 1600; the service
        // receives it at 1700 and refuses it.
        let text = STORY
            .replace(
                r#"{"t":1600,"kind":"write","process":"client-1","resource":"d","token":1,"via":"fetch","result":"rejected","highest":2}"#,
                r#"{"t":1600,"kind":"write","process":"client-1","resource":"d","token":1,"via":"fetch","result":"unknown"}"#,
            )
            .replace(
                r#"{"t":1600,"resource":"d","writer":"client-1","token":1,"result":"rejected"}"#,
                r#"{"t":1700,"resource":"d","writer":"client-1","token":1,"result":"rejected"}"#,
            );
        let run = RecordedRun::read(&text).unwrap();
        assert_eq!(run.lock, "L");
        let refused: Vec<_> = events(&run)
            .into_iter()
            .enumerate()
            .filter(|(_, e)| matches!(e.3, Detail::WriteRejected { .. }))
            .collect();
        assert_eq!(
            refused,
            [(
                10,
                ev(
                    1700,
                    Actor::Storage,
                    Some(1),
                    Detail::WriteRejected {
                        writer: 0,
                        op: 4,
                        reason: RejectReason::Stale,
                        highest: Some(2)
                    }
                )
            )]
        );
        let r = run.refusal.unwrap();
        assert_eq!((r.seq, r.resource.as_str()), (10, "d"));
        assert_eq!(
            r.sentence,
            "client-1 wrote to d with token 1 at 1.7 s, after its lease ran out at 1.1 s while it was paused \
             (0.3 s to 1.5 s); the store had already accepted token 2 from client-2 at 1.3 s, so it \
             refused the write."
        );
        // Without the service's line the write stays unknown, and nothing was refused.
        let unknown = text.replace(
            r#"{"t":1700,"resource":"d","writer":"client-1","token":1,"result":"rejected"}"#,
            "",
        );
        assert_eq!(RecordedRun::read(&unknown).unwrap().refusal, None);
    }

    #[test]
    fn a_stale_write_accepted_breaks_i1() {
        let text = STORY.replace(
            r#""token":1,"via":"fetch","result":"rejected","highest":2}"#,
            r#""token":1,"via":"fetch","result":"ok"}"#,
        );
        let run = RecordedRun::read(&text).unwrap();
        assert!(!run.trace.verdict.ok);
        let v = &run.trace.verdict.violations;
        assert_eq!(
            (v.len(), v[0].invariant, v[0].seq, v[0].t_ms),
            (1, Invariant::I1, 9, 1600)
        );
        assert_eq!(
            v[0].because,
            "`d` accepted token 1 from client-1 after it had accepted 2"
        );
        assert_eq!(run.trace.events[9].stale_over(), Some(2));
        assert_eq!(run.refusal, None);
    }

    #[test]
    fn malformed_lines_are_skipped_with_the_checkers_messages() {
        let text = format!(
            "{}\nnot json\n{{\"t\":1,\"kind\":\"belief\"}}\n{}",
            &STORY[..STORY.find('\n').unwrap()],
            &STORY[STORY.find('\n').unwrap() + 1..]
        );
        let run = RecordedRun::read(&text).unwrap();
        assert_eq!((run.lines, run.malformed), (17, 2));
        let said: Vec<String> = run
            .first_malformed
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            said,
            [
                "line 2: malformed, skipped: expected a JSON object",
                "line 3: malformed, skipped: belief: missing field `state`",
            ]
        );
        assert_eq!(run.refusal.map(|r| r.seq), Some(9));
        // Word for word what `fencepost check` says of them, a line too long included.
        let long = format!(
            "{text}{{\"t\":\"{}\"}}\n",
            "x".repeat(super::super::MAX_LINE_BYTES)
        );
        let run = RecordedRun::read(&long).unwrap();
        let checked = HistoryChecker::check_text(&long, KEEP_MALFORMED);
        assert_eq!(run.first_malformed, checked.malformed);
        assert_eq!((run.lines, run.malformed), (18, 3));
        assert_eq!(run.first_malformed[2].message, "longer than 1048576 bytes");
    }

    #[test]
    fn what_cannot_be_drawn_says_why() {
        let err = |text: &str| RecordedRun::read(text).unwrap_err().to_string();
        assert_eq!(err(""), "this file is empty");
        assert_eq!(
            err("hello\n\n{\"t\":\n"),
            "no line of this file is a history line (3 lines); line 1: malformed, skipped: expected a JSON object"
        );
        assert_eq!(
            err(r#"{"t":1,"resource":"r","writer":"A","token":33,"result":"ok"}"#),
            "no client was granted a lock in these 1 lines (a store's write log alone has no lanes to draw; fencepost check reads it)"
        );
        let big = " ".repeat(MAX_RUN_BYTES + 1);
        assert_eq!(
            RecordedRun::read(&big).unwrap_err(),
            RunError::TooLarge {
                bytes: MAX_RUN_BYTES + 1
            }
        );
    }

    #[test]
    fn a_long_run_is_cut_at_the_event_limit() {
        let mut text = String::from(
            "{\"t\":1,\"kind\":\"grant\",\"process\":\"c\",\"lock\":\"L\",\"token\":1}\n",
        );
        for i in 0..MAX_RUN_EVENTS + 5 {
            text += &format!(
                "{{\"t\":{i},\"kind\":\"write\",\"process\":\"c\",\"resource\":\"d\",\"token\":1,\"result\":\"ok\"}}\n"
            );
        }
        let run = RecordedRun::read(&text).unwrap();
        assert!(run.trace.truncated);
        assert_eq!(run.trace.events.len(), MAX_RUN_EVENTS);
        // A time earlier than one seen is taken as that one: events stay in order.
        assert_eq!(run.trace.events[1].t_ms, 1);
    }
}
