//! `cargo xtask shape`: the limits that keep the code readable by a newcomer, checked on every
//! source file outside tests and generated code: no file over 600 lines before its unit tests, no
//! function over 100 lines, no import circle between modules.

mod code;
mod imports;
mod length;

use std::path::{Path, PathBuf};

use crate::Result;
use crate::tools::{Cmd, root, step};
use code::Lang;
use imports::Graph;

const MAX_FILE_LINES: usize = 600;
const MAX_FUNCTION_LINES: usize = 100;

/// Prints every file, function and circle over the limits; fails when there is one.
pub fn check() -> Result {
    step("source shape: files <= 600 lines, functions <= 100, no import circles");
    let findings = findings(&root(), &source_files()?)?;
    for f in &findings {
        println!("{f}");
    }
    if findings.is_empty() {
        println!("every source file, function and module within the limits");
        Ok(())
    } else {
        Err(format!("{} source shape finding(s) above", findings.len()))
    }
}

/// Tracked sources that are neither tests nor generated.
fn source_files() -> Result<Vec<String>> {
    let listed = Cmd::new("git").args(["ls-files"]).output()?;
    Ok(listed
        .lines()
        .filter(|f| language(f).is_some() && !is_test_or_generated(f))
        .map(str::to_owned)
        .collect())
}

fn language(file: &str) -> Option<Lang> {
    if file.ends_with(".rs") {
        Some(Lang::Rust)
    } else if [".js", ".mjs", ".cjs", ".ts", ".mts"]
        .iter()
        .any(|e| file.ends_with(e))
        && !file.ends_with(".d.ts")
    {
        Some(Lang::Js)
    } else {
        None
    }
}

fn is_test_or_generated(file: &str) -> bool {
    let dirs = ["tests/", "e2e/", "benches/", "fixtures/"];
    let in_test_dir = dirs
        .iter()
        .any(|d| file.starts_with(d) || file.contains(&format!("/{d}")));
    let test_file = file.ends_with("/tests.rs")
        || [".test.js", ".test.mjs", ".test.ts", ".test.mts"]
            .iter()
            .any(|e| file.ends_with(e));
    in_test_dir || test_file || file == "npm/src/abi.js"
}

/// What is over the limits among `files` (paths relative to `top`), one line each.
fn findings(top: &Path, files: &[String]) -> Result<Vec<String>> {
    let mut found = Vec::new();
    let mut graph = Graph::new();
    for file in files {
        let Some(lang) = language(file) else { continue };
        let source =
            std::fs::read_to_string(top.join(file)).map_err(|e| format!("reading {file}: {e}"))?;
        let code = code::blank(&source, lang);
        let own = length::lines_before_tests(&code);
        if own > MAX_FILE_LINES {
            found.push(format!(
                "file over {MAX_FILE_LINES} lines: {file} ({own} before its tests)"
            ));
        }
        for f in length::functions(&code[..own], lang) {
            if f.lines > MAX_FUNCTION_LINES {
                found.push(format!(
                    "function over {MAX_FUNCTION_LINES} lines: {file}:{} {} ({} lines)",
                    f.line, f.name, f.lines
                ));
            }
        }
        match lang {
            Lang::Js => imports::add_js(&mut graph, file, &source, &code),
            Lang::Rust => add_rust_file(&mut graph, top, file, &code[..own]),
        }
    }
    for circle in imports::circles(&graph) {
        found.push(format!("import circle: {}", circle.join(" <-> ")));
    }
    Ok(found)
}

fn add_rust_file(graph: &mut Graph, top: &Path, file: &str, code: &[String]) {
    let path = top.join(file);
    let Some(src) = crate_src(&path) else { return };
    let Some(module) = imports::rust_module(&src, &path) else {
        return;
    };
    let krate = src
        .strip_prefix(top)
        .unwrap_or(&src)
        .to_string_lossy()
        .into_owned();
    let exists = |m: &[String]| {
        let base = src.join(m.join("/"));
        base.with_extension("rs").is_file() || base.join("mod.rs").is_file()
    };
    imports::add_rust(graph, &krate, &module, code, &exists);
}

/// The `src` directory of the crate a Rust file belongs to.
fn crate_src(file: &Path) -> Option<PathBuf> {
    file.ancestors()
        .find(|d| {
            d.file_name().is_some_and(|n| n == "src")
                && (d.join("lib.rs").is_file() || d.join("main.rs").is_file())
        })
        .map(Path::to_path_buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tests_and_generated_files_are_left_out() {
        for f in [
            "tests/chaos/run.mjs",
            "crates/fencepost/tests/props.rs",
            "crates/fencepost-wasm/src/tests.rs",
            "web/e2e/app.test.mjs",
            "npm/src/abi.js",
            "crates/fencepost/benches/core.rs",
        ] {
            assert!(is_test_or_generated(f), "{f}");
        }
        for f in [
            "crates/xtask/src/npm.rs",
            "npm/src/client.js",
            "examples/deno/main.ts",
        ] {
            assert!(!is_test_or_generated(f), "{f}");
        }
        assert_eq!(language("npm/service/index.d.ts"), None);
    }

    #[test]
    fn a_long_file_and_function_and_a_circle_are_each_reported() {
        let dir = std::env::temp_dir().join(format!("fencepost-shape-{}", std::process::id()));
        let src = dir.join("k/src");
        std::fs::create_dir_all(&src).unwrap();
        let body = "    let x = 1;\n".repeat(101);
        std::fs::write(src.join("lib.rs"), "mod a;\nmod b;\n").unwrap();
        std::fs::write(
            src.join("a.rs"),
            format!("use crate::b::f;\nfn long() {{\n{body}}}\n"),
        )
        .unwrap();
        std::fs::write(
            src.join("b.rs"),
            format!("use crate::a::g;\n{}", "\n".repeat(601)),
        )
        .unwrap();
        let files = ["k/src/lib.rs", "k/src/a.rs", "k/src/b.rs"].map(String::from);
        let found = findings(&dir, &files).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(
            found,
            [
                "function over 100 lines: k/src/a.rs:2 long (103 lines)",
                "file over 600 lines: k/src/b.rs (602 before its tests)",
                "import circle: k/src::a <-> k/src::b",
            ]
        );
    }
}
