//! A source file reduced to its code: string, character and template literals and comments
//! blanked out, so braces and `use`/`import` words are only counted where the compiler sees them.
//!
//! This is a reader for measuring shape, not a parser: it knows the literal and comment forms of
//! Rust and JavaScript that can hold a brace (strings with escapes, raw strings, char literals
//! beside lifetimes, `//` and `/* */` comments, JS template literals with `${}`), which is all the
//! brace counting needs.

/// Which language's literals to expect.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Lang {
    Rust,
    Js,
}

/// The lines of `source` with every literal's and comment's contents replaced by spaces (the
/// quotes stay), line for line (as `str::lines` counts them).
pub fn blank(source: &str, lang: Lang) -> Vec<String> {
    let chars: Vec<char> = source.chars().collect();
    let mut out = String::with_capacity(source.len());
    let mut i = 0;
    // JS template literals nest through `${ ... }`: each entry counts the braces open in one.
    let mut templates: Vec<usize> = Vec::new();
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            i = skip_line_comment(&chars, i, &mut out);
        } else if c == '/' && next == Some('*') {
            out.push_str("  ");
            i = skip_block_comment(&chars, i + 2, &mut out);
        } else if c == '"' || (lang == Lang::Js && c == '\'') {
            i = skip_string(&chars, i, c, &mut out);
        } else if lang == Lang::Rust && c == 'r' && is_raw_start(&chars, i) {
            i = skip_raw(&chars, i, &mut out);
        } else if lang == Lang::Rust && c == '\'' && is_char_literal(&chars, i) {
            i = skip_string(&chars, i, '\'', &mut out);
        } else if lang == Lang::Js && c == '`' {
            out.push('`');
            i = resume_template(&chars, i + 1, &mut out, &mut templates);
        } else if lang == Lang::Js && c == '}' && templates.last() == Some(&0) {
            templates.pop();
            out.push(' ');
            i = resume_template(&chars, i + 1, &mut out, &mut templates);
        } else {
            if lang == Lang::Js
                && let Some(depth) = templates.last_mut()
            {
                match c {
                    '{' => *depth += 1,
                    '}' => *depth -= 1,
                    _ => {}
                }
            }
            out.push(c);
            i += 1;
        }
    }
    out.lines().map(str::to_owned).collect()
}

/// A `//` comment up to (not including) its line's end.
fn skip_line_comment(chars: &[char], mut i: usize, out: &mut String) -> usize {
    while i < chars.len() && chars[i] != '\n' {
        out.push(' ');
        i += 1;
    }
    i
}

fn skip_block_comment(chars: &[char], mut i: usize, out: &mut String) -> usize {
    let mut depth = 1;
    while i < chars.len() && depth > 0 {
        let pair = (chars[i], chars.get(i + 1).copied());
        if pair == ('*', Some('/')) {
            depth -= 1;
            out.push_str("  ");
            i += 2;
        } else if pair == ('/', Some('*')) {
            depth += 1;
            out.push_str("  ");
            i += 2;
        } else {
            out.push(if chars[i] == '\n' { '\n' } else { ' ' });
            i += 1;
        }
    }
    i
}

/// A quoted literal from its opening `quote` at `i`; escapes skip the next char.
fn skip_string(chars: &[char], i: usize, quote: char, out: &mut String) -> usize {
    out.push(quote);
    let mut j = i + 1;
    while j < chars.len() && chars[j] != quote {
        if chars[j] == '\\' && j + 1 < chars.len() {
            out.push(' ');
            j += 1;
        }
        out.push(if chars[j] == '\n' { '\n' } else { ' ' });
        j += 1;
    }
    if j < chars.len() {
        out.push(quote);
        j += 1;
    }
    j
}

/// Template text from `i`; when it stops at a `${`, the code after it is one more open template.
fn resume_template(chars: &[char], i: usize, out: &mut String, open: &mut Vec<usize>) -> usize {
    let (next, opened_code) = skip_template(chars, i, out);
    if opened_code {
        open.push(0);
    }
    next
}

/// Template text up to its closing backtick (kept) or the `${` that opens code in it (blanked);
/// says which of the two it stopped at.
fn skip_template(chars: &[char], mut i: usize, out: &mut String) -> (usize, bool) {
    while i < chars.len() {
        match chars[i] {
            '\\' => {
                out.push_str(if chars.get(i + 1) == Some(&'\n') {
                    " \n"
                } else {
                    "  "
                });
                i += 2;
            }
            '`' => {
                out.push('`');
                return (i + 1, false);
            }
            '$' if chars.get(i + 1) == Some(&'{') => {
                out.push_str("  ");
                return (i + 2, true);
            }
            '\n' => {
                out.push('\n');
                i += 1;
            }
            _ => {
                out.push(' ');
                i += 1;
            }
        }
    }
    (i, false)
}

/// `r"`, `r#"`, `br"`-style raw strings, but not an identifier ending in `r`.
fn is_raw_start(chars: &[char], i: usize) -> bool {
    let before = i.checked_sub(1).map(|j| chars[j]);
    let ident_before = before.is_some_and(|c| c.is_alphanumeric() || c == '_');
    let prefix_b =
        before == Some('b') && !i.checked_sub(2).is_some_and(|j| chars[j].is_alphanumeric());
    if ident_before && !prefix_b {
        return false;
    }
    let mut j = i + 1;
    while chars.get(j) == Some(&'#') {
        j += 1;
    }
    chars.get(j) == Some(&'"')
}

fn skip_raw(chars: &[char], i: usize, out: &mut String) -> usize {
    let mut j = i + 1;
    let mut hashes = 0;
    while chars[j] == '#' {
        hashes += 1;
        j += 1;
    }
    out.push_str(&" ".repeat(j - i));
    out.push('"');
    j += 1;
    while j < chars.len() {
        if chars[j] == '"' && (0..hashes).all(|k| chars.get(j + 1 + k) == Some(&'#')) {
            out.push('"');
            out.push_str(&" ".repeat(hashes));
            return j + 1 + hashes;
        }
        out.push(if chars[j] == '\n' { '\n' } else { ' ' });
        j += 1;
    }
    j
}

/// `'x'` or `'\n'`-style, not a lifetime such as `'a` or `'static`.
fn is_char_literal(chars: &[char], i: usize) -> bool {
    match chars.get(i + 1) {
        Some('\\') => true,
        Some(_) => chars.get(i + 2) == Some(&'\''),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rust_literals_and_comments_lose_their_braces() {
        let src = "fn f<'a>(x: &'a str) { // {\n    let s = \"{\\\"}\"; let c = '{'; let r = r#\"}\"#; /* { */\n}";
        let lines = blank(src, Lang::Rust);
        let braces: String = lines
            .concat()
            .chars()
            .filter(|c| "{}".contains(*c))
            .collect();
        assert_eq!(braces, "{}");
        assert_eq!(lines.len(), 3);
    }

    #[test]
    fn js_templates_keep_the_code_inside_them() {
        let src = "const a = `x { ${f({b: 1})} }`; const s = '{';\nfunction g() {}";
        let lines = blank(src, Lang::Js);
        let braces: String = lines
            .concat()
            .chars()
            .filter(|c| "{}".contains(*c))
            .collect();
        assert_eq!(braces, "{}{}");
    }
}
