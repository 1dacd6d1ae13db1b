//! Token codecs.

use fencepost::{Config, Token};
use wasm_bindgen::prelude::wasm_bindgen;

use crate::abi::{ms, names};
use crate::errors::parse_error;
use crate::state::with;

/// The forms of a token [`token_decode`] reads.
pub mod form {
    crate::numbered! {
        /// The strict decimal form.
        DECIMAL = 0;
        /// An unsigned `Fencing-Token` header value.
        HEADER = 1;
        /// The 8-byte big-endian form.
        BYTES = 2;
    }
}

/// Parses the first `n` bytes of the input area as a token in form `f` (see [`form`]; any other
/// number reads bytes): the token, or 0 (see `error` in [`Out`](crate::abi::Out)).
#[wasm_bindgen]
#[inline(never)]
pub fn token_decode(f: u32, n: usize) -> u64 {
    let parse = match f {
        form::DECIMAL => Token::parse_decimal_bytes,
        form::HEADER => Token::from_header,
        _ => Token::from_be_slice,
    };
    with(0, |st| match parse(names(&st.input, n, 0).0) {
        Ok(t) => t.get(),
        Err(e) => {
            parse_error(e);
            0
        }
    })
}

/// The first token of an authority started at `unix_ms` on the wall clock
/// ([`Config::with_first_token_at`]: the core's rule for a host that may lose a lock's state), the
/// time read as every other time of the module is (`abi::ms`; the JavaScript checks it first).
#[wasm_bindgen]
#[inline(never)]
pub fn token_first_at(unix_ms: f64) -> u64 {
    Config::new(1)
        .with_first_token_at(ms(unix_ms))
        .first_token
        .get()
}
