//! Ranges of numbers a template draws from, and how they are read.

use alloc::format;
use core::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize};

use crate::rng::SplitMix64;
use crate::scenario::{MAX_TIME_MS, ScenarioError};

/// A number type a range can hold.
pub trait RangeNum:
    Copy + PartialOrd + fmt::Display + Serialize + for<'de> Deserialize<'de>
{
    /// Its name and bounds, for the one reader of every range's numbers.
    const TYPE: NumType;
    /// The value whose bits ([`NumType`]) are `bits`, once they are known to be in range.
    fn from_bits(bits: u64) -> Self;
    /// Draws uniformly from `min..=max` (nothing is drawn when they are equal).
    fn draw(rng: &mut SplitMix64, min: Self, max: Self) -> Self;
}

/// A range's number type as its reader sees it: the name serde gives it in errors and its bounds.
/// A number read for it is held as 64 bits: itself when unsigned, its two's complement when
/// signed.
#[derive(Clone, Copy, Debug)]
pub struct NumType {
    name: &'static str,
    lo: i64,
    hi: u64,
}

impl NumType {
    /// `v` as the type's bits, when it is in range.
    fn unsigned(self, v: u64) -> Option<u64> {
        (v <= self.hi).then_some(v)
    }

    /// `v` as the type's bits, when it is in range.
    fn signed(self, v: i64) -> Option<u64> {
        // i64 -> u64 keeps the bits: a negative v is only ever kept for a signed type.
        (v >= self.lo && (v < 0 || v as u64 <= self.hi)).then_some(v as u64)
    }
}

macro_rules! unsigned_num {
    ($t:ty) => {
        impl RangeNum for $t {
            const TYPE: NumType = NumType {
                name: stringify!($t),
                lo: 0,
                hi: <$t>::MAX as u64,
            };
            fn from_bits(bits: u64) -> Self {
                bits as $t
            }
            fn draw(rng: &mut SplitMix64, min: Self, max: Self) -> Self {
                let v = rng.range(u64::from(min), u64::from(max));
                <$t>::try_from(v).unwrap_or(max)
            }
        }
    };
}

macro_rules! signed_num {
    ($t:ty) => {
        impl RangeNum for $t {
            const TYPE: NumType = NumType {
                name: stringify!($t),
                lo: <$t>::MIN as i64,
                hi: <$t>::MAX as u64,
            };
            fn from_bits(bits: u64) -> Self {
                bits as i64 as $t
            }
            fn draw(rng: &mut SplitMix64, min: Self, max: Self) -> Self {
                if max <= min {
                    return min;
                }
                let span = (i64::from(max) - i64::from(min)) as u64;
                let off = rng.range(0, span);
                <$t>::try_from(i64::from(min).wrapping_add(off as i64)).unwrap_or(max)
            }
        }
    };
}

unsigned_num!(u64);
unsigned_num!(u32);
signed_num!(i64);
signed_num!(i32);

/// An inclusive range, `{ "min": a, "max": b }` in JSON, or a plain number for a fixed value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Between<T> {
    /// Smallest value.
    pub min: T,
    /// Largest value (>= min).
    pub max: T,
}

impl<T: RangeNum> Between<T> {
    /// The range holding only `v`.
    pub const fn exactly(v: T) -> Between<T> {
        Between { min: v, max: v }
    }

    /// Draws a value.
    pub fn draw(&self, rng: &mut SplitMix64) -> T {
        T::draw(rng, self.min, self.max)
    }

    pub(super) fn check(&self, field: &str) -> Result<(), ScenarioError> {
        if self.min > self.max {
            return Err(out_of_order(field, &self.min, &self.max));
        }
        Ok(())
    }
}

/// The error for a range whose `min` is greater than its `max`, written once for every number type.
#[inline(never)]
fn out_of_order(field: &str, min: &dyn fmt::Display, max: &dyn fmt::Display) -> ScenarioError {
    ScenarioError::new(
        format!("{field}.min"),
        format!("must not be greater than max ({min} > {max})"),
    )
}

impl Between<u64> {
    pub(super) fn check_time(&self, field: &str) -> Result<(), ScenarioError> {
        self.check(field)?;
        if self.max > MAX_TIME_MS {
            return Err(ScenarioError::new(
                format!("{field}.max"),
                format!("must be at most {MAX_TIME_MS} ms"),
            ));
        }
        Ok(())
    }
}

/// Reads one number of a range as serde reads the number type itself (the same errors, such as
/// "invalid value: integer `-1`, expected u32"), into its bits.
#[derive(Clone, Copy)]
struct Num(NumType);

impl<'de> DeserializeSeed<'de> for Num {
    type Value = u64;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<u64, D::Error> {
        if self.0.lo < 0 {
            d.deserialize_i64(self)
        } else {
            d.deserialize_u64(self)
        }
    }
}

impl<'de> Visitor<'de> for Num {
    type Value = u64;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0.name)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<u64, E> {
        self.0
            .unsigned(v)
            .ok_or_else(|| E::invalid_value(de::Unexpected::Unsigned(v), &self))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<u64, E> {
        self.0
            .signed(v)
            .ok_or_else(|| E::invalid_value(de::Unexpected::Signed(v), &self))
    }
}

/// Reads a range of any [`NumType`] into its bits: one reader for the four types ranges hold.
#[derive(Clone, Copy)]
struct Range(NumType);

impl<'de> Visitor<'de> for Range {
    type Value = Between<u64>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a number or a range {\"min\": .., \"max\": ..}")
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Between<u64>, E> {
        self.0
            .unsigned(v)
            .map(Between::exactly)
            .ok_or_else(|| E::invalid_value(de::Unexpected::Unsigned(v), &self))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Between<u64>, E> {
        self.0
            .signed(v)
            .map(Between::exactly)
            .ok_or_else(|| E::invalid_value(de::Unexpected::Signed(v), &self))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Between<u64>, A::Error> {
        let (mut min, mut max) = (None, None);
        let keys = crate::object::Key {
            fields: &["min", "max"],
            others: false,
        };
        while let Some(k) = m.next_key_seed(keys)? {
            let (slot, name) = if k == 0 {
                (&mut min, "min")
            } else {
                (&mut max, "max")
            };
            if slot.is_some() {
                return Err(de::Error::duplicate_field(name));
            }
            *slot = Some(m.next_value_seed(Num(self.0))?);
        }
        Ok(Between {
            min: crate::object::need(min, "min")?,
            max: crate::object::need(max, "max")?,
        })
    }
}

impl<'de, T: RangeNum> Deserialize<'de> for Between<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Between<T>, D::Error> {
        let r = d.deserialize_any(Range(T::TYPE))?;
        Ok(Between {
            min: T::from_bits(r.min),
            max: T::from_bits(r.max),
        })
    }
}

/// The range of exactly one: the default of a write number and of a write count.
pub(super) fn one_write() -> Between<u32> {
    Between::exactly(1)
}
