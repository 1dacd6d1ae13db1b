//! The binary form's constants, and the holder ids and lock names it can carry.

pub(crate) const MAGIC: [u8; 4] = *b"FPst";
/// The binary format version this crate writes and reads.
pub const FORMAT_VERSION: u8 = 1;
pub(crate) const KIND_AUTHORITY: u8 = 1;
#[cfg(feature = "alloc")]
pub(crate) const KIND_TABLE: u8 = 2;
/// Longest holder id or lock name a snapshot may carry, in bytes.
pub const MAX_ID_LEN: usize = 1024;

pub(crate) const FLAG_EXHAUSTED: u8 = 1;
pub(crate) const FLAG_LEASE: u8 = 2;

/// Holder ids and lock names that can be written into a binary snapshot.
pub trait SnapshotCodec: Sized {
    /// Bytes `encode_into` writes (at most [`MAX_ID_LEN`]).
    fn encoded_len(&self) -> usize;
    /// Writes exactly `encoded_len()` bytes into `out`.
    fn encode_into(&self, out: &mut [u8]);
    /// Reads a value back; `None` if the bytes are not a valid value.
    fn decode_from(bytes: &[u8]) -> Option<Self>;
}

macro_rules! int_codec {
    ($($t:ty),*) => {$(
        impl SnapshotCodec for $t {
            fn encoded_len(&self) -> usize {
                core::mem::size_of::<$t>()
            }
            fn encode_into(&self, out: &mut [u8]) {
                out.copy_from_slice(&self.to_be_bytes());
            }
            fn decode_from(bytes: &[u8]) -> Option<Self> {
                Some(<$t>::from_be_bytes(bytes.try_into().ok()?))
            }
        }
    )*};
}
int_codec!(u8, u16, u32, u64, u128);

impl<const N: usize> SnapshotCodec for [u8; N] {
    fn encoded_len(&self) -> usize {
        N
    }
    fn encode_into(&self, out: &mut [u8]) {
        out.copy_from_slice(self);
    }
    fn decode_from(bytes: &[u8]) -> Option<Self> {
        bytes.try_into().ok()
    }
}

#[cfg(feature = "alloc")]
impl SnapshotCodec for alloc::string::String {
    fn encoded_len(&self) -> usize {
        self.len()
    }
    fn encode_into(&self, out: &mut [u8]) {
        out.copy_from_slice(self.as_bytes());
    }
    fn decode_from(bytes: &[u8]) -> Option<Self> {
        core::str::from_utf8(bytes)
            .ok()
            .map(alloc::string::String::from)
    }
}

#[cfg(feature = "alloc")]
impl SnapshotCodec for alloc::vec::Vec<u8> {
    fn encoded_len(&self) -> usize {
        self.len()
    }
    fn encode_into(&self, out: &mut [u8]) {
        out.copy_from_slice(self);
    }
    fn decode_from(bytes: &[u8]) -> Option<Self> {
        Some(bytes.to_vec())
    }
}
