//! A throwaway three-member etcd cluster for the lock backend's tests: Debian's `etcd-server`
//! (installed with apt-get when `etcd` is missing, like Postgres), every member on 127.0.0.1 with
//! ports the kernel picked, each in its own temporary data directory, started as child processes
//! and killed and removed when the [`Etcd`] value is dropped, whether the tests passed, failed or
//! panicked.
//!
//! Three members, not one, because what the backend must survive is a member failing while a
//! quorum remains: the tests kill, pause and restart members themselves. So that they can, the
//! cluster is described in `members.json` (see [`Etcd::members_file`]): each member's name, client
//! URL, pid, and the program and arguments that start it again on its data directory. A test that
//! starts a member again writes the new pid there, and dropping [`Etcd`] kills that one too.

use std::fs;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::Result;
use crate::tools::{Cmd, debian_program, step};

/// Members of the cluster: three, the smallest that keeps a quorum with one member down.
const MEMBERS: usize = 3;

/// How long a fresh cluster may take to elect a leader and answer on every member.
const READY_WITHIN: Duration = Duration::from_secs(60);

/// Where `etcd` is, installed with apt-get when missing (needs root).
fn ensure_installed() -> Result<PathBuf> {
    debian_program("etcd", "etcd-server")
}

/// `count` distinct ports free right now: all are held at once while they are picked, so no two
/// are the same; they are released for etcd to bind a moment later.
fn free_ports(count: usize) -> Result<Vec<u16>> {
    let listeners = (0..count)
        .map(|_| TcpListener::bind("127.0.0.1:0"))
        .collect::<std::io::Result<Vec<_>>>()
        .map_err(|e| format!("finding a free port: {e}"))?;
    listeners
        .iter()
        .map(|l| l.local_addr().map(|a| a.port()))
        .collect::<std::io::Result<Vec<_>>>()
        .map_err(|e| format!("finding a free port: {e}"))
}

/// One member's identity and command line (everything but the process).
#[derive(Debug, PartialEq)]
struct Plan {
    name: String,
    client_url: String,
    data_dir: PathBuf,
    log: PathBuf,
    args: Vec<String>,
}

/// The command lines of a new cluster of `MEMBERS` members under `dir`, from `2 * MEMBERS` ports
/// (a client and a peer port each) and a token no other cluster on the machine shares.
fn plans(dir: &Path, ports: &[u16], token: &str) -> Vec<Plan> {
    let peer = |i: usize| format!("http://127.0.0.1:{}", ports[2 * i + 1]);
    let initial_cluster = (0..MEMBERS)
        .map(|i| format!("m{i}={}", peer(i)))
        .collect::<Vec<_>>()
        .join(",");
    (0..MEMBERS)
        .map(|i| {
            let name = format!("m{i}");
            let client_url = format!("http://127.0.0.1:{}", ports[2 * i]);
            let data_dir = dir.join(&name);
            let args = [
                "--name",
                &name,
                "--data-dir",
                &data_dir.to_string_lossy(),
                "--listen-client-urls",
                &client_url,
                "--advertise-client-urls",
                &client_url,
                "--listen-peer-urls",
                &peer(i),
                "--initial-advertise-peer-urls",
                &peer(i),
                "--initial-cluster",
                &initial_cluster,
                "--initial-cluster-state",
                "new",
                "--initial-cluster-token",
                token,
                // One log line per event, warnings and worse: the log is read only on failure.
                "--logger",
                "zap",
                "--log-level",
                "warn",
            ]
            .map(String::from)
            .to_vec();
            Plan {
                log: dir.join(format!("{name}.log")),
                name,
                client_url,
                data_dir,
                args,
            }
        })
        .collect()
}

/// A started member.
struct Member {
    plan: Plan,
    child: Child,
}

/// A running cluster; dropping it kills every member and removes its directory.
pub struct Etcd {
    program: PathBuf,
    dir: PathBuf,
    members: Vec<Member>,
}

impl Etcd {
    /// Starts a new cluster and waits until every member answers a linearizable read, which
    /// needs an elected leader and the member caught up with it.
    pub fn start() -> Result<Etcd> {
        let program = ensure_installed()?;
        let dir = std::env::temp_dir().join(format!("fencepost-etcd-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
        // From here on, Drop cleans up, even if a member fails to start.
        let mut etcd = Etcd {
            program,
            dir,
            members: Vec::new(),
        };
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let token = format!("fencepost-{}-{nanos}", std::process::id());
        let ports = free_ports(2 * MEMBERS)?;
        step(&format!(
            "etcd: a cluster of {MEMBERS} members in {}",
            etcd.dir.display()
        ));
        for plan in plans(&etcd.dir, &ports, &token) {
            let child = etcd.spawn(&plan)?;
            etcd.members.push(Member { plan, child });
        }
        etcd.write_members_file()?;
        etcd.wait_ready()?;
        Ok(etcd)
    }

    fn spawn(&self, plan: &Plan) -> Result<Child> {
        let log = fs::File::create(&plan.log)
            .map_err(|e| format!("creating {}: {e}", plan.log.display()))?;
        let err = log
            .try_clone()
            .map_err(|e| format!("opening {}: {e}", plan.log.display()))?;
        Command::new(&self.program)
            .args(&plan.args)
            .stdin(Stdio::null())
            .stdout(log)
            .stderr(err)
            .spawn()
            .map_err(|e| format!("starting {} ({}): {e}", plan.name, self.program.display()))
    }

    /// The members' client URLs, comma-separated (what `ETCD_ENDPOINTS` holds).
    pub fn endpoints(&self) -> String {
        let urls: Vec<&str> = self
            .members
            .iter()
            .map(|m| m.plan.client_url.as_str())
            .collect();
        urls.join(",")
    }

    /// `members.json`: `[{name, clientUrl, pid, program, args, dataDir, log}]`, what a test needs
    /// to find, kill, pause and start again each member. A test that starts a member again
    /// writes the new pid back.
    pub fn members_file(&self) -> PathBuf {
        self.dir.join("members.json")
    }

    fn write_members_file(&self) -> Result {
        let members: Vec<serde_json::Value> = self
            .members
            .iter()
            .map(|m| {
                serde_json::json!({
                    "name": m.plan.name,
                    "clientUrl": m.plan.client_url,
                    "pid": m.child.id(),
                    "program": self.program,
                    "args": m.plan.args,
                    "dataDir": m.plan.data_dir,
                    "log": m.plan.log,
                })
            })
            .collect();
        let text = serde_json::to_string_pretty(&members).map_err(|e| e.to_string())?;
        let path = self.members_file();
        fs::write(&path, text).map_err(|e| format!("writing {}: {e}", path.display()))
    }

    fn wait_ready(&mut self) -> Result {
        let deadline = Instant::now() + READY_WITHIN;
        for i in 0..self.members.len() {
            loop {
                let m = &mut self.members[i];
                if let Ok(Some(status)) = m.child.try_wait() {
                    return Err(format!(
                        "etcd member {} exited ({status}) while starting:\n{}",
                        m.plan.name,
                        log_tail(&m.plan.log)
                    ));
                }
                if answers(&m.plan.client_url) {
                    break;
                }
                if Instant::now() > deadline {
                    return Err(format!(
                        "etcd member {} did not answer within {}s:\n{}",
                        m.plan.name,
                        READY_WITHIN.as_secs(),
                        log_tail(&m.plan.log)
                    ));
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        }
        Ok(())
    }

    /// The end of every member's log (on stderr), for a failed run.
    pub fn print_logs(&self) {
        for m in &self.members {
            eprintln!(
                "--- etcd member {} ({}):\n{}",
                m.plan.name,
                m.plan.log.display(),
                log_tail(&m.plan.log)
            );
        }
    }

    /// Pids in `members.json` that are not our children: members a test started again. Only
    /// those whose command line names our directory, so a pid the system reused is left alone.
    fn restarted_pids(&self) -> Vec<u32> {
        let ours: Vec<u32> = self.members.iter().map(|m| m.child.id()).collect();
        let Ok(text) = fs::read_to_string(self.members_file()) else {
            return Vec::new();
        };
        let Ok(serde_json::Value::Array(members)) = serde_json::from_str(&text) else {
            return Vec::new();
        };
        let dir = self.dir.to_string_lossy().into_owned();
        members
            .iter()
            .filter_map(|m| u32::try_from(m["pid"].as_u64()?).ok())
            .filter(|pid| !ours.contains(pid))
            .filter(|pid| {
                fs::read(format!("/proc/{pid}/cmdline"))
                    .is_ok_and(|c| String::from_utf8_lossy(&c).contains(&dir))
            })
            .collect()
    }
}

/// Whether the member at `url` answers a linearizable read (a POST to the JSON gateway's
/// `/v3/kv/range`) with 200. A bare HTTP/1.1 exchange: xtask has no HTTP client, and one
/// request with `Connection: close` needs none.
fn answers(url: &str) -> bool {
    let Some(Ok(addr)) = url.strip_prefix("http://").map(|a| a.parse::<SocketAddr>()) else {
        return false;
    };
    let exchange = || -> std::io::Result<String> {
        let mut s = TcpStream::connect_timeout(&addr, Duration::from_secs(1))?;
        s.set_read_timeout(Some(Duration::from_secs(3)))?;
        let body = r#"{"key":"AA=="}"#;
        write!(
            s,
            "POST /v3/kv/range HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )?;
        let mut answer = String::new();
        s.read_to_string(&mut answer)?;
        Ok(answer)
    };
    exchange().is_ok_and(|a| a.starts_with("HTTP/1.1 200"))
}

/// The last lines of a member's log, for an error message.
fn log_tail(log: &Path) -> String {
    let text = fs::read_to_string(log).unwrap_or_default();
    let lines: Vec<&str> = text.lines().rev().take(20).collect();
    lines.into_iter().rev().collect::<Vec<_>>().join("\n")
}

impl Drop for Etcd {
    fn drop(&mut self) {
        let restarted = self.restarted_pids();
        // SIGKILL: the data is thrown away, and it also ends a member a test left paused.
        for m in &mut self.members {
            let _ = m.child.kill();
            let _ = m.child.wait();
        }
        for pid in restarted {
            let _ = Cmd::new("kill")
                .args(["-KILL", &pid.to_string()])
                .succeeds();
            // Not our child, so it cannot be waited for: watch it go.
            let gone_by = Instant::now() + Duration::from_secs(10);
            while Path::new(&format!("/proc/{pid}")).exists() && Instant::now() < gone_by {
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        let _ = fs::remove_dir_all(&self.dir);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_member_knows_the_whole_cluster_and_owns_its_ports() {
        let dir = Path::new("/tmp/c");
        let p = plans(dir, &[1, 2, 3, 4, 5, 6], "t");
        assert_eq!(p.len(), 3);
        let cluster = "m0=http://127.0.0.1:2,m1=http://127.0.0.1:4,m2=http://127.0.0.1:6";
        for (i, m) in p.iter().enumerate() {
            let client = format!("http://127.0.0.1:{}", 2 * i + 1);
            let peer = format!("http://127.0.0.1:{}", 2 * i + 2);
            assert_eq!(m.name, format!("m{i}"));
            assert_eq!(m.client_url, client);
            assert_eq!(m.data_dir, dir.join(format!("m{i}")));
            let value = |flag: &str| {
                let at = m.args.iter().position(|a| a == flag).unwrap();
                m.args[at + 1].clone()
            };
            assert_eq!(value("--name"), m.name);
            assert_eq!(value("--data-dir"), format!("/tmp/c/m{i}"));
            assert_eq!(value("--listen-client-urls"), client);
            assert_eq!(value("--advertise-client-urls"), client);
            assert_eq!(value("--listen-peer-urls"), peer);
            assert_eq!(value("--initial-advertise-peer-urls"), peer);
            assert_eq!(value("--initial-cluster"), cluster);
            assert_eq!(value("--initial-cluster-state"), "new");
            assert_eq!(value("--initial-cluster-token"), "t");
        }
    }

    #[test]
    fn free_ports_are_distinct() {
        let mut ports = free_ports(6).unwrap();
        assert!(ports.iter().all(|&p| p != 0));
        ports.sort_unstable();
        ports.dedup();
        assert_eq!(ports.len(), 6);
    }

    #[test]
    fn nothing_listening_does_not_answer() {
        let port = free_ports(1).unwrap()[0];
        assert!(!answers(&format!("http://127.0.0.1:{port}")));
        assert!(!answers("127.0.0.1:1"));
    }
}
