//! The build tools that come from the npm registry, pinned exactly in crates/xtask/npm-tools
//! (package.json and its lock) and installed with `npm ci` into target/tools/npm on first use:
//! wasm-opt (the package `binaryen`) and esbuild, with the script that drives esbuild.

use std::path::PathBuf;

use super::{copy, target};
use crate::Result;
use crate::tools::{npm_ci, root};

/// target/tools/npm, with the pinned packages installed and the bundling script beside them (so
/// its `import "esbuild"` finds the pinned one).
fn installed() -> Result<PathBuf> {
    let src = root().join("crates/xtask/npm-tools");
    let dir = target().join("tools/npm");
    for f in ["package.json", "package-lock.json", "bundle.mjs"] {
        copy(&src.join(f), &dir.join(f))?;
    }
    npm_ci(&dir)?;
    Ok(dir)
}

/// wasm-opt from the npm package `binaryen`.
pub(crate) fn wasm_opt() -> Result<PathBuf> {
    Ok(installed()?.join("node_modules/binaryen/bin/wasm-opt"))
}

/// The script that bundles one entry with the pinned esbuild (crates/xtask/npm-tools/bundle.mjs).
pub(super) fn bundle_script() -> Result<PathBuf> {
    Ok(installed()?.join("bundle.mjs"))
}
