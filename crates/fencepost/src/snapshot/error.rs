//! Why a snapshot could not be encoded, decoded or restored.

use core::fmt;

use super::format::FORMAT_VERSION;
use crate::authority::ConfigError;

/// Why a snapshot could not be encoded, decoded or restored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SnapshotError {
    /// The input ended early: `needed` bytes were required, `got` were there.
    Truncated {
        /// Bytes required to go on.
        needed: usize,
        /// Bytes available.
        got: usize,
    },
    /// Not a fencepost snapshot (wrong magic bytes).
    BadMagic,
    /// A format version this build does not read.
    UnsupportedVersion(u8),
    /// A snapshot of another kind (a table where an authority was expected, or the reverse).
    WrongKind(u8),
    /// The checksum does not match: the bytes were damaged.
    Checksum,
    /// Bytes after the end of the snapshot.
    TrailingBytes(usize),
    /// A field holds a value that cannot be right; names the field.
    Invalid(&'static str),
    /// A holder id or lock name longer than [`MAX_ID_LEN`](super::format::MAX_ID_LEN) or not decodable.
    BadId,
    /// The output buffer is too small: `needed` bytes are required.
    BufferTooSmall {
        /// Bytes required.
        needed: usize,
    },
    /// The config given to restore is invalid.
    Config(ConfigError),
}

impl fmt::Display for SnapshotError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SnapshotError::Truncated { needed, got } => {
                write!(f, "snapshot is truncated: needed {needed} bytes, got {got}")
            }
            SnapshotError::BadMagic => f.write_str("not a fencepost snapshot (bad magic bytes)"),
            SnapshotError::UnsupportedVersion(v) => {
                write!(
                    f,
                    "snapshot format version {v} is not supported (expected {FORMAT_VERSION})"
                )
            }
            SnapshotError::WrongKind(k) => write!(f, "snapshot is of another kind ({k})"),
            SnapshotError::Checksum => {
                f.write_str("snapshot checksum mismatch: the bytes are damaged")
            }
            SnapshotError::TrailingBytes(n) => write!(f, "{n} unexpected bytes after the snapshot"),
            SnapshotError::Invalid(field) => write!(f, "snapshot field `{field}` is inconsistent"),
            SnapshotError::BadId => {
                f.write_str("snapshot holds a holder id or lock name that cannot be decoded")
            }
            SnapshotError::BufferTooSmall { needed } => {
                write!(f, "output buffer too small: {needed} bytes needed")
            }
            SnapshotError::Config(e) => write!(f, "invalid config: {e}"),
        }
    }
}

impl core::error::Error for SnapshotError {}

impl From<ConfigError> for SnapshotError {
    fn from(e: ConfigError) -> SnapshotError {
        SnapshotError::Config(e)
    }
}
