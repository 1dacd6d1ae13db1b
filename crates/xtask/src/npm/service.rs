//! The real lease service the packaging fixtures hold leases from: a host of `fencepost/service`
//! (the example on workerd or on Deno, from tests/edge's pinned npm packages) started around a
//! fixture's command by `tests/lease-service/with-service.mjs`, which gives the command its base
//! URL in `FENCEPOST_SERVICE` and stops the host after it.

use std::ffi::OsStr;

use crate::Result;
use crate::tools::{Cmd, root};

/// Which host of the example service a fixture runs against.
#[derive(Clone, Copy)]
pub enum Host {
    Workerd,
    Deno,
}

impl Host {
    fn name(self) -> &'static str {
        match self {
            Host::Workerd => "workerd",
            Host::Deno => "deno",
        }
    }
}

/// `program` run by with-service.mjs next to a fresh `host`; `cors_origin` is the one page origin
/// the service lets call it from a browser.
pub fn with_service(
    host: Host,
    cors_origin: Option<&str>,
    program: impl AsRef<OsStr>,
) -> Result<Cmd> {
    // The runtimes come from tests/edge (installed with `npm ci` there when missing).
    let (_, bin) = crate::edge::runtimes()?;
    let mut cmd = Cmd::new("node")
        .arg(root().join("tests/lease-service/with-service.mjs"))
        .args(["--host", host.name()]);
    if let Some(origin) = cors_origin {
        cmd = cmd.args(["--cors-origin", origin]);
    }
    Ok(cmd
        .arg("--")
        .arg(program.as_ref())
        .env("WORKERD_BIN", bin.join("workerd"))
        .env("DENO_BIN", bin.join("deno"))
        .env("DENO_NO_UPDATE_CHECK", "1"))
}
