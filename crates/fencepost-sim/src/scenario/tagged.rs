//! Reading objects tagged by a `kind` field (faults, and fault templates) the way serde's
//! internally tagged enums do, without buffering the object.
//!
//! Each key is read as its index in the reader's table of names (`kind` first, then every field
//! any kind has), so a reader matches keys by integer, not string by string; a key that is none
//! of them is kept as text, for the error that names it.

use alloc::borrow::ToOwned;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use core::marker::PhantomData;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};

use crate::object::{names, need};

/// One key: its index in the names, or the key itself when it is none of them.
pub(crate) enum Name {
    Known(usize),
    Other(String),
}

/// Reads one key against a table of names (`kind` at index 0).
#[derive(Clone, Copy)]
pub(crate) struct Names(pub(crate) &'static [&'static str]);

impl<'de> DeserializeSeed<'de> for Names {
    type Value = Name;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Name, D::Error> {
        d.deserialize_identifier(self)
    }
}

impl<'de> Visitor<'de> for Names {
    type Value = Name;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Name, E> {
        Ok(match self.0.iter().position(|n| *n == v) {
            Some(i) => Name::Known(i),
            None => Name::Other(v.to_owned()),
        })
    }
}

/// The keys of one object, in the order read: each of the names once, and the first key none
/// of them.
pub(crate) struct Keys {
    names: &'static [&'static str],
    /// Bit `i`: names[i] was read.
    seen: u32,
    /// A key none of the names is in `order`.
    other: bool,
    order: Vec<Name>,
}

impl Keys {
    pub(crate) fn new(names: &'static [&'static str]) -> Keys {
        // One bit of `seen` per name.
        debug_assert!(names.len() <= 32);
        Keys {
            names,
            seen: 0,
            other: false,
            order: Vec::new(),
        }
    }

    /// Records `key`, read while the object's kind has the fields `allowed` (none: the kind is
    /// not read yet); refuses one of the names given twice. Returns the index of the field
    /// whose value is to be read, or nothing when the value is to be skipped: a key none of
    /// the names, or a field the kind does not have ([`Keys::only`] reports both). A key none
    /// of the names is never allowed, so [`Keys::only`] reports the first such key (or an
    /// earlier field the kind does not have) whatever follows: later ones, repeats of it
    /// included, are not kept.
    pub(crate) fn add<E: de::Error>(
        &mut self,
        key: Name,
        allowed: Option<&'static [&'static str]>,
    ) -> Result<Option<usize>, E> {
        let read = match key {
            Name::Known(i) => {
                let name = self.names[i];
                if self.seen & 1 << i != 0 {
                    return Err(E::duplicate_field(name));
                }
                self.seen |= 1 << i;
                let skip = i != 0 && allowed.is_some_and(|a| !a.contains(&name));
                (!skip).then_some(i)
            }
            Name::Other(_) if self.other => return Ok(None),
            Name::Other(_) => {
                self.other = true;
                None
            }
        };
        self.order.push(key);
        Ok(read)
    }

    /// The first key (besides `kind`) that is not one of `allowed`, as serde's error.
    pub(crate) fn only<E: de::Error>(&self, allowed: &'static [&'static str]) -> Result<(), E> {
        for key in &self.order {
            let k = match key {
                Name::Known(0) => continue,
                Name::Known(i) => self.names[*i],
                Name::Other(k) => k.as_str(),
            };
            if !allowed.contains(&k) {
                return Err(E::unknown_field(k, allowed));
            }
        }
        Ok(())
    }
}

/// The kinds of [`Fault`] (and of fault templates), as named by their `kind` field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FaultKind {
    Pause,
    PauseAt,
    Hold,
    Partition,
    Clock,
    Crash,
    AuthorityRestart,
}

names!(FaultKind {
    Pause = "pause",
    PauseAt = "pause_at",
    Hold = "hold",
    Partition = "partition",
    Clock = "clock",
    Crash = "crash",
    AuthorityRestart = "authority_restart",
});

/// An object read by its `kind`: a fault, or a fault template.
pub(crate) trait Tagged: Sized {
    /// What the object is, for serde's "invalid type" errors.
    const EXPECTING: &'static str;
    /// `kind`, then every field any kind has: a key is read as its index here.
    const NAMES: &'static [&'static str];
    /// The fields read so far.
    type Fields: Default;
    /// The fields an object of `kind` has, besides `kind`, in order.
    fn fields(kind: FaultKind) -> &'static [&'static str];
    /// Reads the value of the field with index `i` of [`Tagged::NAMES`] (never `kind`) into
    /// `fields`.
    fn read<'de, A: MapAccess<'de>>(
        fields: &mut Self::Fields,
        i: usize,
        m: &mut A,
    ) -> Result<(), A::Error>;
    /// The object of `kind` made of `fields`; a required field that is missing is an error.
    fn build<E: de::Error>(kind: FaultKind, fields: Self::Fields) -> Result<Self, E>;
}

/// Reads an object of `T` with its `kind` anywhere among its keys: each value straight into
/// its field, a key the kind read so far does not have skipped and reported once the kind is
/// known, as serde's internally tagged enums report it.
pub(crate) fn deserialize<'de, T: Tagged, D: Deserializer<'de>>(d: D) -> Result<T, D::Error> {
    d.deserialize_map(TaggedVisitor::<T>(PhantomData))
}

struct TaggedVisitor<T>(PhantomData<T>);

impl<'de, T: Tagged> Visitor<'de> for TaggedVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(T::EXPECTING)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<T, A::Error> {
        let mut keys = Keys::new(T::NAMES);
        let mut kind: Option<FaultKind> = None;
        let mut fields = T::Fields::default();
        while let Some(key) = m.next_key_seed(Names(T::NAMES))? {
            match keys.add(key, kind.map(T::fields))? {
                Some(0) => kind = Some(m.next_value()?),
                Some(i) => T::read(&mut fields, i, &mut m)?,
                None => {
                    m.next_value::<IgnoredAny>()?;
                }
            }
        }
        let kind = need(kind, "kind")?;
        keys.only(T::fields(kind))?;
        T::build(kind, fields)
    }
}
