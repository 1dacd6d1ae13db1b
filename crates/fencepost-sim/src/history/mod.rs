//! The history checker: did a real storage keep the fencing promise, and did a fault campaign's
//! clients, lock service and stores keep theirs?
//!
//! Feed it a history, one JSON object per line (JSON Lines), in order. The simplest history is a
//! storage's write log, in the order the storage applied the writes:
//!
//! ```text
//! {"t": 1000, "resource": "orders/42", "writer": "A", "token": 33, "result": "ok"}
//! {"t": 2500, "resource": "orders/42", "writer": "B", "token": 34, "result": "ok"}
//! {"t": 4000, "resource": "orders/42", "writer": "A", "token": 33, "result": "rejected"}
//! ```
//!
//! | field | type | meaning |
//! | --- | --- | --- |
//! | `t` | integer >= 0 | when the storage handled the write (ms; only carried into reports) |
//! | `resource` | string, 1 to 256 bytes | what was written (each resource is checked on its own) |
//! | `writer` | string, 1 to 256 bytes | who wrote (a worker, process or session id) |
//! | `token` | integer >= 1 | the fencing token the write carried |
//! | `result` | `"ok"` or `"rejected"` | whether the storage applied the write |
//!
//! Other fields are ignored, so real logs can carry request ids and the like. Blank lines are
//! skipped. A line that is not such an object is reported as malformed, with its line number, and
//! skipped: the check goes on.
//!
//! For every resource it reports, with line numbers:
//!
//! * **token regression** (I1): an accepted write whose token is lower than one the resource had
//!   already accepted;
//! * **stale owner** (I2): an accepted write from an owner after a newer owner's write. An owner is
//!   a (writer, token) pair; owners are ordered by token, and owners sharing a token (a lock
//!   service that re-issued it) by their first accepted write. A write with a lower token is both
//!   a regression and a stale owner; a write with the current highest token by a writer that
//!   already wrote with it before another writer did is a stale owner only.
//!
//! Rejected writes change nothing (they are counted).
//!
//! # A campaign's history
//!
//! `cargo xtask chaos` records more: every process's lines on one timeline, sorted by `t` (ms
//! since the campaign started: each process's clock plus its offset measured at start). A line
//! with a `kind` is one of these; a line without is the store's write log line above, read
//! exactly as above. Tokens are JSON integers; `process` (1 to 256 bytes) names who recorded the
//! line and is required where it says who acted (`grant`, `belief`, `write`).
//!
//! | `kind` | fields | meaning |
//! | --- | --- | --- |
//! | `grant` | `process`, `lock`, `token` (`expires_at` ignored) | a client was granted the lock |
//! | `belief` | `process`, `lock`, `state`, `safe_until` (for `held`, `uncertain`; `token` ignored) | what the client's keeper says: `acquiring`, `held`, `uncertain`, `lost` or `released` |
//! | `write` | `process`, `resource`, `token`, `result` (`via`, `highest` ignored) | a client's write and its answer: `ok`, `rejected` (stale) or `unknown` |
//! | `final` | `resource`, `token` (0: no row; `writer` ignored) | the row a resource holds at the end |
//! | `fault` | `nemesis`, `target`, `phase`, `within_drift` (required on a clock fault's start) | a fault starts or ends |
//! | `campaign` | (any; only `t` is read) | what the campaign's runner says of itself: its start with the seed, a fault it skipped, its stop |
//!
//! `nemesis` is one of `pause-client`, `kill-service`, `restart-service`, `pause-engine`,
//! `kill-engine`, `proxy-hold`, `proxy-delay`, `proxy-drop`, `proxy-reset`, `clock-fast`,
//! `clock-slow`; `phase` is `start` or `end`. A line of another kind, or without a field its kind
//! needs, is malformed ("belief: missing field `safe_until` ..."), and the check goes on.
//!
//! Per lock and per resource it adds up, and reports with line numbers and the nemeses active at
//! that instant:
//!
//! * **stale writes** attempted, refused and accepted: refused are `write`s answered `rejected`;
//!   accepted are the store's token regressions (must be 0); attempted adds to both the
//!   unanswered writes whose token was below the highest the resource had acknowledged;
//! * **grant order** ([`FindingKind::GrantOrder`]): a grant whose token is not above every
//!   earlier grant of the lock (must be 0);
//! * **acknowledged writes lost** ([`FindingKind::AckLost`]): writes answered `ok` whose token is
//!   above the resource's final token (must be 0), reported at the `final` line, or at the end
//!   ([`HistoryChecker::finish`]) for a resource with acknowledged writes and no final row;
//! * **belief overlaps** ([`FindingKind::BeliefOverlap`]): two processes believing they hold one
//!   lock at the same instant. A belief lasts from a `held` or `uncertain` line to the earlier of
//!   the process's next belief line for that lock and its `safe_until`. An overlap is beyond
//!   drift when one of its processes had a clock fault with `within_drift: false` on at some
//!   instant of its belief (its keeper computed safe-until on that clock): those are counted and
//!   allowed; overlaps within drift must be 0. An overlap is reported when it is known to have
//!   ended: at the lock's next line, or at the end. A time earlier than one already seen for a
//!   lock is taken as that one.
//!
//! A fault's end without a start for its target is ignored.
//!
//! # Memory
//!
//! The checker streams: it keeps nothing per line. Per resource of the store's log: its name, the
//! highest token it accepted and the line that did, the newest owner (writer name, token, first
//! line), and the 64-bit hashes of up to [`OWNERS_PER_TOKEN`] writers that wrote with the highest
//! token (to order owners sharing a token; past that many the oldest is forgotten). Per resource
//! the clients wrote: counts, and the [`ACKED_TOKENS`] highest acknowledged tokens with their
//! counts. Per lock: its highest grant, the processes believing now and the open overlap (naming
//! up to [`OVERLAP_NAMES`] processes). Per fault target: its active faults. Memory grows with
//! resources, locks and processes, never with the number of lines:
//! [`HistoryChecker::held_bytes`] bounds it, and [`line_bytes`] what checking more lines can take
//! on top (so a host with a hard memory limit, such as the WebAssembly package, can refuse work
//! before it runs out). A malformed line's message is at most [`MAX_MESSAGE`] bytes, however long
//! the line.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

mod counts;
mod docs;
mod draw;
mod faults;
mod finding;
mod locks;
mod parse;
pub mod recorded;
mod refusal;
mod report;
mod store;

pub use counts::{ByNemesis, LockCounts, NemesisRow, ResourceCounts, Summary, Totals};
pub use docs::ACKED_TOKENS;
pub use faults::{NEMESES, Nemeses, Nemesis};
pub use finding::{About, Finding, FindingKind, LineReport, Malformed};
pub use locks::OVERLAP_NAMES;
pub use parse::Outcome;
pub use report::HistoryReport;

use docs::Docs;
use faults::{Faults, Phase};
use locks::Locks;
use parse::{Answer, Event, parse};
use store::Store;

/// Longest resource or writer name, in bytes.
pub const MAX_NAME: usize = 256;
/// Writers remembered per resource for its highest token.
pub const OWNERS_PER_TOKEN: usize = 8;
/// Longest message a malformed line is reported with, in bytes: a longer one (serde quotes the
/// value it could not read, which can be most of the line) keeps its start and its end, joined by
/// "…".
pub const MAX_MESSAGE: usize = 240;
/// Longest line of a history, in bytes without its line ending: a longer one is malformed,
/// whether the log is read from a file, from text or line by line.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// Bytes one resource's entry takes besides its names: its state and its share of the map's
/// nodes (a node holds 11 entries and is at least 5/11 full), on 32- and 64-bit targets.
const ENTRY_BYTES: u64 = 448;
/// The map's first nodes, before any share of them is counted per entry.
const MAP_BYTES: u64 = 4096;

/// Bytes a name of `len` bytes takes from the WebAssembly module's allocator.
fn name_bytes(len: usize) -> u64 {
    crate::block_bytes(len as u64)
}

/// A leaf of a map whose entries (key and value) take `kv` bytes.
fn leaf_bytes(kv: usize) -> u64 {
    crate::block_bytes(11 * kv as u64 + 16)
}

/// An entry's share of its map's nodes: leaves other than the root are at least 5/11 full, and
/// there are at most a fifth as many inner nodes (each at most twice a leaf) as leaves.
fn entry_bytes(kv: usize) -> u64 {
    2 * leaf_bytes(kv) / 5
}

/// A map's first nodes (a root leaf, then a root over two leaves), before shares are counted.
fn map_bytes(kv: usize) -> u64 {
    3 * leaf_bytes(kv)
}

/// The first nodes of the campaign's three maps (locks, resources the clients wrote, targets).
fn campaign_maps() -> [u64; 3] {
    [
        map_bytes(size_of::<(String, locks::LockState)>()),
        map_bytes(size_of::<(String, docs::Doc)>()),
        map_bytes(size_of::<(String, [u64; 4])>() + 2 * NEMESES),
    ]
}

/// Most bytes checking lines that take `bytes` bytes of text (`lines` of them) can take on top of
/// what the checker and the report it adds to held before ([`HistoryChecker::held_bytes`],
/// [`HistoryReport::held_bytes`]): per line a new entry in every map it can add to (a store
/// resource, a lock with a believer and a grant, a resource the clients wrote, a fault target),
/// the growth of a lock's vectors, two findings and a malformed line for the report, a doubling
/// of the report's vectors, and while a line is read, up to 32 bytes per byte of it (a value
/// quoted in an error message, escaped, three times over). A line longer than [`MAX_LINE_BYTES`]
/// is not read, so each line is counted at most at that length.
pub fn line_bytes(bytes: u64, lines: u64, report_held: u64) -> u64 {
    let name = name_bytes(MAX_NAME);
    let store = ENTRY_BYTES + 3 * name;
    let lock = Locks::entry_bytes() + 4 * name + 8 * (locks::BELIEVER_BYTES + 24);
    let campaign = lock + Docs::entry_bytes() + 2 * name + Faults::entry_bytes() + name;
    let finding = size_of::<Finding>() as u64 + name + 64 + OVERLAP_NAMES as u64 * name;
    let per_line =
        store + campaign + 2 * finding + size_of::<Malformed>() as u64 + name_bytes(MAX_MESSAGE);
    let read = bytes.min(lines.saturating_mul(MAX_LINE_BYTES as u64));
    let maps: u64 = campaign_maps().iter().sum();
    32 * read + lines * per_line + 2 * report_held + MAP_BYTES + maps
}

/// What a line longer than [`MAX_LINE_BYTES`] is reported with.
fn too_long() -> String {
    format!("longer than {MAX_LINE_BYTES} bytes")
}

/// `message` cut to at most [`MAX_MESSAGE`] bytes: its start and its end around "…"; either way
/// without spare capacity, so that it takes no more than [`name_bytes`]`(MAX_MESSAGE)` (a
/// formatted message can have room for twice its length).
fn shortened(mut message: String) -> String {
    if message.len() > MAX_MESSAGE {
        let mut head = 120;
        while !message.is_char_boundary(head) {
            head -= 1;
        }
        let mut tail = message.len() - (MAX_MESSAGE - head - '…'.len_utf8());
        while !message.is_char_boundary(tail) {
            tail += 1;
        }
        message = format!("{}…{}", &message[..head], &message[tail..]);
    }
    // A copy holds exactly its bytes (cheaper in the module's code than shrink_to_fit).
    message.as_str().into()
}

/// A streaming checker. Feed it lines in order with [`HistoryChecker::check_line`], then call
/// [`HistoryChecker::finish`] once the history has ended.
///
/// ```
/// use fencepost_sim::history::{FindingKind, HistoryChecker};
///
/// let mut c = HistoryChecker::new();
/// c.check_line(br#"{"t":1,"resource":"r","writer":"A","token":33,"result":"ok"}"#);
/// c.check_line(br#"{"t":2,"resource":"r","writer":"B","token":34,"result":"ok"}"#);
/// let r = c.check_line(br#"{"t":3,"resource":"r","writer":"A","token":33,"result":"ok"}"#);
/// let kinds: Vec<FindingKind> = r.findings.iter().map(|f| f.kind).collect();
/// assert_eq!(kinds, [FindingKind::TokenRegression, FindingKind::StaleOwner]);
/// assert_eq!(r.findings[0].to_string(),
///     "line 3: `r` accepted token 33 from A after it had accepted 34 from B (line 2)");
/// ```
#[derive(Clone, Debug, Default)]
pub struct HistoryChecker {
    store: Store,
    summary: Summary,
    totals: Totals,
    locks: Locks,
    docs: Docs,
    faults: Faults,
    /// The latest time seen.
    last_t: u64,
    /// Bytes of the entries and names (see [`HistoryChecker::held_bytes`]).
    held: u64,
}

impl HistoryChecker {
    /// A checker that has seen nothing.
    pub fn new() -> HistoryChecker {
        HistoryChecker::default()
    }

    /// Totals of the store's write log so far.
    pub const fn summary(&self) -> &Summary {
        &self.summary
    }

    /// A campaign's totals so far.
    pub const fn totals(&self) -> &Totals {
        &self.totals
    }

    /// Each lock's counts, by name.
    pub fn locks(&self) -> impl Iterator<Item = (&str, &LockCounts)> {
        self.locks
            .locks
            .iter()
            .map(|(k, v)| (k.as_str(), &v.counts))
    }

    /// The counts of each resource the clients wrote to, by name.
    pub fn resources(&self) -> impl Iterator<Item = (&str, &ResourceCounts)> {
        self.docs.docs.iter().map(|(k, v)| (k.as_str(), &v.counts))
    }

    /// Whether a figure that must be 0 is not (see [`Summary::violated`], [`Totals::violated`]).
    pub const fn violated(&self) -> bool {
        self.summary.violated() || self.totals.violated()
    }

    /// Most bytes the checker holds: its entries and names, with names counted as an allocator
    /// that rounds up to powers of two would take them.
    pub fn held_bytes(&self) -> u64 {
        let [locks, docs, targets] = campaign_maps();
        let maps = [
            (!self.locks.locks.is_empty(), locks),
            (!self.docs.docs.is_empty(), docs),
            (self.totals.faults > 0, targets),
        ];
        let maps: u64 = maps.iter().filter(|m| m.0).map(|m| m.1).sum();
        self.held + MAP_BYTES + maps
    }

    /// Counts a line longer than [`MAX_LINE_BYTES`] as malformed, for a reader that skipped its
    /// bytes rather than hold them: the same as [`HistoryChecker::check_line`] says of it.
    pub fn skip_long_line(&mut self) -> Malformed {
        self.summary.lines += 1;
        self.malformed(too_long())
    }

    /// Counts the current line as malformed, for `message`.
    fn malformed(&mut self, message: String) -> Malformed {
        self.summary.malformed += 1;
        Malformed {
            line: self.summary.lines,
            message: shortened(message),
        }
    }

    fn hold(&mut self, change: i64) {
        self.held = self.held.saturating_add_signed(change);
    }

    /// Checks the next line (without its line ending; a trailing `\r` is tolerated). A line
    /// longer than [`MAX_LINE_BYTES`] is malformed.
    pub fn check_line(&mut self, bytes: &[u8]) -> LineReport {
        self.summary.lines += 1;
        let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
        let parsed = if bytes.len() > MAX_LINE_BYTES {
            Err(too_long())
        } else if bytes.iter().all(u8::is_ascii_whitespace) {
            return LineReport::default();
        } else {
            parse(bytes)
        };
        let mut findings = Vec::new();
        match parsed {
            Ok(event) => self.event(event, &mut findings),
            Err(message) => {
                return LineReport {
                    malformed: Some(self.malformed(message)),
                    findings,
                };
            }
        }
        for f in &findings {
            self.tally(f);
        }
        LineReport {
            malformed: None,
            findings,
        }
    }

    /// Applies one line's event, adding what it shows to `out`.
    fn event(&mut self, event: Event<'_>, out: &mut Vec<Finding>) {
        let no = self.summary.lines;
        let active = self.faults.active();
        if !matches!(event, Event::Store(_)) {
            self.totals.campaign = true;
        }
        match event {
            Event::Store(line) => self.store_line(no, line, out),
            Event::Grant {
                t,
                process,
                lock,
                token,
            } => {
                self.last_t = self.last_t.max(t);
                self.totals.operations += 1;
                self.totals.lock.grants += 1;
                let (found, held) = self.locks.grant(no, t, &process, &lock, token, active);
                self.hold(held);
                self.totals.locks = self.locks.locks.len() as u64;
                out.extend(found);
            }
            Event::Belief {
                t,
                process,
                lock,
                state,
                safe_until,
            } => {
                self.last_t = self.last_t.max(t);
                self.totals.beliefs += 1;
                let (found, held) =
                    self.locks
                        .belief(no, t, &process, &lock, state, safe_until, &self.faults);
                self.hold(held);
                self.totals.locks = self.locks.locks.len() as u64;
                out.extend(found);
            }
            Event::Write {
                t,
                process,
                resource,
                token,
                answer,
            } => {
                self.last_t = self.last_t.max(t);
                self.totals.operations += 1;
                self.client_write(no, &process, &resource, token, answer, active);
            }
            Event::Final { t, resource, token } => {
                self.last_t = self.last_t.max(t);
                self.totals.finals += 1;
                out.extend(self.docs.final_row(no, t, &resource, token, active));
            }
            Event::Fault {
                t,
                nemesis,
                target,
                phase,
                within_drift,
            } => {
                self.last_t = self.last_t.max(t);
                if phase == Phase::Start {
                    self.totals.faults += 1;
                    self.totals.by_nemesis.0[nemesis as usize].faults += 1;
                }
                let held = self.faults.apply(t, nemesis, &target, phase, within_drift);
                self.hold(held as i64);
            }
            Event::Campaign { t } => self.last_t = self.last_t.max(t),
        }
    }

    /// A line of the store's own log.
    fn store_line(&mut self, no: u64, line: parse::Line<'_>, out: &mut Vec<Finding>) {
        self.last_t = self.last_t.max(line.t);
        if line.result == Outcome::Rejected {
            self.summary.rejected += 1;
            return;
        }
        self.summary.accepted += 1;
        let (held, new) = self.store.accept(no, line, out);
        self.hold(held);
        self.summary.resources += u64::from(new);
        let active = self.faults.active();
        for f in out.iter_mut() {
            f.nemeses = active;
        }
        // A regression is a stale write the store applied: counted for its resource.
        if let Some(Finding {
            about: About::Write { resource, .. },
            ..
        }) = out.first()
            && out[0].kind == FindingKind::TokenRegression
        {
            let (doc, added) = self.docs.doc(resource);
            doc.counts.stale_attempted += 1;
            doc.counts.stale_accepted += 1;
            self.hold(added as i64);
        }
    }

    /// A client's write and its answer.
    fn client_write(
        &mut self,
        no: u64,
        process: &str,
        resource: &str,
        token: u64,
        answer: Answer,
        active: Nemeses,
    ) {
        let store_highest = self
            .store
            .resources
            .get(resource)
            .map_or(0, store::ResourceState::highest);
        let (delta, held) = self
            .docs
            .write(no, process, resource, token, answer, store_highest);
        self.hold(held);
        self.totals.add_resource(&delta);
        if delta.stale_refused > 0 {
            self.totals.refused(active);
        }
    }

    /// Adds a finding to the totals.
    fn tally(&mut self, f: &Finding) {
        match f.kind {
            FindingKind::TokenRegression => {
                self.summary.token_regressions += 1;
                self.totals.resource.stale_attempted += 1;
                self.totals.resource.stale_accepted += 1;
            }
            FindingKind::StaleOwner => self.summary.stale_owners += 1,
            FindingKind::GrantOrder => self.totals.lock.grant_order_violations += 1,
            FindingKind::AckLost => self.totals.resource.acknowledged_lost += f.count(),
            FindingKind::BeliefOverlap if f.beyond_drift() => {
                self.totals.lock.overlaps_beyond_drift += 1;
            }
            FindingKind::BeliefOverlap => self.totals.lock.overlaps_within_drift += 1,
        }
        self.totals.count(f);
    }

    /// Ends the history: the overlaps still open end as their beliefs run out, and resources
    /// with acknowledged writes and no final row have lost them. Finishing again finds nothing
    /// more.
    pub fn finish(&mut self) -> Vec<Finding> {
        let mut out = Vec::new();
        let active = self.faults.active();
        self.docs.finish(self.last_t, active, &mut out);
        let held = self.locks.finish(&self.faults, &mut out);
        self.hold(held);
        for f in &out {
            self.tally(f);
        }
        out
    }

    /// Most bytes [`HistoryChecker::finish`] can add to a report: a finding per lock and per
    /// resource the clients wrote, and a doubling of the report's findings.
    pub fn finish_bytes(&self, report_held: u64) -> u64 {
        let n = (self.locks.locks.len() + self.docs.docs.len()) as u64;
        let finding =
            size_of::<Finding>() as u64 + 64 + (OVERLAP_NAMES as u64 + 1) * name_bytes(MAX_NAME);
        2 * n * finding + 2 * report_held
    }

    /// Checks a whole text at once, to its end, keeping at most `keep` findings and malformed
    /// lines each.
    pub fn check_text(text: &str, keep: usize) -> HistoryReport {
        let mut report = HistoryReport::default();
        let mut c = HistoryChecker::new();
        c.check_lines(text, keep, &mut report);
        c.finish_into(keep, &mut report);
        report
    }

    /// Checks the lines of `text` (each ended by a newline, the last one perhaps not; no text, no
    /// line), adding findings and malformed lines to `report` while it has fewer than `keep` of
    /// each, and setting its summary: a text given in pieces that end with a newline is checked
    /// as the whole text would be.
    pub fn check_lines(&mut self, text: &str, keep: usize, report: &mut HistoryReport) {
        for line in text.split_terminator('\n') {
            let r = self.check_line(line.as_bytes());
            if let Some(m) = r.malformed
                && report.malformed.len() < keep
            {
                report.malformed.push(m);
            }
            report.keep(r.findings, keep);
        }
        report.summary = self.summary;
        report.totals = self.totals;
    }

    /// [`HistoryChecker::finish`], adding its findings to `report` as
    /// [`HistoryChecker::check_lines`] does.
    pub fn finish_into(&mut self, keep: usize, report: &mut HistoryReport) {
        let found = self.finish();
        report.keep(found, keep);
        report.summary = self.summary;
        report.totals = self.totals;
    }
}

#[cfg(test)]
mod tests;
