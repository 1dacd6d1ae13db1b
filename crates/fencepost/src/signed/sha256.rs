//! SHA-256 (FIPS 180-4) and HMAC-SHA-256 (RFC 2104), only as much as signed tokens need.
//!
//! Written for code size, since this ships in the npm package's WebAssembly: one rolled round loop,
//! the message fed a byte at a time, and no slicing that could panic. A MAC input is a few dozen
//! bytes, so the two compressions per MAC dominate either way.

/// The first 32 bits of the fractional parts of the cube roots of the first 64 primes.
const K: [u32; 64] = [
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
];

/// The first 32 bits of the fractional parts of the square roots of the first 8 primes.
const IV: [u32; 8] = [
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
];

const BLOCK: usize = 64;
/// Length of a digest in bytes.
pub(crate) const DIGEST_LEN: usize = 32;

/// Runs the compression function on one 64-byte block.
fn compress(state: &mut [u32; 8], block: &[u8; BLOCK]) {
    let mut w = [0u32; 64];
    for i in 0..64 {
        w[i] = if i < 16 {
            u32::from_be_bytes([
                block[4 * i],
                block[4 * i + 1],
                block[4 * i + 2],
                block[4 * i + 3],
            ])
        } else {
            let (a, b) = (w[i - 15], w[i - 2]);
            let s0 = a.rotate_right(7) ^ a.rotate_right(18) ^ (a >> 3);
            let s1 = b.rotate_right(17) ^ b.rotate_right(19) ^ (b >> 10);
            w[i - 16]
                .wrapping_add(s0)
                .wrapping_add(w[i - 7])
                .wrapping_add(s1)
        };
    }
    let mut v = *state;
    for i in 0..64 {
        let [a, b, c, d, e, f, g, h] = v;
        let s1 = e.rotate_right(6) ^ e.rotate_right(11) ^ e.rotate_right(25);
        let ch = (e & f) ^ (!e & g);
        let t1 = h
            .wrapping_add(s1)
            .wrapping_add(ch)
            .wrapping_add(K[i])
            .wrapping_add(w[i]);
        let s0 = a.rotate_right(2) ^ a.rotate_right(13) ^ a.rotate_right(22);
        let maj = (a & b) ^ (a & c) ^ (b & c);
        let t2 = s0.wrapping_add(maj);
        v = [t1.wrapping_add(t2), a, b, c, d.wrapping_add(t1), e, f, g];
    }
    for (s, x) in state.iter_mut().zip(v) {
        *s = s.wrapping_add(x);
    }
}

/// A SHA-256 computation in progress.
#[derive(Clone)]
pub(crate) struct Sha256 {
    state: [u32; 8],
    block: [u8; BLOCK],
    /// Bytes absorbed so far; the position in `block` is `len % 64`.
    len: u64,
}

impl Sha256 {
    /// A fresh hash.
    pub(crate) fn new() -> Sha256 {
        Sha256::resume(IV, 0)
    }

    /// Continues from `state`, the chaining value after `len` bytes (a multiple of 64).
    #[inline(never)]
    fn resume(state: [u32; 8], len: u64) -> Sha256 {
        Sha256 {
            state,
            block: [0; BLOCK],
            len,
        }
    }

    #[inline(never)]
    fn push(&mut self, byte: u8) {
        let at = (self.len % BLOCK as u64) as usize;
        self.block[at] = byte;
        self.len = self.len.wrapping_add(1);
        if at == BLOCK - 1 {
            compress(&mut self.state, &self.block);
        }
    }

    /// Absorbs `data`.
    #[inline(never)]
    pub(crate) fn update(&mut self, data: &[u8]) {
        for &b in data {
            self.push(b);
        }
    }

    /// Absorbs the low `n` bytes of `value`, most significant first (`n` at most 8).
    #[inline(never)]
    pub(crate) fn update_be(&mut self, value: u64, n: u32) {
        for i in (0..n).rev() {
            self.push((value >> (8 * i)) as u8);
        }
    }

    /// Pads, and returns the digest.
    pub(crate) fn finish(mut self) -> [u8; DIGEST_LEN] {
        let bits = self.len.wrapping_mul(8);
        let mut byte = 0x80;
        loop {
            self.push(byte);
            byte = 0;
            if self.len % BLOCK as u64 == 56 {
                break;
            }
        }
        self.update_be(bits, 8);
        core::array::from_fn(|i| (self.state[i / 4] >> (24 - 8 * (i % 4))) as u8)
    }
}

/// An HMAC-SHA-256 key, kept as the two chaining values after absorbing the padded key, so a MAC
/// costs only the compressions of its message and of the outer hash.
#[derive(Clone)]
pub(crate) struct HmacKey {
    /// The chaining values after `key ^ ipad` and after `key ^ opad`.
    pads: [[u32; 8]; 2],
}

impl HmacKey {
    /// Prepares `key`; a key longer than a block is hashed first (RFC 2104).
    pub(crate) fn new(key: &[u8]) -> HmacKey {
        let digest;
        let key = if key.len() > BLOCK {
            let mut h = Sha256::new();
            h.update(key);
            digest = h.finish();
            &digest[..]
        } else {
            key
        };
        let mut pads = [IV; 2];
        for (state, mask) in pads.iter_mut().zip([0x36, 0x5c]) {
            let mut block = [mask; BLOCK];
            for (d, s) in block.iter_mut().zip(key) {
                *d ^= s;
            }
            compress(state, &block);
        }
        HmacKey { pads }
    }

    /// The inner hash, ready for the message.
    pub(crate) fn start(&self) -> Sha256 {
        Sha256::resume(self.pads[0], BLOCK as u64)
    }

    /// Finishes the inner hash `inner` (begun with [`HmacKey::start`]) and returns the MAC.
    pub(crate) fn finish(&self, inner: Sha256) -> [u8; DIGEST_LEN] {
        let mut outer = Sha256::resume(self.pads[1], BLOCK as u64);
        outer.update(&inner.finish());
        outer.finish()
    }
}

/// Whether two MACs are equal, looking at every byte whatever the contents.
pub(crate) fn ct_eq(a: &[u8; DIGEST_LEN], b: &[u8; DIGEST_LEN]) -> bool {
    let mut diff = 0u8;
    for (x, y) in a.iter().zip(b) {
        diff |= x ^ y;
    }
    // Hide the accumulated value from the optimizer so it cannot turn the loop into an early exit.
    core::hint::black_box(diff) == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use hmac::{Hmac, Mac};
    use proptest::prelude::*;
    use std::vec::Vec;

    fn hex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    fn sha256(data: &[u8]) -> [u8; DIGEST_LEN] {
        let mut h = Sha256::new();
        h.update(data);
        h.finish()
    }

    fn hmac(key: &[u8], data: &[u8]) -> [u8; DIGEST_LEN] {
        let k = HmacKey::new(key);
        let mut h = k.start();
        h.update(data);
        k.finish(h)
    }

    fn reference(key: &[u8], data: &[u8]) -> [u8; DIGEST_LEN] {
        let mut m = <Hmac<sha2::Sha256> as Mac>::new_from_slice(key).unwrap();
        m.update(data);
        m.finalize().into_bytes().into()
    }

    #[test]
    fn fips_180_vectors() {
        let cases: &[(&[u8], &str)] = &[
            (
                b"abc",
                "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
            ),
            (
                b"",
                "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            ),
            (
                b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
            ),
            (
                b"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
                "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1",
            ),
        ];
        for (input, want) in cases {
            assert_eq!(sha256(input).to_vec(), hex(want), "{input:?}");
        }
    }

    #[test]
    fn fips_180_million_a() {
        let mut h = Sha256::new();
        for _ in 0..1000 {
            h.update(&[b'a'; 1000]);
        }
        assert_eq!(
            h.finish().to_vec(),
            hex("cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        );
    }

    #[test]
    fn rfc_4231_vectors() {
        let key_4: Vec<u8> = (1..=25).collect();
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
            assert_eq!(hmac(key, data)[..want.len()], want[..], "case {}", n + 1);
        }
    }

    #[test]
    fn padding_boundaries_match_the_reference() {
        // Every message length around one and two blocks, with keys around the block size.
        for key_len in [0, 1, 32, 63, 64, 65, 128, 131] {
            let key: Vec<u8> = (0..key_len).map(|i| i as u8).collect();
            for len in 0..=130 {
                let data: Vec<u8> = (0..len).map(|i| (i * 7) as u8).collect();
                assert_eq!(
                    hmac(&key, &data),
                    reference(&key, &data),
                    "key {key_len} data {len}"
                );
            }
        }
    }

    #[test]
    fn ct_eq_compares_every_byte() {
        let a = [7u8; DIGEST_LEN];
        assert!(ct_eq(&a, &a));
        for i in 0..DIGEST_LEN {
            let mut b = a;
            b[i] ^= 0x80;
            assert!(!ct_eq(&a, &b));
        }
    }

    proptest! {
        #[test]
        fn hmac_matches_the_reference(
            key in proptest::collection::vec(any::<u8>(), 0..200),
            data in proptest::collection::vec(any::<u8>(), 0..300),
            split in any::<usize>(),
        ) {
            prop_assert_eq!(hmac(&key, &data), reference(&key, &data));
            // Feeding the message in two pieces changes nothing.
            let at = split % (data.len() + 1);
            let k = HmacKey::new(&key);
            let mut h = k.start();
            h.update(&data[..at]);
            h.update(&data[at..]);
            prop_assert_eq!(k.finish(h), reference(&key, &data));
        }

        #[test]
        fn sha256_matches_the_reference(data in proptest::collection::vec(any::<u8>(), 0..300)) {
            use sha2::Digest;
            let want: [u8; DIGEST_LEN] = sha2::Sha256::digest(&data).into();
            prop_assert_eq!(sha256(&data), want);
        }
    }
}
