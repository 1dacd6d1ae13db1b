//! Virtual times as people read them.

use alloc::format;
use alloc::string::String;

/// Seconds with one decimal, e.g. `45.5 s`.
pub fn fmt_secs(ms: u64) -> String {
    if ms.is_multiple_of(1000) {
        format!("{} s", ms / 1000)
    } else if ms.is_multiple_of(100) {
        format!("{}.{} s", ms / 1000, (ms % 1000) / 100)
    } else {
        format!("{}.{:03} s", ms / 1000, ms % 1000)
    }
}
