//! Holder ids and lock names as the module keeps them.

use alloc::vec::Vec;

use fencepost::snapshot::{MAX_ID_LEN, SnapshotCodec};

use crate::errors::{code, fail};

/// A holder id or lock name: the UTF-8 bytes the caller wrote (it only writes well-formed text).
/// Read from a snapshot, bytes that are not UTF-8 are refused as [`SnapshotError::BadId`]: the
/// package could neither name such a lock nor show such a holder.
#[derive(Clone, Debug, Eq, PartialOrd, Ord)]
pub(crate) struct Name(pub(crate) Vec<u8>);

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

/// Whether `n` bytes fit a holder id or lock name; records the error when not.
pub(crate) fn name_ok(n: usize) -> bool {
    if n <= MAX_ID_LEN {
        true
    } else {
        fail(code::NAME_TOO_LONG, n);
        false
    }
}
