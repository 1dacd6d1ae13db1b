//! Signed tokens (feature `signed`): stop a client from poisoning a resource.
//!
//! A plain guard trusts whatever number it is shown; a client that presents `u64::MAX` would lock
//! every honest owner out forever. With a key shared by the authority and the resource, the
//! authority attaches an HMAC-SHA-256 over `(lock name, token)` to each grant, and the resource
//! verifies it (in constant time) **before** the token can touch the guard's high-water mark.
//!
//! MAC input: the bytes `fencepost/token/v1`, a zero byte, the lock name's length as `u16`
//! big-endian, the lock name, and the token as 8 bytes big-endian.
//!
//! Encodings: 40 bytes (token big-endian, then the 32-byte MAC), or the `Fencing-Token` header
//! value `<decimal token>.<64 lowercase hex digits>`, e.g. `34.9c1f…`.
//!
//! That is format v1, one key and no key id. A deployment that rotates keys uses a [`KeyRing`]
//! and its format v2 ([`ring`]): the key id is signed too and travels in the header.

pub mod ring;

pub use ring::{KEYED_HEADER_MAX, KeyRing, KeyedToken, MAX_KEYS};

use core::fmt;

use hmac::digest::block_api::CoreProxy;
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;
use zeroize::ZeroizeOnDrop;

use crate::guard::{Admission, Guard};
use crate::token::{MAX_DECIMAL_LEN, ParseTokenError, Token, parse_decimal_bytes};

/// Length of a MAC in bytes.
pub const MAC_LEN: usize = 32;
/// Length of the byte form of a signed token.
pub const SIGNED_LEN: usize = 8 + MAC_LEN;
/// Longest header value of a signed token.
pub const SIGNED_HEADER_MAX: usize = MAX_DECIMAL_LEN + 1 + 2 * MAC_LEN;
/// Shortest key accepted, in bytes.
pub const MIN_KEY_LEN: usize = 16;
/// Longest lock name that can be signed, in bytes.
pub const MAX_LOCK_NAME: usize = u16::MAX as usize;

const DOMAIN: &[u8] = b"fencepost/token/v1\0";

/// A token with the authority's MAC.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct SignedToken {
    /// The fencing token.
    pub token: Token,
    /// HMAC-SHA-256 over the lock name and the token.
    pub mac: [u8; MAC_LEN],
}

impl fmt::Debug for SignedToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SignedToken({}, mac ", self.token)?;
        for b in &self.mac[..4] {
            write!(f, "{b:02x}")?;
        }
        f.write_str("…)")
    }
}

pub(crate) const HEX: &[u8; 16] = b"0123456789abcdef";

impl SignedToken {
    /// The 40-byte form.
    pub fn to_bytes(&self) -> [u8; SIGNED_LEN] {
        let mut out = [0; SIGNED_LEN];
        out[..8].copy_from_slice(&self.token.to_be_bytes());
        out[8..].copy_from_slice(&self.mac);
        out
    }

    /// Parses the 40-byte form.
    pub fn from_bytes(bytes: &[u8]) -> Result<SignedToken, ParseSignedError> {
        // Lengths are reported as MAC bytes (what follows the 8 token bytes), as for the header.
        let mac_len = bytes.len().saturating_sub(8);
        if bytes.len() < SIGNED_LEN {
            return Err(ParseSignedError::Truncated { len: mac_len });
        }
        if bytes.len() > SIGNED_LEN {
            return Err(ParseSignedError::TooLong { len: mac_len });
        }
        let token = Token::from_be_slice(&bytes[..8]).map_err(ParseSignedError::Token)?;
        let mut mac = [0; MAC_LEN];
        mac.copy_from_slice(&bytes[8..]);
        Ok(SignedToken { token, mac })
    }

    /// Writes the header value into `buf` and returns it.
    pub fn to_header<'b>(&self, buf: &'b mut [u8; SIGNED_HEADER_MAX]) -> &'b str {
        let n = self.write_header(buf);
        core::str::from_utf8(&buf[..n]).unwrap_or("")
    }

    /// Writes the header value (ASCII) into `buf`; returns its length.
    pub fn write_header(&self, buf: &mut [u8; SIGNED_HEADER_MAX]) -> usize {
        // Written as for a token of the most digits, then moved left over the places left empty.
        let start = buf
            .first_chunk_mut()
            .map_or(0, |dec| self.token.write_decimal(dec));
        buf[MAX_DECIMAL_LEN] = b'.';
        write_mac_hex(&mut buf[MAX_DECIMAL_LEN + 1..], &self.mac);
        buf.copy_within(start.., 0);
        SIGNED_HEADER_MAX - start
    }

    /// Parses a header value `<decimal>.<64 lowercase hex>`.
    pub fn from_header(value: &[u8]) -> Result<SignedToken, ParseSignedError> {
        // The token runs to the dot, or to the end where there is none (and then no MAC).
        let dot = value.iter().position(|&b| b == b'.').unwrap_or(value.len());
        let token = parse_decimal_bytes(value.get(..dot).unwrap_or(value))
            .map_err(ParseSignedError::Token)?;
        let Some(hex) = value.get(dot + 1..) else {
            return Err(ParseSignedError::MissingMac);
        };
        let mac = parse_mac_hex(hex, dot + 1)?;
        Ok(SignedToken { token, mac })
    }
}

/// Writes `mac` as lowercase hex digits at the start of `out` (as many as fit).
pub(crate) fn write_mac_hex(out: &mut [u8], mac: &[u8; MAC_LEN]) {
    for (pair, b) in out.chunks_exact_mut(2).zip(mac) {
        pair[0] = HEX[usize::from(b >> 4)];
        pair[1] = HEX[usize::from(b & 15)];
    }
}

/// The MAC of a header value, from its 64 lowercase hex digits `hex` (at byte `at` of the value).
pub(crate) fn parse_mac_hex(hex: &[u8], at: usize) -> Result<[u8; MAC_LEN], ParseSignedError> {
    // One pass: the first non-hex character is the error; the first 64 digits are the MAC,
    // shifted into each byte high digit first.
    let mut mac = [0; MAC_LEN];
    for (i, &c) in hex.iter().enumerate() {
        let nibble = match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            _ => return Err(ParseSignedError::BadHex { at: at + i }),
        };
        if let Some(m) = mac.get_mut(i / 2) {
            *m = *m << 4 | nibble;
        }
    }
    if hex.len() < 2 * MAC_LEN {
        return Err(ParseSignedError::Truncated { len: hex.len() / 2 });
    }
    if hex.len() > 2 * MAC_LEN {
        // Rounded up: 65 hex digits are more than 32 bytes.
        return Err(ParseSignedError::TooLong {
            len: hex.len().div_ceil(2),
        });
    }
    Ok(mac)
}

/// Why a signed token could not be parsed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ParseSignedError {
    /// The token part is bad.
    Token(ParseTokenError),
    /// A plain token with no MAC.
    MissingMac,
    /// The MAC is shorter than 32 bytes.
    Truncated {
        /// Whole bytes of MAC present (an odd hex digit does not count).
        len: usize,
    },
    /// The MAC is longer than 32 bytes.
    TooLong {
        /// Bytes of MAC present (an odd hex digit counts as one).
        len: usize,
    },
    /// A character that is not a lowercase hex digit at byte `at`.
    BadHex {
        /// Byte offset in the header value.
        at: usize,
    },
    /// A keyed token without a key id: the v1 form `<token>.<mac>`, which a [`KeyRing`] refuses
    /// rather than guess which of its keys made it.
    NoKeyId,
    /// The key id at byte `at` is not a decimal `u32` (without leading zeros).
    BadKeyId {
        /// Byte offset in the header value.
        at: usize,
    },
}

impl fmt::Display for ParseSignedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseSignedError::Token(e) => write!(f, "{e}"),
            ParseSignedError::MissingMac => f.write_str("token has no signature"),
            ParseSignedError::Truncated { len } => {
                write!(f, "signature is truncated: {len} bytes, expected {MAC_LEN}")
            }
            ParseSignedError::TooLong { len } => {
                write!(f, "signature is too long: {len} bytes, expected {MAC_LEN}")
            }
            ParseSignedError::BadHex { at } => {
                write!(f, "signature has a non-hex character at byte {at}")
            }
            ParseSignedError::NoKeyId => f.write_str("signed token has no key id (the v1 form)"),
            ParseSignedError::BadKeyId { at } => {
                write!(f, "signed token has a bad key id at byte {at}")
            }
        }
    }
}

impl core::error::Error for ParseSignedError {}

/// Why a key or a signature was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SignatureError {
    /// The MAC does not match this lock and token: forged, tampered, or for another lock.
    Forged,
    /// The key is shorter than [`MIN_KEY_LEN`] bytes.
    KeyTooShort {
        /// The length given.
        len: usize,
    },
    /// The lock name is longer than [`MAX_LOCK_NAME`] bytes.
    LockNameTooLong,
    /// A key ring holds no key of this id (never added, or removed since).
    UnknownKey {
        /// The key id asked for.
        key_id: u32,
    },
    /// A key ring already holds [`MAX_KEYS`] keys: remove a previous one before rotating.
    RingFull {
        /// The ring's capacity.
        max: usize,
    },
    /// A key ring already holds a key of this id.
    KeyIdTaken {
        /// The id given.
        key_id: u32,
    },
    /// The current key of a ring cannot be removed; rotate to another first.
    CurrentKey {
        /// Its id.
        key_id: u32,
    },
}

impl fmt::Display for SignatureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SignatureError::Forged => f.write_str("token signature does not verify for this lock"),
            SignatureError::KeyTooShort { len } => {
                write!(
                    f,
                    "signing key is {len} bytes; at least {MIN_KEY_LEN} are required"
                )
            }
            SignatureError::LockNameTooLong => f.write_str("lock name is too long to sign"),
            SignatureError::UnknownKey { key_id } => {
                write!(
                    f,
                    "token is signed with key {key_id}, which the ring does not have"
                )
            }
            SignatureError::RingFull { max } => {
                write!(f, "the key ring already holds {max} keys: remove one first")
            }
            SignatureError::KeyIdTaken { key_id } => {
                write!(f, "the key ring already holds key {key_id}")
            }
            SignatureError::CurrentKey { key_id } => write!(
                f,
                "key {key_id} is the ring's current key: rotate to another before removing it"
            ),
        }
    }
}

impl core::error::Error for SignatureError {}

/// Signs and verifies tokens with one secret key. Both the authority and the resource hold it.
///
/// It keeps HMAC's keyed state (the key already mixed into the inner and outer hashes), so a MAC
/// costs two compressions rather than four; that state is as secret as the key, and RustCrypto
/// wipes it when the signer is dropped.
#[derive(Clone)]
pub struct TokenSigner {
    keyed: Hmac<Sha256>,
}

// HMAC's keyed state is two SHA-256 states and a block buffer. The buffer always wipes itself on
// drop (block-buffer's `zeroize`); the SHA-256 state does with sha2's `zeroize` feature, which this
// checks at compile time, so a dependency change that loses the wipe stops the build.
const _: fn(&<Sha256 as CoreProxy>::Core) -> &dyn ZeroizeOnDrop = |core| core;

impl ZeroizeOnDrop for TokenSigner {}

impl fmt::Debug for TokenSigner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("TokenSigner(..)")
    }
}

impl TokenSigner {
    /// A signer for `key` (at least [`MIN_KEY_LEN`] bytes of secret randomness).
    pub fn new(key: &[u8]) -> Result<TokenSigner, SignatureError> {
        if key.len() < MIN_KEY_LEN {
            return Err(SignatureError::KeyTooShort { len: key.len() });
        }
        // HMAC takes a key of any length (a long one is hashed first), so this cannot fail.
        let keyed = <Hmac<Sha256> as KeyInit>::new_from_slice(key)
            .map_err(|_| SignatureError::KeyTooShort { len: key.len() })?;
        Ok(TokenSigner { keyed })
    }

    /// The MAC state after the documented input for `lock` and `token`, ready to finish or verify:
    /// format v1 (`domain` [`DOMAIN`], no key id) or a key ring's v2 (its domain and key id).
    pub(crate) fn mac_of(
        &self,
        domain: &[u8],
        key_id: Option<u32>,
        lock: &[u8],
        token: Token,
    ) -> Result<Hmac<Sha256>, SignatureError> {
        let len = u16::try_from(lock.len()).map_err(|_| SignatureError::LockNameTooLong)?;
        let mut m = self.keyed.clone();
        m.update(domain);
        if let Some(id) = key_id {
            m.update(&id.to_be_bytes());
        }
        m.update(&len.to_be_bytes());
        m.update(lock);
        m.update(&token.get().to_be_bytes());
        Ok(m)
    }

    /// Signs `token` for the lock named `lock`.
    pub fn sign(&self, lock: &[u8], token: Token) -> Result<SignedToken, SignatureError> {
        let mac = self
            .mac_of(DOMAIN, None, lock, token)?
            .finalize()
            .into_bytes();
        Ok(SignedToken {
            token,
            mac: mac.into(),
        })
    }

    /// Verifies a signed token for `lock`; returns the token if genuine. The MACs are compared in
    /// constant time (RustCrypto's `verify_slice`), so timing does not tell a forger how many of
    /// its bytes were right.
    pub fn verify(&self, lock: &[u8], signed: &SignedToken) -> Result<Token, SignatureError> {
        self.verify_mac(DOMAIN, None, lock, signed.token, &signed.mac)
    }

    /// Checks `mac` against the MAC of the input [`TokenSigner::mac_of`] describes, in constant
    /// time; the token if it matches.
    pub(crate) fn verify_mac(
        &self,
        domain: &[u8],
        key_id: Option<u32>,
        lock: &[u8],
        token: Token,
        mac: &[u8; MAC_LEN],
    ) -> Result<Token, SignatureError> {
        self.mac_of(domain, key_id, lock, token)?
            .verify_slice(mac)
            .map_err(|_| SignatureError::Forged)?;
        Ok(token)
    }
}

impl Guard {
    /// Verifies `signed` for `lock`, then admits its token. A forged token is refused before it can
    /// move the high-water mark.
    pub fn admit_signed(
        &mut self,
        signer: &TokenSigner,
        lock: &[u8],
        signed: &SignedToken,
    ) -> Result<Admission, SignatureError> {
        let token = signer.verify(lock, signed)?;
        Ok(self.admit(token))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::string::ToString;

    const KEY: &[u8] = b"0123456789abcdef0123456789abcdef";

    fn t(v: u64) -> Token {
        Token::new(v).unwrap()
    }

    #[test]
    fn sign_and_verify() {
        let s = TokenSigner::new(KEY).unwrap();
        let st = s.sign(b"orders", t(34)).unwrap();
        assert_eq!(s.verify(b"orders", &st), Ok(t(34)));
        // Same token, other lock.
        assert_eq!(s.verify(b"invoices", &st), Err(SignatureError::Forged));
        // Tampered token keeps the old MAC.
        let forged = SignedToken {
            token: Token::MAX,
            mac: st.mac,
        };
        assert_eq!(s.verify(b"orders", &forged), Err(SignatureError::Forged));
        // Another key.
        let other = TokenSigner::new(b"another key of 16+ bytes").unwrap();
        assert_eq!(other.verify(b"orders", &st), Err(SignatureError::Forged));
        // Any flipped bit in the MAC.
        for i in 0..MAC_LEN * 8 {
            let mut bad = st;
            bad.mac[i / 8] ^= 1 << (i % 8);
            assert_eq!(s.verify(b"orders", &bad), Err(SignatureError::Forged));
        }
    }

    #[test]
    fn mac_is_pinned() {
        // Computed outside fencepost (Python's hmac module over the documented input), so other
        // implementations, and later versions of this one, can check themselves against it.
        let s = TokenSigner::new(KEY).unwrap();
        let mut buf = [0; SIGNED_HEADER_MAX];
        let header = s
            .sign(b"orders", t(34))
            .unwrap()
            .to_header(&mut buf)
            .to_string();
        assert_eq!(
            header,
            "34.59fec7e4418cf074a18e55aa3dc05f197853a865007efa9d0fba0b30a9cf452c"
        );
        assert_eq!(
            s.verify(
                b"orders",
                &SignedToken::from_header(header.as_bytes()).unwrap()
            ),
            Ok(t(34))
        );
    }

    #[test]
    fn header_bytes_are_the_header_text() {
        let s = TokenSigner::new(KEY).unwrap();
        for v in [1, 9, 10, 34, 1_000_000, u64::MAX] {
            let st = s.sign(b"orders", t(v)).unwrap();
            let mut text = [0; SIGNED_HEADER_MAX];
            let header = st.to_header(&mut text).to_string();
            let mut bytes = [0; SIGNED_HEADER_MAX];
            let n = st.write_header(&mut bytes);
            assert_eq!(&bytes[..n], header.as_bytes());
            assert_eq!(n, v.to_string().len() + 1 + 64);
            assert!(header.starts_with(&alloc::format!("{v}.")));
        }
    }

    /// HMAC-SHA-256 of `data` under `key`, through the signer's keyed state (any key length).
    fn raw_mac(key: &[u8], data: &[u8]) -> [u8; MAC_LEN] {
        let signer = TokenSigner {
            keyed: <Hmac<Sha256> as KeyInit>::new_from_slice(key).unwrap(),
        };
        let mut m = signer.keyed.clone();
        m.update(data);
        m.finalize().into_bytes().into()
    }

    fn hex(s: &str) -> std::vec::Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    #[test]
    fn rfc_4231_vectors() {
        let key_4: std::vec::Vec<u8> = (1..=25).collect();
        let cases: &[(&[u8], &[u8], &str)] = &[
            (
                &[0x0b; 20],
                b"Hi There",
                "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7",
            ),
            (
                b"Jefe",
                b"what do ya want for nothing?",
                "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
            ),
            (
                &[0xaa; 20],
                &[0xdd; 50],
                "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe",
            ),
            (
                &key_4,
                &[0xcd; 50],
                "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b",
            ),
            // Case 5 checks only the first 128 bits.
            (
                &[0x0c; 20],
                b"Test With Truncation",
                "a3b6167473100ee06e0c796c2955552b",
            ),
            (
                &[0xaa; 131],
                b"Test Using Larger Than Block-Size Key - Hash Key First",
                "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54",
            ),
            (
                &[0xaa; 131],
                b"This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm.",
                "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2",
            ),
        ];
        for (n, (key, data, want)) in cases.iter().enumerate() {
            let want = hex(want);
            assert_eq!(raw_mac(key, data)[..want.len()], want[..], "case {}", n + 1);
        }
    }

    #[test]
    fn mac_is_hmac_sha256_of_the_documented_input() {
        // The module docs' framing, assembled here byte by byte, for keys below, at and above the
        // block size and lock names of every length class.
        let long_key = [0x5a; 100];
        let long_lock = std::vec![b'l'; 300];
        for key in [KEY, &long_key[..], &KEY[..MIN_KEY_LEN]] {
            let s = TokenSigner::new(key).unwrap();
            for lock in [&b""[..], b"orders", &long_lock] {
                for v in [1, 34, u64::MAX] {
                    let mut input = std::vec::Vec::new();
                    input.extend_from_slice(b"fencepost/token/v1\0");
                    input.extend_from_slice(&(lock.len() as u16).to_be_bytes());
                    input.extend_from_slice(lock);
                    input.extend_from_slice(&v.to_be_bytes());
                    assert_eq!(s.sign(lock, t(v)).unwrap().mac, raw_mac(key, &input));
                }
            }
        }
    }

    #[test]
    fn key_and_lock_limits() {
        assert_eq!(
            TokenSigner::new(b"short").unwrap_err(),
            SignatureError::KeyTooShort { len: 5 }
        );
        let s = TokenSigner::new(KEY).unwrap();
        let long = std::vec![b'x'; MAX_LOCK_NAME + 1];
        assert_eq!(
            s.sign(&long, t(1)).unwrap_err(),
            SignatureError::LockNameTooLong
        );
        assert!(s.sign(&long[..MAX_LOCK_NAME], t(1)).is_ok());
        assert_eq!(std::format!("{:?}", s), "TokenSigner(..)");
    }

    #[test]
    fn header_errors() {
        let s = TokenSigner::new(KEY).unwrap();
        let mut buf = [0; SIGNED_HEADER_MAX];
        let good = s.sign(b"l", t(34)).unwrap().to_header(&mut buf).to_string();
        let cases: &[(&str, ParseSignedError)] = &[
            ("34", ParseSignedError::MissingMac),
            ("", ParseSignedError::Token(ParseTokenError::Empty)),
            (
                "abc",
                ParseSignedError::Token(ParseTokenError::NotADigit { at: 0 }),
            ),
            ("-1.00", ParseSignedError::Token(ParseTokenError::Sign)),
            ("0.00", ParseSignedError::Token(ParseTokenError::Zero)),
            (".00", ParseSignedError::Token(ParseTokenError::Empty)),
            ("34.", ParseSignedError::Truncated { len: 0 }),
            ("34.abcd", ParseSignedError::Truncated { len: 2 }),
            ("34.ABCD", ParseSignedError::BadHex { at: 3 }),
            ("34.zz", ParseSignedError::BadHex { at: 3 }),
            ("34.00.00", ParseSignedError::BadHex { at: 5 }),
        ];
        for (input, want) in cases {
            assert_eq!(
                SignedToken::from_header(input.as_bytes()),
                Err(*want),
                "{input:?}"
            );
        }
        assert_eq!(
            SignedToken::from_header(&good.as_bytes()[..good.len() - 1]),
            Err(ParseSignedError::Truncated { len: 31 })
        );
        let longer = std::format!("{good}00");
        assert_eq!(
            SignedToken::from_header(longer.as_bytes()),
            Err(ParseSignedError::TooLong { len: 33 })
        );
        // One hex digit too many is more than 32 bytes, and says so.
        let odd = std::format!("{good}0");
        let e = SignedToken::from_header(odd.as_bytes()).unwrap_err();
        assert_eq!(e, ParseSignedError::TooLong { len: 33 });
        assert_eq!(
            std::format!("{e}"),
            "signature is too long: 33 bytes, expected 32"
        );
        // The unsigned parser points at the signed one.
        assert_eq!(
            Token::from_header(good.as_bytes()),
            Err(ParseTokenError::Signed)
        );
    }

    #[test]
    fn byte_form() {
        let s = TokenSigner::new(KEY).unwrap();
        let st = s.sign(b"l", t(34)).unwrap();
        let b = st.to_bytes();
        assert_eq!(SignedToken::from_bytes(&b), Ok(st));
        assert_eq!(
            SignedToken::from_bytes(&b[..39]),
            Err(ParseSignedError::Truncated { len: 31 })
        );
        assert_eq!(
            std::format!("{}", SignedToken::from_bytes(&b[..39]).unwrap_err()),
            "signature is truncated: 31 bytes, expected 32"
        );
        let mut long = b.to_vec();
        long.push(0);
        assert_eq!(
            SignedToken::from_bytes(&long),
            Err(ParseSignedError::TooLong { len: 33 })
        );
        assert_eq!(
            SignedToken::from_bytes(&[0; 40]),
            Err(ParseSignedError::Token(ParseTokenError::Zero))
        );
    }

    #[test]
    fn poisoning_is_refused_by_a_verifying_guard() {
        let s = TokenSigner::new(KEY).unwrap();
        let mut g = Guard::new();
        let b = s.sign(b"orders", t(34)).unwrap();
        assert_eq!(
            g.admit_signed(&s, b"orders", &b),
            Ok(Admission::Advanced { previous: None })
        );
        // A client invents u64::MAX with a made-up MAC.
        let poison = SignedToken {
            token: Token::MAX,
            mac: [0xAA; MAC_LEN],
        };
        assert_eq!(
            g.admit_signed(&s, b"orders", &poison),
            Err(SignatureError::Forged)
        );
        assert_eq!(g.highest(), Some(t(34)));
        // The honest next owner still gets in.
        let c = s.sign(b"orders", t(35)).unwrap();
        assert!(g.admit_signed(&s, b"orders", &c).unwrap().is_accepted());
    }
}
