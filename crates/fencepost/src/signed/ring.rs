//! Key rotation: tokens signed under a key id, and the ring of keys one deployment holds.
//!
//! A deployment signs with its current key and keeps its previous keys for verifying, so tokens
//! granted before a rotation stay good until their key is removed from the ring. The key id is
//! part of what is signed: a token verifies only under the id and the key that signed it, so two
//! deployments sharing a lock name but not a key never accept each other's tokens.
//!
//! MAC input (format v2): the bytes `fencepost/token/v2`, a zero byte, the key id as `u32`
//! big-endian, the lock name's length as `u16` big-endian, the lock name, and the token as 8 bytes
//! big-endian.
//!
//! Header value: `<decimal token>.<decimal key id>.<64 lowercase hex digits>`, e.g. `34.1.9c1f…`.
//! The v1 form `<token>.<mac>` of a single [`TokenSigner`] carries no key id:
//! [`KeyedToken::from_header`] refuses it with [`ParseSignedError::NoKeyId`] rather than guess
//! which key made it.

use core::fmt;

use hmac::Mac;

use super::{MAC_LEN, ParseSignedError, SignatureError, TokenSigner, parse_mac_hex, write_mac_hex};
use crate::guard::{Admission, Guard};
use crate::token::{MAX_DECIMAL_LEN, Token, parse_decimal_bytes, write_digits};

/// Keys a ring holds at once: the current one and up to three previous ones.
pub const MAX_KEYS: usize = 4;
/// Most digits of a key id.
const KEY_ID_DIGITS: usize = 10;
/// Longest header value of a keyed token.
pub const KEYED_HEADER_MAX: usize = MAX_DECIMAL_LEN + 1 + KEY_ID_DIGITS + 1 + 2 * MAC_LEN;

const DOMAIN: &[u8] = b"fencepost/token/v2\0";

/// A token with the MAC of one key of a [`KeyRing`], and that key's id.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct KeyedToken {
    /// The fencing token.
    pub token: Token,
    /// The id of the key that signed it.
    pub key_id: u32,
    /// HMAC-SHA-256 over the key id, the lock name and the token.
    pub mac: [u8; MAC_LEN],
}

impl fmt::Debug for KeyedToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "KeyedToken({}, key {}, mac ", self.token, self.key_id)?;
        for b in &self.mac[..4] {
            write!(f, "{b:02x}")?;
        }
        f.write_str("…)")
    }
}

impl KeyedToken {
    /// Writes the header value (ASCII) into `buf`; returns its length.
    pub fn write_header(&self, buf: &mut [u8; KEYED_HEADER_MAX]) -> usize {
        let mut dec = [0; MAX_DECIMAL_LEN];
        let start = self.token.write_decimal(&mut dec);
        let mut id = [0; KEY_ID_DIGITS];
        let id_start = write_digits(u64::from(self.key_id), &mut id);
        let mut n = 0;
        for part in [&dec[start..], b".", &id[id_start..], b"."] {
            buf[n..n + part.len()].copy_from_slice(part);
            n += part.len();
        }
        write_mac_hex(&mut buf[n..], &self.mac);
        n + 2 * MAC_LEN
    }

    /// Writes the header value into `buf` and returns it.
    pub fn to_header<'b>(&self, buf: &'b mut [u8; KEYED_HEADER_MAX]) -> &'b str {
        let n = self.write_header(buf);
        core::str::from_utf8(&buf[..n]).unwrap_or("")
    }

    /// Parses a header value `<decimal token>.<decimal key id>.<64 lowercase hex>`.
    pub fn from_header(value: &[u8]) -> Result<KeyedToken, ParseSignedError> {
        let dot = value.iter().position(|&b| b == b'.').unwrap_or(value.len());
        let token = parse_decimal_bytes(value.get(..dot).unwrap_or(value))
            .map_err(ParseSignedError::Token)?;
        let Some(rest) = value.get(dot + 1..) else {
            return Err(ParseSignedError::MissingMac);
        };
        // Without a second dot this is the v1 form (or garbage in its place): no key id.
        let Some(second) = rest.iter().position(|&b| b == b'.') else {
            return Err(ParseSignedError::NoKeyId);
        };
        let key_id =
            parse_key_id(&rest[..second]).ok_or(ParseSignedError::BadKeyId { at: dot + 1 })?;
        let at = dot + 1 + second + 1;
        let mac = parse_mac_hex(&value[at..], at)?;
        Ok(KeyedToken { token, key_id, mac })
    }
}

/// A key id: decimal digits without a leading zero ("0" itself is one), at most `u32::MAX`.
fn parse_key_id(digits: &[u8]) -> Option<u32> {
    if digits.is_empty() || (digits.len() > 1 && digits[0] == b'0') {
        return None;
    }
    digits.iter().try_fold(0u32, |acc, &c| {
        let d = c.checked_sub(b'0').filter(|d| *d < 10)?;
        acc.checked_mul(10)?.checked_add(u32::from(d))
    })
}

/// The keys of one deployment: the current key signs; previous keys only verify, until removed.
#[derive(Clone)]
pub struct KeyRing {
    current: (u32, TokenSigner),
    previous: [Option<(u32, TokenSigner)>; MAX_KEYS - 1],
}

impl fmt::Debug for KeyRing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "KeyRing(current key {}, ..)", self.current.0)
    }
}

impl KeyRing {
    /// A ring whose current key is `key` (at least [`super::MIN_KEY_LEN`] bytes), id `key_id`.
    pub fn new(key_id: u32, key: &[u8]) -> Result<KeyRing, SignatureError> {
        Ok(KeyRing {
            current: (key_id, TokenSigner::new(key)?),
            previous: [const { None }; MAX_KEYS - 1],
        })
    }

    /// Makes `key` the current key under `key_id`; the current key stays, for verifying only.
    pub fn rotate(&mut self, key_id: u32, key: &[u8]) -> Result<(), SignatureError> {
        if self.contains(key_id) {
            return Err(SignatureError::KeyIdTaken { key_id });
        }
        let free = self
            .previous
            .iter_mut()
            .find(|k| k.is_none())
            .ok_or(SignatureError::RingFull { max: MAX_KEYS })?;
        let signer = TokenSigner::new(key)?;
        *free = Some(core::mem::replace(&mut self.current, (key_id, signer)));
        Ok(())
    }

    /// Removes a previous key: the tokens it signed no longer verify. The current key cannot be
    /// removed (rotate to another first).
    pub fn remove(&mut self, key_id: u32) -> Result<(), SignatureError> {
        if self.current.0 == key_id {
            return Err(SignatureError::CurrentKey { key_id });
        }
        let slot = self
            .previous
            .iter_mut()
            .find(|k| k.as_ref().is_some_and(|(id, _)| *id == key_id))
            .ok_or(SignatureError::UnknownKey { key_id })?;
        *slot = None;
        Ok(())
    }

    /// The id of the key that signs.
    pub fn current_key_id(&self) -> u32 {
        self.current.0
    }

    /// Whether the ring holds a key of id `key_id`.
    pub fn contains(&self, key_id: u32) -> bool {
        self.key(key_id).is_some()
    }

    fn key(&self, key_id: u32) -> Option<&TokenSigner> {
        core::iter::once(&self.current)
            .chain(self.previous.iter().flatten())
            .find(|(id, _)| *id == key_id)
            .map(|(_, signer)| signer)
    }

    /// Signs `token` for the lock named `lock` with the current key.
    pub fn sign(&self, lock: &[u8], token: Token) -> Result<KeyedToken, SignatureError> {
        let (key_id, signer) = &self.current;
        Ok(KeyedToken {
            token,
            key_id: *key_id,
            mac: signer
                .mac_of(DOMAIN, Some(*key_id), lock, token)?
                .finalize()
                .into_bytes()
                .into(),
        })
    }

    /// Verifies a keyed token for `lock` (in constant time) with the key its id names; returns the
    /// token if genuine.
    pub fn verify(&self, lock: &[u8], keyed: &KeyedToken) -> Result<Token, SignatureError> {
        let key_id = keyed.key_id;
        let signer = self
            .key(key_id)
            .ok_or(SignatureError::UnknownKey { key_id })?;
        signer.verify_mac(DOMAIN, Some(key_id), lock, keyed.token, &keyed.mac)
    }
}

impl Guard {
    /// Verifies `keyed` for `lock` with `ring`, then admits its token. A forged token, or one of a
    /// key the ring does not hold, is refused before it can move the high-water mark.
    pub fn admit_keyed(
        &mut self,
        ring: &KeyRing,
        lock: &[u8],
        keyed: &KeyedToken,
    ) -> Result<Admission, SignatureError> {
        let token = ring.verify(lock, keyed)?;
        Ok(self.admit(token))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signed::MIN_KEY_LEN;
    use std::string::{String, ToString};

    const K1: &[u8] = b"first key, sixteen+ bytes";
    const K2: &[u8] = b"second key, sixteen+ bytes";

    fn t(v: u64) -> Token {
        Token::new(v).unwrap()
    }

    fn header(k: &KeyedToken) -> String {
        let mut buf = [0; KEYED_HEADER_MAX];
        k.to_header(&mut buf).to_string()
    }

    #[test]
    fn the_current_key_signs_and_previous_keys_verify_until_removed() {
        let mut ring = KeyRing::new(1, K1).unwrap();
        let old = ring.sign(b"orders", t(34)).unwrap();
        assert_eq!(old.key_id, 1);
        ring.rotate(2, K2).unwrap();
        assert_eq!(ring.current_key_id(), 2);
        let new = ring.sign(b"orders", t(35)).unwrap();
        assert_eq!(new.key_id, 2);
        assert_eq!(ring.verify(b"orders", &old), Ok(t(34)));
        assert_eq!(ring.verify(b"orders", &new), Ok(t(35)));
        assert_eq!(ring.verify(b"invoices", &new), Err(SignatureError::Forged));
        ring.remove(1).unwrap();
        assert!(!ring.contains(1));
        assert_eq!(
            ring.verify(b"orders", &old),
            Err(SignatureError::UnknownKey { key_id: 1 })
        );
        assert_eq!(ring.verify(b"orders", &new), Ok(t(35)));
    }

    #[test]
    fn the_key_id_is_signed() {
        let mut ring = KeyRing::new(1, K1).unwrap();
        ring.rotate(2, K1).unwrap();
        let k = ring.sign(b"orders", t(34)).unwrap();
        // The same secret under another id of the ring: the MAC does not move with the id.
        let moved = KeyedToken { key_id: 1, ..k };
        assert_eq!(ring.verify(b"orders", &moved), Err(SignatureError::Forged));
        // Another deployment with its own key 2 shares lock names, not tokens.
        let other = KeyRing::new(2, K2).unwrap();
        assert_eq!(other.verify(b"orders", &k), Err(SignatureError::Forged));
        // Tampering with the token or any bit of the MAC.
        let bigger = KeyedToken {
            token: Token::MAX,
            ..k
        };
        assert_eq!(ring.verify(b"orders", &bigger), Err(SignatureError::Forged));
        for i in 0..MAC_LEN * 8 {
            let mut bad = k;
            bad.mac[i / 8] ^= 1 << (i % 8);
            assert_eq!(ring.verify(b"orders", &bad), Err(SignatureError::Forged));
        }
    }

    #[test]
    fn rotation_rules() {
        let mut ring = KeyRing::new(1, K1).unwrap();
        assert_eq!(
            ring.rotate(1, K2),
            Err(SignatureError::KeyIdTaken { key_id: 1 })
        );
        assert_eq!(
            ring.remove(1),
            Err(SignatureError::CurrentKey { key_id: 1 })
        );
        assert_eq!(
            ring.remove(9),
            Err(SignatureError::UnknownKey { key_id: 9 })
        );
        assert_eq!(
            ring.rotate(2, &K2[..MIN_KEY_LEN - 1]),
            Err(SignatureError::KeyTooShort {
                len: MIN_KEY_LEN - 1
            })
        );
        assert_eq!(
            ring.current_key_id(),
            1,
            "a refused rotation changes nothing"
        );
        for id in 2..=MAX_KEYS as u32 {
            ring.rotate(id, K2).unwrap();
        }
        assert_eq!(
            ring.rotate(99, K2),
            Err(SignatureError::RingFull { max: MAX_KEYS })
        );
        ring.remove(1).unwrap();
        ring.rotate(99, K2).unwrap();
        assert_eq!(ring.current_key_id(), 99);
        assert_eq!(alloc::format!("{ring:?}"), "KeyRing(current key 99, ..)");
        assert_eq!(
            KeyRing::new(1, b"short").unwrap_err(),
            SignatureError::KeyTooShort { len: 5 }
        );
    }

    #[test]
    fn mac_is_hmac_sha256_of_the_documented_input() {
        use hmac::{Hmac, KeyInit};
        use sha2::Sha256;
        let long_lock = std::vec![b'l'; 300];
        for key_id in [0, 1, 7, u32::MAX] {
            let ring = KeyRing::new(key_id, K1).unwrap();
            for lock in [&b""[..], b"orders", &long_lock] {
                for v in [1, 34, u64::MAX] {
                    let mut m = <Hmac<Sha256> as KeyInit>::new_from_slice(K1).unwrap();
                    m.update(b"fencepost/token/v2\0");
                    m.update(&key_id.to_be_bytes());
                    m.update(&(lock.len() as u16).to_be_bytes());
                    m.update(lock);
                    m.update(&v.to_be_bytes());
                    let want: [u8; MAC_LEN] = m.finalize().into_bytes().into();
                    assert_eq!(ring.sign(lock, t(v)).unwrap().mac, want);
                }
            }
        }
    }

    #[test]
    fn headers_round_trip() {
        for key_id in [0, 1, 10, u32::MAX] {
            let ring = KeyRing::new(key_id, K1).unwrap();
            for v in [1, 9, 34, u64::MAX] {
                let k = ring.sign(b"orders", t(v)).unwrap();
                let h = header(&k);
                assert!(h.starts_with(&alloc::format!("{v}.{key_id}.")), "{h}");
                assert_eq!(
                    h.len(),
                    v.to_string().len() + key_id.to_string().len() + 2 + 64
                );
                assert_eq!(KeyedToken::from_header(h.as_bytes()), Ok(k));
            }
        }
        let k = KeyRing::new(1, K1).unwrap().sign(b"l", t(34)).unwrap();
        assert!(alloc::format!("{k:?}").starts_with("KeyedToken(34, key 1, mac "));
    }

    #[test]
    fn header_errors() {
        let mac = "ab".repeat(MAC_LEN);
        let cases: &[(String, ParseSignedError)] = &[
            ("34".into(), ParseSignedError::MissingMac),
            (
                "x.1.00".into(),
                ParseSignedError::Token(crate::token::ParseTokenError::NotADigit { at: 0 }),
            ),
            // The v1 form, `<token>.<mac>`.
            (alloc::format!("34.{mac}"), ParseSignedError::NoKeyId),
            (
                alloc::format!("34..{mac}"),
                ParseSignedError::BadKeyId { at: 3 },
            ),
            (
                alloc::format!("34.01.{mac}"),
                ParseSignedError::BadKeyId { at: 3 },
            ),
            (
                alloc::format!("34.-1.{mac}"),
                ParseSignedError::BadKeyId { at: 3 },
            ),
            (
                alloc::format!("34.4294967296.{mac}"),
                ParseSignedError::BadKeyId { at: 3 },
            ),
            ("34.1.".into(), ParseSignedError::Truncated { len: 0 }),
            ("34.1.ABCD".into(), ParseSignedError::BadHex { at: 5 }),
            (
                alloc::format!("34.1.{mac}.00"),
                ParseSignedError::BadHex { at: 69 },
            ),
            (
                alloc::format!("34.1.{mac}0"),
                ParseSignedError::TooLong { len: 33 },
            ),
        ];
        for (input, want) in cases {
            assert_eq!(
                KeyedToken::from_header(input.as_bytes()),
                Err(*want),
                "{input:?}"
            );
        }
    }

    #[test]
    fn poisoning_is_refused_by_a_verifying_guard() {
        let ring = KeyRing::new(3, K1).unwrap();
        let mut g = Guard::new();
        let b = ring.sign(b"orders", t(34)).unwrap();
        assert_eq!(
            g.admit_keyed(&ring, b"orders", &b),
            Ok(Admission::Advanced { previous: None })
        );
        let poison = KeyedToken {
            token: Token::MAX,
            key_id: 3,
            mac: [0xAA; MAC_LEN],
        };
        assert_eq!(
            g.admit_keyed(&ring, b"orders", &poison),
            Err(SignatureError::Forged)
        );
        let unknown = KeyedToken {
            key_id: 4,
            ..poison
        };
        assert_eq!(
            g.admit_keyed(&ring, b"orders", &unknown),
            Err(SignatureError::UnknownKey { key_id: 4 })
        );
        assert_eq!(g.highest(), Some(t(34)));
    }
}
