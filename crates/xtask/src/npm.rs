//! The npm package `fencepost`: building it (`cargo xtask dist`), its size budget
//! (`cargo xtask size`), its packaging tests (run by `cargo xtask test`) and its Node benchmark.
//!
//! Every tool is pinned and installed on first use: the wasm-bindgen CLI with cargo, wasm-opt and
//! esbuild from the npm packages `binaryen` and `esbuild` (crates/xtask/npm-tools), and each
//! fixture's npm dev dependencies with `npm ci` from its committed lock file.
//!
//! Layout of the package: `npm/src` holds the hand-written JavaScript as ES modules that resolve
//! in the source tree (`api.js`, the whole API, spread over one file per family; one small entry
//! per runtime that only loads the module), `npm/index.d.ts` the types, and `npm/dist` (built, not
//! committed) the module, the entries, `api.js` bundled by esbuild with wasm-bindgen's glue, and
//! `node.cjs` (the CommonJS build, bundled by esbuild too).
//!
//! The simulator is a second, separate module so the core stays small: `crates/fencepost-sim-wasm`
//! built as `dist/sim/fencepost_sim_bg.wasm`, with its own API (`npm/src/sim/api.js`) and one
//! entry per runtime, all in `dist/sim/`, behind the `./sim` and `./sim/slim` exports (types in
//! `npm/sim/`).
//!
//! One file per job: [`wasm`] builds and optimizes the modules, [`bundle`] runs esbuild,
//! [`dist`] lays the package out, [`size`] guards the modules' sizes, [`fixtures`] packs the
//! package and installs it into the test projects, [`test`] and [`bench`] run them, [`service`]
//! starts the lease service the fixtures hold leases from.

use std::fs;
use std::path::{Path, PathBuf};

use crate::Result;
use crate::tools::root;

mod bench;
mod bundle;
mod dist;
mod fixtures;
mod npm_tools;
mod service;
mod size;
mod test;
mod wasm;

pub use bench::bench;
pub use dist::dist;
pub(crate) use fixtures::{fixture, pack};
pub(crate) use npm_tools::wasm_opt;
pub use size::size;
pub use test::test;
pub use wasm::{abi, ensure_wasm_bindgen};

fn npm_dir() -> PathBuf {
    root().join("npm")
}

fn dist_dir() -> PathBuf {
    npm_dir().join("dist")
}

fn target() -> PathBuf {
    root().join("target")
}

fn copy(from: &Path, to: &Path) -> Result {
    if let Some(dir) = to.parent() {
        fs::create_dir_all(dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    }
    fs::copy(from, to)
        .map(|_| ())
        .map_err(|e| format!("copying {} to {}: {e}", from.display(), to.display()))
}

/// Copies the directory `from` to `to`, file by file, leaving out any node_modules.
fn copy_tree(from: &Path, to: &Path) -> Result {
    let entries = fs::read_dir(from).map_err(|e| format!("reading {}: {e}", from.display()))?;
    for entry in entries {
        let entry = entry.map_err(|e| format!("reading {}: {e}", from.display()))?;
        let name = entry.file_name();
        if name == "node_modules" {
            continue;
        }
        let path = entry.path();
        if path.is_dir() {
            copy_tree(&path, &to.join(&name))?;
        } else {
            copy(&path, &to.join(&name))?;
        }
    }
    Ok(())
}
