//! The Node benchmark of the package (`cargo xtask bench-npm`, and part of `cargo xtask bench`).

use super::{dist, fixture, pack};
use crate::Result;
use crate::tools::{Cmd, step};

/// The Node part of `cargo xtask bench`: admit through the module against a plain-JS guard in one
/// process, admitMany per token, acquire + release, and simulator runs of the paused-worker
/// story per second. Prints figures; asserts no times.
/// `native_runs`: the simulator's native paused-worker runs/s measured in the same run, which the
/// benchmark prints its runs from JavaScript against (absent when run alone).
pub fn bench(native_runs: Option<f64>) -> Result {
    dist()?;
    let tarball = pack()?;
    let node = fixture("node", &tarball)?;
    step("npm package: Node benchmark");
    let mut cmd = Cmd::new("node").arg("bench.mjs").cwd(&node);
    if let Some(runs) = native_runs {
        cmd = cmd.env("SIM_NATIVE_RUNS", format!("{runs}"));
    }
    cmd.run()
}
