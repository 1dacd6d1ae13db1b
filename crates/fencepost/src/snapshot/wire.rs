//! Reading and writing the binary form: its checksum, a writer that measures as it writes, and a
//! reader that checks every read.

use super::error::SnapshotError;
use super::format::{FLAG_EXHAUSTED, FLAG_LEASE, FORMAT_VERSION, MAGIC, MAX_ID_LEN, SnapshotCodec};
use crate::authority::Lease;
use crate::token::Token;

/// CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320), bit by bit: snapshots are small and
/// rare, and a lookup table would add a kilobyte to every WebAssembly build of the core.
pub(crate) fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            let mask = (crc & 1).wrapping_neg();
            crc = (crc >> 1) ^ (0xEDB8_8320 & mask);
        }
    }
    !crc
}

/// Writes into a fixed buffer, counting what would not fit: run over an empty buffer, it
/// measures. An id too long to encode is remembered and reported by [`Writer::finish`].
pub(crate) struct Writer<'a> {
    out: &'a mut [u8],
    pos: usize,
    bad_id: bool,
}

impl<'a> Writer<'a> {
    /// The header and the fields both kinds begin with: flags, next token, reservation.
    #[inline(never)]
    pub(crate) fn start(
        out: &'a mut [u8],
        kind: u8,
        next_token: Option<Token>,
        has_lease: bool,
        reserved_through: u64,
    ) -> Writer<'a> {
        let mut w = Writer {
            out,
            pos: 0,
            bad_id: false,
        };
        w.bytes(&MAGIC);
        w.u8(FORMAT_VERSION);
        w.u8(kind);
        w.u8((if next_token.is_none() {
            FLAG_EXHAUSTED
        } else {
            0
        }) | (if has_lease { FLAG_LEASE } else { 0 }));
        w.u64(next_token.map_or(0, Token::get));
        w.u64(reserved_through);
        w
    }
    /// Room for `len` more bytes, if the buffer has it.
    fn reserve(&mut self, len: usize) -> Option<&mut [u8]> {
        let start = self.pos;
        self.pos += len;
        self.out.get_mut(start..self.pos)
    }
    fn bytes(&mut self, b: &[u8]) {
        if let Some(dst) = self.reserve(b.len()) {
            dst.copy_from_slice(b);
        }
    }
    /// The low `n` bytes of `v`, big-endian.
    #[inline(never)]
    fn uint(&mut self, mut v: u64, n: usize) {
        if let Some(dst) = self.reserve(n) {
            for d in dst.iter_mut().rev() {
                *d = v as u8;
                v >>= 8;
            }
        }
    }
    pub(crate) fn u8(&mut self, v: u8) {
        self.uint(v.into(), 1);
    }
    pub(crate) fn u32(&mut self, v: u32) {
        self.uint(v.into(), 4);
    }
    pub(crate) fn u64(&mut self, v: u64) {
        self.uint(v, 8);
    }
    /// The length of an id, then its bytes.
    pub(crate) fn id<T: SnapshotCodec>(&mut self, v: &T) {
        let len = v.encoded_len();
        self.bad_id |= len > MAX_ID_LEN;
        self.uint(len as u64, 2);
        if let Some(dst) = self.reserve(len) {
            v.encode_into(dst);
        }
    }
    pub(crate) fn lease<H: SnapshotCodec>(&mut self, l: &Lease<H>) {
        self.u64(l.token.get());
        self.u64(l.granted_at);
        self.u64(l.expires_at);
        self.u32(l.depth);
        self.id(&l.holder);
    }
    /// The length of the whole snapshot, checksum included.
    pub(crate) fn len(&self) -> usize {
        self.pos + 4
    }
    /// Appends the checksum; returns the length written.
    pub(crate) fn finish(mut self) -> Result<usize, SnapshotError> {
        if self.bad_id {
            return Err(SnapshotError::BadId);
        }
        let needed = self.len();
        if needed > self.out.len() {
            return Err(SnapshotError::BufferTooSmall { needed });
        }
        let crc = crc32(&self.out[..self.pos]);
        self.u32(crc);
        Ok(needed)
    }
}

/// Measures, allocates and writes a snapshot; `write` lays it out over the buffer it is given.
///
/// The buffer is made with `resize` rather than `vec![0; len]`: the WebAssembly bindings grow
/// their byte buffers with it already, and a zeroing allocation would be a second way to
/// allocate in the core module (about 200 bytes).
#[cfg(feature = "alloc")]
#[inline(never)]
#[allow(clippy::slow_vector_initialization)]
pub(crate) fn to_vec(
    write: &dyn for<'o> Fn(&'o mut [u8]) -> Writer<'o>,
) -> Result<alloc::vec::Vec<u8>, SnapshotError> {
    let mut v = alloc::vec::Vec::new();
    v.resize(write(&mut []).len(), 0);
    write(&mut v).finish()?;
    Ok(v)
}

/// Reads from a slice; every read is checked. The first error, in byte order, is recorded, and
/// reading goes on without a branch per field: a read that fails yields zeros (or no bytes) and
/// leaves the position where it was, so a later, shorter read can still yield bytes from the
/// input. Nothing read after the first error counts: the caller asks once, at
/// [`Reader::finish`], which reports that error, and a snapshot read with one is thrown away.
pub(crate) struct Reader<'a> {
    b: &'a [u8],
    pos: usize,
    pub(super) err: Option<SnapshotError>,
}

impl<'a> Reader<'a> {
    pub(super) fn new(b: &'a [u8]) -> Reader<'a> {
        Reader {
            b,
            pos: 0,
            err: None,
        }
    }
    /// Records `e` unless an earlier error was recorded.
    pub(super) fn fail(&mut self, e: SnapshotError) {
        if self.err.is_none() {
            self.err = Some(e);
        }
    }
    /// Records that `field` holds a value that cannot be right.
    #[inline(never)]
    pub(super) fn invalid(&mut self, field: &'static str) {
        self.fail(SnapshotError::Invalid(field));
    }
    pub(super) fn take(&mut self, n: usize) -> &'a [u8] {
        let end = self.pos.saturating_add(n);
        match self.b.get(self.pos..end) {
            Some(s) => {
                self.pos = end;
                s
            }
            None => {
                self.fail(SnapshotError::Truncated {
                    needed: end,
                    got: self.b.len(),
                });
                &[]
            }
        }
    }
    /// A big-endian unsigned integer of `n` (at most 8) bytes.
    #[inline(never)]
    pub(super) fn uint(&mut self, n: usize) -> u64 {
        let mut v = 0;
        for &b in self.take(n) {
            v = v << 8 | u64::from(b);
        }
        v
    }
    pub(super) fn u8(&mut self) -> u8 {
        self.uint(1) as u8
    }
    pub(super) fn u32(&mut self) -> u32 {
        self.uint(4) as u32
    }
    pub(super) fn u64(&mut self) -> u64 {
        self.uint(8)
    }
    /// A holder id or lock name; `None`, recorded as [`SnapshotError::BadId`], if it is too
    /// long or does not decode.
    pub(super) fn id<T: SnapshotCodec>(&mut self) -> Option<T> {
        let len = self.uint(2) as usize;
        let id = if len > MAX_ID_LEN {
            None
        } else {
            T::decode_from(self.take(len))
        };
        if id.is_none() {
            self.fail(SnapshotError::BadId);
        }
        id
    }
    /// A lease; `None` if its holder does not decode.
    pub(super) fn lease<H: SnapshotCodec>(&mut self) -> Option<Lease<H>> {
        let token = Token::new(self.u64()).unwrap_or_else(|| {
            self.invalid("lease.token");
            Token::MIN
        });
        let (granted_at, expires_at, depth) = (self.u64(), self.u64(), self.u32());
        Some(Lease {
            holder: self.id()?,
            token,
            granted_at,
            expires_at,
            depth,
        })
    }
    pub(super) fn next_token(&mut self, flags: u8) -> Option<Token> {
        let raw = self.u64();
        if (flags & FLAG_EXHAUSTED != 0) != (raw == 0) {
            self.invalid("next_token");
        }
        Token::new(raw)
    }
    /// Checks magic, version, kind and checksum, and narrows the reader (new, over the whole
    /// snapshot) to the body. In place: a reader returned by value was copied into the caller.
    pub(super) fn open(&mut self, kind: u8) {
        let bytes = self.b;
        if self.take(4) != MAGIC {
            self.fail(SnapshotError::BadMagic);
        }
        let version = self.u8();
        if version != FORMAT_VERSION {
            self.fail(SnapshotError::UnsupportedVersion(version));
        }
        let got_kind = self.u8();
        match bytes.len().checked_sub(4).filter(|&n| n >= self.pos) {
            Some(n) => {
                let (data, crc) = bytes.split_at(n);
                if crc != crc32(data).to_be_bytes() {
                    self.fail(SnapshotError::Checksum);
                }
                if got_kind != kind {
                    self.fail(SnapshotError::WrongKind(got_kind));
                }
                self.b = data;
            }
            None => self.fail(SnapshotError::Truncated {
                needed: self.pos + 4,
                got: bytes.len(),
            }),
        }
    }
    /// The first error: of reading, else bytes left over, else `fault` (see [`Tokens`]).
    pub(super) fn finish(&mut self, fault: Option<&'static str>) -> Result<(), SnapshotError> {
        match self.b.len() - self.pos {
            0 => {}
            n => self.fail(SnapshotError::TrailingBytes(n)),
        }
        if let Some(field) = fault {
            self.invalid(field);
        }
        match self.err {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}
