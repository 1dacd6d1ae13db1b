//! Signed tokens: signers and key rings sign and verify `Fencing-Token` header values.

use fencepost::signed::{KEYED_HEADER_MAX, SIGNED_HEADER_MAX};
use fencepost::{KeyedToken, ParseTokenError, SignatureError, SignedToken, Token};
use wasm_bindgen::prelude::wasm_bindgen;

use crate::abi::{names, wipe};
use crate::errors::{code, fail, parse_error, parse_signed_error, signature_error};
use crate::guard::admit;
use crate::memory::fit;
use crate::objects::Object;
use crate::state::{State, with};

/// The header value for a lock (the first `lock` bytes of the input area) into the output area:
/// `<token>.<mac hex>` from a signer, `<token>.<key id>.<mac hex>` from a key ring (its current
/// key). Returns its length (0, see `error` in [`Out`](crate::abi::Out), on failure).
#[wasm_bindgen]
#[inline(never)]
pub fn signer_sign(i: u32, lock: usize, token: u64) -> usize {
    with(0, |st| {
        let Some(token) = Token::new(token) else {
            parse_error(ParseTokenError::Zero);
            return 0;
        };
        let lock = names(&st.input, lock, 0).0;
        // Written in place: the output area is made long enough (room asked for first, for the
        // longer form), then cut to the value.
        let out = &mut st.output;
        if !fit(out, KEYED_HEADER_MAX.max(SIGNED_HEADER_MAX)) {
            return 0;
        }
        let written = match st.objects.0.get(i) {
            Some(Object::Signer(s)) => s.sign(lock, token).map(|ref signed| {
                out.resize(SIGNED_HEADER_MAX, 0);
                out.first_chunk_mut()
                    .map_or(0, |buf| signed.write_header(buf))
            }),
            Some(Object::Ring(r)) => r.sign(lock, token).map(|ref keyed| {
                out.resize(KEYED_HEADER_MAX, 0);
                out.first_chunk_mut()
                    .map_or(0, |buf| keyed.write_header(buf))
            }),
            _ => return 0,
        };
        match written {
            Ok(n) => {
                out.truncate(n);
                n
            }
            Err(e) => {
                signature_error(e);
                0
            }
        }
    })
}

/// Verifies a header value (the `header` bytes of the input area after the first `lock` bytes,
/// the lock's name): the token, or 0 (see `error` in [`Out`](crate::abi::Out): forged or
/// malformed).
#[wasm_bindgen]
#[inline(never)]
pub fn signer_verify(i: u32, lock: usize, header: usize) -> u64 {
    with(0, |st| {
        verify_header(st, i, lock, header).map_or(0, Token::get)
    })
}

/// What [`ring_call`] does.
pub mod ring {
    crate::numbered! {
        /// Make the key in the first `n` bytes of the input area current, under `id`.
        ROTATE = 0;
        /// Remove the previous key `id`.
        REMOVE = 1;
    }
}

/// Rotates or removes a key of ring `i` (see [`ring`]); 0 when done, else the error code (see
/// `error` in [`Out`](crate::abi::Out)).
#[wasm_bindgen]
#[inline(never)]
pub fn ring_call(op: u32, i: u32, n: usize, id: u32) -> u32 {
    with(code::UNKNOWN, |st| {
        let key = names(&st.input, n, 0).0;
        let done = match (st.objects.ring(i), op) {
            (Some(r), ring::ROTATE) => Some(r.rotate(id, key)),
            (Some(r), ring::REMOVE) => Some(r.remove(id)),
            _ => None,
        };
        // As for a new signer: the key's copy in the input area is not left behind, whatever the
        // answer (no ring at `i` or an unknown `op` included).
        wipe(&mut st.input, n);
        match done {
            Some(done) => done.map_or_else(signature_error, |()| 0),
            None => fail(code::UNKNOWN, 0),
        }
    })
}

/// The token of a signed header value (the `header` bytes of the input area after the first
/// `lock` bytes, the lock's name) that signer or key ring `s` verifies, else the [`admit`] code of
/// why not: [`admit::MALFORMED`] (unparsable, or a signature error other than a forgery),
/// [`admit::FORGED`] (also for a key id the ring does not hold), or [`admit::NO_GUARD`] when `s`
/// is neither. Errors are recorded (see `error` in [`Out`](crate::abi::Out)), a forgery as
/// [`code::FORGED`], an
/// unknown key as [`code::UNKNOWN_KEY`].
#[inline(never)]
pub(crate) fn verify_header(
    st: &mut State,
    s: u32,
    lock: usize,
    header: usize,
) -> Result<Token, u32> {
    let (lock, header) = names(&st.input, lock, header);
    let malformed = |e| {
        parse_signed_error(e);
        admit::MALFORMED
    };
    let verified = match st.objects.0.get(s) {
        Some(Object::Signer(signer)) => {
            signer.verify(lock, &SignedToken::from_header(header).map_err(malformed)?)
        }
        Some(Object::Ring(ring)) => {
            ring.verify(lock, &KeyedToken::from_header(header).map_err(malformed)?)
        }
        _ => return Err(admit::NO_GUARD),
    };
    verified.map_err(|e| {
        signature_error(e);
        match e {
            SignatureError::Forged | SignatureError::UnknownKey { .. } => admit::FORGED,
            _ => admit::MALFORMED,
        }
    })
}
