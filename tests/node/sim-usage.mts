// Type-checked (tsc --noEmit --strict) use of fencepost/sim's declarations: the paused-worker
// story, narrowing of events by kind, presets, sweeps, searches and the history checker, and
// calls the declarations must refuse (each @ts-expect-error fails the check if it were accepted).
import {
  HistoryChecker,
  PreparedScenario,
  Search,
  Sweep,
  checkHistory,
  prepare,
  presets,
  run,
  search,
  templates,
  toJson,
  type Beliefs,
  type Fault,
  type Invariant,
  type Scenario,
  type SearchReport,
  type SimRun,
  type SweepReport,
  type Template,
  type Trace,
  type TraceEvent,
  type Verdict,
} from "fencepost/sim";
import { init, initSync } from "fencepost/sim/slim";

const scenario: Scenario = {
  version: 1,
  name: "paused-worker",
  seed: 1,
  lease_ttl_ms: 30_000,
  first_token: 33n,
  latency_ms: { min: 50, max: 50 },
  workers: [
    { name: "A", job: { work_ms: 2_000 } },
    { name: "B", start_ms: 10_000, job: { work_ms: 1_000, writes: 2, retry_after_ms: null } },
  ],
  faults: [
    { kind: "pause", worker: "A", at: 1_000, for: 45_000 },
    { kind: "clock", worker: "B", drift_ppm: -1_000 },
    { kind: "authority_restart", at: 5_000, persisted: true },
  ],
};

const r: SimRun = run(scenario, { fencing: true, seed: 2n, maxEvents: 10_000 });
const prepared: PreparedScenario = prepare(scenario);
const again: SimRun = prepared.run({ seed: 3n });
const same: SimRun = run(prepared);
prepared.free();
const trace: Trace = r.trace;
const seed: bigint = trace.seed;

/** What a storage's refusal says, narrowed by the event's kind. */
function refusal(e: TraceEvent): string | undefined {
  if (e.kind !== "write_rejected") return undefined;
  const highest: bigint | undefined = e.detail.highest;
  const reason: "stale" | "uuid_reused" = e.detail.reason;
  return `${e.detail.writer} refused with ${e.token} (${reason}, highest ${highest})`;
}
const refusals = trace.events.map(refusal).filter((s): s is string => s !== undefined);

for (const e of trace.events) {
  switch (e.kind) {
    case "send":
      if (e.detail.what === "write") void (e.detail.op + e.detail.deliver_at);
      if (e.detail.what === "granted") void e.detail.expires_at;
      break;
    case "grant":
      void [e.detail.holder, e.detail.reentry, e.token];
      break;
    case "authority_restart":
      void e.detail.next_token;
      break;
    case "job_done":
      void (e.detail.end === "fenced_out");
      break;
    case "lease_lost":
      void (e.detail.why === "expired" ? e.detail.believed_until : 0);
      break;
    case "deliver":
      void e.detail.asked_at;
      break;
    default:
  }
}

const verdict: Verdict = r.verdict;
const first: Invariant | undefined = verdict.violations[0]?.invariant;
const sentence: string = r.explain(0);
const beliefs: Beliefs = r.beliefsAt(46_000);
const zombie: boolean | undefined = beliefs.workers[0]?.zombie;
const holder: string | undefined = beliefs.authority?.worker;
const json: string = r.toJson() + toJson(scenario);
r.free();

const story = presets()[0];
const expected: Invariant[] = story ? story.without_fencing : [];
const template: Template | undefined = templates()[0]?.template;
const sweep = new Sweep(template ?? "pauses-holds-skew", { seeds: 100, firstSeed: 0n, modes: "both" });
while (!sweep.finished) sweep.step(25);
const report: SweepReport = sweep.report;
const badSeeds: bigint[] = report.fencing_off?.first_violating.map((h) => h.seed) ?? [];

const s = new Search("paused-worker", { fencing: false, scope: { max_faults: 1, points: ["after_acquire"], pause_ms: [45_000] } });
while (!s.step(1_000));
const found: SearchReport = s.report;
const faults: Fault[] = found.counterexample?.faults ?? [];
const shortest: SearchReport = search(scenario, { maxFaults: 1, stopAtFirst: true });

const checker = new HistoryChecker();
const line = checker.check('{"t":1,"resource":"r","writer":"A","token":33,"result":"ok"}');
const regressions: number = checker.summary.token_regressions + line.findings.length;
const whole = checkHistory(["{}"], { keep: 10 });
const malformed: number = whole.malformed.length;

const loading: Promise<void> = init(new URL("file:///fencepost_sim_bg.wasm"));
initSync(new Uint8Array(0));

void [seed, refusals, first, sentence, zombie, holder, json, expected, badSeeds, faults, shortest, regressions, malformed, loading];

// @ts-expect-error scenarios need a version and workers
run({ lease_ttl_ms: 1 });
// @ts-expect-error fault kinds are a closed set
const melt: Fault = { kind: "melt", worker: "A", at: 1, for: 2 };
// @ts-expect-error a pause needs its length
const short: Fault = { kind: "pause", worker: "A", at: 1 };
// @ts-expect-error fencing is a boolean
run("paused-worker", { fencing: "off" });
// @ts-expect-error times are numbers
run(scenario).beliefsAt(1n);
// @ts-expect-error sweeps need a number of seeds
new Sweep("paused-worker", {});
// @ts-expect-error tokens are bigints
const n: number = trace.events[0]!.token!;
// @ts-expect-error SimRun objects come from run()
new (r.constructor as typeof import("fencepost/sim").SimRun)();
void [melt, short, n];

// `using` frees a run at the end of its block.
function verdictOf(): boolean {
  using fenced = run("paused-worker");
  return fenced.verdict.ok;
}
void verdictOf;
