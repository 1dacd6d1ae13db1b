//! The view model: everything the timeline, the storage panel and the banner show, derived from a
//! trace and a playhead. Pure functions of their inputs, tested natively.
//!
//! [`Timeline::of`] lays a whole trace out in time (lanes, lease bars, zombie intervals, pauses,
//! message arrows, badges). [`Playhead`] says how far playback has got; [`storage_at`],
//! [`banner_at`], [`lane_status_at`] and [`in_flight_at`] answer what is true at that point.
//! Nothing here decides what a lease or a token means: that comes from the simulator, through
//! the trace's events (a stale write is [`Event::stale_over`]) and [`Beliefs`], folded event by
//! event (who holds what, who is a zombie, the storage's highest token).

use std::collections::BTreeMap;

use fencepost_sim::trace::{JobEnd, RejectReason, fmt_secs};
use fencepost_sim::{Actor, Beliefs, Detail, Event, Invariant, Msg, TokenKind, Trace};

/// How tokens are written: as the numbers they are, or, for a scenario whose tokens are unique
/// ids instead of increasing numbers, as short hex ids that carry no order. (The simulator still
/// numbers grants; an id is derived from that number, the same one everywhere on the page.)
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TokenStyle {
    /// Increasing numbers: `33`, `34`.
    #[default]
    Number,
    /// Unique ids: six hex digits or more.
    UniqueId,
}

impl TokenStyle {
    /// The style for a scenario's kind of token.
    pub fn of(kind: TokenKind) -> TokenStyle {
        match kind {
            TokenKind::Ordered => TokenStyle::Number,
            TokenKind::Uuid => TokenStyle::UniqueId,
        }
    }

    /// One token, as the page writes it.
    pub fn show(self, token: u64) -> String {
        match self {
            TokenStyle::Number => token.to_string(),
            TokenStyle::UniqueId => {
                // As many hex digits as the number needs, at least six; within one width, a
                // permutation of the numbers of that width (every step below is invertible
                // modulo 2^bits), so that distinct tokens always read as distinct ids and
                // neighbouring numbers get unrelated-looking ones.
                let digits = (64 - token.leading_zeros()).div_ceil(4).max(6);
                let bits = digits * 4;
                let mask = u64::MAX >> (64 - bits);
                let half = bits / 2;
                let mut z = token.wrapping_add(0x9e37_79b9_7f4a_7c15) & mask;
                z = ((z ^ (z >> half)).wrapping_mul(0xbf58_476d_1ce4_e5b9)) & mask;
                z = ((z ^ (z >> (half - 1))).wrapping_mul(0x94d0_49bb_1331_11eb)) & mask;
                z ^= z >> half;
                format!("{z:0width$x}", width = digits as usize)
            }
        }
    }

    /// A sentence of the simulator's with its tokens written this way. With unique ids the
    /// storage cannot know that a token is older than another, and the sentence says so.
    pub fn words(self, sentence: &str) -> String {
        if self == TokenStyle::Number {
            return sentence.to_string();
        }
        let s = sentence.replace(
            " even though it already accepted ",
            ", unable to tell that it is older than ",
        );
        const BEFORE: [&str; 5] = ["token ", "token is ", "accepted ", "issued ", "older than "];
        let mut out = String::with_capacity(s.len() + 16);
        let mut rest = s.as_str();
        while let Some((at, len)) = BEFORE
            .iter()
            .filter_map(|m| rest.find(m).map(|i| (i, m.len())))
            .min_by_key(|&(i, len)| (i, usize::MAX - len))
        {
            let (head, tail) = rest.split_at(at + len);
            out.push_str(head);
            let digits = tail.bytes().take_while(u8::is_ascii_digit).count();
            match tail[..digits].parse::<u64>() {
                Ok(n) => out.push_str(&self.show(n)),
                Err(_) => out.push_str(&tail[..digits]),
            }
            rest = &tail[digits..];
        }
        out.push_str(rest);
        out
    }
}

/// A horizontal lane of the timeline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lane {
    /// Whose lane.
    pub actor: Actor,
    /// The label shown at its start.
    pub label: String,
}

/// How a lease bar ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LeaseEnd {
    /// It ran out.
    Expired,
    /// The holder let go of it.
    Released,
    /// The lock service restarted and forgot it.
    Forgotten,
    /// Still held when the trace stops; drawn up to its planned end.
    Open,
}

/// A lease as the lock service saw it: from grant to expiry or release.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LeaseBar {
    /// Holder.
    pub worker: u16,
    /// Its token.
    pub token: u64,
    /// Grant time.
    pub from: u64,
    /// End time.
    pub to: u64,
    /// How it ended.
    pub end: LeaseEnd,
    /// Seq of the grant.
    pub seq: u32,
}

/// A stretch of time on one worker's lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    /// The worker.
    pub worker: u16,
    /// Start.
    pub from: u64,
    /// End.
    pub to: u64,
}

/// A stretch during which a worker believes it holds a lease the lock service no longer gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Zombie {
    /// The worker.
    pub worker: u16,
    /// The token it believes it holds.
    pub token: u64,
    /// Start.
    pub from: u64,
    /// End (the end of the trace if it never learned).
    pub to: u64,
}

/// What kind of message an arrow carries, for its style.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArrowKind {
    /// Worker -> lock service.
    Request,
    /// Lock service -> worker.
    Reply,
    /// Worker -> storage.
    Write,
    /// Storage -> worker, applied.
    Ack,
    /// Storage -> worker, refused.
    Refused,
}

/// A message, from its send to its delivery.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arrow {
    /// Message id.
    pub msg: u32,
    /// Sender.
    pub from: Actor,
    /// Recipient.
    pub to: Actor,
    /// Send time.
    pub sent: u64,
    /// Delivery time (when the recipient handled it; the planned arrival if it never did).
    pub arrived: u64,
    /// Whether it was handled (false: lost to a crash, or the trace stopped first).
    pub delivered: bool,
    /// Style.
    pub kind: ArrowKind,
    /// The token it carries.
    pub token: Option<u64>,
    /// Short description, e.g. `write #1, token 33`.
    pub label: String,
    /// Seq of its send.
    pub seq: u32,
}

/// What a badge marks, for its style and symbol.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BadgeKind {
    /// A grant (token badge).
    Grant,
    /// A write sent, with its token.
    WriteSent,
    /// Storage applied a write.
    Accepted,
    /// Storage applied a write with a token lower than one it had accepted.
    AcceptedStale,
    /// Storage refused a write.
    Rejected,
    /// Storage recognised a retry.
    Deduplicated,
    /// A lease ran out.
    Expired,
    /// An acquire was refused.
    Denied,
    /// A lease was renewed.
    Renewed,
    /// A lease was released.
    Released,
    /// A worker froze.
    Paused,
    /// A worker resumed.
    Resumed,
    /// A worker's job ended well.
    Done,
    /// A worker's job ended badly.
    GaveUp,
    /// A crash, restart, clock jump or lock-service restart.
    Fault,
}

/// A small labelled mark at one event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Badge {
    /// The event.
    pub seq: u32,
    /// Where.
    pub actor: Actor,
    /// When.
    pub t: u64,
    /// What it says, e.g. `✗ 33 < 34`.
    pub text: String,
    /// Style.
    pub kind: BadgeKind,
}

/// A whole trace laid out in time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Timeline {
    /// Lanes, top to bottom: lock service, each worker, storage.
    pub lanes: Vec<Lane>,
    /// Where the time axis ends.
    pub end: u64,
    /// Leases.
    pub leases: Vec<LeaseBar>,
    /// Zombie intervals.
    pub zombies: Vec<Zombie>,
    /// Pauses.
    pub pauses: Vec<Span>,
    /// Stretches a worker's process was down.
    pub down: Vec<Span>,
    /// Messages.
    pub arrows: Vec<Arrow>,
    /// Badges, in event order.
    pub badges: Vec<Badge>,
    /// How its tokens are written.
    pub tokens: TokenStyle,
}

impl Timeline {
    /// Lays out `trace`, its tokens written in `tokens` style.
    pub fn of(trace: &Trace, tokens: TokenStyle) -> Timeline {
        let last = trace.events.last().map_or(0, |e| e.t_ms);
        let lanes = lanes(trace);
        let mut leases: Vec<LeaseBar> = Vec::new();
        // Index in `leases` of the lease the lock service currently knows about.
        let mut open_lease: Option<usize> = None;
        let mut zombies = Vec::new();
        let mut zombie_open: Vec<Option<(u64, u64)>> = vec![None; trace.workers.len()];
        let mut pauses = Vec::new();
        let mut paused_since: Vec<Option<u64>> = vec![None; trace.workers.len()];
        let mut down = Vec::new();
        let mut down_since: Vec<Option<u64>> = vec![None; trace.workers.len()];
        let mut arrows: Vec<Arrow> = Vec::new();
        let mut arrow_of: BTreeMap<u32, usize> = BTreeMap::new();
        let mut badges = Vec::new();
        let mut beliefs = Beliefs::new(trace.workers.len());

        let close_lease = |leases: &mut Vec<LeaseBar>, open: &mut Option<usize>, t, end| {
            if let Some(bar) = open.take().and_then(|i| leases.get_mut(i)) {
                bar.to = t;
                bar.end = end;
            }
        };

        for (i, e) in trace.events.iter().enumerate() {
            match e.detail {
                Detail::Grant {
                    holder, expires_at, ..
                } => {
                    let token = e.token.unwrap_or(0);
                    let same = open_lease
                        .and_then(|i| leases.get(i))
                        .is_some_and(|b| b.worker == holder && b.token == token);
                    if same {
                        if let Some(bar) = open_lease.and_then(|i| leases.get_mut(i)) {
                            bar.to = expires_at;
                        }
                    } else {
                        close_lease(&mut leases, &mut open_lease, e.t_ms, LeaseEnd::Expired);
                        open_lease = Some(leases.len());
                        leases.push(LeaseBar {
                            worker: holder,
                            token,
                            from: e.t_ms,
                            to: expires_at,
                            end: LeaseEnd::Open,
                            seq: e.seq,
                        });
                    }
                }
                Detail::Renew { expires_at, .. } => {
                    if let Some(bar) = open_lease.and_then(|i| leases.get_mut(i)) {
                        bar.to = expires_at;
                    }
                }
                Detail::Expire { .. } => {
                    close_lease(&mut leases, &mut open_lease, e.t_ms, LeaseEnd::Expired);
                }
                Detail::Release { ok: true, .. } => {
                    close_lease(&mut leases, &mut open_lease, e.t_ms, LeaseEnd::Released);
                }
                Detail::AuthorityRestart {
                    persisted: false, ..
                } => {
                    close_lease(&mut leases, &mut open_lease, e.t_ms, LeaseEnd::Forgotten);
                }
                Detail::PauseStart { .. } => {
                    if let Some(s) = worker_slot(e.actor).and_then(|s| paused_since.get_mut(s)) {
                        *s = Some(e.t_ms);
                    }
                }
                Detail::PauseEnd => {
                    if let (Actor::Worker(w), Some(slot)) = (e.actor, worker_slot(e.actor))
                        && let Some(from) = paused_since.get_mut(slot).and_then(Option::take)
                    {
                        pauses.push(Span {
                            worker: w,
                            from,
                            to: e.t_ms,
                        });
                    }
                }
                Detail::Crash => {
                    if let Some(s) = worker_slot(e.actor).and_then(|s| down_since.get_mut(s)) {
                        *s = Some(e.t_ms);
                    }
                }
                Detail::Restart { .. } => {
                    if let (Actor::Worker(w), Some(slot)) = (e.actor, worker_slot(e.actor))
                        && let Some(from) = down_since.get_mut(slot).and_then(Option::take)
                    {
                        down.push(Span {
                            worker: w,
                            from,
                            to: e.t_ms,
                        });
                    }
                }
                Detail::Send {
                    msg,
                    to,
                    what,
                    deliver_at,
                } => {
                    arrow_of.insert(msg, arrows.len());
                    arrows.push(Arrow {
                        msg,
                        from: e.actor,
                        to,
                        sent: e.t_ms,
                        arrived: deliver_at,
                        delivered: false,
                        kind: arrow_kind(e.actor, to, what),
                        token: e.token,
                        label: message_label(what, e.token, tokens),
                        seq: e.seq,
                    });
                }
                Detail::Deliver { msg, .. } => {
                    if let Some(a) = arrow_of.get(&msg).and_then(|&i| arrows.get_mut(i)) {
                        a.arrived = e.t_ms;
                        a.delivered = true;
                    }
                }
                _ => {}
            }
            if let Some(b) = badge(trace, e, tokens) {
                badges.push(b);
            }

            // Zombie intervals: compare belief and reality once every event at this instant ran.
            beliefs.apply(e);
            let instant_done = trace.events.get(i + 1).is_none_or(|n| n.t_ms != e.t_ms);
            if instant_done {
                for (w, slot) in zombie_open.iter_mut().enumerate() {
                    let Ok(w16) = u16::try_from(w) else { break };
                    let now = beliefs.is_zombie(w16);
                    match (*slot, now) {
                        (None, true) => {
                            let token = beliefs.workers.get(w).and_then(|b| b.holds).unwrap_or(0);
                            *slot = Some((e.t_ms, token));
                        }
                        (Some((from, token)), false) => {
                            zombies.push(Zombie {
                                worker: w16,
                                token,
                                from,
                                to: e.t_ms,
                            });
                            *slot = None;
                        }
                        _ => {}
                    }
                }
            }
        }

        // Whatever is still open runs to the end of the trace.
        for (w, slot) in zombie_open.iter().enumerate() {
            if let (Some((from, token)), Ok(worker)) = (slot, u16::try_from(w)) {
                zombies.push(Zombie {
                    worker,
                    token: *token,
                    from: *from,
                    to: last,
                });
            }
        }
        for (w, since) in paused_since.iter().enumerate() {
            if let (Some(from), Ok(worker)) = (since, u16::try_from(w)) {
                pauses.push(Span {
                    worker,
                    from: *from,
                    to: last,
                });
            }
        }
        for (w, since) in down_since.iter().enumerate() {
            if let (Some(from), Ok(worker)) = (since, u16::try_from(w)) {
                down.push(Span {
                    worker,
                    from: *from,
                    to: last,
                });
            }
        }
        zombies.sort_by_key(|z| (z.from, z.worker));
        pauses.sort_by_key(|p| (p.from, p.worker));

        let bars_end = leases
            .iter()
            .filter(|b| b.end != LeaseEnd::Open)
            .map(|b| b.to)
            .max()
            .unwrap_or(0);
        let end = nice_end(last.max(bars_end));
        Timeline {
            lanes,
            end,
            leases,
            zombies,
            pauses,
            down,
            arrows,
            badges,
            tokens,
        }
    }

    /// Index of `actor`'s lane.
    pub fn lane_of(&self, actor: Actor) -> Option<usize> {
        self.lanes.iter().position(|l| l.actor == actor)
    }
}

fn worker_slot(actor: Actor) -> Option<usize> {
    match actor {
        Actor::Worker(w) => Some(usize::from(w)),
        _ => None,
    }
}

fn lanes(trace: &Trace) -> Vec<Lane> {
    let mut lanes = vec![Lane {
        actor: Actor::Lock,
        label: "lock service".into(),
    }];
    for (i, name) in trace.workers.iter().enumerate() {
        if let Ok(w) = u16::try_from(i) {
            lanes.push(Lane {
                actor: Actor::Worker(w),
                label: format!("worker {name}"),
            });
        }
    }
    lanes.push(Lane {
        actor: Actor::Storage,
        label: "storage".into(),
    });
    lanes
}

/// The axis end: a little past the last thing drawn, rounded to a whole second.
fn nice_end(t: u64) -> u64 {
    let padded = t.saturating_add((t / 20).max(500));
    padded.div_ceil(1000).saturating_mul(1000).max(1000)
}

fn arrow_kind(from: Actor, to: Actor, what: Msg) -> ArrowKind {
    match (from, to, what) {
        (_, Actor::Storage, _) => ArrowKind::Write,
        (
            Actor::Storage,
            _,
            Msg::Ack {
                accepted: false, ..
            },
        ) => ArrowKind::Refused,
        (Actor::Storage, _, _) => ArrowKind::Ack,
        (_, Actor::Lock, _) => ArrowKind::Request,
        _ => ArrowKind::Reply,
    }
}

fn message_label(what: Msg, token: Option<u64>, tokens: TokenStyle) -> String {
    let tok = token.map_or(String::new(), |t| format!(", token {}", tokens.show(t)));
    match what {
        Msg::Write { op, retry } => format!(
            "{} #{op}{tok}",
            if retry { "write (retry)" } else { "write" }
        ),
        Msg::Ack { op, accepted } => {
            format!("{} #{op}", if accepted { "ack" } else { "refused" })
        }
        other => format!("{}{tok}", other.name()),
    }
}

fn badge(trace: &Trace, e: &Event, tokens: TokenStyle) -> Option<Badge> {
    let tok = e.token.map_or(String::from("?"), |t| tokens.show(t));
    let (text, kind) = match e.detail {
        Detail::Grant { holder, .. } => (
            format!("{tok} → {}", trace.name(Actor::Worker(holder))),
            BadgeKind::Grant,
        ),
        Detail::Expire { .. } => (format!("{tok} expired"), BadgeKind::Expired),
        Detail::Deny { requester, .. } => (
            format!("no: {}", trace.name(Actor::Worker(requester))),
            BadgeKind::Denied,
        ),
        Detail::Renew { .. } => (format!("renew {tok}"), BadgeKind::Renewed),
        Detail::RenewLost { .. } => (format!("{tok} lost"), BadgeKind::Denied),
        Detail::Release { ok: true, .. } => (format!("{tok} released"), BadgeKind::Released),
        Detail::Send {
            what: Msg::Write { .. },
            ..
        } => (format!("write {tok}"), BadgeKind::WriteSent),
        Detail::PauseStart { .. } => ("‖ paused".into(), BadgeKind::Paused),
        Detail::PauseEnd => ("▶ resumes".into(), BadgeKind::Resumed),
        Detail::WriteAccepted { .. } => match e.stale_over() {
            // Unique ids have no order: the badge cannot say "<".
            Some(_) if tokens == TokenStyle::UniqueId => {
                (format!("✓ {tok} stale"), BadgeKind::AcceptedStale)
            }
            Some(p) => (format!("✓ {tok} < {p} stale"), BadgeKind::AcceptedStale),
            None => (format!("✓ {tok}"), BadgeKind::Accepted),
        },
        Detail::WriteRejected {
            reason: RejectReason::Stale,
            highest,
            ..
        } => (
            match highest {
                Some(h) => format!("✗ {tok} < {}", tokens.show(h)),
                None => format!("✗ {tok}"),
            },
            BadgeKind::Rejected,
        ),
        Detail::WriteRejected {
            reason: RejectReason::UuidReused,
            ..
        } => (format!("✗ {tok} reused"), BadgeKind::Rejected),
        Detail::WriteDeduplicated { op, .. } => (format!("= retry #{op}"), BadgeKind::Deduplicated),
        Detail::JobDone { end } => match end {
            JobEnd::Completed => ("done".into(), BadgeKind::Done),
            JobEnd::FencedOut => ("fenced out".into(), BadgeKind::GaveUp),
            JobEnd::LeaseLost => ("lost lease".into(), BadgeKind::GaveUp),
        },
        Detail::Crash => ("crash".into(), BadgeKind::Fault),
        Detail::Restart { .. } => ("restart".into(), BadgeKind::Fault),
        Detail::ClockJump { by_ms } => (
            format!(
                "clock {}{}",
                if by_ms < 0 { "−" } else { "+" },
                fmt_secs(by_ms.unsigned_abs())
            ),
            BadgeKind::Fault,
        ),
        Detail::AuthorityRestart { persisted, .. } => (
            if persisted {
                "restart (restored)".into()
            } else {
                "restart (forgot all)".into()
            },
            BadgeKind::Fault,
        ),
        _ => return None,
    };
    Some(Badge {
        seq: e.seq,
        actor: e.actor,
        t: e.t_ms,
        text,
        kind,
    })
}

// ---- the playhead --------------------------------------------------------------------------------

/// How far playback has got: a time, and how many events have happened by then.
///
/// Invariant: every event before `upto` is at or before `t`, and every event after it is at or
/// after `t`. Stepping moves one event at a time, so several events at one instant are seen
/// one by one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Playhead {
    /// Virtual time.
    pub t: u64,
    /// Events that have happened.
    pub upto: usize,
}

impl Playhead {
    /// The playhead at time `t`, after every event at or before it.
    pub fn at_time(trace: &Trace, t: u64) -> Playhead {
        Playhead {
            t,
            upto: trace.events.partition_point(|e| e.t_ms <= t),
        }
    }

    /// The playhead right after event `index` (clamped to the trace).
    pub fn at_event(trace: &Trace, index: usize) -> Playhead {
        match trace.events.get(index) {
            Some(e) => Playhead {
                t: e.t_ms,
                upto: index + 1,
            },
            None => Playhead::at_time(trace, end_time(trace)),
        }
    }

    /// One event further (or the same, at the end).
    pub fn next(self, trace: &Trace) -> Playhead {
        match trace.events.get(self.upto) {
            Some(e) => Playhead {
                t: e.t_ms.max(self.t),
                upto: self.upto + 1,
            },
            None => self,
        }
    }

    /// One event back; before the first event, time 0.
    pub fn prev(self, trace: &Trace) -> Playhead {
        match self.upto.checked_sub(2) {
            Some(i) => Playhead::at_event(trace, i),
            None => Playhead::default(),
        }
    }

    /// The last event that happened.
    pub fn current<'a>(&self, trace: &'a Trace) -> Option<&'a Event> {
        self.upto.checked_sub(1).and_then(|i| trace.events.get(i))
    }
}

/// When the last event happens.
pub fn end_time(trace: &Trace) -> u64 {
    trace.events.last().map_or(0, |e| e.t_ms)
}

// ---- what is true at the playhead ----------------------------------------------------------------

/// A message in flight at the playhead, `progress` from 0 (sent) to 1 (arrived).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct InFlight {
    /// Index into [`Timeline::arrows`].
    pub arrow: usize,
    /// How far along.
    pub progress: f64,
}

/// Messages sent but not yet delivered at `t`.
pub fn in_flight_at(timeline: &Timeline, t: u64) -> Vec<InFlight> {
    timeline
        .arrows
        .iter()
        .enumerate()
        .filter(|(_, a)| a.sent <= t && t < a.arrived)
        .map(|(i, a)| InFlight {
            arrow: i,
            progress: (t - a.sent) as f64 / (a.arrived - a.sent) as f64,
        })
        .collect()
}

/// One applied write in the storage's document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DocLine {
    /// Writer's name.
    pub writer: String,
    /// Token presented.
    pub token: Option<u64>,
    /// Operation id.
    pub op: u32,
    /// When.
    pub t: u64,
    /// Whether it landed with a token lower than one already accepted.
    pub stale: bool,
}

/// The storage at the playhead.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoragePanel {
    /// Highest token accepted so far.
    pub highest: Option<u64>,
    /// Whether the storage checks tokens.
    pub fencing: bool,
    /// Applied writes, oldest first; the last is the current value.
    pub document: Vec<DocLine>,
    /// Writes refused so far.
    pub refused: u32,
}

/// What the storage holds after the first `upto` events: the writes as the trace lists them, the
/// highest token as [`Beliefs`] folds it.
pub fn storage_at(trace: &Trace, upto: usize) -> StoragePanel {
    let mut beliefs = Beliefs::new(trace.workers.len());
    let mut document = Vec::new();
    let mut refused = 0;
    for e in trace.events.iter().take(upto) {
        beliefs.apply(e);
        match e.detail {
            Detail::WriteAccepted { writer, op, .. } => document.push(DocLine {
                writer: trace.name(Actor::Worker(writer)).to_string(),
                token: e.token,
                op,
                t: e.t_ms,
                stale: e.stale_over().is_some(),
            }),
            Detail::WriteRejected { .. } => refused += 1,
            _ => {}
        }
    }
    StoragePanel {
        highest: beliefs.storage_highest,
        fencing: trace.fencing,
        document,
        refused,
    }
}

/// The violation banner: what went wrong, in plain words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Banner {
    /// One line, e.g. `stale write accepted: A's old data now sits on top of B's newer write`.
    pub headline: String,
    /// The simulator's sentence for each violation so far.
    pub details: Vec<String>,
    /// Seq of the first violation.
    pub seq: u32,
}

/// The banner after the first `upto` events, if an invariant has broken by then, its tokens
/// written in `tokens` style.
pub fn banner_at(trace: &Trace, upto: usize, tokens: TokenStyle) -> Option<Banner> {
    let seen: Vec<_> = trace
        .verdict
        .violations
        .iter()
        .filter(|v| (v.seq as usize) < upto)
        .collect();
    let seq = seen.first()?.seq;
    // Of the invariants broken by that one event, say the one a reader cares about most: the
    // data, then the tokens.
    let priority = |i: Invariant| match i {
        Invariant::I2 => 0,
        Invariant::I4 => 1,
        Invariant::I3 => 2,
        Invariant::I5 => 3,
        Invariant::I1 => 4,
    };
    let headline = seen
        .iter()
        .filter(|v| v.seq == seq)
        .map(|v| v.invariant)
        .min_by_key(|i| priority(*i))?;
    let details = seen
        .iter()
        .map(|v| format!("{}: {}", v.invariant, tokens.words(&v.because)))
        .collect();
    Some(Banner {
        headline: tokens.words(&plain_words(trace, headline, seq)),
        details,
        seq,
    })
}

fn plain_words(trace: &Trace, inv: Invariant, seq: u32) -> String {
    let e = trace.events.get(seq as usize);
    let name = |w: u16| trace.name(Actor::Worker(w)).to_string();
    // The writer of the event, and the last other writer the storage applied before it.
    let (writer, newer) = match e.map(|e| e.detail) {
        Some(Detail::WriteAccepted { writer, .. }) => {
            let newer = trace
                .events
                .iter()
                .take(seq as usize)
                .rev()
                .find_map(|p| match p.detail {
                    Detail::WriteAccepted { writer: o, .. } if o != writer => Some(o),
                    _ => None,
                });
            (Some(writer), newer)
        }
        _ => (None, None),
    };
    let tok = e.and_then(|e| e.token);
    match (inv, writer, newer) {
        (Invariant::I2 | Invariant::I4, Some(w), Some(n)) => format!(
            "stale write accepted: {}'s old data now sits on top of {}'s newer write",
            name(w),
            name(n)
        ),
        (Invariant::I1, Some(w), _) => format!(
            "stale token accepted: the storage took {}'s token {} after accepting a higher one",
            name(w),
            tok.map_or("?".into(), |t| t.to_string())
        ),
        (Invariant::I2 | Invariant::I4, Some(w), None) => format!(
            "stale write accepted: {}'s old data landed after a newer owner had the lock",
            name(w)
        ),
        (Invariant::I3, _, _) => format!(
            "token reused: the lock service handed out token {} twice, so the storage cannot tell the owners apart",
            tok.map_or("?".into(), |t| t.to_string())
        ),
        (Invariant::I5, Some(w), _) => format!(
            "write applied twice: a second copy of {}'s write was applied",
            name(w)
        ),
        _ => trace
            .verdict
            .violations
            .iter()
            .find(|v| v.seq == seq)
            .map_or_else(|| inv.description().to_string(), |v| v.because.clone()),
    }
}

/// One line about a lane's actor at the playhead, e.g. `zombie: believes it holds 33`, its
/// tokens written in `tokens` style.
pub fn lane_status_at(
    trace: &Trace,
    beliefs: &Beliefs,
    actor: Actor,
    tokens: TokenStyle,
) -> String {
    let show = |t: u64| tokens.show(t);
    match actor {
        Actor::Lock => match beliefs.authority {
            Some(h) => format!(
                "held by {} (token {}) until {}",
                trace.name(Actor::Worker(h.worker)),
                show(h.token),
                fmt_secs(h.until)
            ),
            None => "free".into(),
        },
        Actor::Storage => match beliefs.storage_highest {
            Some(_) if tokens == TokenStyle::UniqueId => "ids, no order".into(),
            Some(h) => format!("highest {h}"),
            None => "no writes yet".into(),
        },
        Actor::Worker(w) => {
            let Some(b) = beliefs.workers.get(usize::from(w)) else {
                return String::new();
            };
            let mut parts = Vec::new();
            if b.crashed {
                parts.push("crashed".to_string());
            }
            if b.paused_until.is_some() {
                parts.push("paused".to_string());
            }
            match b.holds {
                Some(t) if beliefs.is_zombie(w) => {
                    parts.push(format!("zombie: believes it holds {}", show(t)));
                }
                Some(t) => parts.push(format!("holds {}", show(t))),
                None => {}
            }
            if parts.is_empty() {
                "idle".into()
            } else {
                parts.join(", ")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fencepost_sim::{PRESETS, RunOptions, preset, run, run_with};

    fn paused(fencing: bool) -> Trace {
        run_with(
            &preset("paused-worker").unwrap().scenario(),
            RunOptions {
                fencing: Some(fencing),
                ..RunOptions::default()
            },
        )
    }

    const A: u16 = 0;
    const B: u16 = 1;
    /// How the page writes the tokens of these stories: as numbers.
    const N: TokenStyle = TokenStyle::Number;

    #[test]
    fn lanes_are_lock_workers_storage() {
        let tl = Timeline::of(&paused(true), N);
        let labels: Vec<&str> = tl.lanes.iter().map(|l| l.label.as_str()).collect();
        assert_eq!(labels, ["lock service", "worker A", "worker B", "storage"]);
        assert_eq!(tl.lane_of(Actor::Storage), Some(3));
        assert_eq!(tl.end, 49_000);
    }

    #[test]
    fn leases_run_from_grant_to_expiry_or_release() {
        let tl = Timeline::of(&paused(true), N);
        assert_eq!(
            tl.leases,
            [
                LeaseBar {
                    worker: A,
                    token: 33,
                    from: 50,
                    to: 30_050,
                    end: LeaseEnd::Expired,
                    seq: 2
                },
                LeaseBar {
                    worker: B,
                    token: 34,
                    from: 30_100,
                    to: 31_300,
                    end: LeaseEnd::Released,
                    seq: 14
                },
            ]
        );
    }

    #[test]
    fn the_zombie_interval_runs_from_expiry_until_a_learns() {
        let tl = Timeline::of(&paused(true), N);
        assert_eq!(
            tl.zombies,
            [Zombie {
                worker: A,
                token: 33,
                from: 30_050,
                to: 46_100
            }]
        );
        assert_eq!(
            tl.pauses,
            [Span {
                worker: A,
                from: 1_000,
                to: 46_000
            }]
        );
        assert!(tl.down.is_empty());
        // Without fencing A is never told: it stays a zombie until it releases.
        let off = Timeline::of(&paused(false), N);
        assert_eq!(off.zombies.len(), 1);
        assert_eq!((off.zombies[0].from, off.zombies[0].worker), (30_050, A));
    }

    #[test]
    fn arrows_go_from_send_to_delivery() {
        let t = paused(true);
        let tl = Timeline::of(&t, N);
        let write = tl
            .arrows
            .iter()
            .find(|a| a.from == Actor::Worker(A) && a.kind == ArrowKind::Write)
            .unwrap();
        assert_eq!(
            (write.sent, write.arrived, write.delivered, write.token),
            (46_000, 46_050, true, Some(33))
        );
        assert_eq!(write.label, "write #1, token 33");
        let refused = tl
            .arrows
            .iter()
            .find(|a| a.kind == ArrowKind::Refused)
            .unwrap();
        assert_eq!(
            (refused.from, refused.to),
            (Actor::Storage, Actor::Worker(A))
        );
        assert_eq!(refused.label, "refused #1");
        // Every send has an arrow, and every arrow of this trace was delivered.
        let sends = t
            .events
            .iter()
            .filter(|e| matches!(e.detail, Detail::Send { .. }))
            .count();
        assert_eq!(tl.arrows.len(), sends);
        assert!(tl.arrows.iter().all(|a| a.delivered));
    }

    #[test]
    fn badges_mark_tokens_and_write_outcomes() {
        let tl = Timeline::of(&paused(true), N);
        let text = |seq: u32| {
            tl.badges
                .iter()
                .find(|b| b.seq == seq)
                .map(|b| (b.actor, b.text.as_str(), b.kind))
        };
        assert_eq!(text(2), Some((Actor::Lock, "33 → A", BadgeKind::Grant)));
        assert_eq!(text(14), Some((Actor::Lock, "34 → B", BadgeKind::Grant)));
        assert_eq!(
            text(11),
            Some((Actor::Lock, "33 expired", BadgeKind::Expired))
        );
        assert_eq!(
            text(19),
            Some((Actor::Storage, "✓ 34", BadgeKind::Accepted))
        );
        assert_eq!(
            text(29),
            Some((Actor::Storage, "✗ 33 < 34", BadgeKind::Rejected))
        );
        assert_eq!(
            text(27),
            Some((Actor::Worker(A), "write 33", BadgeKind::WriteSent))
        );
        assert_eq!(
            text(5),
            Some((Actor::Worker(A), "‖ paused", BadgeKind::Paused))
        );
        let off = Timeline::of(&paused(false), N);
        let stale = off.badges.iter().find(|b| b.seq == 29).unwrap();
        assert_eq!(
            (stale.text.as_str(), stale.kind),
            ("✓ 33 < 34 stale", BadgeKind::AcceptedStale)
        );
    }

    #[test]
    fn playhead_steps_event_by_event_and_seeks_by_time() {
        let t = paused(true);
        let p = Playhead::at_time(&t, 30_050);
        assert_eq!(p.upto, 13);
        assert_eq!(p.current(&t).map(|e| e.seq), Some(12));
        let n = p.next(&t);
        assert_eq!((n.t, n.upto), (30_100, 14));
        assert_eq!(
            n.prev(&t),
            Playhead {
                t: 30_050,
                upto: 13
            }
        );
        // Three events share 0.050 s: stepping sees them one by one.
        let mut q = Playhead::at_event(&t, 0);
        let mut seen = Vec::new();
        for _ in 0..4 {
            q = q.next(&t);
            seen.push((q.t, q.upto));
        }
        assert_eq!(seen, [(50, 2), (50, 3), (50, 4), (100, 5)]);
        assert_eq!(Playhead::default().prev(&t), Playhead::default());
        let end = Playhead::at_event(&t, 999);
        assert_eq!((end.t, end.upto), (46_100, t.events.len()));
        assert_eq!(end.next(&t), end);
    }

    #[test]
    fn storage_panel_follows_the_playhead() {
        let t = paused(true);
        let before = storage_at(&t, Playhead::at_time(&t, 31_000).upto);
        assert_eq!(before.highest, None);
        assert!(before.document.is_empty());
        let end = storage_at(&t, t.events.len());
        assert_eq!(end.highest, Some(34));
        assert_eq!(end.refused, 1);
        let doc: Vec<(&str, Option<u64>, bool)> = end
            .document
            .iter()
            .map(|d| (d.writer.as_str(), d.token, d.stale))
            .collect();
        assert_eq!(doc, [("B", Some(34), false)]);

        let off = paused(false);
        let end = storage_at(&off, off.events.len());
        let doc: Vec<(&str, Option<u64>, bool)> = end
            .document
            .iter()
            .map(|d| (d.writer.as_str(), d.token, d.stale))
            .collect();
        assert_eq!(doc, [("B", Some(34), false), ("A", Some(33), true)]);
        assert!(!end.fencing);
    }

    #[test]
    fn the_banner_appears_when_the_violation_happens() {
        let off = paused(false);
        assert_eq!(banner_at(&off, 29, N), None);
        let b = banner_at(&off, 30, N).unwrap();
        assert_eq!(
            b.headline,
            "stale write accepted: A's old data now sits on top of B's newer write"
        );
        assert_eq!(b.seq, 29);
        assert_eq!(b.details.len(), 3);
        assert!(b.details[1].starts_with("I2: A's write (token 33) landed after B"));
        assert_eq!(banner_at(&paused(true), 1_000, N), None);

        let unpersisted =
            fencepost_sim::run(&preset("authority-restart-unpersisted").unwrap().scenario());
        let b = banner_at(&unpersisted, unpersisted.events.len(), N).unwrap();
        assert!(
            b.headline.starts_with("token reused") || b.headline.starts_with("stale write"),
            "{}",
            b.headline
        );
    }

    #[test]
    fn lane_status_tells_belief_from_reality() {
        let t = paused(true);
        let mid = t.beliefs_after(Playhead::at_time(&t, 30_500).upto);
        assert_eq!(
            lane_status_at(&t, &mid, Actor::Worker(A), N),
            "paused, zombie: believes it holds 33"
        );
        assert_eq!(lane_status_at(&t, &mid, Actor::Worker(B), N), "holds 34");
        assert_eq!(
            lane_status_at(&t, &mid, Actor::Lock, N),
            "held by B (token 34) until 60.1 s"
        );
        let end = t.beliefs_after(t.events.len());
        assert_eq!(lane_status_at(&t, &end, Actor::Storage, N), "highest 34");
        assert_eq!(lane_status_at(&t, &end, Actor::Worker(A), N), "idle");
    }

    #[test]
    fn in_flight_messages_move_from_send_to_arrival() {
        let t = paused(true);
        let tl = Timeline::of(&t, N);
        let moving = in_flight_at(&tl, 46_025);
        assert_eq!(moving.len(), 1);
        assert_eq!(tl.arrows[moving[0].arrow].kind, ArrowKind::Write);
        assert!((moving[0].progress - 0.5).abs() < 1e-9);
        assert!(in_flight_at(&tl, 20_000).is_empty());
    }

    #[test]
    fn every_preset_lays_out_both_ways() {
        for p in PRESETS {
            for fencing in [true, false] {
                let t = run_with(
                    &p.scenario(),
                    RunOptions {
                        fencing: Some(fencing),
                        ..RunOptions::default()
                    },
                );
                // As the page lays it out: in the style of the preset's tokens.
                let tokens = TokenStyle::of(p.scenario().protections.token_kind);
                let tl = Timeline::of(&t, tokens);
                assert!(tl.end > end_time(&t), "{}", p.name);
                for bar in &tl.leases {
                    assert!(bar.from <= bar.to, "{}: {bar:?}", p.name);
                }
                for z in &tl.zombies {
                    assert!(z.from < z.to, "{}: {z:?}", p.name);
                }
                for a in &tl.arrows {
                    assert!(a.sent <= a.arrived, "{}: {a:?}", p.name);
                }
                assert_eq!(
                    banner_at(&t, t.events.len(), tokens).is_some(),
                    !t.verdict.ok,
                    "{}",
                    p.name
                );
            }
        }
    }

    #[test]
    fn distinct_tokens_read_as_distinct_ids() {
        let ids = TokenStyle::UniqueId;
        let show = |t: u64| ids.show(t);
        assert_eq!(
            [33, 34, 1, 0].map(show),
            ["059828", "4ac396", "6308b8", "ce3d07"]
        );
        assert_eq!(show(0xff_ffff).len(), 6);
        assert_eq!(show(0x100_0000), "377364b");
        assert_eq!(show(u64::MAX), "1da43af3bac50201");
        // A long run's tokens, and the numbers around each change of width.
        let mut seen = std::collections::HashSet::new();
        let edges = (6..16).flat_map(|d| {
            let edge = 1u64 << (4 * d);
            edge - 2_000..edge + 2_000
        });
        for t in (0..200_000).chain(edges).chain(u64::MAX - 2_000..=u64::MAX) {
            let id = show(t);
            let digits = (64 - t.leading_zeros()).div_ceil(4).max(6) as usize;
            assert_eq!(id.len(), digits, "{t}: {id}");
            assert!(id.bytes().all(|c| c.is_ascii_hexdigit()), "{t}: {id}");
            assert!(seen.insert(id), "{t} reads as an id shown before");
        }
    }

    #[test]
    fn unique_tokens_read_as_ids_with_no_order() {
        let ids = TokenStyle::UniqueId;
        assert_eq!(TokenStyle::Number.show(33), "33");
        let (a, b) = (ids.show(33), ids.show(34));
        assert_eq!(a, ids.show(33));
        assert!(
            a.len() == 6 && a.bytes().all(|c| c.is_ascii_hexdigit()),
            "{a}"
        );
        let all: std::collections::BTreeSet<String> = (1..=500).map(|t| ids.show(t)).collect();
        assert_eq!(all.len(), 500);
        assert_eq!(
            ids.words("the storage applies A's write #1 with token 33 even though it already accepted 34: stale data lands"),
            format!("the storage applies A's write #1 with token {a}, unable to tell that it is older than {b}: stale data lands")
        );
        assert_eq!(
            ids.words("I2: A's write (token 33) landed after B (a newer owner, token 34) had written at 46 s"),
            format!("I2: A's write (token {a}) landed after B (a newer owner, token {b}) had written at 46 s")
        );
        assert_eq!(
            ids.words("the lock service restarts from its persisted state; its next token is 34"),
            format!("the lock service restarts from its persisted state; its next token is {b}")
        );
        assert_eq!(TokenStyle::Number.words("token 33"), "token 33");
        // Numbers are the simulator's own words, whatever a worker is called.
        assert_eq!(
            TokenStyle::Number.words("storage rejected x freezes (a GC pause) for 45 s"),
            "storage rejected x freezes (a GC pause) for 45 s"
        );
        assert_eq!(
            ids.words("no token here, token x"),
            "no token here, token x"
        );

        // The uuid story: every token on the page is an id, and nothing claims an order.
        let t = run(&preset("uuid-token").unwrap().scenario());
        let tl = Timeline::of(&t, ids);
        let texts: Vec<&str> = tl.badges.iter().map(|b| b.text.as_str()).collect();
        assert!(
            texts.contains(&format!("✓ {a} stale").as_str()),
            "{texts:?}"
        );
        assert!(texts.contains(&format!("{b} → B").as_str()), "{texts:?}");
        assert!(
            texts
                .iter()
                .all(|t| !t.contains('<') && !t.contains("33") && !t.contains("34"))
        );
        assert!(
            tl.arrows
                .iter()
                .all(|a| !a.label.contains("33") && !a.label.contains("34"))
        );
        let b = banner_at(&t, t.events.len(), ids).unwrap();
        assert!(
            b.details.iter().all(|d| !d.contains("token 33")),
            "{:?}",
            b.details
        );
        let end = t.beliefs_after(t.events.len());
        assert_eq!(
            lane_status_at(&t, &end, Actor::Storage, ids),
            "ids, no order"
        );
    }
}
