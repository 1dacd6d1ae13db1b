//! Errors: a code and one number of detail, read by the caller right after a failed call (through
//! the `error` and `detail` fields of the `Out` record).

use core::sync::atomic::{AtomicU32, Ordering};

use fencepost::{ParseSignedError, ParseTokenError, SignatureError, SnapshotError};

pub(crate) static LAST_ERROR: AtomicU32 = AtomicU32::new(0);
pub(crate) static LAST_DETAIL: AtomicU32 = AtomicU32::new(0);
/// The address of the field an inconsistent snapshot names (its length is the detail).
pub(crate) static LAST_FIELD: AtomicU32 = AtomicU32::new(0);

/// Error codes shared with the package (their messages are [`MESSAGES`]).
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

/// What the package says for each code (all but [`code::UNKNOWN`]), in the core's wording:
/// `npm/src/abi.js` renders them into `errorMessage`. In a message, `{d}` is the detail,
/// `{field}` the field an inconsistent snapshot names, `{held}` the lease's token (see
/// `OtherToken` in `out::answers`), `{max_name}` the longest name and `{u64_max}` the largest
/// token.
pub const MESSAGES: &[(u32, &str)] = &[
    (code::EMPTY, "token is empty"),
    (code::WHITESPACE, "token contains whitespace at byte {d}"),
    (code::SIGN, "token must not have a sign"),
    (code::NOT_A_DIGIT, "token has a non-digit at byte {d}"),
    (code::LEADING_ZERO, "token must not have a leading zero"),
    (code::ZERO, "token 0 is invalid"),
    (code::OVERFLOW, "token is larger than {u64_max}"),
    (code::LENGTH, "token bytes must be exactly 8 long, got {d}"),
    (
        code::SIGNED,
        "token carries a signature; parse it as a signed token",
    ),
    (code::MISSING_MAC, "token has no signature"),
    (
        code::MAC_TRUNCATED,
        "signature is truncated: {d} bytes, expected 32",
    ),
    (
        code::MAC_TOO_LONG,
        "signature is too long: {d} bytes, expected 32",
    ),
    (
        code::BAD_HEX,
        "signature has a non-hex character at byte {d}",
    ),
    (
        code::FORGED,
        "token signature does not verify for this lock",
    ),
    (
        code::KEY_TOO_SHORT,
        "signing key is {d} bytes; at least 16 are required",
    ),
    (code::LOCK_NAME_TOO_LONG, "lock name is too long to sign"),
    (
        code::NO_KEY_ID,
        "signed token has no key id (the v1 form): the key ring signs `<token>.<key id>.<mac>`",
    ),
    (
        code::BAD_KEY_ID,
        "signed token has a bad key id at byte {d}",
    ),
    (
        code::UNKNOWN_KEY,
        "token is signed with key {d}, which the ring does not have",
    ),
    (
        code::SNAP_TRUNCATED,
        "snapshot is truncated: needed {d} bytes",
    ),
    (
        code::SNAP_BAD_MAGIC,
        "not a fencepost snapshot (bad magic bytes)",
    ),
    (
        code::SNAP_VERSION,
        "snapshot format version {d} is not supported (expected 1)",
    ),
    (code::SNAP_WRONG_KIND, "snapshot is of another kind ({d})"),
    (
        code::SNAP_CHECKSUM,
        "snapshot checksum mismatch: the bytes are damaged",
    ),
    (
        code::SNAP_TRAILING,
        "{d} unexpected bytes after the snapshot",
    ),
    (
        code::SNAP_INVALID,
        "snapshot field `{field}` is inconsistent",
    ),
    (
        code::SNAP_BAD_ID,
        "snapshot holds a holder id or lock name that cannot be decoded",
    ),
    (
        code::SNAP_BUFFER,
        "output buffer too small: {d} bytes needed",
    ),
    (code::ZERO_TTL, "ttlMs must be greater than 0"),
    (code::ZERO_REENTRY, "maxReentry must be at least 1"),
    (code::ZERO_RESERVE_BLOCK, "reserveBlock must be at least 1"),
    (code::ZERO_FIRST_TOKEN, "firstToken must be at least 1n"),
    (
        code::NAME_TOO_LONG,
        "a name must be at most {max_name} bytes of UTF-8, got {d}",
    ),
    (
        code::RING_FULL,
        "the key ring already holds {d} keys: remove one first",
    ),
    (code::KEY_ID_TAKEN, "the key ring already holds key {d}"),
    (
        code::CURRENT_KEY,
        "key {d} is the ring's current key: rotate to another before removing it",
    ),
    (code::KEEPER_DRIFT, "driftPpm must be at most 1000000"),
    (code::KEEPER_RENEW, "renewPpm must be from 1 to 1000000"),
    (code::KEEPER_RETRY, "retryMs must be at least 1"),
    (
        code::UNKNOWN_TICKET,
        "the ticket was not handed out by this keeper, or was already answered",
    ),
    (
        code::OTHER_TOKEN,
        "the answer carries another token than the lease's ({held})",
    ),
    (
        code::NO_MEMORY,
        "out of memory: the module's memory cannot grow to hold this call; nothing was changed",
    ),
];

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
