//! The history checker: did a real storage keep the fencing promise?
//!
//! Feed it a storage's write log, one JSON object per line (JSON Lines), in the order the storage
//! applied the writes:
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
//! # Memory
//!
//! The checker streams: it keeps nothing per line, only, per resource, its name, the highest token
//! it accepted and the line that did, the newest owner (writer name, token, first line), and the
//! 64-bit hashes of up to [`OWNERS_PER_TOKEN`] writers that wrote with the highest token (to order
//! owners sharing a token; past that many the oldest is forgotten). Memory grows with the number
//! of resources, never with the number of lines: [`HistoryChecker::held_bytes`] bounds it, and
//! [`line_bytes`] what checking more lines can take on top (so a host with a hard memory limit,
//! such as the WebAssembly package, can refuse work before it runs out). A malformed line's
//! message is at most [`MAX_MESSAGE`] bytes, however long the line.

use alloc::borrow::Cow;
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Serialize};

use crate::object::{Key, names, need, put};

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

/// Most bytes checking lines that take `bytes` bytes of text (`lines` of them) can take on top of
/// what the checker and the report it adds to held before ([`HistoryChecker::held_bytes`],
/// [`HistoryReport::held_bytes`]): a new resource per line, two findings and a malformed line per
/// line for the report, a doubling of the report's vectors, and while a line is read, up to 32
/// bytes per byte of it (a value quoted in an error message, escaped, three times over). A line
/// longer than [`MAX_LINE_BYTES`] is not read, so each line is counted at most at that length.
pub fn line_bytes(bytes: u64, lines: u64, report_held: u64) -> u64 {
    let per_line = ENTRY_BYTES
        + 3 * name_bytes(MAX_NAME)
        + 2 * (size_of::<Finding>() as u64 + 3 * name_bytes(MAX_NAME))
        + size_of::<Malformed>() as u64
        + name_bytes(MAX_MESSAGE);
    let read = bytes.min(lines.saturating_mul(MAX_LINE_BYTES as u64));
    32 * read + lines * per_line + 2 * report_held + MAP_BYTES
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

/// What a storage did with a write.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Applied.
    Ok,
    /// Refused.
    Rejected,
}

names!(Outcome {
    Ok = "ok",
    Rejected = "rejected",
});

/// One parsed line.
#[derive(Debug)]
struct Line<'a> {
    t: u64,
    resource: Cow<'a, str>,
    writer: Cow<'a, str>,
    token: u64,
    result: Outcome,
}

/// Read as serde's derive would (other fields skipped, the same errors), from an object only:
/// [`parse`] refuses anything else before reading, so no reader of arrays is compiled in.
impl<'de> Deserialize<'de> for Line<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Line<'de>, D::Error> {
        d.deserialize_map(LineVisitor)
    }
}

struct LineVisitor;

impl<'de> Visitor<'de> for LineVisitor {
    type Value = Line<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("struct Line")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Line<'de>, A::Error> {
        let key = Key {
            fields: &["t", "resource", "writer", "token", "result"],
            others: true,
        };
        let (mut t, mut resource, mut writer) = (None, None::<Text<'de>>, None::<Text<'de>>);
        let (mut token, mut result) = (None, None);
        while let Some(k) = m.next_key_seed(key)? {
            // k is the key's index in `fields` above (5: any other key).
            match k {
                0 => put(&mut m, &mut t, "t")?,
                1 => put(&mut m, &mut resource, "resource")?,
                2 => put(&mut m, &mut writer, "writer")?,
                3 => put(&mut m, &mut token, "token")?,
                4 => put(&mut m, &mut result, "result")?,
                _ => {
                    m.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(Line {
            t: need(t, "t")?,
            resource: need(resource, "resource")?.0,
            writer: need(writer, "writer")?.0,
            token: need(token, "token")?,
            result: need(result, "result")?,
        })
    }
}

/// A string borrowed from the input where it has no escapes.
struct Text<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for Text<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Text<'de>, D::Error> {
        d.deserialize_str(TextVisitor)
    }
}

struct TextVisitor;

impl<'de> Visitor<'de> for TextVisitor {
    type Value = Text<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Text<'de>, E> {
        Ok(Text(Cow::Borrowed(v)))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Text<'de>, E> {
        Ok(Text(Cow::Owned(v.into())))
    }
}

/// The kind of a finding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FindingKind {
    /// I1: an accepted token lower than one accepted before.
    TokenRegression,
    /// I2: an accepted write from an owner after a newer owner's write.
    StaleOwner,
}

/// Something the storage should not have done.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// Line of the offending write (1-based).
    pub line: u64,
    /// What is wrong.
    pub kind: FindingKind,
    /// The resource.
    pub resource: String,
    /// The writer of the offending write.
    pub writer: String,
    /// Its token.
    pub token: u64,
    /// Its time.
    pub t: u64,
    /// The newer write it came after: for a regression the first acceptance of the highest token,
    /// for a stale owner the newest owner's first write.
    pub newer_writer: String,
    /// That write's token.
    pub newer_token: u64,
    /// That write's line.
    pub newer_line: u64,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            FindingKind::TokenRegression => write!(
                f,
                "line {}: `{}` accepted token {} from {} after it had accepted {} from {} (line {})",
                self.line,
                self.resource,
                self.token,
                self.writer,
                self.newer_token,
                self.newer_writer,
                self.newer_line
            ),
            FindingKind::StaleOwner => write!(
                f,
                "line {}: {}'s write to `{}` (token {}) was accepted after {}, a newer owner (token {}), had written (line {})",
                self.line,
                self.writer,
                self.resource,
                self.token,
                self.newer_writer,
                self.newer_token,
                self.newer_line
            ),
        }
    }
}

/// A line that could not be read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Malformed {
    /// Its number (1-based).
    pub line: u64,
    /// Why.
    pub message: String,
}

impl fmt::Display for Malformed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}: malformed, skipped: {}",
            self.line, self.message
        )
    }
}

/// What one line gave.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct LineReport {
    /// Set when the line was malformed.
    pub malformed: Option<Malformed>,
    /// Findings (none, one, or two for a write both stale and regressing).
    pub findings: Vec<Finding>,
}

/// Totals so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Lines seen, blank and malformed included.
    pub lines: u64,
    /// Accepted writes.
    pub accepted: u64,
    /// Rejected writes.
    pub rejected: u64,
    /// Malformed lines.
    pub malformed: u64,
    /// Token regressions found.
    pub token_regressions: u64,
    /// Stale-owner writes found.
    pub stale_owners: u64,
    /// Distinct resources.
    pub resources: u64,
}

impl Summary {
    /// Whether any violation was found.
    pub const fn violated(&self) -> bool {
        self.token_regressions + self.stale_owners > 0
    }
}

#[derive(Clone, Debug)]
struct ResourceState {
    highest: u64,
    /// Writer and line of the first acceptance of `highest`.
    highest_writer: String,
    highest_line: u64,
    /// The newest owner: writer, token, line of its first accepted write.
    newest_writer: String,
    newest_hash: u64,
    newest_token: u64,
    newest_line: u64,
    /// Hashes of writers that wrote with `highest`, oldest first.
    owners: [u64; OWNERS_PER_TOKEN],
    owner_count: u8,
}

impl ResourceState {
    fn knows(&self, hash: u64) -> bool {
        self.owners[..usize::from(self.owner_count)].contains(&hash)
    }

    fn remember(&mut self, hash: u64) {
        let n = usize::from(self.owner_count);
        if n < OWNERS_PER_TOKEN {
            self.owners[n] = hash;
            self.owner_count += 1;
        } else {
            self.owners.copy_within(1.., 0);
            self.owners[OWNERS_PER_TOKEN - 1] = hash;
        }
    }
}

/// FNV-1a, 64 bits: a stable identity for a writer name.
fn name_hash(s: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// A streaming checker. Feed it lines in order with [`HistoryChecker::check_line`].
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
    resources: BTreeMap<String, ResourceState>,
    summary: Summary,
    /// Bytes of the resources' entries and names (see [`HistoryChecker::held_bytes`]).
    held: u64,
}

impl HistoryChecker {
    /// A checker that has seen nothing.
    pub fn new() -> HistoryChecker {
        HistoryChecker::default()
    }

    /// Totals so far.
    pub const fn summary(&self) -> &Summary {
        &self.summary
    }

    /// Most bytes the checker holds: its resources' entries and names, with names counted as an
    /// allocator that rounds up to powers of two would take them.
    pub const fn held_bytes(&self) -> u64 {
        self.held + MAP_BYTES
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

    /// Checks the next line (without its line ending; a trailing `\r` is tolerated). A line
    /// longer than [`MAX_LINE_BYTES`] is malformed.
    pub fn check_line(&mut self, bytes: &[u8]) -> LineReport {
        self.summary.lines += 1;
        let no = self.summary.lines;
        let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
        let parsed = if bytes.len() > MAX_LINE_BYTES {
            Err(too_long())
        } else if bytes.iter().all(u8::is_ascii_whitespace) {
            return LineReport::default();
        } else {
            parse(bytes)
        };
        let line = match parsed {
            Ok(l) => l,
            Err(message) => {
                return LineReport {
                    malformed: Some(self.malformed(message)),
                    findings: Vec::new(),
                };
            }
        };
        if line.result == Outcome::Rejected {
            self.summary.rejected += 1;
            return LineReport::default();
        }
        self.summary.accepted += 1;
        let mut findings = Vec::new();
        let hash = name_hash(&line.writer);
        let Some(st) = self.resources.get_mut(line.resource.as_ref()) else {
            self.summary.resources += 1;
            self.held +=
                ENTRY_BYTES + name_bytes(line.resource.len()) + 2 * name_bytes(line.writer.len());
            let mut owners = [0; OWNERS_PER_TOKEN];
            owners[0] = hash;
            self.resources.insert(
                line.resource.into_owned(),
                ResourceState {
                    highest: line.token,
                    highest_writer: line.writer.to_string(),
                    highest_line: no,
                    newest_writer: line.writer.into_owned(),
                    newest_hash: hash,
                    newest_token: line.token,
                    newest_line: no,
                    owners,
                    owner_count: 1,
                },
            );
            return LineReport::default();
        };
        let finding = |kind, writer: &str, token: u64, line_no: u64| Finding {
            line: no,
            kind,
            resource: line.resource.to_string(),
            writer: line.writer.to_string(),
            token: line.token,
            t: line.t,
            newer_writer: writer.to_string(),
            newer_token: token,
            newer_line: line_no,
        };
        if line.token < st.highest {
            findings.push(finding(
                FindingKind::TokenRegression,
                &st.highest_writer,
                st.highest,
                st.highest_line,
            ));
            findings.push(finding(
                FindingKind::StaleOwner,
                &st.newest_writer,
                st.newest_token,
                st.newest_line,
            ));
        } else if line.token == st.highest {
            if hash != st.newest_hash {
                if st.knows(hash) {
                    // An owner that wrote with this token before the newest one did.
                    findings.push(finding(
                        FindingKind::StaleOwner,
                        &st.newest_writer,
                        st.newest_token,
                        st.newest_line,
                    ));
                } else {
                    // A second owner with the same token: it is now the newest.
                    st.remember(hash);
                    self.held += name_bytes(line.writer.len());
                    self.held -= name_bytes(st.newest_writer.len());
                    st.newest_writer = line.writer.into_owned();
                    st.newest_hash = hash;
                    st.newest_line = no;
                }
            }
        } else {
            self.held += 2 * name_bytes(line.writer.len());
            self.held -= name_bytes(st.highest_writer.len()) + name_bytes(st.newest_writer.len());
            st.highest = line.token;
            st.highest_writer = line.writer.to_string();
            st.highest_line = no;
            st.owners = [0; OWNERS_PER_TOKEN];
            st.owners[0] = hash;
            st.owner_count = 1;
            st.newest_writer = line.writer.into_owned();
            st.newest_hash = hash;
            st.newest_token = st.highest;
            st.newest_line = no;
        }
        for f in &findings {
            match f.kind {
                FindingKind::TokenRegression => self.summary.token_regressions += 1,
                FindingKind::StaleOwner => self.summary.stale_owners += 1,
            }
        }
        LineReport {
            malformed: None,
            findings,
        }
    }

    /// Checks a whole text at once, keeping at most `keep` findings and malformed lines each.
    pub fn check_text(text: &str, keep: usize) -> HistoryReport {
        let mut report = HistoryReport::default();
        HistoryChecker::new().check_lines(text, keep, &mut report);
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
            for f in r.findings {
                if report.findings.len() < keep {
                    report.findings.push(f);
                }
            }
        }
        report.summary = self.summary;
    }
}

/// A whole check's result (see [`HistoryChecker::check_text`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct HistoryReport {
    /// Totals.
    pub summary: Summary,
    /// The first findings.
    pub findings: Vec<Finding>,
    /// The first malformed lines.
    pub malformed: Vec<Malformed>,
}

impl HistoryReport {
    /// Most bytes the report holds: its vectors, and their names and messages, each block counted
    /// as an allocator that rounds up to powers of two would take it.
    pub fn held_bytes(&self) -> u64 {
        let vec = |cap: usize, size: usize| crate::block_bytes(cap as u64 * size as u64);
        let findings = vec(self.findings.capacity(), size_of::<Finding>())
            + self.findings.len() as u64 * 3 * name_bytes(MAX_NAME);
        let malformed = vec(self.malformed.capacity(), size_of::<Malformed>())
            + self.malformed.len() as u64 * name_bytes(MAX_MESSAGE);
        findings + malformed
    }
}

fn parse(bytes: &[u8]) -> Result<Line<'_>, String> {
    if bytes.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
        return Err("expected a JSON object".to_string());
    }
    let line: Line<'_> = serde_json::from_slice(bytes).map_err(|e| {
        let mut msg = e.to_string();
        if crate::strip_json_position(&mut msg) {
            msg = format!("{msg} (column {})", e.column());
        }
        msg
    })?;
    for (field, v) in [("resource", &line.resource), ("writer", &line.writer)] {
        if v.is_empty() || v.len() > MAX_NAME {
            return Err(format!("{field}: must be 1 to {MAX_NAME} bytes"));
        }
    }
    if line.token == 0 {
        return Err("token: must be at least 1 (token 0 is never granted)".to_string());
    }
    Ok(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_text_has_no_lines() {
        assert_eq!(HistoryChecker::check_text("", 10), HistoryReport::default());
        assert_eq!(HistoryChecker::check_text("\n", 10).summary.lines, 1);
    }

    #[test]
    fn malformed_messages_name_the_problem() {
        let mut c = HistoryChecker::new();
        let m = |c: &mut HistoryChecker, s: &str| c.check_line(s.as_bytes()).malformed.unwrap();
        assert_eq!(
            m(&mut c, "{\"t\":").message,
            "EOF while parsing a value (column 5)"
        );
        assert_eq!(
            m(&mut c, r#"{"t":1,"resource":"r","writer":"A","token":3}"#).message,
            "missing field `result` (column 45)"
        );
        assert_eq!(
            m(
                &mut c,
                r#"{"t":1,"resource":"r","writer":"A","token":0,"result":"ok"}"#
            )
            .message,
            "token: must be at least 1 (token 0 is never granted)"
        );
        assert_eq!(
            m(
                &mut c,
                r#"{"t":1,"resource":"","writer":"A","token":1,"result":"ok"}"#
            )
            .message,
            "resource: must be 1 to 256 bytes"
        );
        let bad = m(
            &mut c,
            r#"{"t":1,"resource":"r","writer":"A","token":1,"result":"maybe"}"#,
        );
        assert!(bad.message.starts_with("unknown variant `maybe`"), "{bad}");
        assert_eq!(bad.line, 5);
        assert_eq!(c.summary().malformed, 5);
    }
}
