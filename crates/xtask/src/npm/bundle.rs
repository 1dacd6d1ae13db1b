//! The package's bundled files: esbuild (pinned, driven by crates/xtask/npm-tools/bundle.mjs)
//! bundles each from its entry among the ES modules of npm/src, with everything the entry imports
//! and wasm-bindgen's glue, in the order of their imports.
//!
//! The client's bundles leave its import of the core an import of the core's own built entry of
//! the same format (their tests check it), so the client never carries a second copy of the core.

#[cfg(test)]
use std::path::Path;
use std::path::PathBuf;

use super::npm_tools::bundle_script;
use super::{dist_dir, npm_dir};
use crate::Result;
use crate::tools::Cmd;

/// How a bundle exposes its entry's exports.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Format {
    /// An ES module with the entry's exports.
    Esm,
    /// A CommonJS file whose `module.exports` has them.
    Cjs,
}

/// One bundled file of npm/dist.
pub(super) struct Bundle {
    /// Its entry, in npm/src.
    pub input: &'static str,
    /// The file, in npm/dist.
    pub output: &'static str,
    pub format: Format,
    /// For fencepost/client: what client.js's import of the core API becomes, an import of the
    /// package's own built entry (relative to the output), so both share one instance of the
    /// module.
    pub core: Option<&'static str>,
}

const fn bundle(input: &'static str, output: &'static str, format: Format) -> Bundle {
    Bundle {
        input,
        output,
        format,
        core: None,
    }
}

/// Every bundle of the package: the core's and the simulator's API, each as an ES module (which
/// the runtime entries beside it load) and as the CommonJS entry for Node's `require`; the client
/// likewise, over the core's built entries.
pub(super) const BUNDLES: &[Bundle] = &[
    bundle("api.js", "api.js", Format::Esm),
    bundle("node-cjs.js", "node.cjs", Format::Cjs),
    bundle("sim/api.js", "sim/api.js", Format::Esm),
    bundle("sim/node-cjs.js", "sim/node.cjs", Format::Cjs),
    Bundle {
        core: Some("./api.js"),
        ..bundle("client.js", "client.js", Format::Esm)
    },
    Bundle {
        core: Some("../node.cjs"),
        ..bundle("client/node-cjs.js", "client/node.cjs", Format::Cjs)
    },
];

/// Bundles every file of [`BUNDLES`] into npm/dist; `glue` is what wasm-bindgen wrote for each
/// module (target/wasm-bindgen/<name>/<name>_bg.js), bundled in where the sources import it.
pub(super) fn bundle_all(glue: &[PathBuf]) -> Result {
    let script = bundle_script()?;
    let glue: serde_json::Map<String, serde_json::Value> = glue
        .iter()
        .map(|path| {
            let name = path
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default();
            (format!("./{name}"), path.display().to_string().into())
        })
        .collect();
    for b in BUNDLES {
        let job = serde_json::json!({
            "input": npm_dir().join("src").join(b.input),
            "output": dist_dir().join(b.output),
            "format": match b.format { Format::Esm => "esm", Format::Cjs => "cjs" },
            "glue": glue,
            "core": b.core,
        });
        Cmd::new("node")
            .arg(&script)
            .arg(job.to_string())
            .cwd(npm_dir())
            .run()
            .map_err(|e| format!("bundling npm/dist/{}: {e}", b.output))?;
    }
    Ok(())
}

/// The bundle that writes `output` (a path in npm/dist), if one does.
#[cfg(test)]
pub(super) fn bundled(output: &Path) -> Option<&'static Bundle> {
    BUNDLES.iter().find(|b| Path::new(b.output) == output)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Component;

    /// `path` with its `.` and `..` resolved (in npm/dist, which it never leaves).
    fn normalize(path: &Path) -> PathBuf {
        let mut out = PathBuf::new();
        for c in path.components() {
            match c {
                Component::CurDir => {}
                Component::ParentDir => assert!(out.pop(), "{} leaves npm/dist", path.display()),
                c => out.push(c),
            }
        }
        out
    }

    #[test]
    fn every_entry_is_a_source_file_and_every_output_is_built_once() {
        for b in BUNDLES {
            let input = npm_dir().join("src").join(b.input);
            assert!(input.is_file(), "{} is missing", input.display());
            assert_eq!(
                BUNDLES.iter().filter(|o| o.output == b.output).count(),
                1,
                "{}",
                b.output
            );
        }
    }

    #[test]
    fn the_client_imports_the_core_through_the_built_entries() {
        for b in BUNDLES.iter().filter(|b| b.core.is_some()) {
            let core = Path::new(b.output).parent().unwrap().join(b.core.unwrap());
            let core = normalize(&core);
            let entry = bundled(&core).unwrap_or_else(|| panic!("{} is not built", core.display()));
            assert_eq!(
                entry.format, b.format,
                "{} imports {}",
                b.output, entry.output
            );
            assert!(entry.core.is_none());
        }
    }
}
