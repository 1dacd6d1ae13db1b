//! A throwaway Postgres server for the store tests and benchmark: Debian's packages (installed
//! with apt-get when `initdb` is missing, like Chromium), a fresh cluster in a temporary directory,
//! listening only on a unix socket in that directory (no TCP port, so nothing else on the machine
//! can reach it or clash with it), and stopped and removed when the [`Postgres`] value is dropped,
//! whether the tests passed, failed or panicked.

use std::fs;
use std::path::{Path, PathBuf};

use crate::Result;
use crate::tools::{Cmd, step};

/// Where Debian installs each major version's server programs.
const DEBIAN_LIB: &str = "/usr/lib/postgresql";

/// The directory of `initdb` and `pg_ctl` of the newest installed major version, if any.
fn bin_dir() -> Option<PathBuf> {
    let mut versions: Vec<(u32, PathBuf)> = fs::read_dir(DEBIAN_LIB)
        .ok()?
        .flatten()
        .filter_map(|e| {
            let major = e.file_name().to_str()?.parse().ok()?;
            let bin = e.path().join("bin");
            bin.join("initdb").is_file().then_some((major, bin))
        })
        .collect();
    versions.sort();
    versions.pop().map(|(_, bin)| bin)
}

/// Debian's Postgres server programs, installed with apt-get when missing (needs root).
fn ensure_installed() -> Result<PathBuf> {
    if let Some(bin) = bin_dir() {
        return Ok(bin);
    }
    crate::tools::apt_install("postgresql")?;
    bin_dir().ok_or_else(|| {
        format!("apt-get installed postgresql, but {DEBIAN_LIB}/*/bin/initdb is missing")
    })
}

/// Whether this process runs as root: `initdb` refuses to, so the server then runs as the
/// `postgres` user the Debian package creates.
fn is_root() -> bool {
    Cmd::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|uid| uid.trim() == "0")
}

/// A running server; dropping it stops it and removes its directory.
pub struct Postgres {
    bin: PathBuf,
    dir: PathBuf,
    as_postgres: bool,
}

impl Postgres {
    /// Makes a fresh cluster and starts it on a unix socket in its own temporary directory.
    pub fn start() -> Result<Postgres> {
        let bin = ensure_installed()?;
        let dir = std::env::temp_dir().join(format!("fencepost-postgres-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
        // From here on, Drop cleans up, even if initdb or the start fails.
        let pg = Postgres {
            bin,
            dir,
            as_postgres: is_root(),
        };
        if pg.as_postgres {
            Cmd::new("chown")
                .args(["postgres:postgres"])
                .arg(&pg.dir)
                .run()?;
        }
        step(&format!(
            "Postgres: a fresh cluster in {}",
            pg.dir.display()
        ));
        pg.tool("initdb")
            .args([
                "--auth=trust",
                "--username=postgres",
                "--encoding=UTF8",
                "--locale=C",
                "--no-sync",
                "-D",
            ])
            .arg(pg.data())
            .run()?;
        // No TCP at all (listen_addresses empty); fsync off: the cluster is thrown away anyway,
        // and the tests measure fencing, not the disk.
        let options = format!(
            "-c listen_addresses='' -c unix_socket_directories='{}' -c fsync=off -c max_connections=120",
            pg.dir.display()
        );
        pg.tool("pg_ctl")
            .args(["start", "-w", "-t", "60", "-D"])
            .arg(pg.data())
            .arg("-l")
            .arg(pg.dir.join("server.log"))
            .args(["-o", &options])
            .run()?;
        Ok(pg)
    }

    fn data(&self) -> PathBuf {
        self.dir.join("data")
    }

    /// The directory of the server's socket: what a client takes as its host (PGHOST).
    pub fn socket_dir(&self) -> &Path {
        &self.dir
    }

    /// The command line that restarts the server (a fast shutdown: open connections are cut, as
    /// in a failover), for tests that take it down mid-run: JSON, an array of strings.
    pub fn restart_command(&self) -> String {
        let cmd = self
            .tool("pg_ctl")
            .args(["restart", "-w", "-t", "60", "-m", "fast", "-D"])
            .arg(self.data())
            .arg("-l")
            .arg(self.dir.join("server.log"));
        serde_json::Value::from(cmd.argv()).to_string()
    }

    /// A server program, run as the `postgres` user when this process is root.
    fn tool(&self, name: &str) -> Cmd {
        let program = self.bin.join(name);
        if self.as_postgres {
            Cmd::new("runuser")
                .args(["-u", "postgres", "--"])
                .arg(program)
        } else {
            Cmd::new(program)
        }
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        if self.data().join("postmaster.pid").exists() {
            let stopped = self
                .tool("pg_ctl")
                .args(["stop", "-w", "-m", "immediate", "-D"])
                .arg(self.data())
                .succeeds();
            if !stopped {
                eprintln!(
                    "xtask: could not stop the Postgres server in {}",
                    self.dir.display()
                );
            }
        }
        let _ = fs::remove_dir_all(&self.dir);
    }
}
