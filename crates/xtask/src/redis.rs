//! A throwaway Redis server for the lease service's benchmark, where redlock on Redis is one of the
//! locks a team would pick instead: Debian's `redis-server` (installed with apt-get when missing,
//! like Postgres and etcd), on a free port of 127.0.0.1, with no persistence (`--save ''
//! --appendonly no`: the locks are thrown away, and a lock's cost should not be the disk's), in
//! its own temporary directory, killed and removed when the [`Redis`] value is dropped.

use std::fs;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::Result;
use crate::tools::{debian_program, step};

/// How long a fresh server may take to answer PING.
const READY_WITHIN: Duration = Duration::from_secs(30);

/// Where `redis-server` is, installed with apt-get when missing (needs root).
fn ensure_installed() -> Result<PathBuf> {
    debian_program("redis-server", "redis-server")
}

/// The command line of a server on `port` of 127.0.0.1 whose files are in `dir`.
fn args(dir: &Path, port: u16) -> Vec<String> {
    let dir = dir.to_string_lossy();
    [
        "--bind",
        "127.0.0.1",
        "--port",
        &port.to_string(),
        "--dir",
        &dir,
        "--save",
        "",
        "--appendonly",
        "no",
        "--daemonize",
        "no",
        "--loglevel",
        "warning",
    ]
    .map(String::from)
    .to_vec()
}

/// A running server; dropping it kills it and removes its directory.
pub struct Redis {
    dir: PathBuf,
    port: u16,
    child: Option<Child>,
}

impl Redis {
    /// Starts a server and waits until it answers PING.
    pub fn start() -> Result<Redis> {
        let program = ensure_installed()?;
        let dir = std::env::temp_dir().join(format!("fencepost-redis-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .map_err(|e| format!("finding a free port: {e}"))?;
        // From here on, Drop cleans up, even if the server fails to start.
        let mut redis = Redis {
            dir,
            port,
            child: None,
        };
        step(&format!(
            "Redis: a server on 127.0.0.1:{port}, files in {}",
            redis.dir.display()
        ));
        let log = redis.log();
        let out = fs::File::create(&log).map_err(|e| format!("creating {}: {e}", log.display()))?;
        let err = out
            .try_clone()
            .map_err(|e| format!("opening {}: {e}", log.display()))?;
        let child = Command::new(&program)
            .args(args(&redis.dir, port))
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .spawn()
            .map_err(|e| format!("starting {}: {e}", program.display()))?;
        redis.child = Some(child);
        redis.wait_ready()?;
        Ok(redis)
    }

    fn log(&self) -> PathBuf {
        self.dir.join("redis.log")
    }

    /// The server's URL, as ioredis takes it.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    fn wait_ready(&mut self) -> Result {
        let deadline = Instant::now() + READY_WITHIN;
        let addr = SocketAddr::from(([127, 0, 0, 1], self.port));
        loop {
            if let Some(Ok(Some(status))) = self.child.as_mut().map(Child::try_wait) {
                let log = fs::read_to_string(self.log()).unwrap_or_default();
                return Err(format!(
                    "redis-server exited ({status}) while starting:\n{log}"
                ));
            }
            if pongs(addr) {
                return Ok(());
            }
            if Instant::now() > deadline {
                return Err(format!(
                    "redis-server did not answer PING within {}s",
                    READY_WITHIN.as_secs()
                ));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// Whether the server at `addr` answers PING (an inline command of Redis' protocol) with PONG.
fn pongs(addr: SocketAddr) -> bool {
    let exchange = || -> std::io::Result<String> {
        let mut s = TcpStream::connect_timeout(&addr, Duration::from_secs(1))?;
        s.set_read_timeout(Some(Duration::from_secs(2)))?;
        s.write_all(b"PING\r\n")?;
        let mut answer = [0u8; 7];
        s.read_exact(&mut answer)?;
        Ok(String::from_utf8_lossy(&answer).into_owned())
    };
    exchange().is_ok_and(|a| a == "+PONG\r\n")
}

impl Drop for Redis {
    fn drop(&mut self) {
        if let Some(child) = &mut self.child {
            let _ = child.kill();
            let _ = child.wait();
        }
        let _ = fs::remove_dir_all(&self.dir);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_server_keeps_nothing_on_disk_and_listens_only_on_loopback() {
        let a = args(Path::new("/tmp/r"), 6400);
        let value = |flag: &str| {
            let at = a.iter().position(|x| x == flag).unwrap();
            a[at + 1].clone()
        };
        assert_eq!(value("--bind"), "127.0.0.1");
        assert_eq!(value("--port"), "6400");
        assert_eq!(value("--dir"), "/tmp/r");
        assert_eq!(value("--save"), "");
        assert_eq!(value("--appendonly"), "no");
        assert_eq!(value("--daemonize"), "no");
    }

    #[test]
    fn nothing_listening_does_not_pong() {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        assert!(!pongs(SocketAddr::from(([127, 0, 0, 1], port))));
    }
}
