//! The packed package and the fixture projects that install it: each of tests/<name> copied under
//! target/npm-fixtures with the tarball installed as a dependency, as a user would.

use std::fs;
use std::net::TcpListener;
use std::path::{Path, PathBuf};

use super::{copy, copy_tree, npm_dir, target};
use crate::Result;
use crate::tools::{Cmd, npm_ci, root};

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
pub(super) fn free_port() -> Result<u16> {
    let l = TcpListener::bind("127.0.0.1:0").map_err(|e| format!("finding a free port: {e}"))?;
    l.local_addr()
        .map(|a| a.port())
        .map_err(|e| format!("finding a free port: {e}"))
}
