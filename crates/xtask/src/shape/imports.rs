//! Which module imports which, and the circles in that graph.
//!
//! Rust: within one crate, `crate::a::b` and `super::x` paths name a module (the deepest one that
//! exists as a file), and a parent that declares `mod child;` depends on its child; a module
//! reaching up to one of its own ancestors (`super::Helper`, `crate::Result`) is not an edge, or
//! every child would close a circle with its parent. JavaScript: relative `import`/`export ...
//! from` specifiers and dynamic `import()`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// A module's name: its crate's `src` directory and its path in the crate (`npm::service`), or a
/// JavaScript file's path.
pub type Module = String;

/// Edges from each module to the modules it uses.
pub type Graph = BTreeMap<Module, BTreeSet<Module>>;

/// The module a Rust file under `<root>/src` is, as its path segments (`lib.rs`, `main.rs` and
/// `mod.rs` name their directory's module).
pub fn rust_module(src: &Path, file: &Path) -> Option<Vec<String>> {
    let rel = file.strip_prefix(src).ok()?.with_extension("");
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("lib" | "main" | "mod")
    ) {
        parts.pop();
    }
    Some(parts)
}

/// Adds the edges of one Rust module, given its blanked code (before its tests) and a test for
/// whether a module path exists in its crate.
pub fn add_rust(
    graph: &mut Graph,
    krate: &str,
    module: &[String],
    code: &[String],
    exists: &dyn Fn(&[String]) -> bool,
) {
    let name = join(krate, module);
    let targets = graph.entry(name.clone()).or_default();
    let text = code.join("\n");
    for path in paths_after(&text, "crate::") {
        targets.extend(resolve(krate, &[], &path, exists));
    }
    for path in paths_after(&text, "super::") {
        let mut base = module[..module.len().saturating_sub(1)].to_vec();
        let mut rest = path.as_slice();
        while rest.first().map(String::as_str) == Some("super") {
            base.pop();
            rest = &rest[1..];
        }
        targets.extend(resolve(krate, &base, rest, exists));
    }
    for child in declared_children(&text) {
        let mut path = module.to_vec();
        path.push(child);
        targets.insert(join(krate, &path));
    }
    targets.retain(|t| *t != name && !is_ancestor(t, &name));
}

/// Adds the edges of one JavaScript file (`file` relative to the repository), from its source
/// and the same lines blanked by `code::blank` (so a comment mentioning an import is no edge).
pub fn add_js(graph: &mut Graph, file: &str, source: &str, code: &[String]) {
    let dir = Path::new(file).parent().unwrap_or(Path::new(""));
    let targets = graph.entry(file.to_owned()).or_default();
    for (raw, blanked) in source.split('\n').zip(code) {
        for spec in relative_specifiers(raw, blanked) {
            targets.insert(normalize(&dir.join(spec)));
        }
    }
}

/// Every set of two or more modules that reach each other, each sorted, in a stable order.
pub fn circles(graph: &Graph) -> Vec<Vec<Module>> {
    let mut tarjan = Tarjan {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        next: 0,
        found: Vec::new(),
    };
    for v in graph.keys() {
        if !tarjan.index.contains_key(v.as_str()) {
            tarjan.visit(v);
        }
    }
    let mut found = tarjan.found;
    for c in &mut found {
        c.sort();
    }
    found.sort();
    found
}

struct Tarjan<'g> {
    graph: &'g Graph,
    index: BTreeMap<&'g str, usize>,
    low: BTreeMap<&'g str, usize>,
    stack: Vec<&'g str>,
    next: usize,
    found: Vec<Vec<Module>>,
}

impl<'g> Tarjan<'g> {
    fn visit(&mut self, v: &'g str) {
        self.index.insert(v, self.next);
        self.low.insert(v, self.next);
        self.next += 1;
        self.stack.push(v);
        for w in self.graph.get(v).into_iter().flatten() {
            let w = w.as_str();
            if !self.index.contains_key(w) {
                self.visit(w);
                let low = self.low[v].min(self.low[w]);
                self.low.insert(v, low);
            } else if self.stack.contains(&w) {
                let low = self.low[v].min(self.index[w]);
                self.low.insert(v, low);
            }
        }
        if self.low[v] == self.index[v] {
            let at = self.stack.iter().rposition(|x| *x == v).unwrap_or(0);
            let members: Vec<Module> = self.stack.drain(at..).map(str::to_owned).collect();
            if members.len() > 1 {
                self.found.push(members);
            }
        }
    }
}

fn join(krate: &str, module: &[String]) -> Module {
    if module.is_empty() {
        krate.to_owned()
    } else {
        format!("{krate}::{}", module.join("::"))
    }
}

fn is_ancestor(candidate: &str, of: &str) -> bool {
    of.strip_prefix(candidate)
        .is_some_and(|rest| rest.starts_with("::"))
}

/// The deepest existing module named by `base` + a prefix of `path`.
fn resolve(
    krate: &str,
    base: &[String],
    path: &[String],
    exists: &dyn Fn(&[String]) -> bool,
) -> Option<Module> {
    (1..=path.len()).rev().find_map(|n| {
        let mut full = base.to_vec();
        full.extend_from_slice(&path[..n]);
        exists(&full).then(|| join(krate, &full))
    })
}

/// The `::`-separated segments after each `prefix` (`crate::a::{b, c}` gives `[a]`).
fn paths_after(text: &str, prefix: &str) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    for (at, _) in text.match_indices(prefix) {
        let before = text[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        let rest = &text[at + prefix.len()..];
        let segments: Vec<String> = rest
            .split("::")
            .map(|s| {
                s.chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect::<String>()
            })
            .scan(true, |go, s| {
                let take = *go && !s.is_empty();
                *go = take;
                take.then_some(s)
            })
            .collect();
        if !segments.is_empty() {
            found.push(segments);
        }
    }
    found
}

/// Children declared as files: `mod x;` (not `mod x { ... }`).
fn declared_children(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|line| {
            let t = line.trim();
            let t = t.strip_prefix("pub ").unwrap_or(t);
            let t = if t.starts_with("pub(") {
                t.split_once(") ").map_or(t, |(_, r)| r)
            } else {
                t
            };
            let name = t.strip_prefix("mod ")?.strip_suffix(';')?;
            Some(name.trim().to_owned())
        })
        .collect()
}

/// Relative module specifiers on one line: `import ... from "./x.js"`, `export ... from`,
/// `import "./x"` and `import("./x")`. Keywords are looked for in the blanked line, the
/// specifier read from the raw one at the same place.
fn relative_specifiers(raw: &str, blanked: &str) -> Vec<String> {
    let raw: Vec<char> = raw.chars().collect();
    let code: Vec<char> = blanked.chars().collect();
    let mut found = Vec::new();
    for keyword in ["from", "import"] {
        let k: Vec<char> = keyword.chars().collect();
        for at in 0..code.len().saturating_sub(k.len() - 1) {
            if code[at..at + k.len()] != k[..] {
                continue;
            }
            let mut i = at + k.len();
            while i < code.len() && matches!(code[i], ' ' | '(') {
                i += 1;
            }
            let Some(&quote) = code.get(i).filter(|c| matches!(c, '"' | '\'')) else {
                continue;
            };
            let Some(len) = code[i + 1..].iter().position(|c| *c == quote) else {
                continue;
            };
            let spec: String = raw.get(i + 1..i + 1 + len).unwrap_or(&[]).iter().collect();
            if spec.starts_with("./") || spec.starts_with("../") {
                found.push(spec);
            }
        }
    }
    found
}

fn normalize(path: &Path) -> String {
    let mut parts: Vec<String> = Vec::new();
    for c in path.iter() {
        match c.to_string_lossy().as_ref() {
            "." => {}
            ".." => {
                parts.pop();
            }
            other => parts.push(other.to_owned()),
        }
    }
    parts.join("/")
}

#[cfg(test)]
mod tests {
    use super::super::code::{Lang, blank};
    use super::*;

    fn lines(s: &str) -> Vec<String> {
        s.lines().map(String::from).collect()
    }

    fn segs(s: &str) -> Vec<String> {
        s.split("::")
            .filter(|x| !x.is_empty())
            .map(String::from)
            .collect()
    }

    #[test]
    fn a_parent_its_child_and_a_sibling_can_close_a_circle() {
        let exists =
            |p: &[String]| ["edge", "npm", "npm::service"].contains(&p.join("::").as_str());
        let mut g = Graph::new();
        add_rust(&mut g, "x", &[], &lines("mod edge;\nmod npm;"), &exists);
        add_rust(
            &mut g,
            "x",
            &segs("edge"),
            &lines("use crate::npm::pack;"),
            &exists,
        );
        add_rust(
            &mut g,
            "x",
            &segs("npm"),
            &lines("mod service;\nuse crate::Result;"),
            &exists,
        );
        add_rust(
            &mut g,
            "x",
            &segs("npm::service"),
            &lines("use super::super::edge::run;\nuse super::fill;"),
            &exists,
        );
        assert_eq!(
            circles(&g),
            [vec![
                "x::edge".to_owned(),
                "x::npm".into(),
                "x::npm::service".into()
            ]]
        );
    }

    #[test]
    fn a_child_using_its_parent_is_no_circle() {
        let exists = |p: &[String]| ["a", "a::b"].contains(&p.join("::").as_str());
        let mut g = Graph::new();
        add_rust(
            &mut g,
            "x",
            &segs("a"),
            &lines("mod b;\npub fn helper() {}"),
            &exists,
        );
        add_rust(
            &mut g,
            "x",
            &segs("a::b"),
            &lines("use super::helper;\nuse crate::a::helper as h;"),
            &exists,
        );
        assert!(circles(&g).is_empty());
    }

    fn js(g: &mut Graph, file: &str, source: &str) {
        add_js(g, file, source, &blank(source, Lang::Js));
    }

    #[test]
    fn js_relative_imports_make_edges() {
        let mut g = Graph::new();
        js(
            &mut g,
            "npm/src/a.js",
            "import { b } from \"./b.js\";\nimport x from 'pkg';",
        );
        js(
            &mut g,
            "npm/src/b.js",
            "export { a } from './a.js';\nconst m = await import(\"../c.js\");\n// taken from './d.js'",
        );
        assert_eq!(
            circles(&g),
            [vec!["npm/src/a.js".to_owned(), "npm/src/b.js".into()]]
        );
        assert!(g["npm/src/b.js"].contains("npm/c.js"));
        assert!(!g["npm/src/b.js"].contains("npm/src/d.js"));
    }
}
