//! The fingerprints of the states already found.

use alloc::vec;
use alloc::vec::Vec;
use core::hash::Hasher;

/// A fast hasher for fingerprints (multiply-rotate, finished by SplitMix64's mixer).
pub(super) struct Fx(pub(super) u64);

impl Hasher for Fx {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut b = [0u8; 8];
            b[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(b));
        }
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.write_u64(u64::from(i));
    }
    #[inline]
    fn write_u16(&mut self, i: u16) {
        self.write_u64(u64::from(i));
    }
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.write_u64(u64::from(i));
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0.rotate_left(5) ^ i).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.write_u64(i as u64);
    }
    #[inline]
    fn finish(&self) -> u64 {
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// A set of 64-bit fingerprints: open addressing, linear probing, 0 stands for empty.
pub(super) struct Seen {
    pub(super) slots: Vec<u64>,
    pub(super) len: usize,
}

impl Seen {
    pub(super) const FIRST: usize = 1 << 12;

    pub(super) fn new() -> Seen {
        Seen {
            slots: vec![0; Seen::FIRST],
            len: 0,
        }
    }

    /// Inserts; returns whether it was new.
    #[inline]
    pub(super) fn insert(&mut self, fp: u64) -> bool {
        let fp = fp.max(1);
        if (self.len + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let mask = self.slots.len() - 1;
        let mut i = (fp as usize) & mask;
        loop {
            let s = self.slots[i];
            if s == fp {
                return false;
            }
            if s == 0 {
                self.slots[i] = fp;
                self.len += 1;
                return true;
            }
            i = (i + 1) & mask;
        }
    }

    pub(super) fn grow(&mut self) {
        let bigger = vec![0; self.slots.len() * 2];
        let old = core::mem::replace(&mut self.slots, bigger);
        let mask = self.slots.len() - 1;
        for fp in old.into_iter().filter(|f| *f != 0) {
            let mut i = (fp as usize) & mask;
            while self.slots[i] != 0 {
                i = (i + 1) & mask;
            }
            self.slots[i] = fp;
        }
    }
}
