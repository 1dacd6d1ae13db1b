//! WebAssembly bindings of the fencepost core, for the npm package `fencepost`.
//!
//! These bindings are deliberately thin and speak only numbers, bigints, strings and byte arrays.
//! Every lease and fence rule lives in the `fencepost` crate; this crate turns its results into
//! small integer codes, and the package's hand-written JavaScript (`npm/src/api.js`) turns those
//! into the objects, `TypeError`s and `RangeError`s its users see.
//!
//! Nothing here may trap the instance: every function returns, whatever it is given. Results that
//! do not fit in one return value are left in an `out_*` slot of the object (or, for errors, in
//! [`last_error`] and [`last_error_detail`]) for the caller to read right after the call.
//!
//! Times cross as `f64` milliseconds (the JavaScript side only passes non-negative safe integers;
//! a cast saturates anyway). Tokens cross as `u64` (a JavaScript `bigint`); `0` means "none".
#![cfg_attr(target_arch = "wasm32", no_std)]

extern crate alloc;

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;
use core::sync::atomic::{AtomicU32, Ordering};

use fencepost::signed::SIGNED_HEADER_MAX;
use fencepost::snapshot::MAX_ID_LEN;
use fencepost::{
    AcquireError, Admission, AuthoritySnapshot, Config, Expired, FencedResource, Grant, LeaseError,
    ParseSignedError, ParseTokenError, Released, SignatureError, SignedToken, SnapshotError,
    TableSnapshot, Token, TokenSigner, WriteOutcome,
};
use wasm_bindgen::prelude::wasm_bindgen;

#[cfg(target_arch = "wasm32")]
mod heap;

#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOC: heap::SizeClasses = heap::SizeClasses::new();

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
    /// An error this build of the bindings does not know (the core's enums are non-exhaustive).
    pub const UNKNOWN: u32 = 99;
}

/// Field names a snapshot error can name, in the order of their detail numbers.
pub const SNAPSHOT_FIELDS: &[&str] = &[
    "flags",
    "next_token",
    "reserved_through",
    "lease.token",
    "lease.depth",
    "lease.expires_at",
    "locks",
    "locks.flags",
    "locks.name",
];

fn fail(code: u32, detail: usize) -> u32 {
    LAST_ERROR.store(code, Ordering::Relaxed);
    LAST_DETAIL.store(u32::try_from(detail).unwrap_or(u32::MAX), Ordering::Relaxed);
    code
}

/// The code of the last error (only meaningful right after a call reported one).
#[wasm_bindgen]
pub fn last_error() -> u32 {
    LAST_ERROR.load(Ordering::Relaxed)
}

/// The number that goes with the last error (a byte offset, a length, a field index ...).
#[wasm_bindgen]
pub fn last_error_detail() -> u32 {
    LAST_DETAIL.load(Ordering::Relaxed)
}

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

fn parse_signed_error(e: ParseSignedError) -> u32 {
    match e {
        ParseSignedError::Token(e) => parse_error(e),
        ParseSignedError::MissingMac => fail(code::MISSING_MAC, 0),
        ParseSignedError::Truncated { len } => fail(code::MAC_TRUNCATED, len),
        ParseSignedError::TooLong { len } => fail(code::MAC_TOO_LONG, len),
        ParseSignedError::BadHex { at } => fail(code::BAD_HEX, at),
        _ => fail(code::UNKNOWN, 0),
    }
}

fn signature_error(e: SignatureError) -> u32 {
    match e {
        SignatureError::Forged => fail(code::FORGED, 0),
        SignatureError::KeyTooShort { len } => fail(code::KEY_TOO_SHORT, len),
        SignatureError::LockNameTooLong => fail(code::LOCK_NAME_TOO_LONG, 0),
        _ => fail(code::UNKNOWN, 0),
    }
}

fn config_error(e: fencepost::ConfigError) -> u32 {
    match e {
        fencepost::ConfigError::ZeroTtl => fail(code::ZERO_TTL, 0),
        fencepost::ConfigError::ZeroReentry => fail(code::ZERO_REENTRY, 0),
        fencepost::ConfigError::ZeroReserveBlock => fail(code::ZERO_RESERVE_BLOCK, 0),
        _ => fail(code::UNKNOWN, 0),
    }
}

fn snapshot_error(e: SnapshotError) -> u32 {
    match e {
        SnapshotError::Truncated { needed, .. } => fail(code::SNAP_TRUNCATED, needed),
        SnapshotError::BadMagic => fail(code::SNAP_BAD_MAGIC, 0),
        SnapshotError::UnsupportedVersion(v) => fail(code::SNAP_VERSION, usize::from(v)),
        SnapshotError::WrongKind(k) => fail(code::SNAP_WRONG_KIND, usize::from(k)),
        SnapshotError::Checksum => fail(code::SNAP_CHECKSUM, 0),
        SnapshotError::TrailingBytes(n) => fail(code::SNAP_TRAILING, n),
        SnapshotError::Invalid(field) => fail(
            code::SNAP_INVALID,
            SNAPSHOT_FIELDS
                .iter()
                .position(|f| *f == field)
                .unwrap_or(SNAPSHOT_FIELDS.len()),
        ),
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

fn name_ok(s: &str) -> bool {
    if s.len() <= MAX_ID_LEN {
        true
    } else {
        fail(code::NAME_TOO_LONG, s.len());
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
    /// Refused: the signed token could not be parsed (see `last_error`).
    pub const MALFORMED: u32 = 6;
    /// The index is not a guard (it was freed).
    pub const NO_GUARD: u32 = 8;
}

#[inline]
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
    /// Granted: `out_token`, `out_time` (expires at), `out_time2` (granted at), `out_depth`.
    pub const GRANTED: u32 = 0;
    /// Another holder has it: `out_holder`, `out_time` (until).
    pub const HELD: u32 = 1;
    /// In lock-delay after an expiry: `out_time` (until).
    pub const LOCK_DELAY: u32 = 2;
    /// Re-entered as deep as allowed: `out_depth` (the limit).
    pub const REENTRY_LIMIT: u32 = 3;
    /// Every token was issued.
    pub const EXHAUSTED: u32 = 4;
    /// The holder id (or lock name) is too long: see `last_error`.
    pub const BAD_NAME: u32 = 5;
    /// A refusal this build does not know.
    pub const OTHER: u32 = 6;
}

/// Results of the last call, read by the caller through the `out_*` methods.
#[derive(Default)]
struct Out {
    token: u64,
    time: u64,
    time2: u64,
    depth: u32,
    holder: String,
}

impl Out {
    fn acquired(&mut self, r: Result<Grant, AcquireError<String>>) -> u32 {
        match r {
            Ok(g) => {
                self.token = g.token.get();
                self.time = g.expires_at;
                self.time2 = g.granted_at;
                self.depth = g.depth;
                acquire::GRANTED
            }
            Err(AcquireError::Held { holder, until }) => {
                self.holder = holder;
                self.time = until;
                acquire::HELD
            }
            Err(AcquireError::LockDelay { until }) => {
                self.time = until;
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

    /// 0: renewed (`out_token`, `out_time`); 1: lost.
    fn renewed(&mut self, r: Result<fencepost::Renewal, LeaseError>) -> u32 {
        match r {
            Ok(r) => {
                self.token = r.token.get();
                self.time = r.expires_at;
                0
            }
            Err(_) => 1,
        }
    }

    /// 0: released (`out_depth`: remaining depth, 0 when free); 1: lost.
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

    /// 1: an expiry (`out_holder`, `out_token`, `out_time` at, `out_time2` free at); 0: none.
    fn expired(&mut self, e: Option<Expired<String>>) -> u32 {
        match e {
            Some(e) => {
                self.holder = e.holder;
                self.token = e.token.get();
                self.time = e.at;
                self.time2 = e.free_at;
                1
            }
            None => 0,
        }
    }

    /// 1: a live lease (`out_holder`, `out_token`, `out_time` expires, `out_time2` granted,
    /// `out_depth`); 0: none.
    fn lease(&mut self, l: Option<&fencepost::Lease<String>>) -> u32 {
        match l {
            Some(l) => {
                self.holder.clone_from(&l.holder);
                self.token = l.token.get();
                self.time = l.expires_at;
                self.time2 = l.granted_at;
                self.depth = l.depth;
                1
            }
            None => 0,
        }
    }
}

/// The `out_*` readers shared by the two authorities.
macro_rules! out_readers {
    ($t:ty) => {
        #[wasm_bindgen]
        impl $t {
            /// Token of the last result.
            pub fn out_token(&self) -> u64 {
                self.out.token
            }
            /// First time of the last result.
            pub fn out_time(&self) -> f64 {
                js_ms(self.out.time)
            }
            /// Second time of the last result.
            pub fn out_time2(&self) -> f64 {
                js_ms(self.out.time2)
            }
            /// Depth (or limit) of the last result.
            pub fn out_depth(&self) -> u32 {
                self.out.depth
            }
            /// Holder of the last result.
            pub fn out_holder(&self) -> String {
                self.out.holder.clone()
            }
        }
    };
}

// ---------------------------------------------------------------------------------------------
// One lock.

/// [`fencepost::Authority`] with string holder ids.
#[wasm_bindgen]
pub struct Authority {
    inner: fencepost::Authority<String>,
    out: Out,
}

out_readers!(Authority);

#[wasm_bindgen]
impl Authority {
    /// A fresh authority; `None` (see `last_error`) when the config is invalid.
    pub fn create(
        ttl: f64,
        lock_delay: f64,
        max_reentry: u32,
        first: u64,
        block: f64,
    ) -> Option<Authority> {
        let cfg = config(ttl, lock_delay, max_reentry, first, block)?;
        match fencepost::Authority::new(cfg) {
            Ok(inner) => Some(Authority {
                inner,
                out: Out::default(),
            }),
            Err(e) => {
                config_error(e);
                None
            }
        }
    }

    /// Resumes from a binary snapshot; `None` (see `last_error`) when it is refused.
    pub fn restore(
        bytes: &[u8],
        ttl: f64,
        lock_delay: f64,
        max_reentry: u32,
        first: u64,
        block: f64,
    ) -> Option<Authority> {
        let cfg = config(ttl, lock_delay, max_reentry, first, block)?;
        let restored = AuthoritySnapshot::<String>::decode(bytes)
            .and_then(|snap| fencepost::Authority::restore(cfg, snap));
        match restored {
            Ok(inner) => Some(Authority {
                inner,
                out: Out::default(),
            }),
            Err(e) => {
                snapshot_error(e);
                None
            }
        }
    }

    /// Acquires for `holder` (see [`acquire`] for the codes). A negative `ttl` means the default.
    pub fn acquire(&mut self, holder: String, now: f64, ttl: f64) -> u32 {
        if !name_ok(&holder) {
            return acquire::BAD_NAME;
        }
        let now = ms(now);
        let r = if ttl < 0.0 {
            self.inner.try_acquire(&holder, now)
        } else {
            self.inner.try_acquire_for(&holder, ms(ttl), now)
        };
        self.out.acquired(r)
    }

    /// Renews; 0 renewed, 1 lost. A negative `ttl` means the default.
    pub fn renew(&mut self, holder: String, token: u64, now: f64, ttl: f64) -> u32 {
        let Some(token) = Token::new(token) else {
            return 1;
        };
        let now = ms(now);
        let r = if ttl < 0.0 {
            self.inner.renew(&holder, token, now)
        } else {
            self.inner.renew_for(&holder, token, ms(ttl), now)
        };
        self.out.renewed(r)
    }

    /// Releases one level; 0 released, 1 lost.
    pub fn release(&mut self, holder: String, token: u64, now: f64) -> u32 {
        let Some(token) = Token::new(token) else {
            return 1;
        };
        let r = self.inner.release(&holder, token, ms(now));
        self.out.released(r)
    }

    /// Notices an expiry; 1 when there was one.
    pub fn expire(&mut self, now: f64) -> u32 {
        let e = self.inner.expire(ms(now));
        self.out.expired(e)
    }

    /// The live lease; 1 when there is one.
    pub fn lease(&mut self, now: f64) -> u32 {
        let l = self.inner.lease(ms(now));
        self.out.lease(l)
    }

    /// The next token a fresh grant carries (0: exhausted).
    pub fn next_token(&self) -> u64 {
        self.inner.next_token().map_or(0, Token::get)
    }

    /// The highest token issued (0: none yet).
    pub fn last_issued(&self) -> u64 {
        self.inner.last_issued().map_or(0, Token::get)
    }

    /// Highest token covered by a reservation.
    pub fn reserved_through(&self) -> u64 {
        self.inner.reserved_through()
    }

    /// End of a pending lock-delay.
    pub fn free_at(&self) -> f64 {
        js_ms(self.inner.free_at())
    }

    /// Latest time seen.
    pub fn latest_now(&self) -> f64 {
        js_ms(self.inner.timeline().latest())
    }

    /// Clamped readings so far.
    pub fn clamps(&self) -> f64 {
        js_ms(self.inner.timeline().clamps())
    }

    /// The binary snapshot (empty, see `last_error`, if it cannot be encoded).
    pub fn snapshot(&self) -> Vec<u8> {
        self.inner.snapshot().to_bytes().unwrap_or_else(|e| {
            snapshot_error(e);
            Vec::new()
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Many locks.

/// [`fencepost::LockTable`] with string lock names and holder ids.
#[wasm_bindgen]
pub struct LockTable {
    inner: fencepost::LockTable<String, String>,
    out: Out,
    expired: Vec<(String, Expired<String>)>,
}

out_readers!(LockTable);

#[wasm_bindgen]
impl LockTable {
    /// An empty table; `None` (see `last_error`) when the config is invalid.
    pub fn create(
        ttl: f64,
        lock_delay: f64,
        max_reentry: u32,
        first: u64,
        block: f64,
    ) -> Option<LockTable> {
        let cfg = config(ttl, lock_delay, max_reentry, first, block)?;
        match fencepost::LockTable::new(cfg) {
            Ok(inner) => Some(LockTable {
                inner,
                out: Out::default(),
                expired: Vec::new(),
            }),
            Err(e) => {
                config_error(e);
                None
            }
        }
    }

    /// Resumes from a binary snapshot; `None` (see `last_error`) when it is refused.
    pub fn restore(
        bytes: &[u8],
        ttl: f64,
        lock_delay: f64,
        max_reentry: u32,
        first: u64,
        block: f64,
    ) -> Option<LockTable> {
        let cfg = config(ttl, lock_delay, max_reentry, first, block)?;
        let restored = TableSnapshot::<String, String>::decode(bytes)
            .and_then(|snap| fencepost::LockTable::restore(cfg, snap));
        match restored {
            Ok(inner) => Some(LockTable {
                inner,
                out: Out::default(),
                expired: Vec::new(),
            }),
            Err(e) => {
                snapshot_error(e);
                None
            }
        }
    }

    /// Acquires `lock` for `holder` (codes as for [`Authority::acquire`]).
    pub fn acquire(&mut self, lock: String, holder: String, now: f64, ttl: f64) -> u32 {
        if !name_ok(&lock) || !name_ok(&holder) {
            return acquire::BAD_NAME;
        }
        let now = ms(now);
        let r = if ttl < 0.0 {
            self.inner.try_acquire(&lock, &holder, now)
        } else {
            self.inner.try_acquire_for(&lock, &holder, ms(ttl), now)
        };
        self.out.acquired(r)
    }

    /// Renews; 0 renewed, 1 lost.
    pub fn renew(&mut self, lock: String, holder: String, token: u64, now: f64, ttl: f64) -> u32 {
        let Some(token) = Token::new(token) else {
            return 1;
        };
        let now = ms(now);
        let r = if ttl < 0.0 {
            self.inner.renew(&lock, &holder, token, now)
        } else {
            self.inner.renew_for(&lock, &holder, token, ms(ttl), now)
        };
        self.out.renewed(r)
    }

    /// Releases one level; 0 released, 1 lost.
    pub fn release(&mut self, lock: String, holder: String, token: u64, now: f64) -> u32 {
        let Some(token) = Token::new(token) else {
            return 1;
        };
        let r = self.inner.release(&lock, &holder, token, ms(now));
        self.out.released(r)
    }

    /// Notices the expiry of `lock`; 1 when there was one.
    pub fn expire(&mut self, lock: String, now: f64) -> u32 {
        let e = self.inner.expire(&lock, ms(now));
        self.out.expired(e)
    }

    /// Notices every expiry due; returns how many (read them with `expired_*`).
    pub fn expire_all(&mut self, now: f64) -> u32 {
        self.expired = self.inner.expire_all(ms(now));
        u32::try_from(self.expired.len()).unwrap_or(u32::MAX)
    }

    /// Lock name of expiry `i` of the last `expire_all`.
    pub fn expired_lock(&self, i: u32) -> String {
        self.expired_at(i)
            .map(|(l, _)| l.clone())
            .unwrap_or_default()
    }

    /// Holder of expiry `i`.
    pub fn expired_holder(&self, i: u32) -> String {
        self.expired_at(i)
            .map(|(_, e)| e.holder.clone())
            .unwrap_or_default()
    }

    /// Token of expiry `i`.
    pub fn expired_token(&self, i: u32) -> u64 {
        self.expired_at(i).map_or(0, |(_, e)| e.token.get())
    }

    /// When expiry `i` happened.
    pub fn expired_time(&self, i: u32) -> f64 {
        self.expired_at(i).map_or(0.0, |(_, e)| js_ms(e.at))
    }

    /// When the lock of expiry `i` may be granted again.
    pub fn expired_free_at(&self, i: u32) -> f64 {
        self.expired_at(i).map_or(0.0, |(_, e)| js_ms(e.free_at))
    }

    fn expired_at(&self, i: u32) -> Option<&(String, Expired<String>)> {
        self.expired.get(usize::try_from(i).ok()?)
    }

    /// The live lease on `lock`; 1 when there is one.
    pub fn lease(&mut self, lock: String, now: f64) -> u32 {
        let l = self.inner.lease(&lock, ms(now));
        self.out.lease(l)
    }

    /// Locks the table remembers.
    pub fn len(&self) -> u32 {
        u32::try_from(self.inner.len()).unwrap_or(u32::MAX)
    }

    /// Whether the table remembers no lock.
    pub fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }

    /// The next token a fresh grant carries (0: exhausted).
    pub fn next_token(&self) -> u64 {
        self.inner.next_token().map_or(0, Token::get)
    }

    /// The highest token issued (0: none yet).
    pub fn last_issued(&self) -> u64 {
        self.inner.last_issued().map_or(0, Token::get)
    }

    /// Highest token covered by a reservation.
    pub fn reserved_through(&self) -> u64 {
        self.inner.reserved_through()
    }

    /// Latest time seen.
    pub fn latest_now(&self) -> f64 {
        js_ms(self.inner.timeline().latest())
    }

    /// Clamped readings so far.
    pub fn clamps(&self) -> f64 {
        js_ms(self.inner.timeline().clamps())
    }

    /// The binary snapshot (empty, see `last_error`, if it cannot be encoded).
    pub fn snapshot(&self) -> Vec<u8> {
        self.inner.snapshot().to_bytes().unwrap_or_else(|e| {
            snapshot_error(e);
            Vec::new()
        })
    }
}

// ---------------------------------------------------------------------------------------------
// The resource side.

/// Tokens one `guard_admit_many` call takes at most; the caller splits larger batches.
pub const BATCH: usize = 16_384;

/// Every guard of the instance (a `FenceGuard` or one resource of a `GuardMap` on the JavaScript
/// side owns one index), with the shared buffers for batches.
///
/// Guards live in one table instead of one wasm-bindgen object each so that the hot path, `admit`,
/// is a free function of an index and a token: no reference counting or borrow flags per call.
struct GuardTable {
    guards: Vec<fencepost::Guard>,
    /// Indices freed by their owners, reused first.
    unused: Vec<u32>,
    batch_in: Vec<u64>,
    batch_out: Vec<u8>,
}

impl GuardTable {
    const fn new() -> GuardTable {
        GuardTable {
            guards: Vec::new(),
            unused: Vec::new(),
            batch_in: Vec::new(),
            batch_out: Vec::new(),
        }
    }
}

/// The module runs on one thread; natively (tests) each thread gets its own table.
#[cfg(target_arch = "wasm32")]
mod single {
    use super::GuardTable;
    use core::cell::RefCell;

    pub struct Global(pub RefCell<GuardTable>);
    // SAFETY: wasm32-unknown-unknown without the atomics feature has exactly one thread.
    unsafe impl Sync for Global {}
    pub static GUARDS: Global = Global(RefCell::new(GuardTable::new()));

    #[inline(always)]
    pub fn with<R>(fallback: R, f: impl FnOnce(&mut GuardTable) -> R) -> R {
        match GUARDS.0.try_borrow_mut() {
            Ok(mut t) => f(&mut t),
            Err(_) => fallback,
        }
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod single {
    use super::GuardTable;
    use std::cell::RefCell;

    std::thread_local! {
        static GUARDS: RefCell<GuardTable> = const { RefCell::new(GuardTable::new()) };
    }

    pub fn with<R>(fallback: R, f: impl FnOnce(&mut GuardTable) -> R) -> R {
        GUARDS.with(|g| match g.try_borrow_mut() {
            Ok(mut t) => f(&mut t),
            Err(_) => fallback,
        })
    }
}

/// A new guard whose highest token is `highest` (0: none yet); returns its index.
#[wasm_bindgen]
pub fn guard_new(highest: u64) -> u32 {
    single::with(u32::MAX, |t| {
        let g = fencepost::Guard::with_highest(Token::new(highest));
        match t.unused.pop() {
            Some(i) => {
                if let Some(slot) = t.guards.get_mut(i as usize) {
                    *slot = g;
                }
                i
            }
            None => {
                t.guards.push(g);
                u32::try_from(t.guards.len() - 1).unwrap_or(u32::MAX)
            }
        }
    })
}

/// Gives guard `i` back; its index is reused by a later `guard_new`.
#[wasm_bindgen]
pub fn guard_drop(i: u32) {
    single::with((), |t| {
        if (i as usize) < t.guards.len() && !t.unused.contains(&i) {
            t.unused.push(i);
        }
    })
}

/// Compare-and-advance on guard `i` (see [`admit`] for the codes; [`admit::NO_GUARD`] for an
/// index that is not a guard).
#[wasm_bindgen]
pub fn guard_admit(i: u32, token: u64) -> u32 {
    single::with(admit::NO_GUARD, |t| match t.guards.get_mut(i as usize) {
        Some(g) => admission(g.admit_raw(token)),
        None => admit::NO_GUARD,
    })
}

/// What `guard_admit` would answer.
#[wasm_bindgen]
pub fn guard_check(i: u32, token: u64) -> u32 {
    single::with(admit::NO_GUARD, |t| match t.guards.get(i as usize) {
        Some(g) => admission(g.check_raw(token)),
        None => admit::NO_GUARD,
    })
}

/// The highest token guard `i` accepted (0: none, or not a guard).
#[wasm_bindgen]
pub fn guard_highest(i: u32) -> u64 {
    single::with(0, |t| {
        t.guards
            .get(i as usize)
            .and_then(fencepost::Guard::highest)
            .map_or(0, Token::get)
    })
}

/// Makes room for a batch of `n` tokens (at most [`BATCH`]) and returns the address of the `u64`
/// array the caller fills before `guard_admit_many` (0 if there is no room).
#[wasm_bindgen]
pub fn guard_batch(n: usize) -> usize {
    single::with(0, |t| {
        let n = n.min(BATCH);
        t.batch_in.resize(n, 0);
        t.batch_out.resize(n, 0);
        t.batch_in.as_ptr() as usize
    })
}

/// Admits the batch on guard `i`, in order, and returns the address of its outcome codes (one
/// byte per token; 0 if `i` is not a guard).
#[wasm_bindgen]
pub fn guard_admit_many(i: u32) -> usize {
    single::with(0, |t| {
        let Some(g) = t.guards.get_mut(i as usize) else {
            return 0;
        };
        for (tok, out) in t.batch_in.iter().zip(t.batch_out.iter_mut()) {
            *out = admission(g.admit_raw(*tok)) as u8;
        }
        t.batch_out.as_ptr() as usize
    })
}

/// Verifies a signed header value for `lock`, then admits its token on guard `i` (see [`admit`]).
#[wasm_bindgen]
pub fn guard_admit_signed(i: u32, signer: &Signer, lock: &str, header: &str) -> u32 {
    let st = match SignedToken::from_header(header.as_bytes()) {
        Ok(st) => st,
        Err(e) => {
            parse_signed_error(e);
            return admit::MALFORMED;
        }
    };
    single::with(admit::NO_GUARD, |t| {
        let Some(g) = t.guards.get_mut(i as usize) else {
            return admit::NO_GUARD;
        };
        match g.admit_signed(&signer.inner, lock.as_bytes(), &st) {
            Ok(a) => admission(a),
            Err(SignatureError::Forged) => admit::FORGED,
            Err(e) => {
                signature_error(e);
                admit::MALFORMED
            }
        }
    })
}

// ---------------------------------------------------------------------------------------------
// Idempotency.

/// Write codes of [`Resource::write`].
pub mod write {
    /// Applied now: run the operation; `out` is its new outcome slot.
    pub const APPLIED: u32 = 0;
    /// A retry: `out` is the slot of the first outcome.
    pub const DUPLICATE: u32 = 1;
    /// Stale: `out_highest` is the highest token accepted.
    pub const STALE: u32 = 2;
    /// Token 0.
    pub const INVALID: u32 = 3;
}

/// Operations a resource's idempotency ledger remembers.
pub const LEDGER_CAPACITY: usize = 64;

/// [`fencepost::FencedResource`]: the outcome the ledger keeps is a slot number; the caller keeps
/// the real outcome under that number.
#[wasm_bindgen]
pub struct Resource {
    inner: Box<FencedResource<u32, LEDGER_CAPACITY>>,
    next_slot: u32,
    out: u32,
}

#[wasm_bindgen]
impl Resource {
    /// A resource that has accepted nothing.
    pub fn create() -> Resource {
        Resource {
            inner: Box::default(),
            next_slot: 0,
            out: 0,
        }
    }

    /// Runs the ledger, then the guard (see [`write`] for the codes).
    pub fn write(&mut self, token: u64, op: u64) -> u32 {
        let slot = self.next_slot;
        let outcome = self.inner.write(token, op, || slot);
        match outcome {
            WriteOutcome::Applied(s) => {
                self.next_slot = slot.wrapping_add(1);
                self.out = s;
                write::APPLIED
            }
            WriteOutcome::Duplicate(s) => {
                self.out = s;
                write::DUPLICATE
            }
            WriteOutcome::Stale { .. } => write::STALE,
            WriteOutcome::Invalid => write::INVALID,
        }
    }

    /// The outcome slot of the last write.
    pub fn out(&self) -> u32 {
        self.out
    }

    /// The highest token accepted (0: none).
    pub fn highest(&self) -> u64 {
        self.inner.guard().highest().map_or(0, Token::get)
    }

    /// Operations the ledger remembers.
    pub fn len(&self) -> u32 {
        self.inner.ledger().len() as u32
    }

    /// Whether the ledger is empty.
    pub fn is_empty(&self) -> bool {
        self.inner.ledger().is_empty()
    }
}

// ---------------------------------------------------------------------------------------------
// Signed tokens.

/// [`fencepost::TokenSigner`].
#[wasm_bindgen]
pub struct Signer {
    inner: TokenSigner,
}

#[wasm_bindgen]
impl Signer {
    /// A signer for `key`; `None` (see `last_error`) for a key that is too short.
    pub fn create(key: &[u8]) -> Option<Signer> {
        match TokenSigner::new(key) {
            Ok(inner) => Some(Signer { inner }),
            Err(e) => {
                signature_error(e);
                None
            }
        }
    }

    /// The header value `<token>.<mac hex>` (empty, see `last_error`, on failure).
    pub fn sign(&self, lock: &str, token: u64) -> String {
        match self.signed(lock, token) {
            Some(st) => {
                let mut buf = [0; SIGNED_HEADER_MAX];
                String::from(st.to_header(&mut buf))
            }
            None => String::new(),
        }
    }

    fn signed(&self, lock: &str, token: u64) -> Option<SignedToken> {
        let Some(token) = Token::new(token) else {
            parse_error(ParseTokenError::Zero);
            return None;
        };
        match self.inner.sign(lock.as_bytes(), token) {
            Ok(st) => Some(st),
            Err(e) => {
                signature_error(e);
                None
            }
        }
    }

    /// Verifies a header value for `lock`: the token, or 0 (see `last_error`: forged or
    /// malformed).
    pub fn verify(&self, lock: &str, header: &str) -> u64 {
        match SignedToken::from_header(header.as_bytes()) {
            Ok(st) => self.verified(lock, &st),
            Err(e) => {
                parse_signed_error(e);
                0
            }
        }
    }

    fn verified(&self, lock: &str, st: &SignedToken) -> u64 {
        match self.inner.verify(lock.as_bytes(), st) {
            Ok(t) => t.get(),
            Err(e) => {
                signature_error(e);
                0
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Token codecs.

fn token_or_zero(r: Result<Token, ParseTokenError>) -> u64 {
    match r {
        Ok(t) => t.get(),
        Err(e) => {
            parse_error(e);
            0
        }
    }
}

/// Parses the strict decimal form: the token, or 0 (see `last_error`).
#[wasm_bindgen]
pub fn token_parse(s: &str) -> u64 {
    token_or_zero(Token::parse_decimal(s))
}

/// Parses an unsigned `Fencing-Token` header value: the token, or 0 (see `last_error`).
#[wasm_bindgen]
pub fn token_from_header(s: &str) -> u64 {
    token_or_zero(Token::from_header(s.as_bytes()))
}

/// Parses the 8-byte big-endian form: the token, or 0 (see `last_error`).
#[wasm_bindgen]
pub fn token_from_bytes(b: &[u8]) -> u64 {
    token_or_zero(Token::from_be_slice(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The last error is one global: tests that read it take turns.
    fn serial() -> std::sync::MutexGuard<'static, ()> {
        static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
        LOCK.lock().unwrap_or_else(|e| e.into_inner())
    }

    #[test]
    fn the_story_through_the_bindings() {
        let _turn = serial();
        let mut auth = Authority::create(30_000.0, 0.0, u32::MAX, 33, 1.0).unwrap();
        assert_eq!(auth.acquire("A".into(), 0.0, -1.0), acquire::GRANTED);
        assert_eq!((auth.out_token(), auth.out_time()), (33, 30_000.0));
        assert_eq!(auth.acquire("B".into(), 10_000.0, -1.0), acquire::HELD);
        assert_eq!((auth.out_holder(), auth.out_time()), ("A".into(), 30_000.0));
        assert_eq!(auth.acquire("B".into(), 45_000.0, -1.0), acquire::GRANTED);
        assert_eq!((auth.out_token(), auth.out_time()), (34, 75_000.0));
        let guard = guard_new(0);
        assert_eq!(guard_admit(guard, 34), admit::ADVANCED);
        assert_eq!(guard_admit(guard, 33), admit::STALE);
        assert_eq!(guard_admit(guard, 34), admit::CURRENT);
        assert_eq!(guard_admit(guard, 0), admit::INVALID);
        assert_eq!(guard_highest(guard), 34);
        assert_eq!(guard_admit(guard + 1, 35), admit::NO_GUARD);
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
    fn guard_indices_are_reused_and_reset() {
        let _turn = serial();
        let a = guard_new(0);
        let b = guard_new(7);
        assert_eq!(guard_highest(b), 7);
        guard_drop(b);
        guard_drop(b);
        let c = guard_new(0);
        assert_eq!(c, b);
        assert_eq!(guard_highest(c), 0);
        assert_ne!(guard_new(0), c);
        assert_eq!(guard_admit(a, 1), admit::ADVANCED);
    }

    #[test]
    fn config_errors_are_codes() {
        let _turn = serial();
        assert!(Authority::create(0.0, 0.0, 1, 1, 1.0).is_none());
        assert_eq!(last_error(), code::ZERO_TTL);
        assert!(LockTable::create(1.0, 0.0, 1, 0, 1.0).is_none());
        assert_eq!(last_error(), code::ZERO_FIRST_TOKEN);
        assert!(Authority::create(f64::NAN, 0.0, 1, 1, 1.0).is_none());
        assert_eq!(last_error(), code::ZERO_TTL);
    }

    #[test]
    fn batches_keep_order() {
        let _turn = serial();
        let g = guard_new(0);
        let _ = guard_batch(5);
        single::with((), |t| t.batch_in.copy_from_slice(&[5, 4, 5, 0, 9]));
        assert_ne!(guard_admit_many(g), 0);
        assert_eq!(
            single::with(Vec::new(), |t| t.batch_out.clone()),
            [
                admit::ADVANCED as u8,
                admit::STALE as u8,
                admit::CURRENT as u8,
                admit::INVALID as u8,
                admit::ADVANCED as u8
            ]
        );
        let _ = guard_batch(usize::MAX);
        assert_eq!(single::with(0, |t| t.batch_in.len()), BATCH);
        assert_eq!(guard_admit_many(99), 0);
    }

    #[test]
    fn long_names_are_refused_before_the_core() {
        let _turn = serial();
        let mut t = LockTable::create(10.0, 0.0, 1, 1, 1.0).unwrap();
        let long = "x".repeat(MAX_ID_LEN + 1);
        assert_eq!(t.acquire(long, "A".into(), 0.0, -1.0), acquire::BAD_NAME);
        assert_eq!(
            (last_error(), last_error_detail()),
            (code::NAME_TOO_LONG, 1025)
        );
        assert!(t.is_empty());
    }

    #[test]
    fn snapshot_errors_name_the_field() {
        let _turn = serial();
        assert!(Authority::restore(b"FP", 10.0, 0.0, 1, 1, 1.0).is_none());
        assert_eq!(
            (last_error(), last_error_detail()),
            (code::SNAP_TRUNCATED, 4)
        );
        assert!(Authority::restore(b"nope", 10.0, 0.0, 1, 1, 1.0).is_none());
        assert_eq!(last_error(), code::SNAP_BAD_MAGIC);
        let a = Authority::create(10.0, 0.0, 1, 1, 1.0).unwrap();
        let bytes = a.snapshot();
        assert!(LockTable::restore(&bytes, 10.0, 0.0, 1, 1, 1.0).is_none());
        assert_eq!(
            (last_error(), last_error_detail()),
            (code::SNAP_WRONG_KIND, 1)
        );
        assert!(Authority::restore(&bytes, 10.0, 0.0, 1, 1, 1.0).is_some());
    }

    #[test]
    fn idempotent_writes_hand_back_the_first_slot() {
        let _turn = serial();
        let mut r = Resource::create();
        assert_eq!(r.write(33, 1), write::APPLIED);
        assert_eq!(r.out(), 0);
        assert_eq!(r.write(34, 2), write::APPLIED);
        assert_eq!(r.out(), 1);
        assert_eq!(r.write(33, 1), write::DUPLICATE);
        assert_eq!(r.out(), 0);
        assert_eq!(r.write(33, 3), write::STALE);
        assert_eq!(r.write(0, 3), write::INVALID);
        assert_eq!((r.highest(), r.len()), (34, 2));
    }

    #[test]
    fn signed_tokens_round_trip() {
        let _turn = serial();
        let s = Signer::create(b"0123456789abcdef").unwrap();
        let h = s.sign("orders", 34);
        assert_eq!(s.verify("orders", &h), 34);
        assert_eq!(s.verify("invoices", &h), 0);
        assert_eq!(last_error(), code::FORGED);
        assert_eq!(s.verify("orders", "34"), 0);
        assert_eq!(last_error(), code::MISSING_MAC);
        let g = guard_new(0);
        assert_eq!(guard_admit_signed(g, &s, "orders", &h), admit::ADVANCED);
        let forged = alloc::format!("{}.{}", u64::MAX, "a".repeat(64));
        assert_eq!(guard_admit_signed(g, &s, "orders", &forged), admit::FORGED);
        assert_eq!(guard_highest(g), 34);
        assert!(Signer::create(b"short").is_none());
        assert_eq!(
            (last_error(), last_error_detail()),
            (code::KEY_TOO_SHORT, 5)
        );
    }

    #[test]
    fn codecs() {
        let _turn = serial();
        assert_eq!(token_parse("34"), 34);
        assert_eq!(token_parse("3x"), 0);
        assert_eq!((last_error(), last_error_detail()), (code::NOT_A_DIGIT, 1));
        assert_eq!(token_from_header("34.ab"), 0);
        assert_eq!(last_error(), code::SIGNED);
        assert_eq!(token_from_bytes(&[0, 0, 0, 0, 0, 0, 1, 0]), 256);
        assert_eq!(token_from_bytes(&[1]), 0);
        assert_eq!((last_error(), last_error_detail()), (code::LENGTH, 1));
    }
}
