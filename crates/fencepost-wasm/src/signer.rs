//! Signed tokens: signers and key rings sign and verify `Fencing-Token` header values.

use alloc::boxed::Box;
use fencepost::signed::{KEYED_HEADER_MAX, SIGNED_HEADER_MAX};

use fencepost::{
    KeyRing, KeyedToken, ParseTokenError, SignatureError, SignedToken, Token, TokenSigner,
};
use wasm_bindgen::prelude::wasm_bindgen;

use crate::abi::{names, wipe};
use crate::errors::{code, fail, parse_error, parse_signed_error, signature_error};
use crate::guard::{admission, admit};
use crate::memory::fit;
use crate::objects::{NONE, Object};
use crate::out::answers::Ring;
use crate::state::{State, with};

/// A new signer for the key in the first `n` bytes of the input area (refused if too short), or,
/// with `ring`, a key ring whose current key it is, under the key id `key_id` (refused past
/// `u32::MAX`): its index, or [`NONE`] (see `error` in the `Out` record) when none was made.
#[wasm_bindgen]
#[inline(never)]
pub fn signer_new(ring: bool, n: usize, key_id: u64) -> u32 {
    with(NONE, |st| {
        let boxed = if ring {
            size_of::<KeyRing>()
        } else {
            size_of::<TokenSigner>()
        };
        let key = names(&st.input, n, 0).0;
        let made = if !st.objects.room_to_add(&[boxed]) {
            None
        } else if !ring {
            Some(TokenSigner::new(key).map(|s| Object::Signer(Box::new(s))))
        } else if let Ok(id) = u32::try_from(key_id) {
            Some(KeyRing::new(id, key).map(|r| Object::Ring(Box::new(r))))
        } else {
            // signing.js checks key ids; a larger one is no ring, never a trap.
            fail(code::UNKNOWN, 0);
            None
        };
        // The key has been mixed into the signer's state: wipe the copy JavaScript wrote into
        // the input area, made or refused, so no later read of memory finds it.
        wipe(&mut st.input, n);
        match made {
            Some(Ok(o)) => st.objects.add(o),
            Some(Err(e)) => {
                signature_error(e);
                NONE
            }
            None => NONE,
        }
    })
}

/// Key ring `i`'s current key id into the `Out` record (see [`Ring`]): 1, or 0 if `i` is not a
/// key ring.
#[wasm_bindgen]
#[inline(never)]
pub fn ring_state(i: u32) -> u32 {
    with(0, |st| match st.objects.ring(i) {
        Some(r) => {
            let current_key_id = r.current_key_id();
            Ring { current_key_id }.write(&mut st.out);
            1
        }
        None => 0,
    })
}

/// Verifies a signed header value (the `header` bytes of the input area after the first `lock`
/// bytes, the lock's name) with signer `s`, then admits its token on guard `i` (see [`admit`]).
#[wasm_bindgen]
#[inline(never)]
pub fn guard_admit_signed(i: u32, s: u32, lock: usize, header: usize) -> u32 {
    with(admit::NO_GUARD, |st| {
        match verify_header(st, s, lock, header) {
            Ok(token) => match st.objects.guard(i) {
                Some(g) => admission(g.admit(token)),
                None => admit::NO_GUARD,
            },
            Err(code) => code,
        }
    })
}

/// The header value for a lock (the first `lock` bytes of the input area) into the output area:
/// `<token>.<mac hex>` from a signer, `<token>.<key id>.<mac hex>` from a key ring (its current
/// key). Returns its length (0, see `error` in the `Out` record, on failure).
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
/// the lock's name): the token, or 0 (see `error` in the `Out` record: forged or
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
/// `error` in the `Out` record).
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
/// is neither. Errors are recorded (see `error` in the `Out` record), a forgery as
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
