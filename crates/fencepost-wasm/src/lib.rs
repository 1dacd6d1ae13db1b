//! WebAssembly bindings of the fencepost core, for the npm package `fencepost`.
//!
//! These bindings are deliberately thin and speak only numbers and bigints: strings and bytes cross
//! through the module's memory (see [`input`], and [`out`] for the record that gives the output
//! area's address).
//! Every lease and fence rule lives in the `fencepost` crate; this crate turns its results into
//! small integer codes, and the package's hand-written JavaScript (`npm/src/api.js`) turns those
//! into the objects, `TypeError`s and `RangeError`s its users see.
//!
//! Every object (authority, lock table, guard, resource, signer, key ring) lives in a table of the instance
//! and is known to JavaScript by its index, so every export is a free function of plain values.
//!
//! Nothing here may trap the instance: every function returns, whatever it is given (an unknown
//! index gets a harmless default). Results that do not fit in one return value are left in one
//! record in memory (see [`out`]; errors too) for the caller to read right after the call.
//!
//! Times cross as `f64` milliseconds (the JavaScript side only passes non-negative safe integers;
//! a cast saturates anyway). Tokens cross as `u64` (a JavaScript `bigint`); `0` means "none".
#![cfg_attr(target_arch = "wasm32", no_std)]

extern crate alloc;

use alloc::boxed::Box;
use alloc::vec::Vec;
use core::sync::atomic::{AtomicU32, Ordering};

use fencepost::signed::{KEYED_HEADER_MAX, SIGNED_HEADER_MAX};
use fencepost::snapshot::{MAX_ID_LEN, SnapshotCodec};
use fencepost::{
    AcquireError, Admission, Config, Expired, FencedResource, Grant, KeyRing, KeyedToken,
    LeaseError, ParseSignedError, ParseTokenError, Released, SignatureError, SignedToken,
    SnapshotError, Token, TokenSigner, WriteOutcome, decide_stored,
};
use wasm_bindgen::prelude::wasm_bindgen;
use zeroize::Zeroize;

pub mod keeper;
pub use keeper::{keeper_call, keeper_new};

#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOC: fencepost_wasm_rt::SizeClasses = fencepost_wasm_rt::SizeClasses::new();

/// Never reached by design (every input is checked); if it were, the instance traps rather than
/// pulling in the formatting machinery.
#[cfg(target_arch = "wasm32")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    core::arch::wasm32::unreachable()
}

// ---------------------------------------------------------------------------------------------
// Errors: a code and one number of detail, read by the caller right after a failed call.

static LAST_ERROR: AtomicU32 = AtomicU32::new(0);
static LAST_DETAIL: AtomicU32 = AtomicU32::new(0);
/// The address of the field an inconsistent snapshot names (its length is the detail).
static LAST_FIELD: AtomicU32 = AtomicU32::new(0);

/// Error codes shared with `npm/src/api.js` (which holds the messages).
pub mod code {
    /// Token parse errors, [`fencepost::ParseTokenError`].
    pub const EMPTY: u32 = 1;
    #[allow(missing_docs)]
    pub const WHITESPACE: u32 = 2;
    #[allow(missing_docs)]
    pub const SIGN: u32 = 3;
    #[allow(missing_docs)]
    pub const NOT_A_DIGIT: u32 = 4;
    #[allow(missing_docs)]
    pub const LEADING_ZERO: u32 = 5;
    #[allow(missing_docs)]
    pub const ZERO: u32 = 6;
    #[allow(missing_docs)]
    pub const OVERFLOW: u32 = 7;
    #[allow(missing_docs)]
    pub const LENGTH: u32 = 8;
    #[allow(missing_docs)]
    pub const SIGNED: u32 = 9;
    /// Signed token parse errors, [`fencepost::ParseSignedError`].
    pub const MISSING_MAC: u32 = 10;
    #[allow(missing_docs)]
    pub const MAC_TRUNCATED: u32 = 11;
    #[allow(missing_docs)]
    pub const MAC_TOO_LONG: u32 = 12;
    #[allow(missing_docs)]
    pub const BAD_HEX: u32 = 13;
    /// Signature errors, [`fencepost::SignatureError`].
    pub const FORGED: u32 = 14;
    #[allow(missing_docs)]
    pub const KEY_TOO_SHORT: u32 = 15;
    #[allow(missing_docs)]
    pub const LOCK_NAME_TOO_LONG: u32 = 16;
    /// A keyed token parse error: the v1 form, without a key id.
    pub const NO_KEY_ID: u32 = 17;
    /// A keyed token parse error: the key id is not a `u32` in decimal (detail: its byte offset).
    pub const BAD_KEY_ID: u32 = 18;
    /// A key id the ring does not hold (detail: the id).
    pub const UNKNOWN_KEY: u32 = 19;
    /// Snapshot errors, [`fencepost::SnapshotError`].
    pub const SNAP_TRUNCATED: u32 = 20;
    #[allow(missing_docs)]
    pub const SNAP_BAD_MAGIC: u32 = 21;
    #[allow(missing_docs)]
    pub const SNAP_VERSION: u32 = 22;
    #[allow(missing_docs)]
    pub const SNAP_WRONG_KIND: u32 = 23;
    #[allow(missing_docs)]
    pub const SNAP_CHECKSUM: u32 = 24;
    #[allow(missing_docs)]
    pub const SNAP_TRAILING: u32 = 25;
    #[allow(missing_docs)]
    pub const SNAP_INVALID: u32 = 26;
    #[allow(missing_docs)]
    pub const SNAP_BAD_ID: u32 = 27;
    #[allow(missing_docs)]
    pub const SNAP_BUFFER: u32 = 28;
    /// Config errors, [`fencepost::ConfigError`].
    pub const ZERO_TTL: u32 = 30;
    #[allow(missing_docs)]
    pub const ZERO_REENTRY: u32 = 31;
    #[allow(missing_docs)]
    pub const ZERO_RESERVE_BLOCK: u32 = 32;
    /// The first token was 0.
    pub const ZERO_FIRST_TOKEN: u32 = 33;
    /// A holder id, lock or resource name longer than `MAX_ID_LEN` bytes.
    pub const NAME_TOO_LONG: u32 = 40;
    /// Key ring errors, [`fencepost::SignatureError`]: the ring is full (detail: its capacity).
    pub const RING_FULL: u32 = 50;
    /// The ring already holds this key id (detail: the id).
    pub const KEY_ID_TAKEN: u32 = 51;
    /// The current key cannot be removed (detail: its id).
    pub const CURRENT_KEY: u32 = 52;
    /// Keeper config errors, [`fencepost::KeeperConfigError`]: the drift bound is over 1,000,000 ppm.
    pub const KEEPER_DRIFT: u32 = 60;
    /// The renewal point is 0 or over 1,000,000 ppm of the TTL.
    pub const KEEPER_RENEW: u32 = 61;
    /// The retry interval is 0.
    pub const KEEPER_RETRY: u32 = 62;
    /// Keeper answer errors, [`fencepost::KeeperError`]: a ticket this keeper does not hold.
    pub const UNKNOWN_TICKET: u32 = 63;
    /// An answer for another token than the lease's (`token` in [`Out`](super::Out): the lease's).
    pub const OTHER_TOKEN: u32 = 64;
    /// An error this build of the bindings does not know (the core's enums are non-exhaustive).
    pub const UNKNOWN: u32 = 99;
}

#[inline(never)]
fn fail(code: u32, detail: usize) -> u32 {
    LAST_ERROR.store(code, Ordering::Relaxed);
    LAST_DETAIL.store(u32::try_from(detail).unwrap_or(u32::MAX), Ordering::Relaxed);
    code
}

#[inline(never)]
fn parse_error(e: ParseTokenError) -> u32 {
    match e {
        ParseTokenError::Empty => fail(code::EMPTY, 0),
        ParseTokenError::Whitespace { at } => fail(code::WHITESPACE, at),
        ParseTokenError::Sign => fail(code::SIGN, 0),
        ParseTokenError::NotADigit { at } => fail(code::NOT_A_DIGIT, at),
        ParseTokenError::LeadingZero => fail(code::LEADING_ZERO, 0),
        ParseTokenError::Zero => fail(code::ZERO, 0),
        ParseTokenError::Overflow => fail(code::OVERFLOW, 0),
        ParseTokenError::Length { len } => fail(code::LENGTH, len),
        ParseTokenError::Signed => fail(code::SIGNED, 0),
        _ => fail(code::UNKNOWN, 0),
    }
}

#[inline(never)]
fn parse_signed_error(e: ParseSignedError) -> u32 {
    match e {
        ParseSignedError::Token(e) => parse_error(e),
        ParseSignedError::MissingMac => fail(code::MISSING_MAC, 0),
        ParseSignedError::Truncated { len } => fail(code::MAC_TRUNCATED, len),
        ParseSignedError::TooLong { len } => fail(code::MAC_TOO_LONG, len),
        ParseSignedError::BadHex { at } => fail(code::BAD_HEX, at),
        ParseSignedError::NoKeyId => fail(code::NO_KEY_ID, 0),
        ParseSignedError::BadKeyId { at } => fail(code::BAD_KEY_ID, at),
        _ => fail(code::UNKNOWN, 0),
    }
}

#[inline(never)]
fn signature_error(e: SignatureError) -> u32 {
    match e {
        SignatureError::Forged => fail(code::FORGED, 0),
        SignatureError::KeyTooShort { len } => fail(code::KEY_TOO_SHORT, len),
        SignatureError::LockNameTooLong => fail(code::LOCK_NAME_TOO_LONG, 0),
        SignatureError::UnknownKey { key_id } => fail(code::UNKNOWN_KEY, key_id as usize),
        SignatureError::RingFull { max } => fail(code::RING_FULL, max),
        SignatureError::KeyIdTaken { key_id } => fail(code::KEY_ID_TAKEN, key_id as usize),
        SignatureError::CurrentKey { key_id } => fail(code::CURRENT_KEY, key_id as usize),
        _ => fail(code::UNKNOWN, 0),
    }
}

#[inline(never)]
fn config_error(e: fencepost::ConfigError) -> u32 {
    match e {
        fencepost::ConfigError::ZeroTtl => fail(code::ZERO_TTL, 0),
        fencepost::ConfigError::ZeroReentry => fail(code::ZERO_REENTRY, 0),
        fencepost::ConfigError::ZeroReserveBlock => fail(code::ZERO_RESERVE_BLOCK, 0),
        _ => fail(code::UNKNOWN, 0),
    }
}

#[inline(never)]
fn snapshot_error(e: SnapshotError) -> u32 {
    match e {
        SnapshotError::Truncated { needed, .. } => fail(code::SNAP_TRUNCATED, needed),
        SnapshotError::BadMagic => fail(code::SNAP_BAD_MAGIC, 0),
        SnapshotError::UnsupportedVersion(v) => fail(code::SNAP_VERSION, usize::from(v)),
        SnapshotError::WrongKind(k) => fail(code::SNAP_WRONG_KIND, usize::from(k)),
        SnapshotError::Checksum => fail(code::SNAP_CHECKSUM, 0),
        SnapshotError::TrailingBytes(n) => fail(code::SNAP_TRAILING, n),
        SnapshotError::Invalid(field) => {
            LAST_FIELD.store(field.as_ptr() as u32, Ordering::Relaxed);
            fail(code::SNAP_INVALID, field.len())
        }
        SnapshotError::BadId => fail(code::SNAP_BAD_ID, 0),
        SnapshotError::BufferTooSmall { needed } => fail(code::SNAP_BUFFER, needed),
        SnapshotError::Config(e) => config_error(e),
        _ => fail(code::UNKNOWN, 0),
    }
}

// ---------------------------------------------------------------------------------------------
// Shared conversions.

/// Milliseconds from JavaScript. The caller passes non-negative safe integers; the cast saturates
/// (and maps NaN to 0) for anything else, so it can never trap.
#[inline]
fn ms(v: f64) -> u64 {
    v as u64
}

/// Milliseconds to JavaScript (exact up to 2^53).
#[inline]
fn js_ms(v: u64) -> f64 {
    v as f64
}

/// A holder id or lock name: the UTF-8 bytes the caller wrote (it only writes well-formed text).
/// Read from a snapshot, bytes that are not UTF-8 are refused as [`SnapshotError::BadId`]: the
/// package could neither name such a lock nor show such a holder.
#[derive(Clone, Debug, Eq, PartialOrd, Ord)]
struct Name(Vec<u8>);

/// Equal when they compare equal: the one comparison of names in the module.
impl PartialEq for Name {
    fn eq(&self, other: &Name) -> bool {
        self.cmp(other).is_eq()
    }
}

impl SnapshotCodec for Name {
    fn encoded_len(&self) -> usize {
        self.0.len()
    }
    fn encode_into(&self, out: &mut [u8]) {
        self.0.encode_into(out);
    }
    fn decode_from(bytes: &[u8]) -> Option<Name> {
        core::str::from_utf8(bytes)
            .is_ok()
            .then(|| Name(bytes.to_vec()))
    }
}

/// The first `a` bytes of the input area and the `b` bytes after them. Lengths beyond the area
/// give empty names (the caller never passes them).
fn names(input: &[u8], a: usize, b: usize) -> (&[u8], &[u8]) {
    let first = input.get(..a).unwrap_or(&[]);
    let second = input.get(a..).and_then(|r| r.get(..b)).unwrap_or(&[]);
    (first, second)
}

/// Whether `n` bytes fit a holder id or lock name; records the error when not.
fn name_ok(n: usize) -> bool {
    if n <= MAX_ID_LEN {
        true
    } else {
        fail(code::NAME_TOO_LONG, n);
        false
    }
}

fn config(ttl: f64, lock_delay: f64, max_reentry: u32, first: u64, block: f64) -> Option<Config> {
    let Some(first) = Token::new(first) else {
        fail(code::ZERO_FIRST_TOKEN, 0);
        return None;
    };
    let cfg = Config::new(ms(ttl))
        .with_lock_delay(ms(lock_delay))
        .with_max_reentry(max_reentry)
        .with_first_token(first)
        .with_reserve_block(ms(block));
    // Checked here once, for a fresh object and a restored one alike (their constructors, `new`
    // and `restore_bytes`, check it first too).
    match cfg.validate() {
        Ok(()) => Some(cfg),
        Err(e) => {
            config_error(e);
            None
        }
    }
}

/// Admission codes: bit 0 set means accepted, so every refusal must be even.
pub mod admit {
    /// Refused: older than the highest token accepted.
    pub const STALE: u32 = 0;
    /// Accepted: newer than every token before (now the highest).
    pub const ADVANCED: u32 = 1;
    /// Refused: token 0 is never granted.
    pub const INVALID: u32 = 2;
    /// Accepted: the same token as the highest (the same owner again).
    pub const CURRENT: u32 = 3;
    /// Refused: the signature does not verify.
    pub const FORGED: u32 = 4;
    /// Refused: the signed token could not be parsed (see `error` in [`Out`](super::Out)).
    pub const MALFORMED: u32 = 6;
    /// The index is not a guard (it was freed).
    pub const NO_GUARD: u32 = 8;
}

#[inline(always)]
fn admission(a: Admission) -> u32 {
    match a {
        Admission::Advanced { .. } => admit::ADVANCED,
        Admission::Current => admit::CURRENT,
        Admission::Stale { .. } => admit::STALE,
        Admission::Invalid => admit::INVALID,
    }
}

/// Acquire codes.
pub mod acquire {
    /// Granted: `token`, `time` (expires at), `time2` (granted at), `depth`.
    pub const GRANTED: u32 = 0;
    /// Another holder has it: `holder`, `time` (until).
    pub const HELD: u32 = 1;
    /// In lock-delay after an expiry: `time` (until).
    pub const LOCK_DELAY: u32 = 2;
    /// Re-entered as deep as allowed: `depth` (the limit).
    pub const REENTRY_LIMIT: u32 = 3;
    /// Every token was issued.
    pub const EXHAUSTED: u32 = 4;
    /// The holder id (or lock name) is too long: see `error` in [`Out`](super::Out).
    pub const BAD_NAME: u32 = 5;
    /// A refusal this build does not know.
    pub const OTHER: u32 = 6;
}

/// Results of the last call that has more to say than its return value, read by the caller right
/// after it from memory: [`out`] gives the address of this record (one for the whole instance),
/// whose fields up to `field_at` sit at the byte offsets `npm/src/api.js` reads (little-endian).
#[repr(C)]
struct Out {
    /// Offset 0: a token.
    token: u64,
    /// Offset 8: a second token.
    token2: u64,
    /// Offset 16: a third token.
    token3: u64,
    /// Offset 24: a time (milliseconds).
    time: f64,
    /// Offset 32: a second time.
    time2: f64,
    /// Offset 40: a third time (or a count).
    time3: f64,
    /// Offset 48: a depth, limit or count.
    depth: u32,
    /// Offset 52: the code of the last error (only meaningful right after a call reported one).
    error: u32,
    /// Offset 56: the number that goes with it (a byte offset, a length ...).
    detail: u32,
    /// Offsets 60 and 64: the address and length of `holder` (UTF-8).
    holder_at: u32,
    holder_len: u32,
    /// Offsets 68 and 72: the address and length of `name` (UTF-8).
    name_at: u32,
    name_len: u32,
    /// Offset 76: the address of the output area.
    output_at: u32,
    /// Offset 80: the address of the field name (UTF-8) an inconsistent snapshot names; its
    /// length is `detail`.
    field_at: u32,
    holder: Name,
    name: Name,
}

impl Out {
    const fn new() -> Out {
        Out {
            token: 0,
            token2: 0,
            token3: 0,
            time: 0.0,
            time2: 0.0,
            time3: 0.0,
            depth: 0,
            error: 0,
            detail: 0,
            holder_at: 0,
            holder_len: 0,
            name_at: 0,
            name_len: 0,
            output_at: 0,
            field_at: 0,
            holder: Name(Vec::new()),
            name: Name(Vec::new()),
        }
    }

    fn acquired(&mut self, r: Result<Grant, AcquireError<Name>>) -> u32 {
        match r {
            Ok(g) => {
                self.token = g.token.get();
                self.time = js_ms(g.expires_at);
                self.time2 = js_ms(g.granted_at);
                self.depth = g.depth;
                acquire::GRANTED
            }
            Err(AcquireError::Held { holder, until }) => {
                self.holder = holder;
                self.time = js_ms(until);
                acquire::HELD
            }
            Err(AcquireError::LockDelay { until }) => {
                self.time = js_ms(until);
                acquire::LOCK_DELAY
            }
            Err(AcquireError::ReentryLimit { max }) => {
                self.depth = max;
                acquire::REENTRY_LIMIT
            }
            Err(AcquireError::Exhausted) => acquire::EXHAUSTED,
            Err(_) => acquire::OTHER,
        }
    }

    /// 0: renewed (`token`, `time`); 1: lost.
    fn renewed(&mut self, r: Result<fencepost::Renewal, LeaseError>) -> u32 {
        match r {
            Ok(r) => {
                self.token = r.token.get();
                self.time = js_ms(r.expires_at);
                0
            }
            Err(_) => 1,
        }
    }

    /// 0: released (`depth`: remaining depth, 0 when free); 1: lost.
    fn released(&mut self, r: Result<Released, LeaseError>) -> u32 {
        match r {
            Ok(Released::Free) => {
                self.depth = 0;
                0
            }
            Ok(Released::Held { depth }) => {
                self.depth = depth;
                0
            }
            Err(_) => 1,
        }
    }

    /// 1: an expiry (`holder`, `token`, `time` at, `time2` free at); 0: none.
    fn expired(&mut self, e: Option<&Expired<Name>>) -> u32 {
        match e {
            Some(e) => {
                self.holder.clone_from(&e.holder);
                self.token = e.token.get();
                self.time = js_ms(e.at);
                self.time2 = js_ms(e.free_at);
                1
            }
            None => 0,
        }
    }

    /// 1: a live lease (`holder`, `token`, `time` expires, `time2` granted,
    /// `depth`); 0: none.
    fn lease(&mut self, l: Option<&fencepost::Lease<Name>>) -> u32 {
        match l {
            Some(l) => {
                self.holder.clone_from(&l.holder);
                self.token = l.token.get();
                self.time = js_ms(l.expires_at);
                self.time2 = js_ms(l.granted_at);
                self.depth = l.depth;
                1
            }
            None => 0,
        }
    }

    /// An authority's counters: `token` next token (0: exhausted), `token2` last issued
    /// (0: none), `token3` reserved through, `time` free at, `time2` latest time seen,
    /// `time3` clamps.
    fn counters(
        &mut self,
        next: Option<Token>,
        last: Option<Token>,
        reserved: u64,
        free_at: u64,
        time: &fencepost::Timeline,
    ) -> u32 {
        self.token = next.map_or(0, Token::get);
        self.token2 = last.map_or(0, Token::get);
        self.token3 = reserved;
        self.time = js_ms(free_at);
        self.time2 = js_ms(time.latest());
        self.time3 = js_ms(time.clamps());
        1
    }
}

/// The address of the [`Out`] record of the last result, with the last error and the
/// addresses of its holder, its lock name and the output area brought up to date.
#[wasm_bindgen]
#[inline(never)]
pub fn out() -> usize {
    with(0, |st| {
        let o = &mut st.out;
        o.error = LAST_ERROR.load(Ordering::Relaxed);
        o.detail = LAST_DETAIL.load(Ordering::Relaxed);
        o.field_at = LAST_FIELD.load(Ordering::Relaxed);
        o.holder_at = o.holder.0.as_ptr() as u32;
        o.holder_len = o.holder.0.len() as u32;
        o.name_at = o.name.0.as_ptr() as u32;
        o.name_len = o.name.0.len() as u32;
        o.output_at = st.output.as_ptr() as u32;
        o as *const Out as usize
    })
}

// ---------------------------------------------------------------------------------------------
// Strings and bytes.
//
// They cross through two areas of the module's memory: the caller writes a call's text (names,
// header values, keys, snapshots) into the input area, back to back, and passes their lengths; a
// call that answers with bytes (a snapshot, a header value) leaves them in the output area and
// returns their length. No allocation crosses the boundary.

/// Largest input area: the package reads snapshots of up to 64 MiB.
pub const MAX_INPUT: usize = 64 << 20;

/// Makes the input area `n` bytes long and returns its address, for the caller to fill before
/// the call that reads it; 0 (no area) for more than [`MAX_INPUT`] bytes, or when the memory
/// cannot grow to hold them. Any call may move it: ask again each time.
#[wasm_bindgen]
#[inline(never)]
pub fn input(n: usize) -> usize {
    if n > MAX_INPUT {
        return 0;
    }
    with(0, |st| {
        // Memory that cannot grow (a runtime's limit) is an answer, not a trap.
        if st
            .input
            .try_reserve(n.saturating_sub(st.input.len()))
            .is_err()
        {
            return 0;
        }
        st.input.resize(n, 0);
        st.input.as_ptr() as usize
    })
}

// ---------------------------------------------------------------------------------------------
// The instance's objects: one table for every kind, indexed from JavaScript.
//
// Every object the JavaScript side creates lives in a table here and is known there by its index,
// so every export is a free function of an index: no reference counting or borrow flags per call
// (the guard's `admit` is the hot path), and much less code than one wasm-bindgen class per kind.
// An index that is not (or no longer) an object makes a function return its harmless default.

use fencepost_wasm_rt::Slots;

/// A lock table with the expiries of its last `call::EXPIRE_ALL`.
struct Table {
    inner: fencepost::LockTable<Name, Name>,
    expired: Vec<(Name, Expired<Name>)>,
}

/// Operations a resource's idempotency ledger remembers.
pub const LEDGER_CAPACITY: usize = 64;

/// A fenced resource; the outcome its ledger keeps is a slot number, and the caller keeps the real
/// outcome under that number.
struct Resource {
    inner: Box<FencedResource<u32, LEDGER_CAPACITY>>,
    next_slot: u32,
}

/// Tokens one `guard_admit_many` call takes at most; the caller splits larger batches.
pub const BATCH: usize = 16_384;

/// Every kind of object in one table (one copy of its code); the large ones boxed so a guard
/// stays small.
enum Object {
    Guard(fencepost::Guard),
    Authority(Box<fencepost::Authority<Name>>),
    Table(Box<Table>),
    Resource(Resource),
    Signer(Box<TokenSigner>),
    Ring(Box<KeyRing>),
    Keeper(Box<keeper::Held>),
}

/// The kinds of object, as [`free`] names them.
pub mod kind {
    #[allow(missing_docs)]
    pub const GUARD: u32 = 0;
    #[allow(missing_docs)]
    pub const AUTHORITY: u32 = 1;
    #[allow(missing_docs)]
    pub const TABLE: u32 = 2;
    #[allow(missing_docs)]
    pub const RESOURCE: u32 = 3;
    #[allow(missing_docs)]
    pub const SIGNER: u32 = 4;
    #[allow(missing_docs)]
    pub const RING: u32 = 5;
    #[allow(missing_docs)]
    pub const KEEPER: u32 = 6;
}

/// Frees object `i` if it is of kind `k` (see [`kind`]); its index is reused by a later one.
#[wasm_bindgen]
#[inline(never)]
pub fn free(k: u32, i: u32) {
    with((), |st| {
        if st.objects.kind(i) == Some(k) {
            st.objects.0.remove(i);
        }
    })
}

/// The instance's objects; each accessor answers `None` for an index holding another kind.
struct Objects(Slots<Object>);

macro_rules! kind {
    ($(#[$attr:meta])* $get:ident, $variant:ident, $t:ty) => {
        $(#[$attr])*
        fn $get(&mut self, i: u32) -> Option<&mut $t> {
            match self.0.get(i) {
                Some(Object::$variant(x)) => Some(x),
                _ => None,
            }
        }
    };
}

impl Objects {
    // In line in the guard's exports, the hot path (called, an admission takes about a third
    // longer); the others are smaller called.
    kind!(
        #[inline(always)]
        guard,
        Guard,
        fencepost::Guard
    );
    kind!(table, Table, Table);
    kind!(resource, Resource, Resource);
    kind!(ring, Ring, KeyRing);

    fn add(&mut self, o: Object) -> u32 {
        self.0.add(o)
    }

    /// The kind of object at `i` (see [`kind`]), if any.
    fn kind(&mut self, i: u32) -> Option<u32> {
        Some(match self.0.get(i)? {
            Object::Guard(_) => kind::GUARD,
            Object::Authority(_) => kind::AUTHORITY,
            Object::Table(_) => kind::TABLE,
            Object::Resource(_) => kind::RESOURCE,
            Object::Signer(_) => kind::SIGNER,
            Object::Ring(_) => kind::RING,
            Object::Keeper(_) => kind::KEEPER,
        })
    }
}

struct State {
    out: Out,
    input: Vec<u8>,
    output: Vec<u8>,
    objects: Objects,
}

impl State {
    const fn new() -> State {
        State {
            out: Out::new(),
            input: Vec::new(),
            output: Vec::new(),
            objects: Objects(Slots::new()),
        }
    }
}

/// The module runs on one thread and no export calls back into JavaScript, so no call can start
/// while another runs: the state needs no borrow flag. Natively (tests) each thread gets its own.
#[cfg(target_arch = "wasm32")]
mod single {
    use super::State;
    use core::cell::UnsafeCell;

    pub struct Global(UnsafeCell<State>);
    // SAFETY: wasm32-unknown-unknown without the atomics feature has exactly one thread.
    unsafe impl Sync for Global {}
    static STATE: Global = Global(UnsafeCell::new(State::new()));

    #[inline(always)]
    pub fn with<R>(_fallback: R, f: impl FnOnce(&mut State) -> R) -> R {
        // SAFETY: one thread, and every export reaches the state exactly once, never re-entering
        // (nothing here calls out), so this is the only reference while `f` runs.
        f(unsafe { &mut *STATE.0.get() })
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod single {
    use super::State;
    use std::cell::RefCell;

    std::thread_local! {
        static STATE: RefCell<State> = const { RefCell::new(State::new()) };
    }

    pub fn with<R>(fallback: R, f: impl FnOnce(&mut State) -> R) -> R {
        STATE.with(|st| match st.try_borrow_mut() {
            Ok(mut st) => f(&mut st),
            Err(_) => fallback,
        })
    }
}

use single::with;

/// `u32::MAX`: no object was made (see `error` in [`Out`]).
pub const NONE: u32 = u32::MAX;

/// Encodes a snapshot into the output area; returns its length (0, see `error` in [`Out`], on failure).
fn snapshot_out(output: &mut Vec<u8>, r: Result<Vec<u8>, SnapshotError>) -> usize {
    match r {
        Ok(bytes) => {
            *output = bytes;
            output.len()
        }
        Err(e) => {
            snapshot_error(e);
            0
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Locks: an authority (one lock) or a lock table (many). Each export below serves both, by the
// kind of object at its index; an authority ignores the lock name (the caller passes none).

/// A new object of kind `k` (see [`kind`]); its index, or [`NONE`] (see `error` in [`Out`]) when
/// none was made:
///
/// - a guard whose highest token is `token` (0: none yet);
/// - a resource that has accepted nothing;
/// - a signer for the key in the first `n` bytes of the input area (refused if too short), or a
///   key ring whose current key it is, under the key id `token` (refused past `u32::MAX`);
/// - an authority or a lock table with the config of `ttl`, `lock_delay`, `max_reentry`, `token`
///   (the first token) and `block`, fresh or, with `restore`, resuming from the binary snapshot
///   in the first `n` bytes of the input area (refused for an invalid config or snapshot).
#[wasm_bindgen]
#[inline(never)]
#[allow(clippy::too_many_arguments)]
pub fn object_new(
    k: u32,
    restore: bool,
    n: usize,
    token: u64,
    ttl: f64,
    lock_delay: f64,
    max_reentry: u32,
    block: f64,
) -> u32 {
    let cfg = if k == kind::AUTHORITY || k == kind::TABLE {
        let Some(cfg) = config(ttl, lock_delay, max_reentry, token, block) else {
            return NONE;
        };
        Some(cfg)
    } else {
        None
    };
    with(NONE, |st| {
        let bytes = names(&st.input, n, 0).0;
        let authority = |a| Object::Authority(Box::new(a));
        // `config` refused a bad config already; the constructors' own check answers the same
        // codes (a SnapshotError::Config from a restore).
        let made = match (k, cfg) {
            (kind::GUARD, _) => Ok(Object::Guard(fencepost::Guard::with_highest(Token::new(
                token,
            )))),
            (kind::RESOURCE, _) => Ok(Object::Resource(Resource {
                // A constant: the new box is filled in place, not from a 1.5 KB ledger built on
                // the stack and copied.
                inner: Box::new(const { FencedResource::new() }),
                next_slot: 0,
            })),
            (kind::SIGNER | kind::RING, _) => {
                let made = if k == kind::SIGNER {
                    TokenSigner::new(bytes).map(|s| Object::Signer(Box::new(s)))
                } else if let Ok(id) = u32::try_from(token) {
                    KeyRing::new(id, bytes).map(|r| Object::Ring(Box::new(r)))
                } else {
                    // api.js checks key ids; a larger one is no ring, never a trap.
                    wipe(&mut st.input, n);
                    fail(code::UNKNOWN, 0);
                    return NONE;
                };
                // The key has been mixed into the signer's state: wipe the copy JavaScript wrote
                // into the input area, made or refused, so no later read of memory finds it.
                wipe(&mut st.input, n);
                match made {
                    Ok(o) => Ok(o),
                    Err(e) => {
                        signature_error(e);
                        return NONE;
                    }
                }
            }
            (kind::AUTHORITY, Some(cfg)) if restore => {
                fencepost::Authority::restore_bytes(cfg, bytes).map(authority)
            }
            (kind::AUTHORITY, Some(cfg)) => fencepost::Authority::new(cfg)
                .map(authority)
                .map_err(SnapshotError::Config),
            (kind::TABLE, Some(cfg)) if restore => {
                fencepost::LockTable::restore_bytes(cfg, bytes).map(table)
            }
            (kind::TABLE, Some(cfg)) => fencepost::LockTable::new(cfg)
                .map(table)
                .map_err(SnapshotError::Config),
            _ => return NONE,
        };
        match made {
            Ok(o) => st.objects.add(o),
            Err(e) => {
                snapshot_error(e);
                NONE
            }
        }
    })
}

fn table(inner: fencepost::LockTable<Name, Name>) -> Object {
    Object::Table(Box::new(Table {
        inner,
        expired: Vec::new(),
    }))
}

/// The `len` bytes of the input area from `at`, as a name (empty beyond the area). Made only
/// where it is used: an authority has no lock name to make.
fn name_at(input: &[u8], at: usize, len: usize) -> Name {
    Name(names(input, at, len).1.to_vec())
}

/// The lease length: the config's for a negative `ttl`, else `ttl`.
fn ttl_ms(cfg: &Config, ttl: f64) -> u64 {
    if ttl < 0.0 { cfg.ttl_ms } else { ms(ttl) }
}

/// What [`lock_call`] does.
pub mod call {
    /// Acquire the lock for the holder (`token` unused; `ttl`: negative for the default); see
    /// [`acquire`](super::acquire) for the codes.
    pub const ACQUIRE: u32 = 0;
    /// Renew the holder's lease with `token` (`ttl`: negative for the default): 0 renewed
    /// (`token`, `time`), 1 lost.
    pub const RENEW: u32 = 1;
    /// Release one level of the holder's lease with `token` (`ttl` unused): 0 released
    /// (`depth`), 1 lost.
    pub const RELEASE: u32 = 2;
    /// Notice its expiry (holder, `token` and `ttl` unused): 1 if its lease ran out (`holder`,
    /// `token`, `time` at, `time2` free at), else 0.
    pub const EXPIRE: u32 = 3;
    /// Read its live lease (holder, `token` and `ttl` unused): 1 if there is one (`holder`,
    /// `token`, `time` expires, `time2` granted, `depth`), else 0.
    pub const LEASE: u32 = 4;
    /// Notice every expiry due on a table (names, `token` and `ttl` unused): how many (read
    /// each with [`EXPIRED`]).
    pub const EXPIRE_ALL: u32 = 5;
    /// Expiry `lock` (a number here, not a name) of a table's last [`EXPIRE_ALL`]: 1 if there
    /// is one (`name` the lock, `holder`, `token`, `time` at, `time2` free at), else 0.
    pub const EXPIRED: u32 = 6;
    /// The binary snapshot of the authority or the table into the output area: its length (0,
    /// see `error` in [`Out`](super::Out), if it cannot be encoded).
    pub const SNAPSHOT: u32 = 7;
}

/// Acquires, renews or releases a lock (the first `lock` bytes of the input area; none for an
/// authority) for a holder (the `holder` bytes after them), or notices its expiry or reads its
/// lease (see [`call`]).
#[wasm_bindgen]
#[inline(never)]
pub fn lock_call(
    op: u32,
    i: u32,
    lock: usize,
    holder: usize,
    token: u64,
    now: f64,
    ttl: f64,
) -> u32 {
    if op >= call::EXPIRE {
        return look(op, i, lock, now);
    }
    let acquiring = op == call::ACQUIRE;
    if acquiring && (!name_ok(lock) || !name_ok(holder)) {
        return acquire::BAD_NAME;
    }
    let lost = if acquiring { acquire::OTHER } else { 1 };
    with(lost, |st| {
        // Token 0 is never held: a renewal or release with it is lost.
        let token = Token::new(token);
        let (holder, now) = (name_at(&st.input, lock, holder), ms(now));
        let out = &mut st.out;
        match st.objects.0.get(i) {
            Some(Object::Authority(a)) => {
                let ttl = ttl_ms(a.config(), ttl);
                match token {
                    _ if acquiring => out.acquired(a.try_acquire_for(&holder, ttl, now)),
                    Some(token) if op == call::RENEW => {
                        out.renewed(a.renew_for(&holder, token, ttl, now))
                    }
                    Some(token) => out.released(a.release(&holder, token, now)),
                    None => lost,
                }
            }
            Some(Object::Table(t)) => {
                let t = &mut t.inner;
                let ttl = ttl_ms(t.config(), ttl);
                let lock = name_at(&st.input, 0, lock);
                match token {
                    _ if acquiring => out.acquired(t.try_acquire_for(&lock, &holder, ttl, now)),
                    Some(token) if op == call::RENEW => {
                        out.renewed(t.renew_for(&lock, &holder, token, ttl, now))
                    }
                    Some(token) => out.released(t.release(&lock, &holder, token, now)),
                    None => lost,
                }
            }
            _ => lost,
        }
    })
}

/// [`call::EXPIRE`], [`call::LEASE`], [`call::EXPIRE_ALL`], [`call::EXPIRED`] or
/// [`call::SNAPSHOT`] for [`lock_call`].
fn look(op: u32, i: u32, lock: usize, now: f64) -> u32 {
    with(0, |st| {
        let now = ms(now);
        let expire = op == call::EXPIRE;
        if op == call::SNAPSHOT {
            let r = match st.objects.0.get(i) {
                Some(Object::Authority(a)) => a.snapshot_bytes(),
                Some(Object::Table(t)) => t.inner.snapshot_bytes(),
                _ => return 0,
            };
            return snapshot_out(&mut st.output, r) as u32;
        }
        if op > call::LEASE {
            let Some(t) = st.objects.table(i) else {
                return 0;
            };
            if op == call::EXPIRE_ALL {
                t.expired = t.inner.expire_all(now);
                return u32::try_from(t.expired.len()).unwrap_or(u32::MAX);
            }
            let Some((lock, e)) = t.expired.get(lock) else {
                return 0;
            };
            st.out.name.clone_from(lock);
            return st.out.expired(Some(e));
        }
        // Either way the expiry is noticed first: reading the lease is `lease(now)`.
        let (expired, lease) = match st.objects.0.get(i) {
            Some(Object::Authority(a)) => (a.expire(now), a.recorded_lease()),
            Some(Object::Table(t)) => {
                let lock = name_at(&st.input, 0, lock);
                (t.inner.expire(&lock, now), t.inner.recorded_lease(&lock))
            }
            _ => return 0,
        };
        if expire {
            st.out.expired(expired.as_ref())
        } else {
            st.out.lease(lease)
        }
    })
}

/// The counters of an authority or a lock table into [`Out`] (see `Out::counters`; for a table
/// `depth` is the number of locks it remembers and `time` is 0), a resource's state (`token`
/// the highest token, 0 for none, `depth` the operations its ledger remembers), or a key ring's
/// current key id (`depth`); 0 if `i` is none of them.
#[wasm_bindgen]
#[inline(never)]
pub fn state(i: u32) -> u32 {
    with(0, |st| match st.objects.0.get(i) {
        Some(Object::Authority(a)) => {
            let (next, last, reserved) = (a.next_token(), a.last_issued(), a.reserved_through());
            st.out
                .counters(next, last, reserved, a.free_at(), a.timeline())
        }
        Some(Object::Table(t)) => {
            let t = &t.inner;
            let (next, last, reserved) = (t.next_token(), t.last_issued(), t.reserved_through());
            st.out.depth = u32::try_from(t.len()).unwrap_or(u32::MAX);
            st.out.counters(next, last, reserved, 0, t.timeline())
        }
        Some(Object::Resource(r)) => {
            st.out.token = r.inner.guard().highest().map_or(0, Token::get);
            st.out.depth = u32::try_from(r.inner.ledger().len()).unwrap_or(u32::MAX);
            1
        }
        Some(Object::Ring(r)) => {
            st.out.depth = r.current_key_id();
            1
        }
        _ => 0,
    })
}

// ---------------------------------------------------------------------------------------------
// The resource side.

/// Compare-and-advance on guard `i` (see [`admit`] for the codes; [`admit::NO_GUARD`] for an
/// index that is not a guard).
#[wasm_bindgen]
#[inline(never)]
pub fn guard_admit(i: u32, token: u64) -> u32 {
    with(admit::NO_GUARD, |st| match st.objects.guard(i) {
        Some(g) => admission(g.admit_raw(token)),
        None => admit::NO_GUARD,
    })
}

/// What `guard_admit` would answer.
#[wasm_bindgen]
#[inline(never)]
pub fn guard_check(i: u32, token: u64) -> u32 {
    with(admit::NO_GUARD, |st| match st.objects.guard(i) {
        Some(g) => admission(g.check_raw(token)),
        None => admit::NO_GUARD,
    })
}

/// The highest token guard `i` accepted (0: none, or not a guard).
#[wasm_bindgen]
#[inline(never)]
pub fn guard_highest(i: u32) -> u64 {
    with(0, |st| {
        st.objects
            .guard(i)
            .and_then(|g| g.highest())
            .map_or(0, Token::get)
    })
}

/// Admits a batch of `n` tokens (at most [`BATCH`]: the first `8 * n` bytes of the input area,
/// each token 8 bytes little-endian) on guard `i`, in order, and returns the address of their
/// outcome codes in the output area (one byte per token; 0 if `i` is not a guard).
#[wasm_bindgen]
#[inline(never)]
pub fn guard_admit_many(i: u32, n: usize) -> usize {
    with(0, |st| {
        let Some(g) = st.objects.guard(i) else {
            return 0;
        };
        let tokens = st.input.get(..8 * n.min(BATCH)).unwrap_or_default();
        st.output.resize(tokens.len() / 8, 0);
        for (tok, out) in tokens.chunks_exact(8).zip(st.output.iter_mut()) {
            let tok = u64::from_le_bytes(tok.try_into().unwrap_or_default());
            *out = admission(g.admit_raw(tok)) as u8;
        }
        st.output.as_ptr() as usize
    })
}

/// Verifies a signed header value (the `header` bytes of the input area after the first `lock`
/// bytes, the lock's name) with signer `s`, then admits its token on guard `i` (see [`admit`]).
#[wasm_bindgen]
#[inline(never)]
pub fn guard_admit_signed(i: u32, s: u32, lock: usize, header: usize) -> u32 {
    with(admit::NO_GUARD, |st| {
        match verify_header(st, s, lock, header) {
            Ok(token) => match st.objects.guard(i) {
                Some(g) => admission(g.admit(token)),
                None => admit::NO_GUARD,
            },
            Err(code) => code,
        }
    })
}

/// The token of a signed header value (the `header` bytes of the input area after the first
/// `lock` bytes, the lock's name) that signer or key ring `s` verifies, else the [`admit`] code of
/// why not: [`admit::MALFORMED`] (unparsable, or a signature error other than a forgery),
/// [`admit::FORGED`] (also for a key id the ring does not hold), or [`admit::NO_GUARD`] when `s`
/// is neither. Errors are recorded (see `error` in [`Out`]), a forgery as [`code::FORGED`], an
/// unknown key as [`code::UNKNOWN_KEY`].
#[inline(never)]
fn verify_header(st: &mut State, s: u32, lock: usize, header: usize) -> Result<Token, u32> {
    let (lock, header) = names(&st.input, lock, header);
    let malformed = |e| {
        parse_signed_error(e);
        admit::MALFORMED
    };
    let verified = match st.objects.0.get(s) {
        Some(Object::Signer(signer)) => {
            signer.verify(lock, &SignedToken::from_header(header).map_err(malformed)?)
        }
        Some(Object::Ring(ring)) => {
            ring.verify(lock, &KeyedToken::from_header(header).map_err(malformed)?)
        }
        _ => return Err(admit::NO_GUARD),
    };
    verified.map_err(|e| {
        signature_error(e);
        match e {
            SignatureError::Forged | SignatureError::UnknownKey { .. } => admit::FORGED,
            _ => admit::MALFORMED,
        }
    })
}

// ---------------------------------------------------------------------------------------------
// Idempotency.

/// Write codes of [`resource_write`].
pub mod write {
    /// Applied now: run the operation; `depth` is its new outcome slot.
    pub const APPLIED: u32 = 0;
    /// A retry: `depth` is the slot of the first outcome.
    pub const DUPLICATE: u32 = 1;
    /// Stale: `token` is the highest token accepted.
    pub const STALE: u32 = 2;
    /// Token 0 (or not a resource).
    pub const INVALID: u32 = 3;
}

/// Runs the ledger, then the guard (see [`write`] for the codes).
#[wasm_bindgen]
#[inline(never)]
pub fn resource_write(i: u32, token: u64, op: u64) -> u32 {
    with(write::INVALID, |st| {
        let Some(r) = st.objects.resource(i) else {
            return write::INVALID;
        };
        let slot = r.next_slot;
        match r.inner.write(token, op, || slot) {
            WriteOutcome::Applied(s) => {
                r.next_slot = slot.wrapping_add(1);
                st.out.depth = s;
                write::APPLIED
            }
            WriteOutcome::Duplicate(s) => {
                st.out.depth = s;
                write::DUPLICATE
            }
            WriteOutcome::Stale { highest, .. } => {
                st.out.token = highest.get();
                write::STALE
            }
            WriteOutcome::Invalid => write::INVALID,
        }
    })
}

/// What a store decides for a write (see [`write`] for the codes) from what it read for the key:
/// `highest` its mark and `recorded` the token held for the write's idempotency key (0: none).
/// Stateless: the store keeps both beside its data; [`write::STALE`] leaves `highest` in `token`.
#[wasm_bindgen]
#[inline(never)]
pub fn store_decide(highest: u64, recorded: u64, token: u64) -> u32 {
    with(write::INVALID, |st| {
        match decide_stored(Token::new(highest), Token::new(recorded), token) {
            WriteOutcome::Applied(()) => write::APPLIED,
            WriteOutcome::Duplicate(()) => write::DUPLICATE,
            WriteOutcome::Stale { highest, .. } => {
                st.out.token = highest.get();
                write::STALE
            }
            WriteOutcome::Invalid => write::INVALID,
        }
    })
}

// ---------------------------------------------------------------------------------------------
// Signed tokens.

/// The header value for a lock (the first `lock` bytes of the input area) into the output area:
/// `<token>.<mac hex>` from a signer, `<token>.<key id>.<mac hex>` from a key ring (its current
/// key). Returns its length (0, see `error` in [`Out`], on failure).
#[wasm_bindgen]
#[inline(never)]
pub fn signer_sign(i: u32, lock: usize, token: u64) -> usize {
    with(0, |st| {
        let Some(token) = Token::new(token) else {
            parse_error(ParseTokenError::Zero);
            return 0;
        };
        let lock = names(&st.input, lock, 0).0;
        // Written in place: the output area is made long enough, then cut to the value.
        let out = &mut st.output;
        let written = match st.objects.0.get(i) {
            Some(Object::Signer(s)) => s.sign(lock, token).map(|ref signed| {
                out.resize(SIGNED_HEADER_MAX, 0);
                out.first_chunk_mut()
                    .map_or(0, |buf| signed.write_header(buf))
            }),
            Some(Object::Ring(r)) => r.sign(lock, token).map(|ref keyed| {
                out.resize(KEYED_HEADER_MAX, 0);
                out.first_chunk_mut()
                    .map_or(0, |buf| keyed.write_header(buf))
            }),
            _ => return 0,
        };
        match written {
            Ok(n) => {
                out.truncate(n);
                n
            }
            Err(e) => {
                signature_error(e);
                0
            }
        }
    })
}

/// Verifies a header value (the `header` bytes of the input area after the first `lock` bytes,
/// the lock's name): the token, or 0 (see `error` in [`Out`]: forged or malformed).
#[wasm_bindgen]
#[inline(never)]
pub fn signer_verify(i: u32, lock: usize, header: usize) -> u64 {
    with(0, |st| {
        verify_header(st, i, lock, header).map_or(0, Token::get)
    })
}

/// What [`ring_call`] does.
pub mod ring {
    /// Make the key in the first `n` bytes of the input area current, under `id`.
    pub const ROTATE: u32 = 0;
    /// Remove the previous key `id`.
    pub const REMOVE: u32 = 1;
}

/// Rotates or removes a key of ring `i` (see [`ring`]); 0 when done, else the error code (see
/// `error` in [`Out`]).
#[wasm_bindgen]
#[inline(never)]
pub fn ring_call(op: u32, i: u32, n: usize, id: u32) -> u32 {
    with(code::UNKNOWN, |st| {
        let key = names(&st.input, n, 0).0;
        let done = match (st.objects.ring(i), op) {
            (Some(r), ring::ROTATE) => Some(r.rotate(id, key)),
            (Some(r), ring::REMOVE) => Some(r.remove(id)),
            _ => None,
        };
        // As for a new signer: the key's copy in the input area is not left behind, whatever the
        // answer (no ring at `i` or an unknown `op` included).
        wipe(&mut st.input, n);
        match done {
            Some(done) => done.map_or_else(signature_error, |()| 0),
            None => fail(code::UNKNOWN, 0),
        }
    })
}

/// Wipes the first `n` bytes of the input area: a key JavaScript wrote there.
fn wipe(input: &mut [u8], n: usize) {
    if let Some(key) = input.get_mut(..n) {
        key.zeroize();
    }
}

// ---------------------------------------------------------------------------------------------
// Token codecs.

/// The forms of a token [`token_decode`] reads.
pub mod form {
    /// The strict decimal form.
    pub const DECIMAL: u32 = 0;
    /// An unsigned `Fencing-Token` header value.
    pub const HEADER: u32 = 1;
    /// The 8-byte big-endian form.
    pub const BYTES: u32 = 2;
}

/// Parses the first `n` bytes of the input area as a token in form `f` (see [`form`]; any other
/// number reads bytes): the token, or 0 (see `error` in [`Out`]).
#[wasm_bindgen]
#[inline(never)]
pub fn token_decode(f: u32, n: usize) -> u64 {
    let parse = match f {
        form::DECIMAL => Token::parse_decimal_bytes,
        form::HEADER => Token::from_header,
        _ => Token::from_be_slice,
    };
    with(0, |st| match parse(names(&st.input, n, 0).0) {
        Ok(t) => t.get(),
        Err(e) => {
            parse_error(e);
            0
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes `texts` back to back into the input area; returns their lengths.
    fn put(texts: &[&[u8]]) -> Vec<usize> {
        with(Vec::new(), |st| {
            st.input.clear();
            for t in texts {
                st.input.extend_from_slice(t);
            }
            texts.iter().map(|t| t.len()).collect()
        })
    }

    fn put1(text: &str) -> usize {
        put(&[text.as_bytes()])[0]
    }

    fn put2(a: &str, b: &str) -> (usize, usize) {
        let n = put(&[a.as_bytes(), b.as_bytes()]);
        (n[0], n[1])
    }

    fn holder() -> String {
        with(String::new(), |st| {
            String::from_utf8(st.out.holder.clone().0).unwrap()
        })
    }

    fn name() -> String {
        with(String::new(), |st| {
            String::from_utf8(st.out.name.clone().0).unwrap()
        })
    }

    // The fields of the last result, as the package reads them from the record `out` points at.
    fn out_token() -> u64 {
        with(0, |st| st.out.token)
    }
    fn out_token2() -> u64 {
        with(0, |st| st.out.token2)
    }
    fn out_token3() -> u64 {
        with(0, |st| st.out.token3)
    }
    fn out_time() -> f64 {
        with(0.0, |st| st.out.time)
    }
    fn out_time2() -> f64 {
        with(0.0, |st| st.out.time2)
    }
    fn out_time3() -> f64 {
        with(0.0, |st| st.out.time3)
    }
    fn out_depth() -> u32 {
        with(0, |st| st.out.depth)
    }
    pub(crate) fn last_error() -> u32 {
        out();
        with(0, |st| st.out.error)
    }
    fn last_error_detail() -> u32 {
        out();
        with(0, |st| st.out.detail)
    }

    #[test]
    fn the_record_has_the_offsets_the_package_reads() {
        use core::mem::offset_of;
        assert_eq!(
            [
                offset_of!(Out, token),
                offset_of!(Out, token2),
                offset_of!(Out, token3),
                offset_of!(Out, time),
                offset_of!(Out, time2),
                offset_of!(Out, time3),
                offset_of!(Out, depth),
                offset_of!(Out, error),
                offset_of!(Out, detail),
                offset_of!(Out, holder_at),
                offset_of!(Out, holder_len),
                offset_of!(Out, name_at),
                offset_of!(Out, name_len),
                offset_of!(Out, output_at),
                offset_of!(Out, field_at),
            ],
            [0, 8, 16, 24, 32, 40, 48, 52, 56, 60, 64, 68, 72, 76, 80]
        );
    }

    /// The numbers `npm/src/api.js` keeps for this module: record offsets, object kinds, call and
    /// form numbers, limits and error codes are written out on both sides, so a change to one
    /// side alone fails here rather than as wrong fields read in JavaScript.
    #[test]
    fn the_package_uses_the_same_numbers() {
        let api = include_str!("../../../npm/src/api.js");
        // The value of `const NAME = <number>;` at the start of a line of api.js.
        let js = |name: &str| -> usize {
            let decl = std::format!("\nconst {name} = ");
            let at = api
                .find(&decl)
                .unwrap_or_else(|| panic!("api.js has no `const {name}`"));
            let rest = &api[at + decl.len()..];
            let expr = &rest[..rest.find(';').unwrap()];
            // A number, or a product of numbers (`64 * 1024 * 1024`).
            expr.split('*')
                .map(|f| f.trim().replace('_', "").parse::<usize>().unwrap())
                .product()
        };
        use core::mem::offset_of;
        let pairs: &[(&str, usize)] = &[
            ("TOKEN", offset_of!(Out, token)),
            ("TOKEN2", offset_of!(Out, token2)),
            ("TOKEN3", offset_of!(Out, token3)),
            ("TIME", offset_of!(Out, time)),
            ("TIME2", offset_of!(Out, time2)),
            ("TIME3", offset_of!(Out, time3)),
            ("DEPTH", offset_of!(Out, depth)),
            ("ERROR", offset_of!(Out, error)),
            ("DETAIL", offset_of!(Out, detail)),
            ("HOLDER", offset_of!(Out, holder_at)),
            ("NAME", offset_of!(Out, name_at)),
            ("OUTPUT", offset_of!(Out, output_at)),
            ("FIELD", offset_of!(Out, field_at)),
            ("GUARD", kind::GUARD as usize),
            ("AUTHORITY", kind::AUTHORITY as usize),
            ("TABLE", kind::TABLE as usize),
            ("RESOURCE", kind::RESOURCE as usize),
            ("SIGNER", kind::SIGNER as usize),
            ("RING", kind::RING as usize),
            ("KEEPER", kind::KEEPER as usize),
            ("KEEPER_SEND", keeper::op::SEND as usize),
            ("KEEPER_GRANTED", keeper::op::GRANTED as usize),
            ("KEEPER_TRANSIENT", keeper::op::TRANSIENT as usize),
            ("KEEPER_REFUSED", keeper::op::REFUSED as usize),
            ("KEEPER_RELEASED", keeper::op::RELEASED as usize),
            ("KEEPER_STATE", keeper::op::STATE as usize),
            ("KEEPER_ERROR", keeper::state::ERROR as usize),
            ("ROTATE", ring::ROTATE as usize),
            ("REMOVE", ring::REMOVE as usize),
            ("ACQUIRE", call::ACQUIRE as usize),
            ("RENEW", call::RENEW as usize),
            ("RELEASE", call::RELEASE as usize),
            ("EXPIRE", call::EXPIRE as usize),
            ("LEASE", call::LEASE as usize),
            ("EXPIRE_ALL", call::EXPIRE_ALL as usize),
            ("EXPIRED", call::EXPIRED as usize),
            ("SNAPSHOT", call::SNAPSHOT as usize),
            ("DECIMAL", form::DECIMAL as usize),
            ("HEADER_VALUE", form::HEADER as usize),
            ("BYTES", form::BYTES as usize),
            ("STALE", admit::STALE as usize),
            ("NO_GUARD", admit::NO_GUARD as usize),
            ("GRANTED", acquire::GRANTED as usize),
            ("HELD", acquire::HELD as usize),
            ("LOCK_DELAY", acquire::LOCK_DELAY as usize),
            ("REENTRY_LIMIT", acquire::REENTRY_LIMIT as usize),
            ("NO_TOKENS_LEFT", acquire::EXHAUSTED as usize),
            ("BAD_NAME", acquire::BAD_NAME as usize),
            ("APPLIED", write::APPLIED as usize),
            ("DUPLICATE", write::DUPLICATE as usize),
            ("STALE_WRITE", write::STALE as usize),
            ("BATCH", BATCH),
            ("LEDGER_CAPACITY", LEDGER_CAPACITY),
            ("MAX_SNAPSHOT_BYTES", MAX_INPUT),
            ("MAX_NAME_BYTES", MAX_ID_LEN),
        ];
        for &(name, want) in pairs {
            assert_eq!(js(name), want, "api.js `const {name}`");
        }
        // The lengths sit right after the addresses (outText reads `at + 4`).
        assert_eq!(offset_of!(Out, holder_len), offset_of!(Out, holder_at) + 4);
        assert_eq!(offset_of!(Out, name_len), offset_of!(Out, name_at) + 4);
        // admitMany's outcome bytes are handed to users as they come, named by AdmitCode.
        let admit_code = std::format!(
            "AdmitCode = Object.freeze({{ Stale: {}, Advanced: {}, Invalid: {}, Current: {} }})",
            admit::STALE,
            admit::ADVANCED,
            admit::INVALID,
            admit::CURRENT
        );
        assert!(api.contains(&admit_code), "api.js has no `{admit_code}`");
        // A keeper's states and losses are read by code as indices of these lists.
        use keeper::{loss, state};
        let mut states = [""; 4];
        states[state::ACQUIRING as usize] = "acquiring";
        states[state::HELD as usize] = "held";
        states[state::UNCERTAIN as usize] = "uncertain";
        states[state::LOST as usize] = "lost";
        let mut losses = [""; 3];
        for (c, why) in [
            (loss::EXPIRED, fencepost::Loss::Expired),
            (loss::REFUSED, fencepost::Loss::Refused),
            (loss::RELEASED, fencepost::Loss::Released),
        ] {
            losses[c as usize] = why.as_str();
        }
        for line in [
            std::format!("const KEEPER_STATES = {states:?};"),
            std::format!("const LOSSES = {losses:?};"),
        ] {
            assert!(api.contains(&line), "api.js has no `{line}`");
        }
        // Numbers api.js tests inline: a signed header's refusals, and which errors are the options'.
        for line in [
            std::format!("if (code === {}) return forgery();", admit::FORGED),
            std::format!(
                "if (code === {} || code === {}) return forgery();",
                code::FORGED,
                code::UNKNOWN_KEY
            ),
            std::format!(
                "if (outU32(ERROR) === {}) return {{ ok: false, reason: \"unknownKey\"",
                code::UNKNOWN_KEY
            ),
            std::format!(
                "throw new RangeError(outU32(ERROR) === {} ?",
                code::UNKNOWN_KEY
            ),
            std::format!(
                "if (code === {}) throw new RangeError(`header",
                admit::MALFORMED
            ),
            std::format!(
                "code >= {} && code <= {} ? \"options\"",
                code::ZERO_TTL,
                code::ZERO_FIRST_TOKEN
            ),
        ] {
            assert!(api.contains(&line), "api.js has no `{line}`");
        }
        // ... and every config error lies in that range.
        for c in [code::ZERO_REENTRY, code::ZERO_RESERVE_BLOCK] {
            assert!((code::ZERO_TTL..=code::ZERO_FIRST_TOKEN).contains(&c));
        }
        // Every error the module reports has its message there (UNKNOWN is the default's).
        for c in [
            code::EMPTY,
            code::WHITESPACE,
            code::SIGN,
            code::NOT_A_DIGIT,
            code::LEADING_ZERO,
            code::ZERO,
            code::OVERFLOW,
            code::LENGTH,
            code::SIGNED,
            code::MISSING_MAC,
            code::MAC_TRUNCATED,
            code::MAC_TOO_LONG,
            code::BAD_HEX,
            code::FORGED,
            code::KEY_TOO_SHORT,
            code::LOCK_NAME_TOO_LONG,
            code::NO_KEY_ID,
            code::BAD_KEY_ID,
            code::UNKNOWN_KEY,
            code::SNAP_TRUNCATED,
            code::SNAP_BAD_MAGIC,
            code::SNAP_VERSION,
            code::SNAP_WRONG_KIND,
            code::SNAP_CHECKSUM,
            code::SNAP_TRAILING,
            code::SNAP_INVALID,
            code::SNAP_BAD_ID,
            code::SNAP_BUFFER,
            code::ZERO_TTL,
            code::ZERO_REENTRY,
            code::ZERO_RESERVE_BLOCK,
            code::ZERO_FIRST_TOKEN,
            code::NAME_TOO_LONG,
            code::RING_FULL,
            code::KEY_ID_TAKEN,
            code::CURRENT_KEY,
            code::KEEPER_DRIFT,
            code::KEEPER_RENEW,
            code::KEEPER_RETRY,
            code::UNKNOWN_TICKET,
            code::OTHER_TOKEN,
        ] {
            assert!(
                api.contains(&std::format!("case {c}: return ")),
                "api.js has no message for error {c}"
            );
        }
    }

    /// The first `n` bytes of the output area.
    fn output_bytes(n: usize) -> Vec<u8> {
        with(Vec::new(), |st| st.output[..n].to_vec())
    }

    /// The last error is one global: tests that read it take turns.
    pub(crate) fn serial() -> std::sync::MutexGuard<'static, ()> {
        static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
        LOCK.lock().unwrap_or_else(|e| e.into_inner())
    }

    #[test]
    fn store_decides_from_what_it_read() {
        let _turn = serial();
        assert_eq!(store_decide(0, 0, 34), write::APPLIED);
        assert_eq!(store_decide(34, 0, 33), write::STALE);
        assert_eq!(with(0, |st| st.out.token), 34);
        assert_eq!(store_decide(34, 33, 33), write::DUPLICATE);
        assert_eq!(store_decide(34, 0, 34), write::APPLIED);
        assert_eq!(store_decide(34, 0, 0), write::INVALID);
        assert_eq!(store_decide(u64::MAX - 1, 0, u64::MAX), write::APPLIED);
    }

    #[test]
    fn the_story_through_the_bindings() {
        let _turn = serial();
        let auth = object_new(kind::AUTHORITY, false, 0, 33, 30_000.0, 0.0, u32::MAX, 1.0);
        assert_eq!(
            lock_call(call::ACQUIRE, auth, 0, put1("A"), 0, 0.0, -1.0),
            acquire::GRANTED
        );
        assert_eq!((out_token(), out_time()), (33, 30_000.0));
        assert_eq!(
            lock_call(call::ACQUIRE, auth, 0, put1("B"), 0, 10_000.0, -1.0),
            acquire::HELD
        );
        assert_eq!((holder(), out_time()), ("A".into(), 30_000.0));
        assert_eq!(
            lock_call(call::ACQUIRE, auth, 0, put1("B"), 0, 45_000.0, -1.0),
            acquire::GRANTED
        );
        assert_eq!((out_token(), out_time()), (34, 75_000.0));
        let guard = object_new(kind::GUARD, false, 0, 0, 0.0, 0.0, 0, 0.0);
        assert_eq!(guard_admit(guard, 34), admit::ADVANCED);
        assert_eq!(guard_admit(guard, 33), admit::STALE);
        assert_eq!(guard_admit(guard, 34), admit::CURRENT);
        assert_eq!(guard_admit(guard, 0), admit::INVALID);
        assert_eq!(guard_highest(guard), 34);
        assert_eq!(guard_admit(guard + 1, 35), admit::NO_GUARD);
        assert_eq!(state(auth), 1);
        assert_eq!((out_token(), out_token2(), out_token3()), (35, 34, 34));
        assert_eq!((out_time2(), out_time3()), (45_000.0, 0.0));
    }

    #[test]
    fn only_accepted_codes_are_odd() {
        let _turn = serial();
        for refusal in [
            admit::STALE,
            admit::INVALID,
            admit::FORGED,
            admit::MALFORMED,
            admit::NO_GUARD,
        ] {
            assert_eq!(refusal & 1, 0, "refusal code {refusal}");
        }
        assert_eq!(admit::ADVANCED & 1, 1);
        assert_eq!(admit::CURRENT & 1, 1);
    }

    #[test]
    fn indices_are_reused_and_freed_objects_answer_defaults() {
        let _turn = serial();
        let a = object_new(kind::GUARD, false, 0, 0, 0.0, 0.0, 0, 0.0);
        let b = object_new(kind::GUARD, false, 0, 7, 0.0, 0.0, 0, 0.0);
        assert_eq!(guard_highest(b), 7);
        // Another kind's free leaves it alone; a second free does nothing.
        free(kind::AUTHORITY, b);
        assert_eq!(guard_highest(b), 7);
        free(kind::GUARD, b);
        free(kind::GUARD, b);
        assert_eq!(guard_highest(b), 0);
        assert_eq!(guard_admit(b, 9), admit::NO_GUARD);
        let c = object_new(kind::GUARD, false, 0, 0, 0.0, 0.0, 0, 0.0);
        assert_eq!(c, b);
        assert_eq!(guard_highest(c), 0);
        assert_ne!(object_new(kind::GUARD, false, 0, 0, 0.0, 0.0, 0, 0.0), c);
        assert_eq!(guard_admit(a, 1), admit::ADVANCED);
        let auth = object_new(kind::AUTHORITY, false, 0, 1, 10.0, 0.0, 1, 1.0);
        free(kind::AUTHORITY, auth);
        assert_eq!(
            lock_call(call::ACQUIRE, auth, 0, put1("A"), 0, 0.0, -1.0),
            acquire::OTHER
        );
        assert_eq!(lock_call(call::RENEW, auth, 0, put1("A"), 1, 0.0, -1.0), 1);
        assert_eq!(state(auth), 0);
        assert_eq!(
            (lock_call(call::SNAPSHOT, auth, 0, 0, 0, 0.0, -1.0) as usize),
            0
        );
        assert_eq!(resource_write(NONE, 1, 1), write::INVALID);
        let (l, h) = put2("l", "1.00");
        assert_eq!(signer_verify(NONE, l, h), 0);
    }

    #[test]
    fn config_errors_are_codes() {
        let _turn = serial();
        assert_eq!(
            object_new(kind::AUTHORITY, false, 0, 1, 0.0, 0.0, 1, 1.0),
            NONE
        );
        assert_eq!(last_error(), code::ZERO_TTL);
        assert_eq!(object_new(kind::TABLE, false, 0, 0, 1.0, 0.0, 1, 1.0), NONE);
        assert_eq!(last_error(), code::ZERO_FIRST_TOKEN);
        assert_eq!(
            object_new(kind::AUTHORITY, false, 0, 1, f64::NAN, 0.0, 1, 1.0),
            NONE
        );
        assert_eq!(last_error(), code::ZERO_TTL);
        assert_eq!(object_new(kind::TABLE, false, 0, 1, 1.0, 0.0, 0, 1.0), NONE);
        assert_eq!(last_error(), code::ZERO_REENTRY);
    }

    #[test]
    fn batches_keep_order() {
        let _turn = serial();
        let g = object_new(kind::GUARD, false, 0, 0, 0.0, 0.0, 0, 0.0);
        let tokens: Vec<u8> = [5u64, 4, 5, 0, 9]
            .iter()
            .flat_map(|t| t.to_le_bytes())
            .collect();
        put(&[&tokens]);
        assert_ne!(guard_admit_many(g, 5), 0);
        assert_eq!(
            output_bytes(5),
            [
                admit::ADVANCED as u8,
                admit::STALE as u8,
                admit::CURRENT as u8,
                admit::INVALID as u8,
                admit::ADVANCED as u8
            ]
        );
        assert_eq!(guard_admit_many(NONE, 5), 0);
    }

    #[test]
    fn lock_tables_report_through_out() {
        let _turn = serial();
        let t = object_new(kind::TABLE, false, 0, 1, 10.0, 5.0, 1, 1.0);
        let long = "x".repeat(MAX_ID_LEN + 1);
        let (l, h) = put2(&long, "A");
        assert_eq!(
            lock_call(call::ACQUIRE, t, l, h, 0, 0.0, -1.0),
            acquire::BAD_NAME
        );
        assert_eq!(
            (last_error(), last_error_detail()),
            (code::NAME_TOO_LONG, 1025)
        );
        let (l, h) = put2("x", "A");
        assert_eq!(lock_call(call::ACQUIRE, t, l, h, 0, 0.0, -1.0), 0);
        let (l, h) = put2("y", "B");
        assert_eq!(lock_call(call::ACQUIRE, t, l, h, 0, 0.0, 3.0), 0);
        assert_eq!(lock_call(call::EXPIRE_ALL, t, 0, 0, 0, 12.0, -1.0), 2);
        assert_eq!(lock_call(call::EXPIRED, t, 1, 0, 0, 0.0, -1.0), 1);
        assert_eq!(
            (name(), holder(), out_token(), out_time(), out_time2()),
            ("y".into(), "B".into(), 2, 3.0, 8.0)
        );
        assert_eq!(lock_call(call::EXPIRED, t, 2, 0, 0, 0.0, -1.0), 0);
        assert_eq!(state(t), 1);
        assert_eq!((out_depth(), out_token()), (1, 3));
        let n = lock_call(call::SNAPSHOT, t, 0, 0, 0, 0.0, -1.0) as usize;
        let snap = output_bytes(n);
        assert_eq!(&snap[..4], b"FPst");
        let n = put(&[&snap])[0];
        let u = object_new(kind::TABLE, true, n, 1, 10.0, 0.0, 1, 1.0);
        assert_ne!(u, NONE);
        assert_eq!(state(u), 1);
        assert_eq!((out_depth(), out_token()), (1, 3));
        let (l, h) = put2("x", "C");
        assert_eq!(
            lock_call(call::ACQUIRE, u, l, h, 0, 13.0, -1.0),
            acquire::LOCK_DELAY
        );
        assert_eq!(out_time(), 15.0);
        assert_eq!(
            lock_call(call::ACQUIRE, u, l, h, 0, 15.0, -1.0),
            acquire::GRANTED
        );
        assert_eq!(out_token(), 3);
        assert_eq!(lock_call(call::LEASE, u, put1("x"), 0, 0, 16.0, -1.0), 1);
        assert_eq!((holder(), out_token(), out_time()), ("C".into(), 3, 25.0));
    }

    #[test]
    fn snapshot_errors_name_the_field() {
        let _turn = serial();
        let n = put(&[b"FP"])[0];
        assert_eq!(
            object_new(kind::AUTHORITY, true, n, 1, 10.0, 0.0, 1, 1.0),
            NONE
        );
        assert_eq!(
            (last_error(), last_error_detail()),
            (code::SNAP_TRUNCATED, 4)
        );
        let n = put(&[b"nope"])[0];
        assert_eq!(
            object_new(kind::AUTHORITY, true, n, 1, 10.0, 0.0, 1, 1.0),
            NONE
        );
        assert_eq!(last_error(), code::SNAP_BAD_MAGIC);
        let a = object_new(kind::AUTHORITY, false, 0, 1, 10.0, 0.0, 1, 1.0);
        let bytes = output_bytes(lock_call(call::SNAPSHOT, a, 0, 0, 0, 0.0, -1.0) as usize);
        let n = put(&[&bytes])[0];
        assert_eq!(object_new(kind::TABLE, true, n, 1, 10.0, 0.0, 1, 1.0), NONE);
        assert_eq!(
            (last_error(), last_error_detail()),
            (code::SNAP_WRONG_KIND, 1)
        );
        assert_ne!(
            object_new(kind::AUTHORITY, true, n, 1, 10.0, 0.0, 1, 1.0),
            NONE
        );
        // An inconsistent field is named by its text: its address in the record, its length
        // as the detail.
        let mut bad = bytes.clone();
        bad[6] = 0x80;
        let body = bad.len() - 4;
        let crc = {
            let mut c = !0u32;
            for &b in &bad[..body] {
                c ^= u32::from(b);
                for _ in 0..8 {
                    c = (c >> 1) ^ (0xEDB8_8320 & (c & 1).wrapping_neg());
                }
            }
            !c
        };
        bad[body..].copy_from_slice(&crc.to_be_bytes());
        let n = put(&[&bad])[0];
        assert_eq!(
            object_new(kind::AUTHORITY, true, n, 1, 10.0, 0.0, 1, 1.0),
            NONE
        );
        assert_eq!(
            (last_error(), last_error_detail()),
            (code::SNAP_INVALID, "flags".len() as u32)
        );
    }

    #[test]
    fn the_input_area_has_a_limit_and_says_so() {
        let _turn = serial();
        assert_ne!(input(MAX_INPUT), 0);
        assert_eq!(with(0, |st| st.input.len()), MAX_INPUT);
        assert_eq!(input(MAX_INPUT + 1), 0);
        assert_ne!(input(0), 0);
    }

    #[test]
    fn names_that_are_not_utf8_are_refused_on_restore() {
        let _turn = serial();
        let cfg = fencepost::Config::new(10);
        let mut tb: fencepost::LockTable<Vec<u8>, Vec<u8>> =
            fencepost::LockTable::new(cfg).unwrap();
        tb.try_acquire(&vec![b'l', 0xff], &b"A".to_vec(), 0)
            .unwrap();
        let n = put(&[&tb.snapshot_bytes().unwrap()])[0];
        assert_eq!(object_new(kind::TABLE, true, n, 1, 10.0, 0.0, 1, 1.0), NONE);
        assert_eq!(last_error(), code::SNAP_BAD_ID);
        let mut a: fencepost::Authority<Vec<u8>> = fencepost::Authority::new(cfg).unwrap();
        a.try_acquire(&vec![0xc3], 0).unwrap();
        let n = put(&[&a.snapshot_bytes().unwrap()])[0];
        assert_eq!(
            object_new(kind::AUTHORITY, true, n, 1, 10.0, 0.0, 1, 1.0),
            NONE
        );
        assert_eq!(last_error(), code::SNAP_BAD_ID);
        // The same snapshots with UTF-8 names restore.
        let mut tb: fencepost::LockTable<Vec<u8>, Vec<u8>> =
            fencepost::LockTable::new(cfg).unwrap();
        tb.try_acquire(&"lé".as_bytes().to_vec(), &b"A".to_vec(), 0)
            .unwrap();
        let n = put(&[&tb.snapshot_bytes().unwrap()])[0];
        let t = object_new(kind::TABLE, true, n, 1, 10.0, 0.0, 1, 1.0);
        assert_ne!(t, NONE);
        assert_eq!(lock_call(call::LEASE, t, put1("lé"), 0, 0, 1.0, -1.0), 1);
        assert_eq!(holder(), "A");
    }

    #[test]
    fn idempotent_writes_hand_back_the_first_slot() {
        let _turn = serial();
        let r = object_new(kind::RESOURCE, false, 0, 0, 0.0, 0.0, 0, 0.0);
        assert_eq!(resource_write(r, 33, 1), write::APPLIED);
        assert_eq!(out_depth(), 0);
        assert_eq!(resource_write(r, 34, 2), write::APPLIED);
        assert_eq!(out_depth(), 1);
        assert_eq!(resource_write(r, 33, 1), write::DUPLICATE);
        assert_eq!(out_depth(), 0);
        assert_eq!(resource_write(r, 33, 3), write::STALE);
        assert_eq!(out_token(), 34);
        assert_eq!(resource_write(r, 0, 3), write::INVALID);
        assert_eq!(state(r), 1);
        assert_eq!((out_token(), out_depth()), (34, 2));
    }

    #[test]
    fn key_rings_sign_with_a_key_id_and_rotate() {
        let _turn = serial();
        let key = "first key, sixteen+ bytes";
        let r = object_new(kind::RING, false, put1(key), 1, 0.0, 0.0, 0, 0.0);
        assert_ne!(r, NONE);
        // The key's copy in the input area is wiped once the ring holds it.
        assert_eq!(
            with(Vec::new(), |st| st.input.clone()),
            std::vec![0; key.len()]
        );
        assert_eq!(state(r), 1);
        assert_eq!(out_depth(), 1);
        let n = signer_sign(r, put1("orders"), 34);
        let old = String::from_utf8(output_bytes(n)).unwrap();
        assert!(old.starts_with("34.1."), "{old}");
        assert_eq!(old.len(), 5 + 64);
        assert_eq!(
            ring_call(ring::ROTATE, r, put1("second key, sixteen+"), 2),
            0
        );
        assert_eq!(with(Vec::new(), |st| st.input.clone()), [0; 20]);
        assert_eq!((state(r), out_depth()), (1, 2));
        let n = signer_sign(r, put1("orders"), 35);
        let new = String::from_utf8(output_bytes(n)).unwrap();
        assert!(new.starts_with("35.2."), "{new}");
        let (l, h) = put2("orders", &old);
        assert_eq!(signer_verify(r, l, h), 34);
        let g = object_new(kind::GUARD, false, 0, 0, 0.0, 0.0, 0, 0.0);
        let (l, h) = put2("orders", &new);
        assert_eq!(guard_admit_signed(g, r, l, h), admit::ADVANCED);
        assert_eq!(ring_call(ring::REMOVE, r, 0, 2), code::CURRENT_KEY);
        assert_eq!(last_error_detail(), 2);
        assert_eq!(ring_call(ring::REMOVE, r, 0, 1), 0);
        let (l, h) = put2("orders", &old);
        assert_eq!(signer_verify(r, l, h), 0);
        assert_eq!((last_error(), last_error_detail()), (code::UNKNOWN_KEY, 1));
        let (l, h) = put2("orders", &old);
        assert_eq!(guard_admit_signed(g, r, l, h), admit::FORGED);
        assert_eq!(last_error(), code::UNKNOWN_KEY);
        // The v1 form of a signer, and a ring's form to a signer: refused as malformed.
        let (l, h) = put2("orders", &alloc::format!("34.{}", "a".repeat(64)));
        assert_eq!(guard_admit_signed(g, r, l, h), admit::MALFORMED);
        assert_eq!(last_error(), code::NO_KEY_ID);
        assert_eq!(
            ring_call(ring::ROTATE, r, put1("second key, sixteen+"), 2),
            code::KEY_ID_TAKEN
        );
        assert_eq!(
            ring_call(ring::ROTATE, r, put1("short"), 3),
            code::KEY_TOO_SHORT
        );
        assert_eq!(ring_call(9, r, 0, 3), code::UNKNOWN);
        assert_eq!(ring_call(ring::REMOVE, g, 0, 3), code::UNKNOWN);
        assert_eq!(
            object_new(kind::RING, false, put1(key), 1 << 32, 0.0, 0.0, 0, 0.0),
            NONE
        );
        assert_eq!(guard_highest(g), 35);
        free(kind::RING, r);
        assert_eq!(signer_sign(r, put1("orders"), 36), 0);
    }

    #[test]
    fn signed_tokens_round_trip() {
        let _turn = serial();
        let s = object_new(
            kind::SIGNER,
            false,
            put1("0123456789abcdef"),
            0,
            0.0,
            0.0,
            0,
            0.0,
        );
        // The key's copy in the input area is wiped once the signer holds it, and when refused.
        assert_eq!(with(Vec::new(), |st| st.input.clone()), [0; 16]);
        let short = object_new(kind::SIGNER, false, put1("short key"), 0, 0.0, 0.0, 0, 0.0);
        assert_eq!(short, NONE);
        assert_eq!(with(Vec::new(), |st| st.input.clone()), [0; 9]);
        let n = signer_sign(s, put1("orders"), 34);
        let h = String::from_utf8(output_bytes(n)).unwrap();
        assert_eq!(h.split('.').next(), Some("34"));
        assert_eq!(h.len(), 2 + 1 + 64);
        let (l, hl) = put2("orders", &h);
        assert_eq!(signer_verify(s, l, hl), 34);
        let (l, hl) = put2("invoices", &h);
        assert_eq!(signer_verify(s, l, hl), 0);
        assert_eq!(last_error(), code::FORGED);
        let (l, hl) = put2("orders", "34");
        assert_eq!(signer_verify(s, l, hl), 0);
        assert_eq!(last_error(), code::MISSING_MAC);
        let g = object_new(kind::GUARD, false, 0, 0, 0.0, 0.0, 0, 0.0);
        let (l, hl) = put2("orders", &h);
        assert_eq!(guard_admit_signed(g, s, l, hl), admit::ADVANCED);
        let forged = alloc::format!("{}.{}", u64::MAX, "a".repeat(64));
        let (l, fl) = put2("orders", &forged);
        assert_eq!(guard_admit_signed(g, s, l, fl), admit::FORGED);
        let (l, hl) = put2("orders", &h);
        assert_eq!(guard_admit_signed(g, NONE, l, hl), admit::NO_GUARD);
        assert_eq!(guard_highest(g), 34);
        assert_eq!(
            object_new(kind::SIGNER, false, put1("short"), 0, 0.0, 0.0, 0, 0.0),
            NONE
        );
        assert_eq!(
            (last_error(), last_error_detail()),
            (code::KEY_TOO_SHORT, 5)
        );
    }

    #[test]
    fn codecs() {
        let _turn = serial();
        assert_eq!(token_decode(form::DECIMAL, put1("34")), 34);
        assert_eq!(token_decode(form::DECIMAL, put1("3x")), 0);
        assert_eq!((last_error(), last_error_detail()), (code::NOT_A_DIGIT, 1));
        assert_eq!(token_decode(form::HEADER, put1("34.ab")), 0);
        assert_eq!(last_error(), code::SIGNED);
        assert_eq!(
            token_decode(form::BYTES, put(&[&[0, 0, 0, 0, 0, 0, 1, 0]])[0]),
            256
        );
        assert_eq!(token_decode(form::BYTES, put(&[&[1]])[0]), 0);
        assert_eq!((last_error(), last_error_detail()), (code::LENGTH, 1));
    }
}
