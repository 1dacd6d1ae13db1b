//! How long a file's code is before its tests, and which functions run longer than a page.

use super::code::Lang;

/// Lines of a file before its unit tests (`#[cfg(test)]` in Rust); tests may be as long as
/// their cases need.
pub fn lines_before_tests(lines: &[String]) -> usize {
    lines
        .iter()
        .position(|l| l.trim_start().starts_with("#[cfg(test)]"))
        .unwrap_or(lines.len())
}

/// A function: its name, the line it starts on (1-based) and how many lines it spans.
#[derive(Debug, PartialEq, Eq)]
pub struct Function {
    pub name: String,
    pub line: usize,
    pub lines: usize,
}

/// Every function in `code` (lines already blanked by `code::blank`) with a body, nested ones
/// included, in order.
pub fn functions(code: &[String], lang: Lang) -> Vec<Function> {
    let mut found = Vec::new();
    for (i, line) in code.iter().enumerate() {
        let name = match lang {
            Lang::Rust => rust_fn_name(line),
            Lang::Js => js_fn_name(line),
        };
        if let Some(name) = name
            && let Some(end) = body_end(code, i)
        {
            found.push(Function {
                name,
                line: i + 1,
                lines: end - i + 1,
            });
        }
    }
    found
}

/// The line where the body opened on or after line `start` closes; `None` for a declaration
/// without a body (a trait method, an extern fn).
fn body_end(code: &[String], start: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut opened = false;
    for (i, line) in code.iter().enumerate().skip(start) {
        for c in line.chars() {
            match c {
                '{' => {
                    depth += 1;
                    opened = true;
                }
                '}' if opened => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(i);
                    }
                }
                ';' if !opened && i > start => return None,
                _ => {}
            }
        }
        if !opened && line.trim_end().ends_with(';') {
            return None;
        }
    }
    None
}

/// `fn name` after any of `pub(...)`, `const`, `async`, `unsafe`, `extern "C"`.
fn rust_fn_name(line: &str) -> Option<String> {
    let mut words = line.split_whitespace().peekable();
    while let Some(w) = words.next() {
        let qualifier = w.starts_with("pub")
            || matches!(
                w,
                "const" | "async" | "unsafe" | "default" | "extern" | "\"\""
            );
        if w == "fn" {
            let next = words.peek()?;
            let name: String = next
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            return (!name.is_empty()).then_some(name);
        }
        if !qualifier {
            return None;
        }
    }
    None
}

/// `function name(`, `const name = (...) => {`, or a method `name(...) {` alone on its line.
fn js_fn_name(line: &str) -> Option<String> {
    let t = line.trim();
    let t = t.strip_prefix("export ").unwrap_or(t);
    let t = t.strip_prefix("default ").unwrap_or(t);
    let t = t.strip_prefix("async ").unwrap_or(t);
    if let Some(rest) = t.strip_prefix("function") {
        let name = ident(rest.trim_start_matches(['*', ' ']));
        return Some(if name.is_empty() {
            "(anonymous)".into()
        } else {
            name
        });
    }
    for decl in ["const ", "let "] {
        if let Some(rest) = t.strip_prefix(decl) {
            let name = ident(rest);
            let arrow = rest.contains("=>") && t.ends_with('{');
            let function = rest.contains("function");
            return (arrow || function).then_some(name);
        }
    }
    js_method_name(t)
}

fn js_method_name(t: &str) -> Option<String> {
    let mut t = t;
    for prefix in ["static ", "async ", "get ", "set ", "*"] {
        t = t.strip_prefix(prefix).unwrap_or(t);
    }
    let name = ident(t.trim_start_matches('#'));
    let keyword = matches!(
        name.as_str(),
        "if" | "for" | "while" | "switch" | "catch" | "with" | "return" | "function"
    );
    let after = &t[t.find(&*name)? + name.len()..];
    let method = !name.is_empty() && !keyword && after.starts_with('(') && t.ends_with('{');
    // A call that takes an object literal (`f(x, {`) is not a method definition.
    let call = after.contains("({") || after.contains(", {") || !after.contains(')');
    (method && !call).then_some(name)
}

fn ident(s: &str) -> String {
    s.chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '$')
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::code::blank;
    use super::*;

    fn fns(src: &str, lang: Lang) -> Vec<(String, usize, usize)> {
        functions(&blank(src, lang), lang)
            .into_iter()
            .map(|f| (f.name, f.line, f.lines))
            .collect()
    }

    #[test]
    fn rust_functions_are_measured_from_signature_to_closing_brace() {
        let src = "pub(crate) fn a(x: u8)\n    -> u8\n{\n    let s = \"}\";\n    x\n}\ntrait T {\n    fn b(&self);\n}\nconst fn c() {}\n";
        assert_eq!(
            fns(src, Lang::Rust),
            [("a".into(), 1, 6), ("c".into(), 10, 1)]
        );
    }

    #[test]
    fn js_functions_methods_and_arrows_are_found_but_not_calls() {
        let src = "export async function a(x) {\n  if (x) {\n    f(x, {\n    });\n  }\n}\nclass K {\n  static m(y) {\n    return `${y}}`;\n  }\n}\nconst g = (z) => {\n  return z;\n};\n";
        assert_eq!(
            fns(src, Lang::Js),
            [("a".into(), 1, 6), ("m".into(), 8, 3), ("g".into(), 12, 3)]
        );
    }

    #[test]
    fn a_file_is_measured_up_to_its_tests() {
        let lines: Vec<String> = ["a", "b", "#[cfg(test)]", "mod tests {}"]
            .map(String::from)
            .into();
        assert_eq!(lines_before_tests(&lines), 2);
    }
}
