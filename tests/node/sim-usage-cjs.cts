// The CommonJS view of fencepost/sim's declarations.
import sim = require("fencepost/sim");

const r = sim.run("paused-worker", { fencing: false });
const broken: sim.Invariant[] = r.verdict.violations.map((v) => v.invariant);
void broken;
