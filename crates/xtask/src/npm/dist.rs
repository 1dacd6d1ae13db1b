//! `cargo xtask dist`: the package laid out in npm/dist. Each module's wasm, its types as
//! `index.d.cts` for CommonJS consumers, and its runtime entries copied as they are (they load
//! the module and re-export the bundled API beside them); the bundles; `fencepost/store` and
//! `fencepost/service`, plain ES modules over the package's own entries and common.js, copied as
//! they are; and the client's entries, which load the core through the package's own entry for
//! their runtime.

use std::fs;
use std::path::Path;

use super::bundle::bundle_all;
use super::npm_tools::wasm_opt;
use super::wasm::{MODULES, build_module, ensure_wasm_bindgen};
use super::{copy, copy_tree, dist_dir, npm_dir};
use crate::Result;
use crate::tools::step;

/// The runtime entries of the core, of the simulator (npm/src/sim) and of the client
/// (npm/src/client), copied into the same directory of npm/dist as they are.
const ENTRIES: &[&str] = &[
    "node.mjs",
    "workerd.js",
    "edge-light.js",
    "deno.js",
    "browser.js",
    "slim.js",
];

/// The declarations (in npm/) copied into npm/dist as `index.d.cts` for CommonJS consumers: the
/// `require` condition of the exports map names them (TypeScript's Node16 resolution reads them).
const DECLARATIONS: &[(&str, &str)] = &[
    ("index.d.ts", "index.d.cts"),
    ("sim/index.d.ts", "sim/index.d.cts"),
    ("client.d.ts", "client/index.d.cts"),
];

/// Builds the modules and assembles the package in npm/dist.
pub fn dist() -> Result {
    crate::tools::ensure_targets()?;
    ensure_wasm_bindgen()?;
    let wasm_opt = wasm_opt()?;
    let _ = fs::remove_dir_all(dist_dir());
    let src = npm_dir().join("src");
    let mut glue = Vec::new();
    for module in MODULES {
        let dist = dist_dir().join(module.dir);
        fs::create_dir_all(&dist).map_err(|e| format!("creating {}: {e}", dist.display()))?;
        glue.push(build_module(module, &wasm_opt, &dist)?);
        copy_entries(&src.join(module.dir), &dist)?;
    }
    copy_entries(&src.join("client"), &dist_dir().join("client"))?;
    for (types, cts) in DECLARATIONS {
        copy(&npm_dir().join(types), &dist_dir().join(cts))?;
    }
    step("bundling the APIs and their CommonJS entries (esbuild)");
    bundle_all(&glue)?;
    // The argument helpers the store's and the service's modules import (`../common.js`), beside
    // them as they are; each bundle above carries its own copy.
    copy(&src.join("common.js"), &dist_dir().join("common.js"))?;
    copy_tree(&src.join("store"), &dist_dir().join("store"))?;
    copy_tree(&src.join("service"), &dist_dir().join("service"))?;
    println!("npm/dist is ready");
    Ok(())
}

fn copy_entries(src: &Path, dist: &Path) -> Result {
    ENTRIES
        .iter()
        .try_for_each(|f| copy(&src.join(f), &dist.join(f)))
}

#[cfg(test)]
mod tests {
    use super::super::bundle::bundled;
    use super::*;
    use crate::npm::size::BUDGETS;

    /// Every file of npm/dist that package.json names (exports, main, bin, sideEffects).
    fn named_files() -> Vec<String> {
        let text = fs::read_to_string(npm_dir().join("package.json")).unwrap();
        let mut files = Vec::new();
        let mut rest = text.as_str();
        while let Some(at) = rest.find("\"./dist/") {
            let tail = &rest[at + "\"./dist/".len()..];
            let end = tail.find('"').unwrap();
            files.push(tail[..end].to_string());
            rest = &tail[end..];
        }
        files.sort();
        files.dedup();
        files
    }

    #[test]
    fn every_file_package_json_names_is_built_or_copied() {
        let src = npm_dir().join("src");
        let files = named_files();
        assert!(files.len() > 20, "{files:?}");
        for file in files {
            let path = Path::new(&file);
            let copied = src.join(path).is_file()
                && (ENTRIES.iter().any(|e| path.file_name().unwrap() == *e)
                    || file.starts_with("store/")
                    || file.starts_with("service/"));
            let wasm = BUDGETS.iter().any(|b| b.file == file);
            let types = DECLARATIONS.iter().any(|(_, cts)| *cts == file);
            assert!(
                copied || wasm || types || bundled(path).is_some(),
                "npm/dist/{file} is named in package.json but nothing builds it"
            );
        }
    }
}
