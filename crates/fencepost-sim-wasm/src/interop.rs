//! Values across the JavaScript boundary, through serde-wasm-bindgen.
//!
//! In: the package's JavaScript hands over a plain copy of the caller's object (own data
//! properties only, objects without a prototype, dense arrays), so reading it runs no getter of
//! the caller's. It is read into a `serde_json::Value` first: serde-wasm-bindgen reads a struct
//! by looking up the fields the struct has, and would never see a field it does not have, while
//! reading a value takes every key. The value is then read into the simulator's own types, whose
//! definitions refuse unknown fields, with serde_path_to_error naming the field an error is
//! about (`workers[1].job.work_ms`).
//!
//! Out: the simulator's own serde definitions, written as JavaScript objects and arrays, with
//! `None` as `null` (as in its JSON) and every 64-bit integer as a bigint (the package's
//! JavaScript makes those that are times and counts numbers again). Setting a property of a new
//! object can run a setter a program put on `Object.prototype`; should it throw, the exception
//! unwinds through the module's frames, and the package's JavaScript puts the module's stack
//! pointer back (see `build.rs`). Values are written out only after the state is let go.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_path_to_error::Segment;
use wasm_bindgen::JsValue;

use crate::failure::Failure;

/// Most bytes reading a plain value of `values` values (objects, arrays and leaves) and `chars`
/// UTF-16 code units of keys and strings can take, into a `serde_json::Value` and then into the
/// simulator's type: per value, a map node or a vector's growth and the typed copy; per
/// character, up to three bytes of UTF-8, twice (the value's string and the typed one), in blocks
/// of up to twice the size.
pub fn input_bytes(values: u32, chars: u32) -> u64 {
    u64::from(values) * 1024 + u64::from(chars) * 12 + 64 * 1024
}

/// Most bytes writing a value out can take in the module while it builds JavaScript objects
/// (serde-wasm-bindgen's table of field names turned into JavaScript strings, and small
/// temporaries); the objects themselves live in JavaScript.
pub const OUT_BYTES: u64 = 64 * 1024;

/// Reads `T` from a plain JavaScript value with the simulator's own (serde) definitions.
pub fn read<T: DeserializeOwned>(value: JsValue) -> Result<T, Failure> {
    let value: serde_json::Value = serde_wasm_bindgen::from_value(value)
        .map_err(|e| Failure::unreadable(String::new(), js_message(&e)))?;
    typed(value)
}

/// Reads `T` from a value read from JavaScript (the part of [`read`] that runs natively too).
pub fn typed<T: DeserializeOwned>(value: serde_json::Value) -> Result<T, Failure> {
    serde_path_to_error::deserialize(value)
        .map_err(|e| Failure::unreadable(field(e.path()), e.into_inner().to_string()))
}

/// A path as the package names fields: `workers[1].job.work_ms`; empty for the whole value.
fn field(path: &serde_path_to_error::Path) -> String {
    let mut out = String::new();
    for segment in path.iter() {
        match segment {
            Segment::Seq { index } => out.push_str(&format!("[{index}]")),
            Segment::Map { key } | Segment::Enum { variant: key } => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(key);
            }
            Segment::Unknown => {}
        }
    }
    out
}

/// What a serde-wasm-bindgen error says (it holds a JavaScript `Error`).
fn js_message(e: &serde_wasm_bindgen::Error) -> String {
    let text = e.to_string();
    text.strip_prefix("Error: ")
        .map_or(text.clone(), String::from)
}

/// `value` as JavaScript objects; `undefined` only if serde refuses the value (it never does for
/// these types).
pub fn to_js<T: Serialize + ?Sized>(value: &T) -> JsValue {
    let out = serde_wasm_bindgen::Serializer::new()
        .serialize_missing_as_null(true)
        .serialize_maps_as_objects(true)
        .serialize_large_number_types_as_bigints(true);
    value.serialize(&out).unwrap_or(JsValue::UNDEFINED)
}
