//! The `fencepost/client` entry of the npm package: the lease client (`npm/src/client.js`) over
//! the core module's API, assembled into npm/dist next to it.
//!
//! The client is no module of its own: every entry in `dist/client/` loads the core through the
//! package's own entry for its runtime and re-exports `dist/client.js`, so both entries share one
//! instance of the module. The CommonJS entry requires `../node.cjs` for the same reason.

use std::path::Path;

use super::{COMMON, copy, fill, npm_dir, read, strip_exports, write};
use crate::Result;

/// The entries of `npm/src/client/` copied as they are.
const ENTRIES: &[&str] = &[
    "workerd.js",
    "edge-light.js",
    "deno.js",
    "browser.js",
    "node.mjs",
    "slim.js",
];

/// Copies the client and its entries into `dist` and writes its CommonJS entry.
pub fn assemble(dist: &Path) -> Result {
    let src = npm_dir().join("src");
    copy(&src.join("client.js"), &dist.join("client.js"))?;
    for f in ENTRIES {
        copy(&src.join("client").join(f), &dist.join("client").join(f))?;
    }
    copy(
        &npm_dir().join("client.d.ts"),
        &dist.join("client").join("index.d.cts"),
    )?;
    let client = read(&src.join("client.js"))?;
    let common = read(&src.join(COMMON))?;
    let template = read(&src.join("client").join("node.cjs.in"))?;
    write(
        &dist.join("client").join("node.cjs"),
        commonjs(&template, &common, &client)?,
    )
}

/// The names client.js imports from `./api.js`, as a `require` of the CommonJS core entry.
fn imports(client: &str) -> Result<String> {
    let names = client
        .lines()
        .find(|l| l.starts_with("import {") && l.ends_with("} from \"./api.js\";"))
        .and_then(|l| l.strip_prefix("import {"))
        .and_then(|l| l.strip_suffix("} from \"./api.js\";"))
        .ok_or("client.js: no `import { ... } from \"./api.js\";` line")?;
    Ok(format!(
        "const {{ {} }} = require(\"../node.cjs\");",
        names.trim()
    ))
}

/// client/node.cjs: the require of what client.js takes from the core entry, the shared helpers
/// (not exported), then client.js and `module.exports`.
fn commonjs(template: &str, common: &str, client: &str) -> Result<String> {
    let imports = imports(client)?;
    // `./api.js` stands where strip_exports expects the glue: its import is the one replaced.
    let (common, _) = strip_exports(common, COMMON, "api.js")?;
    let (client, names) = strip_exports(client, "client.js", "api.js")?;
    let body = format!("{common}\n{client}");
    let exports = format!("module.exports = {{ {} }};", names.join(", "));
    fill(
        template,
        "client/node.cjs.in",
        &[
            ("/* @@IMPORTS@@ */", &imports),
            ("/* @@CLIENT@@ */", &body),
            ("/* @@EXPORTS@@ */", &exports),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commonjs_requires_what_the_client_imports() {
        let client = "import { A, B } from \"./api.js\";\nimport { c } from \"./common.js\";\nexport class C {}\nconst x = A;\n";
        let t = "/* @@IMPORTS@@ */\n/* @@CLIENT@@ */\n/* @@EXPORTS@@ */\n";
        let out = commonjs(t, "export function c() {}\n", client).unwrap();
        assert_eq!(
            out,
            "const { A, B } = require(\"../node.cjs\");\nfunction c() {}\n\nclass C {}\nconst x = A;\n\nmodule.exports = { C };\n"
        );
    }

    #[test]
    fn commonjs_refuses_a_client_without_its_import() {
        let t = "/* @@IMPORTS@@ */ /* @@CLIENT@@ */ /* @@EXPORTS@@ */";
        assert!(commonjs(t, "", "import x from \"./api.js\";\n").is_err());
        assert!(commonjs("", "", "import { A } from \"./api.js\";\n").is_err());
    }
}
