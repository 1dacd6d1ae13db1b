//! The core parsers' fuzz checks (`token`, `signed_token`, `snapshot`). Each function feeds the
//! input to fencepost's parsers and panics only on a real bug: a parser that answers differently
//! from its documented rules, a value that does not re-encode to the bytes it came from, or a
//! decoded snapshot that cannot be restored (or, restored, issues a token it may already have
//! granted). Refusing an input is never a failure; panicking inside fencepost is.
//!
//! Each function returns how many of its parsers accepted the input, so the seeds' test
//! (tests/parser_seeds.rs) can tell the seeds reach past the errors.

use core::fmt::Debug;

use fencepost::signed::{KEYED_HEADER_MAX, MAC_LEN, SIGNED_HEADER_MAX, SIGNED_LEN};
use fencepost::token::MAX_DECIMAL_LEN;
use fencepost::{
    AcquireError, Admission, Authority, AuthoritySnapshot, Config, Guard, KeyRing, KeyedToken,
    LockTable, ParseSignedError, ParseTokenError, SignatureError, SignedToken, SnapshotCodec,
    SnapshotError, TableSnapshot, Token, TokenSigner,
};

/// The key the `signed_token` seeds were signed with.
pub const FUZZ_KEY: &[u8] = b"fencepost-fuzz-key-0123456789abc";
/// The lock the `signed_token` seeds were signed for.
pub const FUZZ_LOCK: &[u8] = b"orders";

/// A target's check: how many of its parsers accepted the input (panics on a bug).
pub type Check = fn(&[u8]) -> usize;

/// The targets, by name, as `cargo fuzz list` shows them.
pub const TARGETS: &[(&str, Check)] = &[
    ("token", token),
    ("signed_token", signed_token),
    ("snapshot", snapshot),
];

/// What the strict decimal form must give, from its documented rules in their documented order;
/// the number itself comes from the standard library's parser.
fn decimal_reference(s: &[u8]) -> Result<u64, ParseTokenError> {
    let Some(&first) = s.first() else {
        return Err(ParseTokenError::Empty);
    };
    if let Some(at) = s.iter().position(u8::is_ascii_whitespace) {
        return Err(ParseTokenError::Whitespace { at });
    }
    if first == b'+' || first == b'-' {
        return Err(ParseTokenError::Sign);
    }
    if let Some(at) = s.iter().position(|b| !b.is_ascii_digit()) {
        return Err(ParseTokenError::NotADigit { at });
    }
    if s == b"0" {
        return Err(ParseTokenError::Zero);
    }
    if first == b'0' {
        return Err(ParseTokenError::LeadingZero);
    }
    let digits = core::str::from_utf8(s).expect("ASCII digits are UTF-8");
    digits.parse::<u64>().map_err(|_| ParseTokenError::Overflow)
}

fn decimal_of(t: Token) -> Vec<u8> {
    let mut buf = [0; MAX_DECIMAL_LEN];
    t.to_decimal(&mut buf).as_bytes().to_vec()
}

/// The token parsers: decimal string, 8 bytes big-endian, and the `Fencing-Token` header value.
pub fn token(data: &[u8]) -> usize {
    let mut accepted = 0;
    let want = decimal_reference(data);

    if let Ok(s) = core::str::from_utf8(data) {
        let got = Token::parse_decimal(s);
        assert_eq!(got.map(Token::get), want, "decimal {s:?}");
        assert_eq!(s.parse::<Token>(), got, "FromStr agrees with parse_decimal");
        if let Ok(t) = got {
            assert_eq!(decimal_of(t), data, "the decimal form is canonical");
            accepted += 1;
        } else if let Err(e) = got {
            assert!(!e.to_string().is_empty());
        }
    }

    let header = Token::from_header(data);
    let want_header = match data.iter().position(|&b| b == b'.') {
        Some(dot) => decimal_reference(&data[..dot]).and(Err(ParseTokenError::Signed)),
        None => want,
    };
    assert_eq!(header.map(Token::get), want_header, "header {data:?}");
    if let Ok(t) = header {
        let mut buf = [0; MAX_DECIMAL_LEN];
        assert_eq!(t.to_header(&mut buf).as_bytes(), data);
        accepted += 1;
    }

    let bytes = Token::from_be_slice(data);
    match <[u8; 8]>::try_from(data) {
        Ok(raw) => {
            assert_eq!(bytes, Token::from_be_bytes(raw));
            match u64::from_be_bytes(raw) {
                0 => assert_eq!(bytes, Err(ParseTokenError::Zero)),
                v => {
                    let t = bytes.expect("a non-zero 8-byte value is a token");
                    assert_eq!((t.get(), t.to_be_bytes()), (v, raw));
                    accepted += 1;
                }
            }
        }
        Err(_) => assert_eq!(bytes, Err(ParseTokenError::Length { len: data.len() })),
    }

    // Whatever the parsers accepted, a guard orders it like the number it is.
    if let Ok(t) = header {
        let mut g = Guard::with_highest(Some(t));
        assert_eq!(g.check_raw(t.get()), Admission::Current);
        if let Some(lower) = Token::new(t.get() - 1) {
            let stale = Admission::Stale {
                presented: lower,
                highest: t,
            };
            assert_eq!(g.admit(lower), stale);
        }
        if let Some(higher) = t.next() {
            let advanced = Admission::Advanced { previous: Some(t) };
            assert_eq!(g.admit(higher), advanced);
        }
        assert_eq!(g.highest(), Some(t.next().unwrap_or(t)));
    }
    accepted
}

/// What a signed header value must give, from its documented form `<decimal>.<64 lowercase hex>`.
fn signed_header_reference(v: &[u8]) -> Result<(u64, [u8; MAC_LEN]), ParseSignedError> {
    let Some(dot) = v.iter().position(|&b| b == b'.') else {
        decimal_reference(v).map_err(ParseSignedError::Token)?;
        return Err(ParseSignedError::MissingMac);
    };
    let token = decimal_reference(&v[..dot]).map_err(ParseSignedError::Token)?;
    let hex = &v[dot + 1..];
    let lower_hex = |b: &u8| b.is_ascii_digit() || (b'a'..=b'f').contains(b);
    if let Some(at) = hex.iter().position(|b| !lower_hex(b)) {
        return Err(ParseSignedError::BadHex { at: dot + 1 + at });
    }
    if hex.len() < 2 * MAC_LEN {
        return Err(ParseSignedError::Truncated { len: hex.len() / 2 });
    }
    if hex.len() > 2 * MAC_LEN {
        return Err(ParseSignedError::TooLong {
            len: hex.len().div_ceil(2),
        });
    }
    let mut mac = [0; MAC_LEN];
    for (i, pair) in hex.chunks(2).enumerate() {
        let pair = core::str::from_utf8(pair).expect("hex digits are UTF-8");
        mac[i] = u8::from_str_radix(pair, 16).expect("two hex digits");
    }
    Ok((token, mac))
}

/// A parsed signed token verifies exactly when its MAC is the one the key gives, and a guard that
/// verifies never lets a forged one move its high-water mark.
fn check_signature(signer: &TokenSigner, st: &SignedToken) {
    for lock in [FUZZ_LOCK, b"".as_slice()] {
        let genuine = signer.sign(lock, st.token).expect("short lock names sign");
        let verdict = signer.verify(lock, st);
        if genuine.mac == st.mac {
            assert_eq!(verdict, Ok(st.token));
        } else {
            assert_eq!(verdict, Err(SignatureError::Forged));
        }
        let mut guard = Guard::with_highest(Some(Token::MIN));
        match guard.admit_signed(signer, lock, st) {
            Ok(a) => {
                assert_eq!(genuine.mac, st.mac);
                assert!(matches!(a, Admission::Advanced { .. } | Admission::Current));
                assert_eq!(guard.highest(), Some(st.token));
            }
            Err(e) => {
                assert_eq!(e, SignatureError::Forged);
                assert_eq!(
                    guard.highest(),
                    Some(Token::MIN),
                    "a forged token moved the guard"
                );
            }
        }
    }
}

/// The signed token parsers: the header value and the 40-byte form.
pub fn signed_token(data: &[u8]) -> usize {
    let signer = TokenSigner::new(FUZZ_KEY).expect("the fuzz key is long enough");
    let mut accepted = 0;

    let header = SignedToken::from_header(data);
    assert_eq!(
        header.map(|st| (st.token.get(), st.mac)),
        signed_header_reference(data),
        "signed header {data:?}"
    );
    match header {
        Ok(st) => {
            let mut buf = [0; SIGNED_HEADER_MAX];
            assert_eq!(st.to_header(&mut buf).as_bytes(), data, "canonical header");
            assert_eq!(SignedToken::from_bytes(&st.to_bytes()), Ok(st));
            check_signature(&signer, &st);
            accepted += 1;
        }
        Err(e) => assert!(!e.to_string().is_empty()),
    }

    accepted += keyed_token(data);

    let bytes = SignedToken::from_bytes(data);
    match data.len() {
        n if n < SIGNED_LEN => assert_eq!(
            bytes,
            Err(ParseSignedError::Truncated {
                len: n.saturating_sub(8)
            })
        ),
        n if n > SIGNED_LEN => assert_eq!(bytes, Err(ParseSignedError::TooLong { len: n - 8 })),
        _ if data[..8] == [0; 8] => {
            assert_eq!(bytes, Err(ParseSignedError::Token(ParseTokenError::Zero)));
        }
        _ => {
            let st = bytes.expect("40 bytes with a non-zero token parse");
            assert_eq!(st.to_bytes().as_slice(), data, "canonical bytes");
            let mut buf = [0; SIGNED_HEADER_MAX];
            let header = st.to_header(&mut buf).as_bytes().to_vec();
            assert_eq!(SignedToken::from_header(&header), Ok(st));
            check_signature(&signer, &st);
            accepted += 1;
        }
    }
    accepted
}

/// The keyed (v2) header form: a value that parses is written back byte for byte, and a ring
/// admits it only when its MAC is the one the ring makes; a value that does not parse is refused
/// with a message, and a v1 value is refused as having no key id. Answers 1 if it parses.
fn keyed_token(data: &[u8]) -> usize {
    match KeyedToken::from_header(data) {
        Ok(kt) => {
            let mut buf = [0; KEYED_HEADER_MAX];
            assert_eq!(
                kt.to_header(&mut buf).as_bytes(),
                data,
                "canonical keyed header"
            );
            // Key 1 only verifies now; key 2 signs.
            let first = KeyRing::new(1, FUZZ_KEY).expect("the fuzz key is long enough");
            let mut ring = first.clone();
            ring.rotate(2, b"fencepost-fuzz-key-second-one-xx")
                .expect("a new key id");
            for lock in [FUZZ_LOCK, b"".as_slice()] {
                let signer = match kt.key_id {
                    1 => &first,
                    2 => &ring,
                    key_id => {
                        let unknown = Err(SignatureError::UnknownKey { key_id });
                        assert_eq!(ring.verify(lock, &kt), unknown);
                        continue;
                    }
                };
                let genuine = signer.sign(lock, kt.token).expect("short lock names sign");
                let want = if genuine.mac == kt.mac {
                    Ok(kt.token)
                } else {
                    Err(SignatureError::Forged)
                };
                assert_eq!(ring.verify(lock, &kt), want);
            }
            1
        }
        Err(e) => {
            assert!(!e.to_string().is_empty());
            if SignedToken::from_header(data).is_ok() {
                assert_eq!(e, ParseSignedError::NoKeyId, "a v1 header has no key id");
            }
            0
        }
    }
}

/// Configs a restored snapshot is tried under: the plainest, and one with every option set.
fn configs() -> [Config; 2] {
    [
        Config::new(1),
        Config::new(30_000)
            .with_lock_delay(500)
            .with_max_reentry(2)
            .with_reserve_block(16),
    ]
}

fn authority<H>(data: &[u8], fresh: H) -> bool
where
    H: SnapshotCodec + Clone + Eq + Debug,
{
    // Read straight into an authority, the bytes give what decode-then-restore gives.
    for cfg in configs() {
        let plain = AuthoritySnapshot::<H>::decode(data).and_then(|s| Authority::restore(cfg, s));
        assert_eq!(Authority::<H>::restore_bytes(cfg, data), plain);
    }
    let snap = match AuthoritySnapshot::<H>::decode(data) {
        Ok(snap) => snap,
        Err(e) => {
            assert!(!e.to_string().is_empty());
            return false;
        }
    };
    let bytes = snap.to_bytes().expect("a decoded snapshot encodes");
    assert_eq!(bytes, data, "re-encoding gives the same bytes");
    assert_eq!(AuthoritySnapshot::<H>::decode(&bytes).as_ref(), Ok(&snap));
    for cfg in configs() {
        let mut a = Authority::restore(cfg, snap.clone()).expect("a decoded snapshot restores");
        assert_eq!(
            a.snapshot_bytes(),
            a.snapshot().to_bytes(),
            "written straight"
        );
        assert_eq!(a.timeline().latest(), snap.latest_now);
        assert_eq!(a.recorded_lease(), snap.lease.as_ref());
        if let Some(n) = a.next_token() {
            assert!(
                n.get() > snap.reserved_through,
                "restore resumed inside the reservation"
            );
        }
        // A grant now (the clamp keeps it at the snapshot's time) and one at the end of time,
        // when every lease has run out.
        for now in [0, u64::MAX] {
            match a.try_acquire(&fresh, now) {
                Ok(g) if g.depth == 1 => {
                    assert!(
                        g.token.get() > snap.reserved_through,
                        "re-issued {:?}",
                        g.token
                    );
                    assert!(snap.lease.as_ref().is_none_or(|l| l.token < g.token));
                }
                Ok(g) => {
                    let l = snap
                        .lease
                        .as_ref()
                        .expect("re-entry needs the restored lease");
                    assert_eq!((g.token, &l.holder), (l.token, &fresh));
                }
                Err(AcquireError::Exhausted) => assert_eq!(a.next_token(), None),
                Err(e) if now == u64::MAX => {
                    panic!("nothing but exhaustion refuses at the end of time: {e:?}")
                }
                Err(_) => {}
            }
        }
        let again = a.snapshot().to_bytes().expect("encodes");
        assert!(AuthoritySnapshot::<H>::decode(&again).is_ok());
    }
    true
}

fn table<K, H>(data: &[u8], lock: K, fresh: H) -> bool
where
    K: SnapshotCodec + Ord + Clone + Debug,
    H: SnapshotCodec + Clone + Eq + Debug,
{
    // Read straight into a table, the bytes give what decode-then-restore gives.
    for cfg in configs() {
        let plain = TableSnapshot::<K, H>::decode(data).and_then(|s| LockTable::restore(cfg, s));
        assert_eq!(LockTable::<K, H>::restore_bytes(cfg, data), plain);
    }
    let snap = match TableSnapshot::<K, H>::decode(data) {
        Ok(snap) => snap,
        Err(e) => {
            assert!(!e.to_string().is_empty());
            return false;
        }
    };
    let bytes = snap.to_bytes().expect("a decoded snapshot encodes");
    assert_eq!(bytes, data, "re-encoding gives the same bytes");
    assert_eq!(TableSnapshot::<K, H>::decode(&bytes).as_ref(), Ok(&snap));
    let mut names: Vec<&K> = snap.locks.iter().map(|l| &l.name).collect();
    names.sort();
    let duplicates = names.windows(2).any(|w| w[0] == w[1]);
    for cfg in configs() {
        let mut tb = match LockTable::restore(cfg, snap.clone()) {
            Ok(tb) => {
                assert!(!duplicates, "restored a table with a lock named twice");
                tb
            }
            Err(e) => {
                assert!(duplicates, "a decoded snapshot failed to restore: {e:?}");
                assert_eq!(e, SnapshotError::Invalid("locks.name"));
                continue;
            }
        };
        assert_eq!(tb.len(), snap.locks.len());
        assert_eq!(
            tb.snapshot_bytes(),
            tb.snapshot().to_bytes(),
            "written straight"
        );
        // Every lock is found however the snapshot listed them: a live lease is there and refuses
        // another holder (a lock missed by the lookup would be granted twice).
        let now = tb.timeline().latest();
        for l in &snap.locks {
            if let Some(lease) = &l.lease
                && lease.expires_at > now
                && lease.holder != fresh
            {
                assert_eq!(tb.lease(&l.name, now), Some(lease), "lost {:?}", l.name);
                assert_eq!(
                    tb.try_acquire(&l.name, &fresh, now),
                    Err(AcquireError::Held {
                        holder: lease.holder.clone(),
                        until: lease.expires_at
                    }),
                    "granted {:?} twice",
                    l.name
                );
            }
        }
        if let Some(n) = tb.next_token() {
            assert!(
                n.get() > snap.reserved_through,
                "restore resumed inside the reservation"
            );
        }
        if let Ok(g) = tb.try_acquire(&lock, &fresh, 0)
            && g.depth == 1
        {
            assert!(
                g.token.get() > snap.reserved_through,
                "re-issued {:?}",
                g.token
            );
        }
        // At the end of time every lease has run out and every lock is forgotten.
        let expired = tb.expire_all(u64::MAX);
        assert!(expired.len() <= snap.locks.len() + 1);
        assert!(tb.is_empty());
        match tb.try_acquire(&lock, &fresh, u64::MAX) {
            Ok(g) => {
                assert_eq!(g.depth, 1);
                assert!(
                    g.token.get() > snap.reserved_through,
                    "re-issued {:?}",
                    g.token
                );
            }
            Err(e) => assert_eq!(e, AcquireError::Exhausted),
        }
        let again = tb.snapshot().to_bytes().expect("encodes");
        assert!(TableSnapshot::<K, H>::decode(&again).is_ok());
    }
    true
}

/// CRC-32 (IEEE, reflected), as the snapshot format's trailer uses.
fn crc32(bytes: &[u8]) -> u32 {
    let mut table = [0u32; 256];
    for (i, slot) in table.iter_mut().enumerate() {
        let mut c = i as u32;
        for _ in 0..8 {
            c = if c & 1 == 1 {
                0xEDB8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
        }
        *slot = c;
    }
    !bytes.iter().fold(!0u32, |c, &b| {
        table[((c ^ u32::from(b)) & 0xFF) as usize] ^ (c >> 8)
    })
}

/// `body` framed as a snapshot of `kind` with a correct checksum, so that the fuzzer's mutations
/// reach the checks behind the checksum instead of stopping at it.
fn framed(kind: u8, body: &[u8]) -> Vec<u8> {
    let mut v = b"FPst\x01".to_vec();
    v.push(kind);
    v.extend_from_slice(body);
    let crc = crc32(&v);
    v.extend_from_slice(&crc.to_be_bytes());
    v
}

fn decoders(data: &[u8]) -> usize {
    [
        authority(data, String::from("fuzz")),
        authority(data, 7u32),
        table(data, String::from("fuzz"), String::from("fuzz")),
        table(data, 7u32, 7u32),
    ]
    .into_iter()
    .filter(|&ok| ok)
    .count()
}

/// The snapshot decoders, with `String` and `u32` ids: decode, re-encode, restore, use. The input
/// is tried as a whole snapshot, and as the body of an authority and of a table snapshot.
pub fn snapshot(data: &[u8]) -> usize {
    decoders(data) + decoders(&framed(1, data)) + decoders(&framed(2, data))
}
