//! `cargo xtask size`: every .wasm of the package against its size budget.

use super::dist_dir;
use crate::Result;
use crate::sizes::{Sizes, brotli_len, kb};

/// A size budget for one `.wasm` file of the package (its path in npm/dist), in bytes.
pub struct Budget {
    pub file: &'static str,
    pub raw: u64,
    pub gzip: u64,
}

/// The core module's size guard: its measured size plus about 20%, so a change that makes every
/// browser and Worker download noticeably more fails `cargo xtask test` and is looked at, while
/// ordinary work fits. Measured at 28987 B raw / 14477 B gzip (with RustCrypto's HMAC, the key
/// ring, the stores' decision, the lease keeper, and the room checks that answer a RangeError
/// rather than trap when memory cannot grow). A guard is raised, with the new measurement, when a
/// feature needs the bytes; it is never a reason to hand-write what a well-kept library does.
pub const CORE_BUDGET: Budget = Budget {
    file: "fencepost_bg.wasm",
    raw: 35 * 1024,
    gzip: 17 * 1024,
};

/// The simulator module's size guard, on the same rule as [`CORE_BUDGET`]. Measured at 351985 B
/// raw / 142580 B gzip, built for speed (opt-level 3, see the `wasm-sim` profile). It holds the whole simulator (engine, invariants, explanations,
/// templates, sweeps, the exhaustive search, the history checker), serde's readers and writers,
/// and the JavaScript boundary: serde-wasm-bindgen, which reads scenarios into serde_json values
/// and writes every trace and report as objects, and serde_path_to_error, which names the field
/// of an error; core's Unicode tables (for the `{:?}` of a string in serde's messages) and
/// serde_json's float tables are needed for the messages and numbers to stay exact.
pub const SIM_BUDGET: Budget = Budget {
    file: "sim/fencepost_sim_bg.wasm",
    raw: 420 * 1024,
    gzip: 170 * 1024,
};

/// Every .wasm of the package with its budget.
pub const BUDGETS: &[Budget] = &[CORE_BUDGET, SIM_BUDGET];

/// Prints raw / gzip / brotli of every .wasm in npm/dist against its budget; fails when one is
/// over budget or missing.
pub fn size() -> Result {
    let dist = dist_dir();
    let mut over = Vec::new();
    for budget in BUDGETS {
        let path = dist.join(budget.file);
        if !path.exists() {
            return Err(format!(
                "{} is missing: run `cargo xtask dist` first",
                path.display()
            ));
        }
        let Sizes { raw, gzip: gz } = Sizes::of_file(&path)?;
        let br = brotli_len(&path)?;
        println!(
            "{:<26} raw {:>9} ({raw} B)  gzip {:>9} ({gz} B)  brotli {:>9} ({br} B)   budget raw {} / gzip {}",
            budget.file,
            kb(raw),
            kb(gz),
            kb(br),
            kb(budget.raw),
            kb(budget.gzip)
        );
        if raw > budget.raw || gz > budget.gzip {
            over.push(budget.file);
        }
    }
    if over.is_empty() {
        Ok(())
    } else {
        Err(format!("over its size budget: {}", over.join(", ")))
    }
}
