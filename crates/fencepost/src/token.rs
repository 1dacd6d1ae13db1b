//! Fencing tokens and their codecs.
//!
//! A [`Token`] is a non-zero `u64`. Zero is reserved as "no token" (it can never be granted, and a
//! guard refuses it), so `Option<Token>` costs no more than a `u64`.
//!
//! Three encodings are defined, all strict; every parser returns a [`ParseTokenError`]:
//!
//! * **decimal**: ASCII digits `1`..`18446744073709551615`, no sign, no whitespace, no leading zero.
//! * **bytes**: exactly 8 bytes, big-endian (so byte strings sort like the tokens they encode).
//! * **HTTP header** `Fencing-Token`: the field value is the decimal form. A signed token appends
//!   `.` and 64 lowercase hex digits of its MAC (see the `signed` feature). HTTP stacks strip the
//!   optional whitespace around a field value before handing it over, so none is accepted here.

use core::fmt;
use core::num::NonZeroU64;
use core::str::FromStr;

/// Name of the HTTP header that carries a fencing token.
pub const HEADER_NAME: &str = "Fencing-Token";

/// Longest decimal form of a token (`u64::MAX` has 20 digits).
pub const MAX_DECIMAL_LEN: usize = 20;

/// A fencing token: a number that grows with every grant of a lock.
///
/// Tokens are totally ordered; a resource refuses any token lower than the highest it accepted.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(transparent))]
pub struct Token(NonZeroU64);

impl Token {
    /// The lowest valid token.
    pub const MIN: Token = Token(NonZeroU64::MIN);
    /// The highest token. Nothing can be issued after it.
    pub const MAX: Token = Token(NonZeroU64::MAX);

    /// A token from its number; `None` for 0, which is never a valid token.
    #[inline]
    pub const fn new(value: u64) -> Option<Token> {
        match NonZeroU64::new(value) {
            Some(v) => Some(Token(v)),
            None => None,
        }
    }

    /// The token's number (never 0).
    #[inline]
    pub const fn get(self) -> u64 {
        self.0.get()
    }

    /// The token after this one, or `None` when this is [`Token::MAX`]. Never wraps.
    #[inline]
    pub const fn next(self) -> Option<Token> {
        match self.0.checked_add(1) {
            Some(v) => Some(Token(v)),
            None => None,
        }
    }

    /// Parses the strict decimal form.
    pub fn parse_decimal(s: &str) -> Result<Token, ParseTokenError> {
        parse_decimal_bytes(s.as_bytes())
    }

    /// Parses the strict decimal form from bytes (UTF-8 text or not: anything but ASCII digits is
    /// refused, at its byte offset).
    pub fn parse_decimal_bytes(bytes: &[u8]) -> Result<Token, ParseTokenError> {
        parse_decimal_bytes(bytes)
    }

    /// Writes the decimal form into `buf` and returns it as a string slice.
    pub fn to_decimal(self, buf: &mut [u8; MAX_DECIMAL_LEN]) -> &str {
        let i = self.write_decimal(buf);
        // Only ASCII digits were written.
        core::str::from_utf8(&buf[i..]).unwrap_or("")
    }

    /// Writes the decimal digits at the end of `buf`; returns the index of the first one.
    pub fn write_decimal(self, buf: &mut [u8; MAX_DECIMAL_LEN]) -> usize {
        write_digits(self.get(), buf)
    }

    /// The 8-byte big-endian form.
    #[inline]
    pub const fn to_be_bytes(self) -> [u8; 8] {
        self.get().to_be_bytes()
    }

    /// Parses the 8-byte big-endian form.
    #[inline]
    pub const fn from_be_bytes(bytes: [u8; 8]) -> Result<Token, ParseTokenError> {
        match Token::new(u64::from_be_bytes(bytes)) {
            Some(t) => Ok(t),
            None => Err(ParseTokenError::Zero),
        }
    }

    /// Parses the 8-byte big-endian form from a slice of any length; anything but 8 bytes is an error.
    pub fn from_be_slice(bytes: &[u8]) -> Result<Token, ParseTokenError> {
        if bytes.len() != 8 {
            return Err(ParseTokenError::Length { len: bytes.len() });
        }
        // A byte at a time: WebAssembly has no byte swap, and the loop is the shorter code.
        let v = bytes.iter().fold(0, |v, &b| v << 8 | u64::from(b));
        Token::new(v).ok_or(ParseTokenError::Zero)
    }

    /// Parses an unsigned `Fencing-Token` header value. A value carrying a MAC is refused with
    /// [`ParseTokenError::Signed`]; parse it with `SignedToken::from_header` instead.
    pub fn from_header(value: &[u8]) -> Result<Token, ParseTokenError> {
        // With a MAC part, report the first real problem with the number before it, if any.
        // The number runs to a dot, if any, else to the end.
        let end = value.iter().position(|&b| b == b'.').unwrap_or(value.len());
        let token = parse_decimal_bytes(value.get(..end).unwrap_or(value))?;
        if end < value.len() {
            Err(ParseTokenError::Signed)
        } else {
            Ok(token)
        }
    }

    /// The header value of this token (the decimal form).
    pub fn to_header(self, buf: &mut [u8; MAX_DECIMAL_LEN]) -> &str {
        self.to_decimal(buf)
    }
}

/// `u64::MAX` in decimal.
const U64_MAX_DECIMAL: &[u8; MAX_DECIMAL_LEN] = b"18446744073709551615";

/// Writes the decimal digits of `v` at the end of `buf` (which must hold them all: 20 for any
/// `u64`); returns the index of the first one. Also used for the key ids of signed tokens.
pub(crate) fn write_digits(mut v: u64, buf: &mut [u8]) -> usize {
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            return i;
        }
    }
}

/// Parses the strict decimal form from bytes.
#[inline(never)]
pub(crate) fn parse_decimal_bytes(s: &[u8]) -> Result<Token, ParseTokenError> {
    let Some(&first) = s.first() else {
        return Err(ParseTokenError::Empty);
    };
    if let Some(at) = s.iter().position(|b| b.is_ascii_whitespace()) {
        return Err(ParseTokenError::Whitespace { at });
    }
    if first == b'+' || first == b'-' {
        return Err(ParseTokenError::Sign);
    }
    if let Some(at) = s.iter().position(|b| !b.is_ascii_digit()) {
        return Err(ParseTokenError::NotADigit { at });
    }
    if first == b'0' {
        return Err(if s.len() == 1 {
            ParseTokenError::Zero
        } else {
            ParseTokenError::LeadingZero
        });
    }
    // Without a leading zero, digit strings of one length compare as their numbers do: only one
    // of 20 digits can be past u64::MAX, and it sorts after it. What is left fits a u64 (no
    // 64-bit overflow checks, which are long in WebAssembly).
    if s.len() > MAX_DECIMAL_LEN || (s.len() == MAX_DECIMAL_LEN && s > U64_MAX_DECIMAL) {
        return Err(ParseTokenError::Overflow);
    }
    let mut v: u64 = 0;
    for &b in s {
        v = v * 10 + u64::from(b - b'0');
    }
    Token::new(v).ok_or(ParseTokenError::Zero)
}

impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Token({})", self.get())
    }
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.get(), f)
    }
}

impl FromStr for Token {
    type Err = ParseTokenError;
    fn from_str(s: &str) -> Result<Token, ParseTokenError> {
        Token::parse_decimal(s)
    }
}

impl From<Token> for u64 {
    fn from(t: Token) -> u64 {
        t.get()
    }
}

impl TryFrom<u64> for Token {
    type Error = ParseTokenError;
    fn try_from(v: u64) -> Result<Token, ParseTokenError> {
        Token::new(v).ok_or(ParseTokenError::Zero)
    }
}

/// Why a token could not be parsed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ParseTokenError {
    /// The input was empty.
    Empty,
    /// Whitespace at byte `at`; tokens never contain whitespace.
    Whitespace {
        /// Byte offset of the first whitespace.
        at: usize,
    },
    /// A leading `+` or `-`; tokens are unsigned.
    Sign,
    /// A byte other than an ASCII digit at `at`.
    NotADigit {
        /// Byte offset of the first offending byte.
        at: usize,
    },
    /// A leading zero; the decimal form is canonical.
    LeadingZero,
    /// The number 0, which is never a valid token.
    Zero,
    /// The number does not fit in a `u64`.
    Overflow,
    /// The byte form was not exactly 8 bytes long.
    Length {
        /// The length that was given.
        len: usize,
    },
    /// A header value carrying a MAC was given to the unsigned parser.
    Signed,
}

impl fmt::Display for ParseTokenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseTokenError::Empty => f.write_str("token is empty"),
            ParseTokenError::Whitespace { at } => {
                write!(f, "token contains whitespace at byte {at}")
            }
            ParseTokenError::Sign => f.write_str("token must not have a sign"),
            ParseTokenError::NotADigit { at } => {
                write!(f, "token has a non-digit at byte {at}")
            }
            ParseTokenError::LeadingZero => f.write_str("token must not have a leading zero"),
            ParseTokenError::Zero => f.write_str("token 0 is invalid"),
            ParseTokenError::Overflow => f.write_str("token is larger than 18446744073709551615"),
            ParseTokenError::Length { len } => {
                write!(f, "token bytes must be exactly 8 long, got {len}")
            }
            ParseTokenError::Signed => {
                f.write_str("token carries a signature; parse it as a signed token")
            }
        }
    }
}

impl core::error::Error for ParseTokenError {}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(v: u64) -> Token {
        Token::new(v).unwrap()
    }

    #[test]
    fn zero_is_not_a_token() {
        assert_eq!(Token::new(0), None);
        assert_eq!(Token::try_from(0), Err(ParseTokenError::Zero));
        assert_eq!(Token::from_be_bytes([0; 8]), Err(ParseTokenError::Zero));
    }

    #[test]
    fn next_never_wraps() {
        assert_eq!(t(33).next(), Some(t(34)));
        assert_eq!(Token::MAX.next(), None);
    }

    #[test]
    fn decimal_round_trip() {
        let mut buf = [0; MAX_DECIMAL_LEN];
        for v in [1, 9, 10, 33, 34, 1_000_000, u64::MAX - 1, u64::MAX] {
            let s = t(v).to_decimal(&mut buf);
            assert_eq!(s, std::format!("{v}"));
            assert_eq!(s.parse::<Token>(), Ok(t(v)));
        }
    }

    #[test]
    fn decimal_errors() {
        use ParseTokenError::*;
        let cases: &[(&str, ParseTokenError)] = &[
            ("", Empty),
            (" 33", Whitespace { at: 0 }),
            ("33 ", Whitespace { at: 2 }),
            ("3 3", Whitespace { at: 1 }),
            ("33\n", Whitespace { at: 2 }),
            ("+33", Sign),
            ("-1", Sign),
            ("abc", NotADigit { at: 0 }),
            ("3x", NotADigit { at: 1 }),
            ("3.5", NotADigit { at: 1 }),
            ("0", Zero),
            ("00", LeadingZero),
            ("033", LeadingZero),
            ("18446744073709551616", Overflow),
            ("99999999999999999999", Overflow),
            ("100000000000000000000", Overflow),
            ("٣", NotADigit { at: 0 }),
        ];
        for (input, want) in cases {
            assert_eq!(Token::parse_decimal(input), Err(*want), "input {input:?}");
        }
        assert_eq!(Token::parse_decimal("18446744073709551615"), Ok(Token::MAX));
    }

    #[test]
    fn numbers_near_the_top_parse_as_u64_does() {
        let near = [
            "9999999999999999999",
            "10000000000000000000",
            "18446744073709551614",
            "18446744073709551615",
            "18446744073709551616",
            "18446744073709551619",
            "18446744073709551620",
            "18446744073709551700",
            "18446744073709552615",
            "18446744073709651615",
            "18446744083709551615",
            "18500000000000000000",
            "19000000000000000000",
            "28446744073709551615",
        ];
        for s in near {
            let want = s.parse::<u64>().map_err(|_| ParseTokenError::Overflow);
            assert_eq!(Token::parse_decimal(s).map(Token::get), want, "{s}");
        }
        // Every number from u64::MAX - 999 to u64::MAX + 999.
        let top = u128::from(u64::MAX);
        for v in top - 999..=top + 999 {
            let s = std::format!("{v}");
            let want = u64::try_from(v).map_err(|_| ParseTokenError::Overflow);
            assert_eq!(Token::parse_decimal(&s).map(Token::get), want, "{s}");
        }
    }

    #[test]
    fn bytes_are_big_endian_and_sort_like_tokens() {
        assert_eq!(t(34).to_be_bytes(), [0, 0, 0, 0, 0, 0, 0, 34]);
        assert!(t(255).to_be_bytes() < t(256).to_be_bytes());
        assert_eq!(Token::from_be_slice(&[0, 0, 0, 0, 0, 0, 1, 0]), Ok(t(256)));
        assert_eq!(
            Token::from_be_slice(&[1, 2, 3]),
            Err(ParseTokenError::Length { len: 3 })
        );
        assert_eq!(
            Token::from_be_slice(&[0; 9]),
            Err(ParseTokenError::Length { len: 9 })
        );
    }

    #[test]
    fn header_is_decimal_and_refuses_signed_values() {
        assert_eq!(Token::from_header(b"34"), Ok(t(34)));
        assert_eq!(Token::from_header(b"34.abcd"), Err(ParseTokenError::Signed));
        assert_eq!(
            Token::from_header(b"x.abcd"),
            Err(ParseTokenError::NotADigit { at: 0 })
        );
        assert_eq!(Token::from_header(b""), Err(ParseTokenError::Empty));
        assert_eq!(
            Token::from_header(b" 34"),
            Err(ParseTokenError::Whitespace { at: 0 })
        );
        let mut buf = [0; MAX_DECIMAL_LEN];
        assert_eq!(t(34).to_header(&mut buf), "34");
    }

    #[test]
    fn errors_display() {
        assert_eq!(
            std::format!("{}", ParseTokenError::Overflow),
            "token is larger than 18446744073709551615"
        );
    }
}
