//! Errors: a code and one number of detail, read by the caller right after a failed call (through
//! the `error` and `detail` fields of the [`Out`](crate::abi::Out) record).

use core::sync::atomic::{AtomicU32, Ordering};

use fencepost::{ParseSignedError, ParseTokenError, SignatureError, SnapshotError};

pub(crate) static LAST_ERROR: AtomicU32 = AtomicU32::new(0);
pub(crate) static LAST_DETAIL: AtomicU32 = AtomicU32::new(0);
/// The address of the field an inconsistent snapshot names (its length is the detail).
pub(crate) static LAST_FIELD: AtomicU32 = AtomicU32::new(0);

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
