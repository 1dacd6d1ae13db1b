// The story in a page, through the package's `browser` exports (mapped by the page's import map, or
// bundled by Vite): the core's guard, then the simulator's paused-worker run with fencing on and off.
import { FenceGuard, LeaseAuthority } from "fencepost";
import { run } from "fencepost/sim";

const auth = new LeaseAuthority({ ttlMs: 30_000, firstToken: 33n });
const a = auth.acquire("A", 0);
const b = auth.acquire("B", 45_000);
const guard = new FenceGuard();
const steps = [a, b, guard.admit(b.token), guard.admit(a.token)];
const json = (value) => JSON.stringify(value, (_, v) => (typeof v === "bigint" ? `${v}n` : v));
const text = json(steps);
document.getElementById("story").textContent = text;

const fenced = run("paused-worker");
const sim = json({
  rejected: fenced.trace.events
    .filter((e) => e.kind === "write_rejected")
    .map((e) => ({ actor: e.actor, token: e.token, highest: e.detail.highest, because: fenced.explain(e.seq) })),
  fencingOff: run("paused-worker", { fencing: false }).verdict.violations.map((v) => [v.invariant, v.seq]),
});
document.getElementById("sim").textContent = sim;
// `using` support is set up on load: a bundler must not have dropped it.
// (This Chromium has Symbol.dispose; a browser without it would fail here rather than pass.)
window.fencepostDisposable = typeof Symbol.dispose === "symbol" && typeof guard[Symbol.dispose] === "function";
window.fencepostSim = sim;
window.fencepostStory = text;
