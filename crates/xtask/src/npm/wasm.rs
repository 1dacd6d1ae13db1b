//! The package's WebAssembly modules: each crate built for wasm32-unknown-unknown, bound by the
//! wasm-bindgen CLI and optimized by wasm-opt into npm/dist, and the ABI file generated from the
//! core's bindings.

use std::fs;
use std::path::{Path, PathBuf};

use super::target;
use crate::Result;
use crate::tools::{Cmd, step};

/// Must equal the `wasm-bindgen` crate version pinned in crates/fencepost-wasm/Cargo.toml.
pub const WASM_BINDGEN_VERSION: &str = "0.2.130";

/// WebAssembly features the module is built with (Rust's defaults for wasm32-unknown-unknown),
/// named one by one: `--all-features` lets wasm-opt use proposals that workerd refuses.
const WASM_OPT_FEATURES: &[&str] = &[
    "--enable-bulk-memory",
    "--enable-nontrapping-float-to-int",
    "--enable-sign-ext",
    "--enable-mutable-globals",
    "--enable-reference-types",
    "--enable-multivalue",
];

/// The wasm-bindgen CLI of exactly the crate's version: on PATH, or where cargo installs it.
fn wasm_bindgen() -> Result<PathBuf> {
    let want = format!("wasm-bindgen {WASM_BINDGEN_VERSION}");
    let candidates = [
        PathBuf::from("wasm-bindgen"),
        crate::tools::cargo_home().join("bin").join("wasm-bindgen"),
    ];
    candidates
        .into_iter()
        .find(|c| {
            Cmd::new(c)
                .arg("--version")
                .output()
                .as_deref()
                .map(str::trim)
                == Ok(want.as_str())
        })
        .ok_or_else(|| format!("{want} is not installed"))
}

/// Installs the wasm-bindgen CLI of the crate's version with cargo when it is missing.
pub fn ensure_wasm_bindgen() -> Result {
    if wasm_bindgen().is_err() {
        step(&format!(
            "installing wasm-bindgen-cli {WASM_BINDGEN_VERSION}"
        ));
        Cmd::cargo(&["install", "wasm-bindgen-cli", "--version"])
            .arg(format!("={WASM_BINDGEN_VERSION}"))
            .run()?;
    }
    wasm_bindgen().map(|_| ())
}

/// One WebAssembly module of the package: a crate built for wasm32-unknown-unknown, bound by
/// wasm-bindgen into `<name>_bg.wasm` (in npm/dist/`dir`) and its glue `<name>_bg.js` (bundled
/// into the module's API there), beside its API and entries from npm/src/`dir`.
pub struct WasmModule {
    pub krate: &'static str,
    pub name: &'static str,
    /// Its directory in npm/src and npm/dist ("" for the package's root).
    pub dir: &'static str,
    /// The cargo profile it is built with.
    pub profile: &'static str,
    /// The wasm-opt passes it is optimized with (before stripping).
    pub passes: &'static [&'static str],
}

/// The wasm-opt passes of both modules: flattening and re-looping the control flow, merging
/// functions that differ only in constants, then -Oz twice, then flattening and re-looping what
/// that left and -Oz twice again. The second round finds more to fold once the first has
/// simplified the control flow; a third finds nothing more. Every pass keeps the module's
/// behaviour; none assumes anything about traps or memory.
///
/// One option comes first and applies to every pass: `--low-memory-unused`, which lets wasm-opt
/// fold a constant added to an address into the load or store's offset. The two differ only when
/// the addition wraps past 4 GiB, and then the folded access traps instead of landing in the
/// lowest kilobyte of memory. Rust lays a module out stack first: the stack grows down from 1 MiB,
/// so the lowest kilobyte is only reached by a stack nearly 1 MiB deep; data lies above the stack,
/// and the heap above all the memory the module starts with.
/// [`check_low_memory_unused`](crate::memory_layout::check_low_memory_unused) verifies the stack
/// and the data on every build. A valid access never wraps, so the option changes nothing a
/// correct program does.
const SIZE_PASSES: &[&str] = &[
    "--low-memory-unused",
    "--flatten",
    "--rereloop",
    "--merge-similar-functions",
    "-Oz",
    "-Oz",
    "--flatten",
    "--rereloop",
    "-Oz",
    "-Oz",
];

/// The core module.
pub const CORE: WasmModule = WasmModule {
    krate: "fencepost-wasm",
    name: "fencepost",
    dir: "",
    profile: "wasm-release",
    passes: SIZE_PASSES,
};

/// The simulator module, behind `fencepost/sim`, so the core module stays small and loads alone.
pub const SIM: WasmModule = WasmModule {
    krate: "fencepost-sim-wasm",
    name: "fencepost_sim",
    dir: "sim",
    profile: "wasm-sim",
    passes: SIZE_PASSES,
};

/// Every module of the package.
pub const MODULES: &[WasmModule] = &[CORE, SIM];

/// Builds `module` (release, optimized for size), binds it and optimizes it into `dist`; returns
/// the glue wasm-bindgen wrote (under target/wasm-bindgen, where the bundler takes it from).
pub(super) fn build_module(module: &WasmModule, wasm_opt: &Path, dist: &Path) -> Result<PathBuf> {
    step(&format!(
        "building {} (wasm32-unknown-unknown, profile {}: release optimized for size)",
        module.krate, module.profile
    ));
    Cmd::cargo(&[
        "build",
        "--profile",
        module.profile,
        "-p",
        module.krate,
        "--target",
        "wasm32-unknown-unknown",
    ])
    .env("CARGO_ENCODED_RUSTFLAGS", rustflags())
    .run()?;
    let built = target()
        .join("wasm32-unknown-unknown")
        .join(module.profile)
        .join(format!("{}.wasm", module.krate.replace('-', "_")));
    let bound = target().join("wasm-bindgen").join(module.name);
    let _ = fs::remove_dir_all(&bound);
    Cmd::new(wasm_bindgen()?)
        .args([
            "--target",
            "bundler",
            "--out-name",
            module.name,
            "--out-dir",
        ])
        .arg(&bound)
        .arg(&built)
        .run()?;
    let wasm = format!("{}_bg.wasm", module.name);
    let bound_wasm = bound.join(&wasm);
    crate::memory_layout::check_low_memory_unused(
        &fs::read(&bound_wasm).map_err(|e| format!("reading {}: {e}", bound_wasm.display()))?,
    )
    .map_err(|e| format!("{}: {e}", bound_wasm.display()))?;
    Cmd::new(wasm_opt)
        .args(module.passes)
        // Only metadata for tools goes: names, producers and the features section (whose
        // features the loader does not read; WASM_OPT_FEATURES names them for wasm-opt).
        .args([
            "--strip-debug",
            "--strip-producers",
            "--strip-target-features",
        ])
        .args(WASM_OPT_FEATURES)
        .arg(bound.join(&wasm))
        .arg("-o")
        .arg(dist.join(&wasm))
        .run()?;
    Ok(bound.join(format!("{}_bg.js", module.name)))
}

/// The Rust flags of every module build, as `CARGO_ENCODED_RUSTFLAGS`:
/// - the crates' sources named `/crates/...` wherever cargo unpacked them, so the few paths a
///   module keeps (panic locations), and so its size, do not depend on the machine;
/// - sha2's compact software SHA-256 (a rolled round loop RustCrypto offers for code size): a MAC
///   input is a few dozen bytes, so its two compressions cost little either way, while the
///   unrolled rounds would add about 7 KB to the core module.
fn rustflags() -> String {
    let src = crate::tools::cargo_home().join("registry").join("src");
    let mut flags: Vec<String> = fs::read_dir(&src)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| format!("--remap-path-prefix={}=/crates", e.path().display()))
        .collect();
    flags.sort();
    flags.extend(["--cfg".into(), "sha2_backend_soft=\"compact\"".into()]);
    flags.join("\x1f")
}

/// Writes npm/src/abi.js from the Rust definitions: the crate's own test renders the file (it
/// alone can read the `Out` record's offsets and the numbered groups) and, with
/// `FENCEPOST_WRITE_ABI` set, writes it where it otherwise only compares it.
pub fn abi() -> Result {
    step("writing npm/src/abi.js from crates/fencepost-wasm");
    Cmd::cargo(&[
        "test",
        "-p",
        "fencepost-wasm",
        "--lib",
        "--",
        "--exact",
        "js::tests::abi_js_is_generated_from_these_definitions",
    ])
    .env("FENCEPOST_WRITE_ABI", "1")
    .run()
}
