//! The npm package `fencepost`: building it (`cargo xtask dist`), its size budget
//! (`cargo xtask size`), its packaging tests (run by `cargo xtask test`) and its Node benchmark.
//!
//! Every tool is pinned and installed on first use: the wasm-bindgen CLI with cargo, wasm-opt from
//! the npm package `binaryen`, and each fixture's npm dev dependencies with `npm ci` from its
//! committed lock file.
//!
//! Layout of the package: `npm/src` holds the hand-written JavaScript (`api.js`, the whole API,
//! and one small entry per runtime that only loads the module), `npm/index.d.ts` the types, and
//! `npm/dist` (built, not committed) the module, wasm-bindgen's glue, the entries and `node.cjs`
//! (the CommonJS build, assembled here from the glue and `api.js`).
//!
//! The simulator is a second, separate module so the core stays small: `crates/fencepost-sim-wasm`
//! built as `dist/sim/fencepost_sim_bg.wasm`, with its own API (`npm/src/sim/api.js`) over its own
//! glue and one entry per runtime, all in `dist/sim/`, behind the `./sim` and `./sim/slim` exports
//! (types in `npm/sim/`).

use std::fs;
use std::net::TcpListener;
use std::path::{Path, PathBuf};

use crate::Result;
use crate::sizes::{Sizes, brotli_len, kb};
use crate::tools::{Cmd, root, step};

mod client;
mod service;

use service::{Host, with_service};

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

/// The JavaScript files of a module's source (npm/src, npm/src/sim) copied into its directory
/// of npm/dist as they are.
const SOURCES: &[&str] = &[
    "api.js",
    "node.mjs",
    "workerd.js",
    "edge-light.js",
    "deno.js",
    "browser.js",
    "slim.js",
];

/// The files of `fencepost/store` (npm/src/store), copied into npm/dist/store as they are.
const STORE_SOURCES: &[&str] = &[
    "index.js",
    "fence.js",
    "sql.js",
    "postgres.js",
    "sqlite.js",
    "durable-object.js",
    "deno-kv.js",
];

/// The helpers both modules' api.js import (npm/src/common.js).
const COMMON: &str = "common.js";

fn npm_dir() -> PathBuf {
    root().join("npm")
}

fn dist_dir() -> PathBuf {
    npm_dir().join("dist")
}

fn target() -> PathBuf {
    root().join("target")
}

fn read(path: &Path) -> Result<String> {
    fs::read_to_string(path).map_err(|e| format!("reading {}: {e}", path.display()))
}

fn write(path: &Path, contents: impl AsRef<[u8]>) -> Result {
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    }
    fs::write(path, contents).map_err(|e| format!("writing {}: {e}", path.display()))
}

fn copy(from: &Path, to: &Path) -> Result {
    if let Some(dir) = to.parent() {
        fs::create_dir_all(dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    }
    fs::copy(from, to)
        .map(|_| ())
        .map_err(|e| format!("copying {} to {}: {e}", from.display(), to.display()))
}

// ---------------------------------------------------------------------------------------------
// Tools.

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

/// A cheap, stable fingerprint of some bytes (FNV-1a), to tell when a lock file changed.
fn fingerprint(bytes: &[u8]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// Runs `npm ci` in `dir` unless its node_modules was installed from the same lock file already.
pub fn npm_ci(dir: &Path) -> Result {
    let lock = read(&dir.join("package-lock.json"))?;
    let stamp = dir.join("node_modules").join(".fencepost-lock");
    let want = fingerprint(lock.as_bytes());
    if fs::read_to_string(&stamp).ok().as_deref() == Some(want.as_str()) {
        return Ok(());
    }
    step(&format!("npm ci in {}", dir.display()));
    Cmd::new("npm")
        .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
        .cwd(dir)
        .run()?;
    write(&stamp, want)
}

/// wasm-opt from the npm package `binaryen`, pinned in crates/xtask/npm-tools.
pub(crate) fn wasm_opt() -> Result<PathBuf> {
    let src = root().join("crates/xtask/npm-tools");
    let dir = target().join("tools/npm");
    for f in ["package.json", "package-lock.json"] {
        copy(&src.join(f), &dir.join(f))?;
    }
    npm_ci(&dir)?;
    Ok(dir.join("node_modules/binaryen/bin/wasm-opt"))
}

/// Debian's Chromium, for the browser test (installed with apt-get when missing; needs root).
pub(crate) fn ensure_chromium() -> Result {
    if Path::new("/usr/bin/chromium").exists() {
        return Ok(());
    }
    step("installing Chromium (apt-get)");
    Cmd::new("apt-get").arg("update").run()?;
    Cmd::new("apt-get")
        .args(["install", "-y", "chromium", "chromium-driver"])
        .env("DEBIAN_FRONTEND", "noninteractive")
        .run()
}

// ---------------------------------------------------------------------------------------------
// cargo xtask dist

/// One WebAssembly module of the package: a crate built for wasm32-unknown-unknown, bound by
/// wasm-bindgen into `<name>_bg.wasm` and its glue `<name>_bg.js`, with its API and entries
/// (npm/src/`dir`) and its declarations, all in npm/dist/`dir`.
pub struct WasmModule {
    pub krate: &'static str,
    pub name: &'static str,
    /// Its directory in npm/src and npm/dist ("" for the package's root).
    pub dir: &'static str,
    /// Its declarations (relative to npm/), copied as `index.d.cts` for CommonJS consumers.
    pub types: &'static str,
    /// The cargo profile it is built with.
    pub profile: &'static str,
    /// The wasm-opt passes it is optimized with (before stripping).
    pub passes: &'static [&'static str],
    /// Files of its npm/src directory that its api.js imports, besides the glue and common.js,
    /// in the order the CommonJS build puts them before api.js.
    pub locals: &'static [&'static str],
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
    types: "index.d.ts",
    profile: "wasm-release",
    passes: SIZE_PASSES,
    // abi.js is generated from crates/fencepost-wasm (`cargo xtask abi`); the others hold one
    // family of the API each, in an order where each comes after what it imports.
    locals: &[
        "instance.js",
        "abi.js",
        "checks.js",
        "errors.js",
        "objects.js",
        "locks.js",
        "signing.js",
        "guards.js",
        "resource.js",
        "keeper.js",
        "tokens.js",
    ],
};

/// The simulator module, behind `fencepost/sim`, so the core module stays small and loads alone.
pub const SIM: WasmModule = WasmModule {
    krate: "fencepost-sim-wasm",
    name: "fencepost_sim",
    dir: "sim",
    types: "sim/index.d.ts",
    profile: "wasm-sim",
    passes: SIZE_PASSES,
    locals: &[],
};

/// Every module of the package.
pub const MODULES: &[WasmModule] = &[CORE, SIM];

/// Builds `module` (release, optimized for size), binds it and optimizes it into `dist`; returns
/// the glue wasm-bindgen wrote.
fn build_module(module: &WasmModule, wasm_opt: &Path, dist: &Path) -> Result<String> {
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
    let glue = read(&bound.join(format!("{}_bg.js", module.name)))?;
    write(&dist.join(format!("{}_bg.js", module.name)), &glue)?;
    Ok(glue)
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

/// Builds the modules and assembles the package in npm/dist.
pub fn dist() -> Result {
    crate::tools::ensure_targets()?;
    ensure_wasm_bindgen()?;
    let wasm_opt = wasm_opt()?;
    let _ = fs::remove_dir_all(dist_dir());
    for module in MODULES {
        let dist = dist_dir().join(module.dir);
        fs::create_dir_all(&dist).map_err(|e| format!("creating {}: {e}", dist.display()))?;
        let glue = build_module(module, &wasm_opt, &dist)?;
        step(&format!("assembling npm/dist/{}", module.dir));
        let src = npm_dir().join("src").join(module.dir);
        for f in SOURCES {
            copy(&src.join(f), &dist.join(f))?;
        }
        // Both modules share the loader and argument helpers: each gets its own copy beside it.
        let common = read(&npm_dir().join("src").join(COMMON))?;
        write(&dist.join(COMMON), &common)?;
        // CommonJS consumers get the same declarations under a .d.cts name.
        copy(&npm_dir().join(module.types), &dist.join("index.d.cts"))?;
        let api = read(&src.join("api.js"))?;
        let locals = module
            .locals
            .iter()
            .map(|f| Ok((*f, read(&src.join(f))?)))
            .collect::<Result<Vec<_>>>()?;
        let locals: Vec<(&str, &str)> = locals.iter().map(|(f, t)| (*f, t.as_str())).collect();
        if !locals.is_empty() {
            // One api.js, as hand-written configs that list every module (workerd's) expect.
            write(&dist.join("api.js"), esm(module.name, &locals, &api)?)?;
        }
        let template = read(&src.join("node.cjs.in"))?;
        write(
            &dist.join("node.cjs"),
            commonjs(&template, module.name, &glue, &common, &locals, &api)?,
        )?;
    }
    for f in STORE_SOURCES {
        copy(
            &npm_dir().join("src/store").join(f),
            &dist_dir().join("store").join(f),
        )?;
    }
    // fencepost/service: plain ES modules over the package's own entries, copied as they are.
    copy_tree(&npm_dir().join("src/service"), &dist_dir().join("service"))?;
    step("assembling npm/dist/client");
    client::assemble(&dist_dir())?;
    println!("npm/dist is ready");
    Ok(())
}

/// Names an ES module exports through `export function|class|const|let NAME` (or re-exports
/// from one of `locals` with `export { A, B } from "./file.js";`), with those `export` keywords
/// removed, and the module with its imports removed; any other import or export form, or an import from another file than the module's glue (`./<glue>`), `./common.js` or
/// one of `locals` (files assembled into the same scope), is an error: the CommonJS build would
/// silently miss it. An import may span lines (`import {` ... `} from "./abi.js";`).
fn strip_exports(source: &str, file: &str, glue: &str) -> Result<(String, Vec<String>)> {
    strip_exports_with(source, file, glue, &[])
}

fn strip_exports_with(
    source: &str,
    file: &str,
    glue: &str,
    locals: &[&str],
) -> Result<(String, Vec<String>)> {
    let allowed: Vec<String> = [glue, COMMON]
        .iter()
        .chain(locals)
        .map(|f| format!("from \"./{f}\";"))
        .collect();
    let mut out = String::with_capacity(source.len());
    let mut names = Vec::new();
    let mut lines = source.lines();
    while let Some(line) = lines.next() {
        if let Some(list) = line.strip_prefix("export { ") {
            // A re-export of names a local file defines: they are in the same scope already.
            let (list, from) = list
                .split_once(" } from ")
                .ok_or_else(|| format!("{file}: cannot turn `{line}` into CommonJS"))?;
            let local = locals.iter().any(|f| from == format!("\"./{f}\";"));
            if !local {
                return Err(format!("{file}: cannot turn `{line}` into CommonJS"));
            }
            names.extend(list.split(", ").map(str::to_string));
            continue;
        }
        if let Some(rest) = line.strip_prefix("export ") {
            let decl = rest
                .strip_prefix("async ")
                .unwrap_or(rest)
                .split_once(' ')
                .filter(|(kw, _)| matches!(*kw, "function" | "class" | "const" | "let"))
                .map(|(_, tail)| tail);
            let name: String = decl
                .ok_or_else(|| format!("{file}: cannot turn `{line}` into CommonJS"))?
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '$')
                .collect();
            if name.is_empty() {
                return Err(format!("{file}: cannot find the name exported by `{line}`"));
            }
            names.push(name);
            out.push_str(rest);
        } else if line.starts_with("import ") {
            // The whole statement: up to the line that names where it imports from.
            let mut last = line;
            while !last.contains(" from ") && !last.starts_with("} from ") {
                last = lines
                    .next()
                    .ok_or_else(|| format!("{file}: `{line}` does not end"))?;
            }
            if !allowed.iter().any(|a| last.ends_with(a.as_str())) {
                return Err(format!("{file}: cannot turn `{last}` into CommonJS"));
            }
            continue;
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    Ok((out, names))
}

/// node.cjs: the glue inside a function that returns its exports as `raw`, then the shared
/// helpers and the module's `locals` (each `(file, text)`, in order, none of their names
/// exported), then api.js, then the synchronous load and `module.exports` (an object literal, so
/// Node's ES module loader can see the names when the file is imported).
fn commonjs(
    template: &str,
    name: &str,
    glue: &str,
    common: &str,
    locals: &[(&str, &str)],
    api: &str,
) -> Result<String> {
    let glue_file = format!("{name}_bg.js");
    let (glue, glue_names) = strip_exports(glue, &glue_file, &glue_file)?;
    let local_files: Vec<&str> = locals.iter().map(|(f, _)| *f).collect();
    // The shared helpers and the locals go first, in the same scope as api.js; not exported.
    let mut body = strip_exports(common, COMMON, &glue_file)?.0;
    for (file, text) in locals {
        body.push('\n');
        body.push_str(&strip_exports_with(text, file, &glue_file, &local_files)?.0);
    }
    let (api, api_names) = strip_exports_with(api, "api.js", &glue_file, &local_files)?;
    let api = format!("{body}\n{api}");
    let glue = format!("{glue}\nreturn {{ {} }};", glue_names.join(", "));
    let exports = format!("module.exports = {{ {} }};", api_names.join(", "));
    fill(
        template,
        "node.cjs.in",
        &[
            ("/* @@GLUE@@ */", &glue),
            ("/* @@API@@ */", &api),
            ("/* @@EXPORTS@@ */", &exports),
        ],
    )
}

/// dist's api.js for a module whose api.js is spread over `locals` (each `(file, text)`, in an
/// order where each comes after what it imports): one ES module with one import of the glue and
/// one of common.js, then every local and api.js in that order, `export` kept only on what
/// api.js exports (itself or by re-exporting a local's name).
fn esm(name: &str, locals: &[(&str, &str)], api: &str) -> Result<String> {
    let glue_file = format!("{name}_bg.js");
    let local_files: Vec<&str> = locals.iter().map(|(f, _)| *f).collect();
    let (api_text, public) = strip_exports_with(api, "api.js", &glue_file, &local_files)?;
    let mut common: Vec<String> = Vec::new();
    let mut body = String::new();
    for (file, text) in locals.iter().chain([&("api.js", api)]) {
        for n in imported_from(text, COMMON) {
            if !common.contains(&n) {
                common.push(n);
            }
        }
        let text = if *file == "api.js" {
            api_text.clone()
        } else {
            strip_exports_with(text, file, &glue_file, &local_files)?.0
        };
        body.push('\n');
        body.push_str(&export_again(&text, &public));
    }
    common.sort();
    Ok(format!(
        "// Assembled by `cargo xtask dist` from npm/src/api.js and the files it imports.\n\
         import * as raw from \"./{glue_file}\";\n\
         import {{ {} }} from \"./{COMMON}\";\n{body}",
        common.join(", ")
    ))
}

/// The names `source` imports from `./file` (`import { a, b } from "./file";`, on one line or
/// several).
fn imported_from(source: &str, file: &str) -> Vec<String> {
    let from = format!("}} from \"./{file}\";");
    let mut names = Vec::new();
    let mut list: Option<String> = None;
    for line in source.lines() {
        if let Some(rest) = line.strip_prefix("import {") {
            if let Some(one) = rest.strip_suffix(&from) {
                names.extend(one.split(',').map(|n| n.trim().to_string()));
            } else if !rest.contains(" from ") {
                list = Some(rest.to_string());
            }
        } else if let Some(l) = list.as_mut() {
            if line.starts_with("} from ") {
                if line == from {
                    names.extend(l.split(',').map(|n| n.trim().to_string()));
                }
                list = None;
            } else {
                l.push_str(line);
                l.push(',');
            }
        }
    }
    names.retain(|n| !n.is_empty());
    names
}

/// `text` with `export ` put back before the declarations of `public` names.
fn export_again(text: &str, public: &[String]) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let decl = line.strip_prefix("async ").unwrap_or(line);
        let name = decl
            .split_once(' ')
            .filter(|(kw, _)| matches!(*kw, "function" | "class" | "const" | "let"))
            .map(|(_, tail)| {
                tail.chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '$')
                    .collect::<String>()
            });
        if name.is_some_and(|n| public.contains(&n)) {
            out.push_str("export ");
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// `template` (the file `name`) with each marker replaced by its text; every marker must be there.
pub(crate) fn fill(template: &str, name: &str, parts: &[(&str, &str)]) -> Result<String> {
    let mut out = template.to_string();
    for (marker, with) in parts {
        if !out.contains(marker) {
            return Err(format!("{name} has no {marker}"));
        }
        out = out.replacen(marker, with, 1);
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// cargo xtask size

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

// ---------------------------------------------------------------------------------------------
// Packaging tests.

/// `npm pack` of npm/ into target/npm-pack; returns the tarball.
pub(crate) fn pack() -> Result<PathBuf> {
    let out = target().join("npm-pack");
    let _ = fs::remove_dir_all(&out);
    fs::create_dir_all(&out).map_err(|e| format!("creating {}: {e}", out.display()))?;
    let name = Cmd::new("npm")
        .args(["pack", "--silent", "--pack-destination"])
        .arg(&out)
        .cwd(npm_dir())
        .output()?;
    let tarball = out.join(name.trim());
    if !tarball.is_file() {
        return Err(format!("npm pack made no {}", tarball.display()));
    }
    Ok(tarball)
}

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

/// The files of tests/lease-service every fixture gets a copy of: the lease round each runtime runs
/// against the real service, and its checks; the HTTP calls of the service's own tests; a free port.
const FIXTURE_SHARED: &[&str] = &["lease-round.mjs", "calls.mjs", "ports.mjs"];

/// A fresh copy of the fixture project tests/<name> under target/npm-fixtures (its npm dev
/// dependencies kept between runs while its lock file is unchanged), with the package installed
/// from `tarball` and the shared files of [`FIXTURE_SHARED`] beside its own.
pub(crate) fn fixture(name: &str, tarball: &Path) -> Result<PathBuf> {
    let src = root().join("tests").join(name);
    let dir = target().join("npm-fixtures").join(name);
    if dir.exists() {
        for entry in fs::read_dir(&dir).map_err(|e| format!("reading {}: {e}", dir.display()))? {
            let path = entry.map_err(|e| e.to_string())?.path();
            if path.file_name().is_some_and(|n| n == "node_modules") {
                continue;
            }
            let removed = if path.is_dir() {
                fs::remove_dir_all(&path)
            } else {
                fs::remove_file(&path)
            };
            removed.map_err(|e| format!("removing {}: {e}", path.display()))?;
        }
    }
    copy_tree(&src, &dir)?;
    for f in FIXTURE_SHARED {
        copy(&root().join("tests/lease-service").join(f), &dir.join(f))?;
    }
    npm_ci(&dir)?;
    let _ = fs::remove_dir_all(dir.join("node_modules/fencepost"));
    Cmd::new("npm")
        .args([
            "install",
            "--no-save",
            "--no-audit",
            "--no-fund",
            "--loglevel=error",
        ])
        .arg(tarball)
        .cwd(&dir)
        .run()?;
    Ok(dir)
}

/// A TCP port that was free on 127.0.0.1 a moment ago.
fn free_port() -> Result<u16> {
    let l = TcpListener::bind("127.0.0.1:0").map_err(|e| format!("finding a free port: {e}"))?;
    l.local_addr()
        .map(|a| a.port())
        .map_err(|e| format!("finding a free port: {e}"))
}

/// Everything `cargo xtask test` checks about the npm package: the build, the size budget, and
/// the story in Node ESM and CJS, TypeScript, workerd, Deno and Chromium, each from the packed
/// tarball in a fresh fixture project; in Node also misuse, the API in detail, the transcript of
/// recorded behaviour, a big-endian host, the simulator (against the CLI too) and the README's
/// examples. In each of those runtimes `fencepost/client` from the tarball also holds a lease of a
/// real lease service (acquire, background renewal, a fenced write, release): Node against the
/// workerd host, Deno and Chromium against the Deno host, a Worker through a service binding.
pub fn test() -> Result {
    let started = std::time::Instant::now();
    step("clippy on the bindings as built for wasm32 (allocator, single-threaded state)");
    crate::tools::ensure_targets()?;
    // One at a time: together, cargo would unify wasm-bindgen's features, and the simulator's
    // `std` would clash with the core bindings' own panic handler.
    for module in MODULES {
        Cmd::cargo(&[
            "clippy",
            "-p",
            module.krate,
            "--target",
            "wasm32-unknown-unknown",
            "--",
            "-D",
            "warnings",
        ])
        .run()?;
    }
    dist()?;
    step("wasm sizes");
    size()?;
    let tarball = pack()?;

    // The simulator's traces are compared with the CLI's, byte for byte.
    step("the fencepost CLI, for the trace comparison");
    Cmd::cargo(&["build", "-p", "fencepost-cli"]).run()?;
    let cli = target().join("debug").join("fencepost");

    step(
        "npm package: Node (ESM, CommonJS, misuse, the simulator, the README, a lease from the workerd service) and TypeScript",
    );
    let node = fixture("node", &tarball)?;
    with_service(Host::Workerd, None, "node")?
        .args([
            "--test",
            "story.test.mjs",
            "story.test.cjs",
            "misuse.test.mjs",
            "api.test.mjs",
            "transcript.test.mjs",
            "byte-order.test.mjs",
            "sim.test.mjs",
            "sim.test.cjs",
            "sim-misuse.test.mjs",
            "sim-memory.test.mjs",
            "sim-boundary.test.mjs",
            "sim-exhausted.test.mjs",
            "memory.test.mjs",
            "sim-cli.test.mjs",
            "readme.test.mjs",
            "lease-client.test.mjs",
            "lease-client.test.cjs",
        ])
        .env("FENCEPOST_CLI", &cli)
        .cwd(&node)
        .run()?;
    // NodeNext (TypeScript models require() of ES modules there) and Node16 (it does not: CommonJS
    // code must find the .d.cts declarations through the `require` condition).
    for config in ["tsconfig.json", "tsconfig.node16.json"] {
        Cmd::new("node_modules/.bin/tsc")
            .args(["--noEmit", "--strict", "-p", config])
            .cwd(&node)
            .run()?;
    }

    step("npm package: workerd (and a Worker holding a lease through a service binding)");
    let workerd = fixture("workerd", &tarball)?;
    Cmd::new("node")
        .arg("run.mjs")
        .arg(free_port()?.to_string())
        .arg(free_port()?.to_string())
        .env(
            "FENCEPOST_SERVICE_CAPNP",
            root().join("examples/cloudflare/workerd.capnp"),
        )
        .cwd(&workerd)
        .run()?;

    step("npm package: Deno (and a lease from the Deno service)");
    let deno = fixture("deno", &tarball)?;
    with_service(Host::Deno, None, "node_modules/.bin/deno")?
        .args([
            "test",
            "--allow-read",
            "--allow-net=127.0.0.1",
            "--allow-env=FENCEPOST_SERVICE",
            "--no-prompt",
            "story.test.ts",
            "sim.test.ts",
            "lease-client.test.ts",
        ])
        .cwd(&deno)
        .run()?;

    step("npm package: headless Chromium (and a lease from the Deno service, on another origin)");
    ensure_chromium()?;
    let browser = fixture("browser", &tarball)?;
    let port = free_port()?;
    with_service(
        Host::Deno,
        Some(&format!("http://127.0.0.1:{port}")),
        "node",
    )?
    .arg("run.mjs")
    .arg(port.to_string())
    .env("FENCEPOST_SCREENSHOTS", target().join("npm-browser"))
    .cwd(&browser)
    .run()?;
    println!(
        "npm package checks took {:.1} s",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// The Node part of `cargo xtask bench`: admit through the module against a plain-JS guard in one
/// process, admitMany per token, acquire + release, and simulator runs of the paused-worker
/// story per second. Prints figures; asserts no times.
/// `native_runs`: the simulator's native paused-worker runs/s measured in the same run, which the
/// benchmark prints its runs from JavaScript against (absent when run alone).
pub fn bench(native_runs: Option<f64>) -> Result {
    dist()?;
    let tarball = pack()?;
    let node = fixture("node", &tarball)?;
    step("npm package: Node benchmark");
    let mut cmd = Cmd::new("node").arg("bench.mjs").cwd(&node);
    if let Some(runs) = native_runs {
        cmd = cmd.env("SIM_NATIVE_RUNS", format!("{runs}"));
    }
    cmd.run()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commonjs_wraps_glue_common_and_api() {
        let glue = "let wasm;\nexport function __wbg_set_wasm(v) {\n  wasm = v;\n}\nexport class Guard {}\n";
        let common = "export function describe(v) {}\n";
        let api = "import * as raw from \"./fencepost_bg.js\";\nimport { describe } from \"./common.js\";\nconst X = 1;\nexport const AdmitCode = {};\nexport async function init() {}\n";
        let t = "A\n/* @@GLUE@@ */\nB\n/* @@API@@ */\nC\n/* @@EXPORTS@@ */\n";
        let out = commonjs(t, "fencepost", glue, common, &[], api).unwrap();
        assert_eq!(
            out,
            "A\nlet wasm;\nfunction __wbg_set_wasm(v) {\n  wasm = v;\n}\nclass Guard {}\n\nreturn { __wbg_set_wasm, Guard };\nB\nfunction describe(v) {}\n\nconst X = 1;\nconst AdmitCode = {};\nasync function init() {}\n\nC\nmodule.exports = { AdmitCode, init };\n"
        );
    }

    #[test]
    fn commonjs_puts_locals_before_api_unexported() {
        let abi = "// numbers\nexport const OUT_TOKEN = 0;\n";
        let api = "import * as raw from \"./fencepost_bg.js\";\nimport {\n  OUT_TOKEN,\n} from \"./abi.js\";\nexport function f() {\n  return OUT_TOKEN;\n}\n";
        let t = "/* @@GLUE@@ */\n/* @@API@@ */\n/* @@EXPORTS@@ */\n";
        let out = commonjs(t, "fencepost", "", "", &[("abi.js", abi)], api).unwrap();
        assert_eq!(
            out,
            "\nreturn {  };\n\n// numbers\nconst OUT_TOKEN = 0;\n\nfunction f() {\n  return OUT_TOKEN;\n}\n\nmodule.exports = { f };\n"
        );
        let api = "export { OUT_TOKEN } from \"./abi.js\";\nexport const B = 1;\n";
        let out = commonjs(t, "fencepost", "", "", &[("abi.js", abi)], api).unwrap();
        assert!(
            out.ends_with("const B = 1;\n\nmodule.exports = { OUT_TOKEN, B };\n"),
            "{out}"
        );
    }

    #[test]
    fn esm_makes_one_module_exporting_only_what_api_exports() {
        let abi = "export const N = 1;\n";
        let a = "import * as raw from \"./fencepost_bg.js\";\nimport { N } from \"./abi.js\";\nimport {\n  describe,\n  ms,\n} from \"./common.js\";\nexport function helper() {\n  return N;\n}\nexport class A {}\n";
        let api = "export { A } from \"./a.js\";\nimport { A } from \"./a.js\";\nimport { freed } from \"./common.js\";\nexport async function init() {}\nA.x = 1;\n";
        let out = esm("fencepost", &[("abi.js", abi), ("a.js", a)], api).unwrap();
        assert_eq!(
            out,
            "// Assembled by `cargo xtask dist` from npm/src/api.js and the files it imports.\nimport * as raw from \"./fencepost_bg.js\";\nimport { describe, freed, ms } from \"./common.js\";\n\nconst N = 1;\n\nfunction helper() {\n  return N;\n}\nexport class A {}\n\nexport async function init() {}\nA.x = 1;\n"
        );
    }

    #[test]
    fn commonjs_refuses_what_it_cannot_convert() {
        let t = "/* @@GLUE@@ */ /* @@API@@ */ /* @@EXPORTS@@ */";
        assert!(commonjs(t, "fencepost", "export { a as b };\n", "", &[], "").is_err());
        assert!(commonjs(t, "fencepost", "", "", &[], "import x from \"node:fs\";\n").is_err());
        assert!(
            commonjs(
                t,
                "fencepost",
                "",
                "import x from \"./other.js\";\n",
                &[],
                ""
            )
            .is_err()
        );
        assert!(commonjs(t, "fencepost", "", "", &[], "export default 1;\n").is_err());
        assert!(commonjs("no markers", "fencepost", "", "", &[], "").is_err());
        let sim = "import * as raw from \"./fencepost_sim_bg.js\";\nexport function run() {}\n";
        assert!(commonjs(t, "fencepost", "", "", &[], sim).is_err());
        assert!(commonjs(t, "fencepost_sim", "", "", &[], sim).is_ok());
        // An import of a local file that is not assembled alongside, or one that never ends.
        let api = "import {\n  A,\n} from \"./abi.js\";\n";
        assert!(commonjs(t, "fencepost", "", "", &[], api).is_err());
        assert!(commonjs(t, "fencepost", "", "", &[], "import {\n  A,\n").is_err());
        // Re-exports only of what a local file defines.
        let api = "export { A } from \"./other.js\";\n";
        assert!(commonjs(t, "fencepost", "", "", &[("abi.js", "")], api).is_err());
    }

    #[test]
    fn fingerprint_tells_locks_apart() {
        assert_eq!(fingerprint(b""), "cbf29ce484222325");
        assert_ne!(fingerprint(b"a"), fingerprint(b"b"));
    }
}
