//! Errors: a code and one number of detail, read by the caller right after a failed call (through
//! the `error` and `detail` fields of the `Out` record).

use core::sync::atomic::{AtomicU32, Ordering};

use fencepost::{ParseSignedError, ParseTokenError, SignatureError, SnapshotError};

pub(crate) static LAST_ERROR: AtomicU32 = AtomicU32::new(0);
pub(crate) static LAST_DETAIL: AtomicU32 = AtomicU32::new(0);
/// The address of the field an inconsistent snapshot names (its length is the detail).
pub(crate) static LAST_FIELD: AtomicU32 = AtomicU32::new(0);

/// Error codes shared with the package (`npm/src/errors.js` holds the messages).
pub mod code {
    crate::numbered! {
        /// Token parse errors, [`fencepost::ParseTokenError`].
        EMPTY = 1;
        #[allow(missing_docs)]
        WHITESPACE = 2;
        #[allow(missing_docs)]
        SIGN = 3;
        #[allow(missing_docs)]
        NOT_A_DIGIT = 4;
        #[allow(missing_docs)]
        LEADING_ZERO = 5;
        #[allow(missing_docs)]
        ZERO = 6;
        #[allow(missing_docs)]
        OVERFLOW = 7;
        #[allow(missing_docs)]
        LENGTH = 8;
        #[allow(missing_docs)]
        SIGNED = 9;
        /// Signed token parse errors, [`fencepost::ParseSignedError`].
        MISSING_MAC = 10;
        #[allow(missing_docs)]
        MAC_TRUNCATED = 11;
        #[allow(missing_docs)]
        MAC_TOO_LONG = 12;
        #[allow(missing_docs)]
        BAD_HEX = 13;
        /// Signature errors, [`fencepost::SignatureError`].
        FORGED = 14;
        #[allow(missing_docs)]
        KEY_TOO_SHORT = 15;
        #[allow(missing_docs)]
        LOCK_NAME_TOO_LONG = 16;
        /// A keyed token parse error: the v1 form, without a key id.
        NO_KEY_ID = 17;
        /// A keyed token parse error: the key id is not a `u32` in decimal (detail: its byte
        /// offset).
        BAD_KEY_ID = 18;
        /// A key id the ring does not hold (detail: the id).
        UNKNOWN_KEY = 19;
        /// Snapshot errors, [`fencepost::SnapshotError`].
        SNAP_TRUNCATED = 20;
        #[allow(missing_docs)]
        SNAP_BAD_MAGIC = 21;
        #[allow(missing_docs)]
        SNAP_VERSION = 22;
        #[allow(missing_docs)]
        SNAP_WRONG_KIND = 23;
        #[allow(missing_docs)]
        SNAP_CHECKSUM = 24;
        #[allow(missing_docs)]
        SNAP_TRAILING = 25;
        #[allow(missing_docs)]
        SNAP_INVALID = 26;
        #[allow(missing_docs)]
        SNAP_BAD_ID = 27;
        #[allow(missing_docs)]
        SNAP_BUFFER = 28;
        /// Config errors, [`fencepost::ConfigError`].
        ZERO_TTL = 30;
        #[allow(missing_docs)]
        ZERO_REENTRY = 31;
        #[allow(missing_docs)]
        ZERO_RESERVE_BLOCK = 32;
        /// The first token was 0.
        ZERO_FIRST_TOKEN = 33;
        /// A holder id, lock or resource name longer than `MAX_ID_LEN` bytes.
        NAME_TOO_LONG = 40;
        /// Key ring errors, [`fencepost::SignatureError`]: the ring is full (detail: its capacity).
        RING_FULL = 50;
        /// The ring already holds this key id (detail: the id).
        KEY_ID_TAKEN = 51;
        /// The current key cannot be removed (detail: its id).
        CURRENT_KEY = 52;
        /// Keeper config errors, [`fencepost::KeeperConfigError`]: the drift bound is over
        /// 1,000,000 ppm.
        KEEPER_DRIFT = 60;
        /// The renewal point is 0 or over 1,000,000 ppm of the TTL.
        KEEPER_RENEW = 61;
        /// The retry interval is 0.
        KEEPER_RETRY = 62;
        /// Keeper answer errors, [`fencepost::KeeperError`]: a ticket this keeper does not hold.
        UNKNOWN_TICKET = 63;
        /// An answer for another token than the lease's (`token` in `Out`: the
        /// lease's).
        OTHER_TOKEN = 64;
        /// The module's memory cannot grow to hold what the call would allocate; nothing was
        /// changed (detail: the bytes it asked for).
        NO_MEMORY = 70;
        /// An error this build of the bindings does not know (the core's enums are non-exhaustive).
        UNKNOWN = 99;
    }
}

/// The codes of a config the core refuses (a restore reports them apart from a snapshot's).
pub const CONFIG_ERRORS: core::ops::RangeInclusive<u32> = code::ZERO_TTL..=code::ZERO_FIRST_TOKEN;

#[inline(never)]
pub(crate) fn fail(code: u32, detail: usize) -> u32 {
    LAST_ERROR.store(code, Ordering::Relaxed);
    LAST_DETAIL.store(u32::try_from(detail).unwrap_or(u32::MAX), Ordering::Relaxed);
    code
}

#[inline(never)]
pub(crate) fn parse_error(e: ParseTokenError) -> u32 {
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
pub(crate) fn parse_signed_error(e: ParseSignedError) -> u32 {
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
pub(crate) fn signature_error(e: SignatureError) -> u32 {
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
pub(crate) fn config_error(e: fencepost::ConfigError) -> u32 {
    match e {
        fencepost::ConfigError::ZeroTtl => fail(code::ZERO_TTL, 0),
        fencepost::ConfigError::ZeroReentry => fail(code::ZERO_REENTRY, 0),
        fencepost::ConfigError::ZeroReserveBlock => fail(code::ZERO_RESERVE_BLOCK, 0),
        _ => fail(code::UNKNOWN, 0),
    }
}

#[inline(never)]
pub(crate) fn snapshot_error(e: SnapshotError) -> u32 {
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
