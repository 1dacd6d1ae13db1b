//! No module of the visualizer imports one that imports it back: the arrows between the files
//! of `web/src` point one way (`web/src/lib.rs` draws them).
//!
//! The graph is read from the source: one node per module (a file, and apart from it the file's
//! `mod tests`), an edge for every path it names into another module of the crate (in `use`
//! declarations, and `crate::`, `super::` or `self::` paths in code). A module's `mod` lines
//! declare its children; they import nothing.
#![cfg(not(target_arch = "wasm32"))]

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

type Module = Vec<String>;

/// The modules of the crate whose `src` is `root`, with their source.
fn modules(root: &Path) -> BTreeMap<Module, String> {
    let mut out = BTreeMap::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
                continue;
            }
            let rel = path.strip_prefix(root).unwrap().with_extension("");
            let mut m: Module = rel.iter().map(|p| p.to_string_lossy().into()).collect();
            match m.last().map(String::as_str) {
                Some("main") => continue,
                Some("mod" | "lib") => {
                    m.pop();
                }
                _ => {}
            }
            if path.extension().is_some_and(|e| e == "rs") {
                out.insert(m, fs::read_to_string(&path).unwrap());
            }
        }
    }
    out
}

/// `text` without comments and without the contents of string and char literals.
fn code_only(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'/') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            '"' => {
                while let Some(c) = chars.next() {
                    match c {
                        '\\' => {
                            chars.next();
                        }
                        '"' => break,
                        _ => {}
                    }
                }
                out.push_str("\"\"");
            }
            _ => out.push(c),
        }
    }
    out
}

/// The paths a `use` tree names: `a::{b, c::{d, e as f}}` is `a::b`, `a::c::d`, `a::c::e`.
fn use_paths(prefix: &str, tree: &str, out: &mut Vec<String>) {
    let mut depth = 0;
    let mut item = String::new();
    let mut items = Vec::new();
    for c in tree.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(std::mem::take(&mut item));
                continue;
            }
            _ => {}
        }
        item.push(c);
    }
    items.push(item);
    for item in items.iter().map(|i| i.trim()).filter(|i| !i.is_empty()) {
        match (item.find('{'), item.rfind('}')) {
            (Some(open), Some(close)) => {
                let head: String = item[..open].split_whitespace().collect();
                use_paths(&format!("{prefix}{head}"), &item[open + 1..close], out);
            }
            // `e as f` names `e`.
            _ => out.push(format!(
                "{prefix}{}",
                item.split_whitespace().next().unwrap_or("")
            )),
        }
    }
}

/// Every path `code` names: its `use` declarations, and `crate::`, `super::` and `self::`
/// paths anywhere.
fn named_paths(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, _) in code.match_indices("use ") {
        let before = code[..i].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        if let Some(end) = code[i..].find(';') {
            use_paths("", &code[i + 4..i + end], &mut out);
        }
    }
    let is_path = |c: char| c.is_alphanumeric() || c == '_' || c == ':';
    for start in ["crate::", "super::", "self::"] {
        for (i, _) in code.match_indices(start) {
            if code[..i].chars().next_back().is_some_and(is_path) {
                continue;
            }
            let end = code[i..]
                .find(|c| !is_path(c))
                .map_or(code.len(), |e| i + e);
            out.push(code[i..end].to_string());
        }
    }
    out
}

/// The module `path`, named in module `at`, is in (the longest module of `all` it starts
/// with), if it is one of the crate's.
fn resolve(all: &BTreeSet<Module>, at: &[String], path: &str) -> Option<Module> {
    let parts: Vec<&str> = path
        .split("::")
        .filter(|p| !p.is_empty() && *p != "*")
        .collect();
    let mut base: Module = at.to_vec();
    let mut rest = &parts[..];
    match rest.first().copied() {
        Some("crate") => {
            base.clear();
            rest = &rest[1..];
        }
        Some("self") => rest = &rest[1..],
        Some("super") => {
            while rest.first() == Some(&"super") {
                base.pop();
                rest = &rest[1..];
            }
        }
        // A child module, named from its parent.
        Some(child) if all.contains(&[at, &[child.to_string()]].concat()) => {}
        _ => return None,
    }
    let full: Module = base
        .into_iter()
        .chain(rest.iter().map(|s| s.to_string()))
        .collect();
    (0..=full.len())
        .rev()
        .map(|n| full[..n].to_vec())
        .find(|m| all.contains(m))
}

/// The import graph of `sources` (module -> source): a file's `mod tests` is a node of its own.
fn graph(sources: &BTreeMap<Module, String>) -> BTreeMap<Module, BTreeSet<Module>> {
    let all: BTreeSet<Module> = sources.keys().cloned().collect();
    let mut edges = BTreeMap::new();
    for (m, text) in sources {
        let code = code_only(text);
        let (main, tests) = match code.find("#[cfg(test)]\nmod tests {") {
            Some(i) => code.split_at(i),
            None => (code.as_str(), ""),
        };
        let test_module = [m.clone(), vec!["tests".into()]].concat();
        for (node, at, part) in [(m.clone(), m, main), (test_module, m, tests)] {
            let to: BTreeSet<Module> = named_paths(part)
                .iter()
                .filter_map(|p| resolve(&all, at, p))
                .filter(|t| t != m)
                .collect();
            if !part.is_empty() {
                edges.insert(node, to);
            }
        }
    }
    edges
}

/// A circle of imports, if there is one.
fn circle(edges: &BTreeMap<Module, BTreeSet<Module>>) -> Option<Vec<Module>> {
    fn visit(
        m: &Module,
        edges: &BTreeMap<Module, BTreeSet<Module>>,
        done: &mut BTreeSet<Module>,
        path: &mut Vec<Module>,
    ) -> Option<Vec<Module>> {
        if let Some(i) = path.iter().position(|p| p == m) {
            return Some(path[i..].to_vec());
        }
        if !done.insert(m.clone()) {
            return None;
        }
        path.push(m.clone());
        for to in edges.get(m).into_iter().flatten() {
            if let Some(c) = visit(to, edges, done, path) {
                return Some(c);
            }
        }
        path.pop();
        None
    }
    let mut done = BTreeSet::new();
    edges
        .keys()
        .find_map(|m| visit(m, edges, &mut done, &mut Vec::new()))
}

fn sources(files: &[(&str, &str)]) -> BTreeMap<Module, String> {
    files
        .iter()
        .map(|(m, text)| {
            let m = m.split("::").filter(|s| !s.is_empty()).map(String::from);
            (m.collect(), text.to_string())
        })
        .collect()
}

#[test]
fn no_module_of_the_visualizer_imports_one_that_imports_it_back() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let edges = graph(&modules(&src));
    assert!(edges.len() > 40, "{} modules read", edges.len());
    // What lib.rs says: the components use the address bar, which uses the state.
    let m = |s: &str| -> Module { s.split("::").map(String::from).collect() };
    assert!(edges[&m("components::app")].contains(&m("address")));
    assert!(edges[&m("address")].contains(&m("state")));
    assert_eq!(circle(&edges), None);
}

#[test]
fn the_reading_finds_a_circle_through_a_use_a_path_or_a_child() {
    let circles = [
        // Two files through `use` lines, one of them naming several things.
        &[
            ("a", "use crate::b::{X, y::{Z as W,\n    V}};"),
            ("b", "use super::a::Y;"),
        ][..],
        // A path in code.
        &[
            ("", "pub mod a;\nfn f() { crate::a::g() }"),
            ("a", "use crate::f;"),
        ][..],
        // A module whose name has `as` in it, read whole.
        &[
            ("base", "use crate::c::X;"),
            ("c", "use crate::base::Y as Z;"),
        ][..],
        // A parent re-exporting a child that uses it.
        &[("p", "pub use c::X;"), ("p::c", "use super::Y;")][..],
    ];
    for files in circles {
        assert!(circle(&graph(&sources(files))).is_some(), "{files:?}");
    }
    let fine = [
        // A comment, a string, a file's own tests and a child declared: no circle.
        (
            "a",
            "// use crate::b;\nfn f() { \"crate::b\"; }\n#[cfg(test)]\nmod tests {\n    use crate::b::X;\n}",
        ),
        ("b", "pub mod c;\nuse crate::a::Y;"),
        ("b::c", "use super::Z;"),
    ];
    assert_eq!(circle(&graph(&sources(&fine))), None);
}
