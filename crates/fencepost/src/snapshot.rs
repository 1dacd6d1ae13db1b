//! Snapshots: an authority's state as plain data, and a compact versioned binary form.
//!
//! Restoring never re-issues a token: the restored authority resumes above
//! [`AuthoritySnapshot::reserved_through`], the highest token that may have been handed out (see
//! the host's contract in [`crate::authority`]). Times in a snapshot are on the host's timeline, so
//! a host that restores in another process must use a timeline that survives restarts (wall-clock
//! milliseconds, say); a restored authority clamps any earlier `now` to the snapshot's latest time.
//!
//! ## Binary form, version 1
//!
//! All integers big-endian.
//!
//! ```text
//! magic      4  "FPst"
//! version    1  1
//! kind       1  1 = one authority, 2 = a lock table
//! body          see below
//! crc32      4  CRC-32 (IEEE) of every byte before it
//! ```
//!
//! Authority body: `flags u8` (bit 0: tokens exhausted, bit 1: a lease follows), `next_token u64`
//! (0 when exhausted), `reserved_through u64`, `free_at u64`, `latest_now u64`, `clamps u64`, then
//! the lease if flagged: `token u64, granted_at u64, expires_at u64, depth u32, holder` where a
//! holder (or a lock name) is `len u16` then `len` bytes.
//!
//! Table body: `flags u8` (bit 0: exhausted), `next_token u64`, `reserved_through u64`,
//! `latest_now u64`, `clamps u64`, `count u32`, then per lock: `name`, `flags u8` (bit 1: a lease
//! follows), `free_at u64`, and the lease as above.
//!
//! Any damage, truncation, unknown version or inconsistent value is a [`SnapshotError`]; decoding
//! never panics.

mod error;
mod format;
mod wire;

pub use error::SnapshotError;
pub(crate) use format::FLAG_LEASE;
#[cfg(feature = "alloc")]
pub(crate) use format::KIND_TABLE;
use format::{FLAG_EXHAUSTED, KIND_AUTHORITY};
pub use format::{FORMAT_VERSION, MAX_ID_LEN, SnapshotCodec};
#[cfg(test)]
pub(crate) use wire::crc32;
#[cfg(feature = "alloc")]
pub(crate) use wire::to_vec;
pub(crate) use wire::{Reader, Writer};

use crate::authority::{Authority, Config, Lease, Slot, TokenSequence};
use crate::time::Timeline;
use crate::token::Token;

/// The token bookkeeping both kinds of snapshot carry, and its consistency checks.
pub(crate) struct Tokens {
    pub(crate) next_token: Option<Token>,
    pub(crate) reserved_through: u64,
    pub(crate) latest_now: u64,
    pub(crate) clamps: u64,
}

impl Tokens {
    /// The field that is wrong, if the sequence is inconsistent: nothing issued above the
    /// reservation.
    pub(crate) fn fault(&self) -> Option<&'static str> {
        match self.next_token {
            Some(next) if next.get() - 1 > self.reserved_through => Some("next_token"),
            None if self.reserved_through != u64::MAX => Some("reserved_through"),
            _ => None,
        }
    }

    /// The field that is wrong, if `l` cannot have been granted by this sequence.
    pub(crate) fn lease_fault<H>(&self, l: &Lease<H>) -> Option<&'static str> {
        if l.token.get() > self.reserved_through || self.next_token.is_some_and(|n| l.token >= n) {
            Some("lease.token")
        } else if l.depth == 0 {
            Some("lease.depth")
        } else if l.expires_at < l.granted_at || l.granted_at > self.latest_now {
            Some("lease.expires_at")
        } else {
            None
        }
    }
}

pub(crate) fn invalid(fault: Option<&'static str>) -> Result<(), SnapshotError> {
    match fault {
        Some(field) => Err(SnapshotError::Invalid(field)),
        None => Ok(()),
    }
}

/// Reads and checks a binary snapshot of either kind, handing each lock to `put`: its name and
/// its slot. The name is `None` for the authority's one lock, which has none, and for a name
/// that does not decode (the snapshot is then refused). The authority reads with `K = H`, so
/// one copy of this serves both kinds where names and holders are one type (as in the npm
/// package's module).
///
/// Reading errors come first, in byte order; the consistency checks run afterwards, in the
/// order of [`Tokens::fault`] and then each lease.
#[inline(never)]
pub(crate) fn scan<K: SnapshotCodec, H: SnapshotCodec>(
    bytes: &[u8],
    kind: u8,
    put: &mut dyn FnMut(Option<K>, Slot<H>),
) -> Result<Tokens, SnapshotError> {
    let table = kind != KIND_AUTHORITY;
    let mut r = Reader::new(bytes);
    r.open(kind);
    let flags = r.u8();
    let known = if table {
        FLAG_EXHAUSTED
    } else {
        FLAG_EXHAUSTED | FLAG_LEASE
    };
    if flags & !known != 0 {
        r.invalid("flags");
    }
    let next_token = r.next_token(flags);
    let reserved_through = r.u64();
    let free_at = if table { 0 } else { r.u64() };
    let tokens = Tokens {
        next_token,
        reserved_through,
        latest_now: r.u64(),
        clamps: r.u64(),
    };
    let count = if table { r.u32() } else { 1 };
    let mut fault = tokens.fault();
    for _ in 0..count {
        if r.err.is_some() {
            break;
        }
        let (name, flags, free_at) = if table {
            let name = r.id();
            let lflags = r.u8();
            if lflags & !FLAG_LEASE != 0 {
                r.invalid("locks.flags");
            }
            (name, lflags, r.u64())
        } else {
            (None, flags, free_at)
        };
        let lease = if flags & FLAG_LEASE != 0 {
            r.lease()
        } else {
            None
        };
        if let (None, Some(l)) = (fault, &lease) {
            fault = tokens.lease_fault(l);
        }
        put(name, Slot { lease, free_at });
    }
    r.finish(fault)?;
    Ok(tokens)
}

/// The number of locks a table's binary snapshot says it holds, read from its header alone
/// (`None` when the bytes do not start with a table's header): for a host that must know before
/// a restore whether its memory can hold it. It is the snapshot's word only; the restore checks
/// every lock.
#[cfg(feature = "alloc")]
pub fn table_lock_count(bytes: &[u8]) -> Option<u32> {
    let mut r = Reader::new(bytes);
    r.open(KIND_TABLE);
    let flags = r.u8();
    r.next_token(flags);
    // reserved_through, latest_now, clamps
    for _ in 0..3 {
        r.u64();
    }
    let count = r.u32();
    r.err.is_none().then_some(count)
}

/// An authority's whole state, as plain data.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct AuthoritySnapshot<H> {
    /// The next token to issue (`None`: exhausted).
    pub next_token: Option<Token>,
    /// Highest token that may have been handed out. Restore resumes above it.
    pub reserved_through: u64,
    /// The lease at snapshot time.
    pub lease: Option<Lease<H>>,
    /// End of a pending lock-delay.
    pub free_at: u64,
    /// Latest instant the authority had seen.
    pub latest_now: u64,
    /// Clamped readings so far.
    pub clamps: u64,
}

/// Lays out an authority snapshot over `out` (see [`Writer`]) from its fields.
fn write_authority<'o, H: SnapshotCodec>(
    out: &'o mut [u8],
    next_token: Option<Token>,
    reserved_through: u64,
    lease: Option<&Lease<H>>,
    free_at: u64,
    latest_now: u64,
    clamps: u64,
) -> Writer<'o> {
    let mut w = Writer::start(
        out,
        KIND_AUTHORITY,
        next_token,
        lease.is_some(),
        reserved_through,
    );
    w.u64(free_at);
    w.u64(latest_now);
    w.u64(clamps);
    if let Some(l) = lease {
        w.lease(l);
    }
    w
}

impl<H: SnapshotCodec> AuthoritySnapshot<H> {
    fn write<'o>(&self, out: &'o mut [u8]) -> Writer<'o> {
        write_authority(
            out,
            self.next_token,
            self.reserved_through,
            self.lease.as_ref(),
            self.free_at,
            self.latest_now,
            self.clamps,
        )
    }

    /// Encodes into `out`; returns the length written.
    pub fn encode(&self, out: &mut [u8]) -> Result<usize, SnapshotError> {
        self.write(out).finish()
    }

    /// The encoded length.
    pub fn encoded_len(&self) -> usize {
        self.write(&mut []).len()
    }

    /// Encodes into a new vector.
    #[cfg(feature = "alloc")]
    pub fn to_bytes(&self) -> Result<alloc::vec::Vec<u8>, SnapshotError> {
        to_vec(&|out| self.write(out))
    }

    /// Decodes and checks a binary snapshot.
    pub fn decode(bytes: &[u8]) -> Result<AuthoritySnapshot<H>, SnapshotError> {
        // The one lock, which has no name (so `K = H`, see `scan`).
        let mut slot = Slot::default();
        let t = scan::<H, H>(bytes, KIND_AUTHORITY, &mut |_, s| slot = s)?;
        Ok(AuthoritySnapshot {
            next_token: t.next_token,
            reserved_through: t.reserved_through,
            lease: slot.lease,
            free_at: slot.free_at,
            latest_now: t.latest_now,
            clamps: t.clamps,
        })
    }
}

impl<H> AuthoritySnapshot<H> {
    /// Checks the snapshot's fields agree with each other.
    pub fn validate(&self) -> Result<(), SnapshotError> {
        let t = Tokens {
            next_token: self.next_token,
            reserved_through: self.reserved_through,
            latest_now: self.latest_now,
            clamps: self.clamps,
        };
        invalid(
            t.fault()
                .or_else(|| self.lease.as_ref().and_then(|l| t.lease_fault(l))),
        )
    }
}

impl<H: Clone + Eq + SnapshotCodec> Authority<H> {
    /// The binary snapshot, written straight from the authority: the bytes of
    /// `self.snapshot().to_bytes()` without copying the holder first.
    #[cfg(feature = "alloc")]
    pub fn snapshot_bytes(&self) -> Result<alloc::vec::Vec<u8>, SnapshotError> {
        to_vec(&|out| self.write_snapshot(out))
    }

    /// The length of [`snapshot_bytes`](Self::snapshot_bytes), found without writing it (for a
    /// host that must know before a call whether its memory can hold the bytes).
    pub fn snapshot_len(&self) -> usize {
        self.write_snapshot(&mut []).len()
    }

    fn write_snapshot<'o>(&self, out: &'o mut [u8]) -> Writer<'o> {
        write_authority(
            out,
            self.seq.next,
            self.seq.reserved_through,
            self.slot.lease.as_ref(),
            self.slot.free_at,
            self.time.latest(),
            self.time.clamps(),
        )
    }

    /// An authority resuming from a binary snapshot, read straight into it: what
    /// `Authority::restore(cfg, AuthoritySnapshot::decode(bytes)?)` gives, except that a bad
    /// config is reported before anything about the bytes.
    pub fn restore_bytes(cfg: Config, bytes: &[u8]) -> Result<Authority<H>, SnapshotError> {
        cfg.validate()?;
        // The one lock, which has no name (so `K = H`, see `scan`).
        let mut slot = Slot::default();
        let t = scan::<H, H>(bytes, KIND_AUTHORITY, &mut |_, s| slot = s)?;
        Ok(Authority {
            cfg,
            seq: TokenSequence::resume(t.reserved_through, cfg.first_token),
            slot,
            time: Timeline::resume(t.latest_now, t.clamps),
        })
    }
}

impl<H: Clone + Eq> Authority<H> {
    /// The whole state, as plain data.
    pub fn snapshot(&self) -> AuthoritySnapshot<H> {
        AuthoritySnapshot {
            next_token: self.seq.next,
            reserved_through: self.seq.reserved_through,
            lease: self.slot.lease.clone(),
            free_at: self.slot.free_at,
            latest_now: self.time.latest(),
            clamps: self.time.clamps(),
        }
    }

    /// An authority resuming from a snapshot. It issues nothing at or below
    /// `snapshot.reserved_through`, so no token it may have handed out before is issued again.
    /// The snapshot's lease stays in force until it expires.
    pub fn restore(
        cfg: Config,
        snapshot: AuthoritySnapshot<H>,
    ) -> Result<Authority<H>, SnapshotError> {
        cfg.validate()?;
        snapshot.validate()?;
        let seq = TokenSequence::resume(snapshot.reserved_through, cfg.first_token);
        let time = Timeline::resume(snapshot.latest_now, snapshot.clamps);
        Ok(Authority {
            cfg,
            seq,
            slot: Slot {
                lease: snapshot.lease,
                free_at: snapshot.free_at,
            },
            time,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::authority::ConfigError;
    use std::string::String;
    use std::vec::Vec;

    fn t(v: u64) -> Token {
        Token::new(v).unwrap()
    }

    #[test]
    fn crc32_known_value() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32(b""), 0);
    }

    fn sample() -> Authority<String> {
        let mut a = Authority::new(
            Config::new(30_000)
                .with_first_token(t(33))
                .with_reserve_block(10),
        )
        .unwrap();
        a.try_acquire(&String::from("A"), 0).unwrap();
        a.try_acquire(&String::from("B"), 45_000).unwrap();
        a.renew(&String::from("B"), t(34), 40_000).unwrap();
        a
    }

    #[test]
    fn round_trip_binary() {
        let a = sample();
        let snap = a.snapshot();
        assert_eq!(snap.reserved_through, 42);
        assert_eq!(snap.clamps, 1);
        let bytes = snap.to_bytes().unwrap();
        assert_eq!(bytes.len(), snap.encoded_len());
        assert_eq!(&bytes[..6], b"FPst\x01\x01");
        let back = AuthoritySnapshot::<String>::decode(&bytes).unwrap();
        assert_eq!(back, snap);
    }

    #[test]
    fn direct_snapshots_match_the_plain_data() {
        let a = sample();
        let bytes = a.snapshot_bytes().unwrap();
        assert_eq!(Ok(&bytes), a.snapshot().to_bytes().as_ref());
        let cfg = *a.config();
        let plain = |b: &[u8]| {
            AuthoritySnapshot::<String>::decode(b).and_then(|snap| Authority::restore(cfg, snap))
        };
        assert_eq!(Authority::restore_bytes(cfg, &bytes), plain(&bytes));
        for cut in 0..bytes.len() {
            assert_eq!(
                Authority::<String>::restore_bytes(cfg, &bytes[..cut]),
                plain(&bytes[..cut])
            );
        }
        // Every flipped bit, the checksum fixed up so the fields are read.
        for bit in 0..(bytes.len() - 4) * 8 {
            let mut v = bytes.clone();
            v[bit / 8] ^= 1 << (bit % 8);
            let n = v.len() - 4;
            let c = crc32(&v[..n]);
            v[n..].copy_from_slice(&c.to_be_bytes());
            assert_eq!(
                Authority::<String>::restore_bytes(cfg, &v),
                plain(&v),
                "bit {bit}"
            );
        }
        assert_eq!(
            Authority::<String>::restore_bytes(Config::new(0), &bytes),
            Err(SnapshotError::Config(ConfigError::ZeroTtl))
        );
    }

    #[test]
    fn restore_resumes_above_the_reservation() {
        let a = sample();
        let snap = a.snapshot();
        // The host persisted the snapshot; grants after it were lost in a crash.
        let mut b = Authority::restore(*a.config(), snap).unwrap();
        assert_eq!(b.next_token(), Some(t(43)));
        assert_eq!(b.timeline().latest(), 45_000);
        assert_eq!(b.timeline().clamps(), 1);
        // B's lease survives the restore.
        assert!(matches!(
            b.try_acquire(&String::from("C"), 46_000),
            Err(crate::AcquireError::Held { .. })
        ));
        assert_eq!(
            b.try_acquire(&String::from("C"), 75_000).unwrap().token,
            t(43)
        );
    }

    #[test]
    fn restore_respects_a_higher_first_token() {
        let a = sample();
        let cfg = Config::new(10).with_first_token(t(1_000));
        let b = Authority::restore(cfg, a.snapshot()).unwrap();
        assert_eq!(b.next_token(), Some(t(1_000)));
    }

    #[test]
    fn exhausted_round_trips() {
        let mut a: Authority<u32> =
            Authority::new(Config::new(10).with_first_token(Token::MAX)).unwrap();
        a.try_acquire(&7, 0).unwrap();
        let snap = a.snapshot();
        let back = AuthoritySnapshot::<u32>::decode(&snap.to_bytes().unwrap()).unwrap();
        assert_eq!(back.next_token, None);
        let mut b = Authority::restore(*a.config(), back).unwrap();
        assert_eq!(b.try_acquire(&8, 100), Err(crate::AcquireError::Exhausted));
    }

    #[test]
    fn damage_is_a_typed_error() {
        let bytes = sample().snapshot().to_bytes().unwrap();
        for cut in 0..bytes.len() {
            let err = AuthoritySnapshot::<String>::decode(&bytes[..cut]).unwrap_err();
            assert!(
                matches!(
                    err,
                    SnapshotError::Truncated { .. }
                        | SnapshotError::Checksum
                        | SnapshotError::BadMagic
                ),
                "cut at {cut}: {err:?}"
            );
        }
        for i in 0..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0x40;
            assert!(
                AuthoritySnapshot::<String>::decode(&b).is_err(),
                "flip at {i}"
            );
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(AuthoritySnapshot::<String>::decode(&longer).is_err());
        let mut v2 = bytes.clone();
        v2[4] = 2;
        assert_eq!(
            AuthoritySnapshot::<String>::decode(&v2),
            Err(SnapshotError::UnsupportedVersion(2))
        );
        assert_eq!(
            AuthoritySnapshot::<String>::decode(b"nope-not-a-snapshot"),
            Err(SnapshotError::BadMagic)
        );
    }

    /// Re-frames a body with a valid checksum, to reach the checks behind it.
    fn reframe(body: &[u8]) -> Vec<u8> {
        let mut v = Vec::from(&b"FPst\x01\x01"[..]);
        v.extend_from_slice(body);
        let c = crc32(&v);
        v.extend_from_slice(&c.to_be_bytes());
        v
    }

    #[test]
    fn inconsistent_fields_are_named() {
        let bytes = sample().snapshot().to_bytes().unwrap();
        let body = &bytes[6..bytes.len() - 4];
        // next_token (bytes 1..9 of the body) above the reservation.
        let mut b = body.to_vec();
        b[1..9].copy_from_slice(&100u64.to_be_bytes());
        assert_eq!(
            AuthoritySnapshot::<String>::decode(&reframe(&b)),
            Err(SnapshotError::Invalid("next_token"))
        );
        // Unknown flag bit.
        let mut b = body.to_vec();
        b[0] |= 0x80;
        assert_eq!(
            AuthoritySnapshot::<String>::decode(&reframe(&b)),
            Err(SnapshotError::Invalid("flags"))
        );
        // Holder that is not UTF-8.
        let mut b = body.to_vec();
        let last = b.len() - 1;
        b[last] = 0xFF;
        assert_eq!(
            AuthoritySnapshot::<String>::decode(&reframe(&b)),
            Err(SnapshotError::BadId)
        );
        // Wrong kind.
        let mut v = reframe(body);
        v[5] = 2;
        let n = v.len() - 4;
        let c = crc32(&v[..n]);
        v[n..].copy_from_slice(&c.to_be_bytes());
        assert_eq!(
            AuthoritySnapshot::<String>::decode(&v),
            Err(SnapshotError::WrongKind(2))
        );
    }

    #[test]
    fn encode_reports_small_buffers() {
        let snap = sample().snapshot();
        let mut buf = [0u8; 10];
        assert_eq!(
            snap.encode(&mut buf),
            Err(SnapshotError::BufferTooSmall {
                needed: snap.encoded_len()
            })
        );
        let long = AuthoritySnapshot {
            lease: Some(Lease {
                holder: "x".repeat(MAX_ID_LEN + 1),
                token: t(1),
                granted_at: 0,
                expires_at: 1,
                depth: 1,
            }),
            next_token: Some(t(2)),
            reserved_through: 1,
            free_at: 0,
            latest_now: 0,
            clamps: 0,
        };
        assert_eq!(long.to_bytes(), Err(SnapshotError::BadId));
    }

    #[test]
    fn restore_refuses_inconsistent_plain_data() {
        let mut snap = sample().snapshot();
        snap.reserved_through = 33;
        assert_eq!(
            Authority::restore(Config::new(10), snap).unwrap_err(),
            SnapshotError::Invalid("next_token")
        );
        assert_eq!(
            Authority::<u8>::restore(
                Config::new(0),
                Authority::<u8>::new(Config::new(1)).unwrap().snapshot()
            )
            .unwrap_err(),
            SnapshotError::Config(ConfigError::ZeroTtl)
        );
    }

    #[cfg(feature = "serde")]
    #[test]
    fn plain_data_is_serde() {
        let snap = sample().snapshot();
        let json = serde_json::to_string(&snap).unwrap();
        let back: AuthoritySnapshot<String> = serde_json::from_str(&json).unwrap();
        assert_eq!(back, snap);
    }
}
