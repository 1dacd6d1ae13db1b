//! Reading the formats' plain objects (scenarios, templates, scopes and their parts).
//!
//! serde's derived `Deserialize` for a struct also accepts a JSON array of its fields in
//! declaration order (`"latency_ms": [50, 60]`), which nothing in the formats documents, and
//! compiles a second reader for that (several kilobytes in the WebAssembly simulator). The structs
//! declared with [`object!`] accept an object only; an array is refused as any other wrong type
//! is ("invalid type: sequence, expected struct Latency"). Everything else reads exactly as with
//! the derive and `deny_unknown_fields`: the same errors for an unknown, a repeated or a missing
//! field, reported at the same place, and the same defaults. One key reader and one loop over
//! keys serve every struct.

use core::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, Visitor};

/// Reads one key of an object: the index of the matching field in `fields`, or (when `others`
/// are allowed, to be skipped) `fields.len()` for a key that is none of its fields. Callers match
/// on the index, so each field costs an integer comparison, not a string comparison.
#[derive(Clone, Copy)]
pub(crate) struct Key {
    pub(crate) fields: &'static [&'static str],
    pub(crate) others: bool,
}

impl<'de> DeserializeSeed<'de> for Key {
    type Value = usize;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<usize, D::Error> {
        d.deserialize_identifier(self)
    }
}

impl<'de> Visitor<'de> for Key {
    type Value = usize;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("field identifier")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<usize, E> {
        match self.fields.iter().position(|f| *f == v) {
            Some(i) => Ok(i),
            None if self.others => Ok(self.fields.len()),
            None => Err(E::unknown_field(v, self.fields)),
        }
    }
}

/// Reads the value of field `name` into `slot`; refuses a field given twice.
#[inline(never)]
pub(crate) fn put<'de, A: MapAccess<'de>, T: de::Deserialize<'de>>(
    m: &mut A,
    slot: &mut Option<T>,
    name: &'static str,
) -> Result<(), A::Error> {
    if slot.is_some() {
        return Err(de::Error::duplicate_field(name));
    }
    *slot = Some(m.next_value()?);
    Ok(())
}

/// Whether `v` is its type's default (a field left out when written).
pub(crate) fn is_default<T: Default + PartialEq>(v: &T) -> bool {
    *v == T::default()
}

/// A required field's value.
pub(crate) fn need<T, E: de::Error>(v: Option<T>, name: &'static str) -> Result<T, E> {
    v.ok_or_else(|| E::missing_field(name))
}

/// Reads the value of the field with the given index.
pub(crate) type Field<'a, A, E> = dyn FnMut(usize, &mut A) -> Result<(), E> + 'a;

/// Reads the keys of an object against `fields`, handing each key's index to `field` to read its
/// value: the loop over keys is compiled once, not once per struct.
#[inline(never)]
pub(crate) fn fields<'de, A: MapAccess<'de>>(
    m: &mut A,
    fields: &'static [&'static str],
    field: &mut Field<'_, A, A::Error>,
) -> Result<(), A::Error> {
    let key = Key {
        fields,
        others: false,
    };
    while let Some(i) = m.next_key_seed(key)? {
        field(i, m)?;
    }
    Ok(())
}

/// Implements `Deserialize` for a struct whose fields are all listed, in declaration order (the
/// order missing fields are reported in), each either required or `= default value`.
macro_rules! object {
    ($ty:ident { $($field:ident $(= $default:expr)?),* $(,)? }) => {
        impl<'de> serde::Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<$ty, D::Error> {
                struct V;
                impl<'de> serde::de::Visitor<'de> for V {
                    type Value = $ty;

                    fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                        f.write_str(concat!("struct ", stringify!($ty)))
                    }

                    fn visit_map<A: serde::de::MapAccess<'de>>(
                        self,
                        mut m: A,
                    ) -> Result<$ty, A::Error> {
                        const FIELDS: &[&str] = &[$(stringify!($field)),*];
                        // The fields' indices in FIELDS, by name.
                        #[allow(non_camel_case_types, dead_code)]
                        enum Index { $($field),* }
                        $(let mut $field = None;)*
                        $crate::object::fields(&mut m, FIELDS, &mut |key, m| {
                            match key {
                                $(k if k == Index::$field as usize => {
                                    $crate::object::put(m, &mut $field, stringify!($field))
                                })*
                                // Key returns an index of FIELDS only.
                                _ => Ok(()),
                            }
                        })?;
                        Ok($ty {
                            $($field: $crate::object::object!(@take $field $(= $default)?),)*
                        })
                    }
                }
                d.deserialize_map(V)
            }
        }
    };
    (@take $field:ident) => {
        $crate::object::need($field, stringify!($field))?
    };
    (@take $field:ident = $default:expr) => {
        match $field {
            Some(v) => v,
            None => $default,
        }
    };
}

pub(crate) use object;

/// Reads one of `names` (the names of an enum's unit variants) as its index. Only a string is a
/// name: anything else is refused with what it is and the names there are ("invalid type:
/// integer `5`, expected `ordered` or `uuid`"), where serde's derived reader (through
/// serde_json) said only "expected value" and took an object `{"name": null}` as the name too;
/// an unknown string is "unknown variant", as with the derive.
#[inline(never)]
pub(crate) fn variant<'de, D: Deserializer<'de>>(
    d: D,
    names: &'static [&'static str],
) -> Result<usize, D::Error> {
    d.deserialize_str(Name(names))
}

struct Name(&'static [&'static str]);

impl<'de> Visitor<'de> for Name {
    type Value = usize;

    /// The names, as serde lists them after "unknown variant".
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let [a, b] = self.0 {
            return write!(f, "`{a}` or `{b}`");
        }
        f.write_str("one of ")?;
        for (i, n) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "`{n}`")?;
        }
        Ok(())
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<usize, E> {
        self.0
            .iter()
            .position(|n| *n == v)
            .ok_or_else(|| E::unknown_variant(v, self.0))
    }
}

/// Implements `Deserialize` for an enum of unit variants, each read from its name (the
/// snake_case name its derived `Serialize` writes) by [`variant`].
macro_rules! names {
    ($ty:ident { $($variant:ident = $name:literal),* $(,)? }) => {
        impl<'de> serde::Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<$ty, D::Error> {
                const ALL: &[$ty] = &[$($ty::$variant),*];
                // `variant` returns an index of the names, one per variant.
                Ok(ALL[$crate::object::variant(d, &[$($name),*])?])
            }
        }
    };
}

pub(crate) use names;
