//! The JavaScript side of the module's numbers, `npm/src/abi.js`, rendered from the definitions
//! in this crate: the record's byte offsets (from the `Out` type itself), a reader for each field
//! of each answer (from `out::answers::ALL`), every numbered group (each one's `ALL`) and the
//! limits. `cargo xtask abi` writes the file; a test of this crate
//! (run by `cargo xtask test`) fails when the committed file is not what these definitions render.
//!
//! The file is committed rather than made at build time so that `npm/src` runs as it is (the
//! packaging tests and the edge services load it) and a change of a number shows in review on
//! both sides.

use core::fmt::Write;
use core::mem::offset_of;

use fencepost::snapshot::MAX_ID_LEN;

use crate::abi::MAX_INPUT;
use crate::errors::{CONFIG_ERRORS, MESSAGES, code};
use crate::guard::{BATCH, admit};
use crate::keeper::{loss, op, state};
use crate::locks::{acquire, call, lease};
use crate::objects::kind;
use crate::out::{Out, answers};
use crate::resource::{LEDGER_CAPACITY, write};
use crate::signer::ring;
use crate::token::form;

/// Where the file lives, from the workspace root.
pub const PATH: &str = "npm/src/abi.js";

/// A numbered group: its prefix in JavaScript, what it holds, and its constants (its `ALL`).
type Group = (&'static str, &'static str, &'static [(&'static str, u32)]);

const GROUPS: &[Group] = &[
    ("KIND_", "The kinds of object (`free`).", kind::ALL),
    ("CALL_", "What `lock_call` does.", call::ALL),
    ("ACQUIRE_", "What an acquire answers.", acquire::ALL),
    ("LEASE_", "What a renew or a release answers.", lease::ALL),
    (
        "ADMIT_",
        "What a guard answers: bit 0 set means accepted.",
        admit::ALL,
    ),
    (
        "WRITE_",
        "What a resource's write (or a store's decision) answers.",
        write::ALL,
    ),
    ("RING_", "What `ring_call` does.", ring::ALL),
    (
        "FORM_",
        "The forms of a token `token_decode` reads.",
        form::ALL,
    ),
    ("KEEPER_OP_", "What `keeper_call` does.", op::ALL),
    ("KEEPER_STATE_", "What `keeper_call` answers.", state::ALL),
    ("KEEPER_LOSS_", "Why a keeper's lease was lost.", loss::ALL),
    (
        "ERR_",
        "Error codes, read from the record's `ERROR` field (messages in errors.js).",
        code::ALL,
    ),
];

/// The fields of the record JavaScript reads, by byte offset (the lengths of the holder and the
/// name sit 4 bytes after their addresses).
const OUT_FIELDS: &[(&str, usize)] = &[
    ("TOKEN", offset_of!(Out, token)),
    ("TOKEN2", offset_of!(Out, token2)),
    ("TOKEN3", offset_of!(Out, token3)),
    ("TIME", offset_of!(Out, time)),
    ("TIME2", offset_of!(Out, time2)),
    ("TIME3", offset_of!(Out, time3)),
    ("DEPTH", offset_of!(Out, depth)),
    ("ERROR", offset_of!(Out, error)),
    ("DETAIL", offset_of!(Out, detail)),
    ("HOLDER", offset_of!(Out, holder_at)),
    ("NAME", offset_of!(Out, name_at)),
    ("OUTPUT", offset_of!(Out, output_at)),
    ("FIELD", offset_of!(Out, field_at)),
];

/// How JavaScript reads each slot of the record an answer's field is written to: the reader in
/// instance.js and the offset it reads at. The numbers and times are read as they are; the
/// names through their addresses and lengths, which `out` brings up to date.
fn reader(slot: &str) -> Option<(&'static str, &'static str)> {
    Some(match slot {
        "token" => ("outToken", "OUT_TOKEN"),
        "token2" => ("outToken", "OUT_TOKEN2"),
        "token3" => ("outToken", "OUT_TOKEN3"),
        "time" => ("outTime", "OUT_TIME"),
        "time2" => ("outTime", "OUT_TIME2"),
        "time3" => ("outTime", "OUT_TIME3"),
        "depth" => ("outWord", "OUT_DEPTH"),
        "holder" => ("outText", "OUT_HOLDER"),
        "name" => ("outText", "OUT_NAME"),
        _ => return None,
    })
}

/// The fields `out` brings up to date that are no answer's (errors and the output area): each
/// reader's name, what it reads, and its offset.
const REFRESHED: &[(&str, &str, &str)] = &[
    ("errorCode", "The code of the last error.", "OUT_ERROR"),
    (
        "errorDetail",
        "The number that goes with the last error.",
        "OUT_DETAIL",
    ),
    (
        "errorField",
        "The address of the field name an inconsistent snapshot names (its length: `errorDetail`).",
        "OUT_FIELD",
    ),
    ("outputAt", "The address of the output area.", "OUT_OUTPUT"),
];

/// `expires_at` as `ExpiresAt`; with `lower`, `Granted` as `granted`.
fn camel(name: &str, lower: bool) -> String {
    let mut s = String::new();
    let mut up = !lower;
    for c in name.chars() {
        if c == '_' {
            up = true;
        } else if up {
            s.extend(c.to_uppercase());
            up = false;
        } else if s.is_empty() {
            s.extend(c.to_lowercase());
        } else {
            s.push(c);
        }
    }
    s
}

/// The readers of every answer's fields, `<answer><Field>()`, and of the refreshed fields.
fn readers(s: &mut String) {
    section(
        s,
        "Each answer's fields by name (`out::answers` in crates/fencepost-wasm/src/out.rs).",
    );
    for (answer, fields) in answers::ALL {
        for (field, slot) in *fields {
            let (read, at) = reader(slot).unwrap_or(("undefined", "0"));
            let name = format!("{}{}", camel(answer, true), camel(field, false));
            let _ = writeln!(s, "export function {name}() {{\n  return {read}({at});\n}}");
        }
    }
    for (name, what, at) in REFRESHED {
        let _ = writeln!(
            s,
            "\n/** {what} */\nexport function {name}() {{\n  return outU32({at});\n}}"
        );
    }
    let (lo, hi) = (CONFIG_ERRORS.start(), CONFIG_ERRORS.end());
    let _ = writeln!(
        s,
        "\n/** Whether error `code` is of a config the core refuses (not of a snapshot). */\n\
         export function isConfigError(code) {{\n  return code >= {lo} && code <= {hi};\n}}"
    );
}

/// Each message of [`MESSAGES`] as a JavaScript template literal, its placeholders filled.
fn message(text: &str) -> String {
    let text = text
        .replace('`', "\\`")
        .replace("{d}", "${d}")
        .replace("{field}", "${textAt(errorField(), d)}")
        .replace("{held}", "${otherTokenHeld()}")
        .replace("{max_name}", &MAX_ID_LEN.to_string())
        .replace("{u64_max}", &u64::MAX.to_string());
    format!("`{text}`")
}

/// `errorMessage(code, d)`: the message of error `code` with its detail `d`.
fn messages(s: &mut String) {
    let _ = write!(
        s,
        "\n/** The message of error `code` (with its detail `d`), in the core's wording. */\n\
         export function errorMessage(code, d) {{\n  switch (code) {{\n"
    );
    for (c, text) in MESSAGES {
        let (name, _) = code::ALL
            .iter()
            .find(|(_, n)| n == c)
            .unwrap_or(&("UNKNOWN", 0));
        let _ = writeln!(s, "    case ERR_{name}: return {};", message(text));
    }
    s.push_str("    default: return `error ${code}`;\n  }\n}\n");
}

/// Limits the JavaScript side checks before a call.
const LIMITS: &[(&str, &str, usize)] = &[
    (
        "MAX_NAME_BYTES",
        "Longest holder id, lock or resource name, in bytes of UTF-8.",
        MAX_ID_LEN,
    ),
    (
        "MAX_SNAPSHOT_BYTES",
        "Largest input area: the largest snapshot restore reads.",
        MAX_INPUT,
    ),
    (
        "BATCH",
        "Tokens one `guard_admit_many` call takes (admitMany splits larger batches).",
        BATCH,
    ),
    (
        "LEDGER_CAPACITY",
        "Operations a resource's idempotency ledger remembers.",
        LEDGER_CAPACITY,
    ),
];

/// The contents of `npm/src/abi.js`.
pub fn render() -> String {
    let mut s = String::new();
    s.push_str(
        "// The numbers the module (crates/fencepost-wasm) and the package's JavaScript share. Generated\n\
         // from the Rust definitions by `cargo xtask abi`: change them there, never here.\n\n\
         import { outText, outTime, outToken, outU32, outWord, textAt } from \"./instance.js\";\n",
    );
    section(
        &mut s,
        "What a call leaves in the module's `Out` record, by byte offset (little-endian).",
    );
    for (name, at) in OUT_FIELDS {
        constant(&mut s, &format!("OUT_{name}"), *at as u64);
    }
    readers(&mut s);
    for (name, what, value) in LIMITS {
        let _ = writeln!(s, "\n/** {what} */");
        constant(&mut s, name, *value as u64);
    }
    for (prefix, what, all) in GROUPS {
        section(&mut s, what);
        for (name, value) in *all {
            constant(&mut s, &format!("{prefix}{name}"), u64::from(*value));
        }
    }
    section(
        &mut s,
        "A keeper's states and losses by code, as the package names them.",
    );
    let names = |all: &[(&str, u32)], upto: u32| -> String {
        let mut v: Vec<_> = all.iter().filter(|(_, c)| *c < upto).collect();
        v.sort_by_key(|(_, c)| *c);
        let quoted: Vec<String> = v
            .iter()
            .map(|(n, _)| format!("\"{}\"", n.to_lowercase()))
            .collect();
        quoted.join(", ")
    };
    let _ = writeln!(
        s,
        "export const KEEPER_STATES = [{}];",
        names(state::ALL, state::ERROR)
    );
    let _ = writeln!(s, "export const LOSSES = [{}];", names(loss::ALL, u32::MAX));
    messages(&mut s);
    s
}

fn section(s: &mut String, what: &str) {
    let _ = write!(s, "\n// {what}\n");
}

fn constant(s: &mut String, name: &str, value: u64) {
    let _ = writeln!(s, "export const {name} = {value};");
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fails when npm/src/abi.js is not what the definitions render; with `FENCEPOST_WRITE_ABI`
    /// set (as `cargo xtask abi` runs it) it writes the file instead.
    #[test]
    fn abi_js_is_generated_from_these_definitions() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .join(PATH);
        let want = render();
        if std::env::var_os("FENCEPOST_WRITE_ABI").is_some() {
            std::fs::write(&path, &want).unwrap();
        }
        let have = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(have == want, "{PATH} is out of date: run `cargo xtask abi`");
    }

    #[test]
    fn every_name_is_unique_and_the_lengths_follow_the_addresses() {
        let text = render();
        let mut seen = std::collections::BTreeSet::new();
        for line in text.lines().filter_map(|l| l.strip_prefix("export const ")) {
            let name = line.split(' ').next().unwrap();
            assert!(seen.insert(name.to_string()), "{name} twice");
        }
        let functions = text
            .lines()
            .filter_map(|l| l.strip_prefix("export function "));
        for line in functions {
            let name = line.split('(').next().unwrap();
            assert!(seen.insert(name.to_string()), "{name} twice");
        }
        assert!(seen.contains("keeperSafeUntil") && seen.contains("errorMessage"));
        // outText reads a length right after its address.
        assert_eq!(offset_of!(Out, holder_len), offset_of!(Out, holder_at) + 4);
        assert_eq!(offset_of!(Out, name_len), offset_of!(Out, name_at) + 4);
    }

    #[test]
    fn every_answer_is_read_where_it_is_written() {
        let text = render();
        for (answer, fields) in answers::ALL {
            for (field, slot) in *fields {
                let (read, at) = reader(slot).unwrap_or_else(|| panic!("no reader for {slot}"));
                let name = format!("{}{}", camel(answer, true), camel(field, false));
                let f = format!("export function {name}() {{\n  return {read}({at});\n}}");
                assert!(text.contains(&f), "{name}");
                let offset = OUT_FIELDS.iter().find(|(n, _)| format!("OUT_{n}") == at);
                assert!(offset.is_some(), "{at} is not a field of the record");
            }
        }
        assert_eq!(camel("expires_at", false), "ExpiresAt");
        assert_eq!(camel("TableExpiry", true), "tableExpiry");
        assert!(
            text.contains("export function grantedExpiresAt() {\n  return outTime(OUT_TIME);\n}")
        );
        assert!(text.contains("export function heldHolder() {\n  return outText(OUT_HOLDER);\n}"));
        assert!(text.contains(
            "export function isConfigError(code) {\n  return code >= 30 && code <= 33;\n}"
        ));
    }

    /// Every error the module reports has one message, and each message fills all its
    /// placeholders.
    #[test]
    fn every_error_has_one_message() {
        for (name, c) in code::ALL.iter().filter(|(_, c)| *c != code::UNKNOWN) {
            let n = MESSAGES.iter().filter(|(m, _)| m == c).count();
            assert_eq!(n, 1, "{name} has {n} messages");
        }
        assert!(MESSAGES.iter().all(|(c, _)| *c != code::UNKNOWN));
        for (_, text) in MESSAGES {
            let js = message(text);
            let bare = js.replace("${", "");
            assert!(!bare.contains('{'), "{text}: a placeholder is left");
        }
        let text = render();
        assert!(text.contains(
            "    case ERR_SNAP_INVALID: return `snapshot field \\`${textAt(errorField(), d)}\\` is inconsistent`;\n"
        ));
        assert!(text.contains(
            "    case ERR_OVERFLOW: return `token is larger than 18446744073709551615`;\n"
        ));
    }

    #[test]
    fn the_package_names_the_states_and_losses_as_the_core_does() {
        let text = render();
        assert!(text.contains(
            "export const KEEPER_STATES = [\"acquiring\", \"held\", \"uncertain\", \"lost\"];"
        ));
        let losses = [
            fencepost::Loss::Expired,
            fencepost::Loss::Refused,
            fencepost::Loss::Released,
        ];
        for (code, why) in [loss::EXPIRED, loss::REFUSED, loss::RELEASED]
            .into_iter()
            .zip(losses)
        {
            let (name, _) = loss::ALL.iter().find(|(_, c)| *c == code).unwrap();
            assert_eq!(name.to_lowercase(), why.as_str());
        }
    }
}
