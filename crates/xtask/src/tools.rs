//! Running commands and installing pinned tools.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::Result;

/// Cargo's home: `CARGO_HOME`, or `~/.cargo`.
pub fn cargo_home() -> PathBuf {
    std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
        .unwrap_or_else(|| PathBuf::from(".cargo"))
}

/// The workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("xtask lives at crates/xtask")
        .to_path_buf()
}

/// Prints a step header.
pub fn step(what: &str) {
    println!("\n==> {what}");
}

/// A command to run from the workspace root (unless told otherwise).
pub struct Cmd {
    program: OsString,
    args: Vec<OsString>,
    cwd: PathBuf,
    envs: Vec<(OsString, OsString)>,
}

impl Cmd {
    pub fn new(program: impl Into<OsString>) -> Cmd {
        Cmd {
            program: program.into(),
            args: Vec::new(),
            cwd: root(),
            envs: Vec::new(),
        }
    }

    pub fn cargo(args: &[&str]) -> Cmd {
        Cmd::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into())).args(args)
    }

    pub fn args<I, S>(mut self, args: I) -> Cmd
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    pub fn arg(mut self, arg: impl Into<OsString>) -> Cmd {
        self.args.push(arg.into());
        self
    }

    pub fn cwd(mut self, dir: impl Into<PathBuf>) -> Cmd {
        self.cwd = dir.into();
        self
    }

    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Cmd {
        self.envs.push((key.into(), value.into()));
        self
    }

    fn command(&self) -> Command {
        let mut c = Command::new(&self.program);
        c.args(&self.args).current_dir(&self.cwd);
        c.envs(self.envs.iter().map(|(k, v)| (k, v)));
        c
    }

    /// The program and its arguments, as text (lossily, for a child that takes them as JSON).
    pub fn argv(&self) -> Vec<String> {
        std::iter::once(&self.program)
            .chain(&self.args)
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    }

    fn describe(&self) -> String {
        let mut s = self.program.to_string_lossy().into_owned();
        for a in &self.args {
            s.push(' ');
            s.push_str(&a.to_string_lossy());
        }
        s
    }

    /// Runs it, inheriting stdio; fails on a non-zero exit.
    pub fn run(&self) -> Result {
        let status = self
            .command()
            .status()
            .map_err(|e| format!("could not start `{}`: {e}", self.describe()))?;
        if status.success() {
            Ok(())
        } else {
            Err(format!("`{}` failed ({status})", self.describe()))
        }
    }

    /// Runs it and returns its stdout.
    pub fn output(&self) -> Result<String> {
        let out = self
            .command()
            .output()
            .map_err(|e| format!("could not start `{}`: {e}", self.describe()))?;
        if out.status.success() {
            Ok(String::from_utf8_lossy(&out.stdout).into_owned())
        } else {
            Err(format!(
                "`{}` failed ({}): {}",
                self.describe(),
                out.status,
                String::from_utf8_lossy(&out.stderr)
            ))
        }
    }

    /// Runs it with stdout and stderr going to `log` (created or truncated); fails on a non-zero
    /// exit, after the log is complete.
    pub fn run_logged(&self, log: &Path) -> Result {
        if let Some(dir) = log.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
        }
        let file =
            std::fs::File::create(log).map_err(|e| format!("creating {}: {e}", log.display()))?;
        let err = file
            .try_clone()
            .map_err(|e| format!("opening {}: {e}", log.display()))?;
        let status = self
            .command()
            .stdout(file)
            .stderr(err)
            .status()
            .map_err(|e| format!("could not start `{}`: {e}", self.describe()))?;
        if status.success() {
            Ok(())
        } else {
            Err(format!(
                "`{}` failed ({status}); its output is in {}",
                self.describe(),
                log.display()
            ))
        }
    }

    /// Whether it runs and exits 0 (output discarded).
    pub fn succeeds(&self) -> bool {
        self.command()
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    }
}

/// Installs the compile targets pinned in rust-toolchain.toml (idempotent).
pub fn ensure_targets() -> Result {
    let toolchain = std::fs::read_to_string(root().join("rust-toolchain.toml"))
        .map_err(|e| format!("reading rust-toolchain.toml: {e}"))?;
    let targets: Vec<String> = toolchain
        .lines()
        .find_map(|l| l.trim().strip_prefix("targets"))
        .map(|rest| {
            rest.split('"')
                .skip(1)
                .step_by(2)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    let installed = Cmd::new("rustup")
        .args(["target", "list", "--installed"])
        .output()?;
    let missing: Vec<&String> = targets
        .iter()
        .filter(|t| !installed.lines().any(|l| l.trim() == t.as_str()))
        .collect();
    if !missing.is_empty() {
        step("installing Rust targets");
        Cmd::new("rustup")
            .args(["target", "add"])
            .args(missing.iter().map(|s| s.as_str()))
            .run()?;
    }
    Ok(())
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
    let lock_file = dir.join("package-lock.json");
    let lock =
        std::fs::read(&lock_file).map_err(|e| format!("reading {}: {e}", lock_file.display()))?;
    let stamp = dir.join("node_modules").join(".fencepost-lock");
    let want = fingerprint(&lock);
    if std::fs::read_to_string(&stamp).ok().as_deref() == Some(want.as_str()) {
        return Ok(());
    }
    step(&format!("npm ci in {}", dir.display()));
    Cmd::new("npm")
        .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
        .cwd(dir)
        .run()?;
    std::fs::write(&stamp, want).map_err(|e| format!("writing {}: {e}", stamp.display()))
}

/// The cargo-fuzz release `cargo xtask fuzz` installs (it builds with the pinned stable toolchain).
pub const CARGO_FUZZ_VERSION: &str = "0.13.2";

/// A nightly toolchain (libFuzzer's instrumentation needs it) and the pinned cargo-fuzz, installed
/// when missing (idempotent).
pub fn ensure_cargo_fuzz() -> Result {
    if !Cmd::new("rustup")
        .args(["run", "nightly", "rustc", "--version"])
        .succeeds()
    {
        step("installing the nightly toolchain (cargo-fuzz needs it)");
        Cmd::new("rustup")
            .args(["toolchain", "install", "nightly", "--profile", "minimal"])
            .run()?;
    }
    let wanted = format!("cargo-fuzz {CARGO_FUZZ_VERSION}");
    let installed = Cmd::new("cargo")
        .args(["fuzz", "--version"])
        .output()
        .unwrap_or_default();
    if installed.trim() != wanted {
        step(&format!("installing {wanted}"));
        Cmd::cargo(&[
            "install",
            "cargo-fuzz",
            "--version",
            &format!("={CARGO_FUZZ_VERSION}"),
        ])
        .run()?;
    }
    Ok(())
}

/// Where `program` is on PATH, if anywhere.
pub fn on_path(program: &str) -> Option<PathBuf> {
    Cmd::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .ok()
        .map(|p| PathBuf::from(p.trim()))
        .filter(|p| p.is_file())
}

/// Installs Debian's `package` with apt-get (needs root): the servers and tools the tests need
/// that no registry of the project's ships.
pub fn apt_install(package: &str) -> Result {
    step(&format!("installing {package} (apt-get)"));
    Cmd::new("apt-get").arg("update").run()?;
    Cmd::new("apt-get")
        .args(["install", "-y", "--no-install-recommends", package])
        .env("DEBIAN_FRONTEND", "noninteractive")
        .run()
}

/// Debian's Chromium, for the browser tests (installed with apt-get when missing; needs root).
pub fn ensure_chromium() -> Result {
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

/// `program` from PATH, with Debian's `package` installed first when it is missing.
pub fn debian_program(program: &str, package: &str) -> Result<PathBuf> {
    if let Some(found) = on_path(program) {
        return Ok(found);
    }
    apt_install(package)?;
    on_path(program)
        .ok_or_else(|| format!("apt-get installed {package}, but `{program}` is not on PATH"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprint_tells_locks_apart() {
        assert_eq!(fingerprint(b""), "cbf29ce484222325");
        assert_ne!(fingerprint(b"a"), fingerprint(b"b"));
    }
}
