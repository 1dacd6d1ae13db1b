/// <reference lib="esnext.disposable" />
// Types of `fencepost/sim`, the deterministic simulator of the npm package `fencepost` (every entry
// point: Node, Workers, Deno, browsers, slim).
//
// Scenarios, templates, scopes, traces and reports have the shapes of the simulator's JSON (the
// scenario files and `fencepost ... --format json`), snake_case field names included, so they move
// between files, the CLI and JavaScript unchanged; `toJson` writes any of them as the CLI does.
// Seeds and tokens are bigints wherever the module hands them out (a scenario takes a number or a
// bigint), and so are the times of a write log the history checker read; the simulator's times
// (virtual milliseconds) and counts are numbers.
//
// Misuse (a wrong type, a value out of range, an unknown field or option) throws a TypeError or
// RangeError whose message starts with the argument, and for a scenario with the field
// (`scenario.workers[1].job.work_ms: ...`). A violated invariant is a result, never an error.
//
// Scenarios, templates and scopes are copied (own enumerable properties, each read once; a getter
// or proxy that throws becomes a TypeError naming the field) and handed to the module as objects;
// traces and reports come back as new objects built by setting their properties, so a setter on
// Object.prototype or Array.prototype runs then, and its exception reaches the caller.
//
// The simulator's WebAssembly memory ends at 4 GiB. A run, sweep or search that could need more
// than is left (live objects may hold 3 GiB between them, one search 2 GiB; the bound follows
// from `maxEvents` or `maxStates`) is refused with a RangeError naming that option: `free()`
// runs, sweeps and searches no longer needed, or ask for fewer events or states. A history line,
// or a piece of a log checkHistory reads (4,096 lines at a time), that could need more than is
// left is refused the same way (naming `line` or `lines`). Any call for which the memory cannot
// grow as far as it may need (the host caps it, or it is full) throws a RangeError and changes
// nothing. Memory the module has grown to is never given back to the system: freed objects'
// blocks are reused (those at the top of its heap for any size), but a sweep or search as large
// as the limits allow may only fit in a fresh module.

// ---------------------------------------------------------------------------------------------
// Scenarios.

/** An unsigned 64-bit integer: a number (a safe integer) or a bigint. */
export type U64 = number | bigint;

/** One-way network latency, drawn uniformly from `min..=max` per message. */
export interface Latency {
  min: number;
  max: number;
}

/** What protects the storage, and how careful workers are. */
export interface Protections {
  /** The storage checks tokens (a fencepost guard); false: plain last-writer-wins. Default true. */
  fencing?: boolean;
  /** Increasing numbers ("ordered", the default) or unique but unordered ids ("uuid"). */
  token_kind?: "ordered" | "uuid";
  /** Writes carry an idempotency key and the storage dedupes retries. */
  idempotency_keys?: boolean;
  /** Before each write the worker renews its lease and writes only if that succeeded. */
  check_before_write?: boolean;
}

/** A worker's job: acquire, then `writes` times (work, write), then release. */
export interface Job {
  /** Time spent working before each write, on the worker's own clock. */
  work_ms: number;
  /** 1 to 1000 (default 1). */
  writes?: number;
  /** Renew the lease this often while holding it. */
  renew_every_ms?: number | null;
  /** Resend a write whose acknowledgement has not arrived after this long. */
  retry_after_ms?: number | null;
}

export interface Worker {
  /** 1 to 32 bytes, unique; not "lock", "storage" or "net". */
  name: string;
  /** When it starts trying to acquire the lock (default 0). */
  start_ms?: number;
  job: Job;
}

/** A point in a worker's job where a pause can be injected. */
export type Point = "after_acquire" | "after_renew_check" | "before_write";

/** Something that goes wrong. */
export type Fault =
  /** The worker freezes (GC pause, VM suspend) from `at` for `for` ms. */
  | { kind: "pause"; worker: string; at: number; for: number }
  /** The worker freezes the `nth` time (1-based, default 1) it reaches `point`. */
  | { kind: "pause_at"; worker: string; point: Point; nth?: number; for: number }
  /** The worker's `nth_write` (1-based) is held in the network `for` ms longer than its latency. */
  | { kind: "hold"; worker: string; nth_write: number; for: number }
  /** Messages to and from the worker sent during `from..to` are stuck until `to`. */
  | { kind: "partition"; worker: string; from: number; to: number }
  /** The worker's clock is off: a fixed skew, a drift (ppm), and/or a jump at one instant. */
  | { kind: "clock"; worker: string; skew_ms?: number; drift_ppm?: number; jump_at?: number | null; jump_ms?: number }
  /** The worker dies at `at`; a fresh process starts `restart_after` ms later, if given. */
  | { kind: "crash"; worker: string; at: number; restart_after?: number | null }
  /** The lock service restarts, restoring its persisted state or not. */
  | { kind: "authority_restart"; at: number; persisted: boolean };

export type FaultKind = Fault["kind"];

/** A whole scenario (`"version": 1`). Unknown fields are refused. */
export interface Scenario {
  version: 1;
  /** A short name, shown in traces (at most 64 bytes). */
  name?: string;
  /** Seed of the simulator's random numbers (latency draws). */
  seed?: U64;
  /** Lease length granted by the lock service (> 0). */
  lease_ttl_ms: number;
  /** Lock-delay after an expiry (0: none). */
  lock_delay_ms?: number;
  /** First fencing token the lock service issues (default 1). */
  first_token?: U64;
  latency_ms?: Latency;
  protections?: Protections;
  /** 1 to 64 workers. */
  workers: Worker[];
  /** At most 256 faults. */
  faults?: Fault[];
  /** Stop the simulation at this instant even if work remains. */
  end_ms?: number | null;
}

// ---------------------------------------------------------------------------------------------
// Traces.

/** An invariant, checked after every event. */
export type Invariant = "I1" | "I2" | "I3" | "I4" | "I5";

/** One broken invariant: which, at which event, and why in one sentence. */
export interface Violation {
  invariant: Invariant;
  seq: number;
  t_ms: number;
  because: string;
}

export interface Verdict {
  /** Whether every invariant held. */
  ok: boolean;
  /** Each violation, in event order (each invariant at most 8 times). */
  violations: Violation[];
}

/** The fields a message adds to its send and deliver events, by what it says. */
export type MessageFields =
  | { what: "acquire" | "release" | "lost" | "released" | "renew" | "renew (check)" }
  | { what: "write" | "write (retry)"; op: number }
  | { what: "granted" | "renewed"; expires_at: number }
  | { what: "denied"; retry_at: number }
  | { what: "ack" | "rejected"; op: number; accepted: boolean };

export type Message = MessageFields["what"];

/** A message left the actor for `to`, due at `deliver_at` (a worker process that has died by then never gets it).
 * `believed_until`: for a renew a worker sends, until when its keeper counts the lease safe as it
 * sends (real time; what the answer can extend). */
export type SendDetail = { msg: number; to: string; deliver_at: number; believed_until?: number } & MessageFields;

/** A message reached the actor. `believed_until`: for a grant or renewal reaching a worker, until
 * when the worker now believes it holds the lock (real time, from its own clock): its keeper's
 * safe-until. `asked_at`: for a renewal, when the renew it answers left the worker (the keeper
 * counts the new safe-until from there). */
export type DeliverDetail = {
  msg: number;
  from: string;
  sent_at: number;
  believed_until?: number;
  asked_at?: number;
} & MessageFields;

export interface GrantDetail {
  holder: string;
  expires_at: number;
  /** The holder re-entered the lease it had (same token). */
  reentry: boolean;
}

export interface DenyDetail {
  requester: string;
  /** Who holds it (absent during a lock-delay). */
  holder?: string;
  until: number;
}

export interface RenewDetail {
  holder: string;
  expires_at: number;
}

export interface HolderDetail {
  holder: string;
}

export interface ReleaseDetail {
  holder: string;
  /** Whether the caller held the lock. */
  ok: boolean;
}

export interface ExpireDetail {
  holder: string;
  /** No new grant before this (lock-delay). */
  free_at: number;
}

/** A worker's keeper says, for the first time, that its lease is lost: the moment the worker knows. */
export interface LeaseLostDetail {
  /** `expired`: its clock reached safe-until with no newer answer; `refused`: the lock service refused a renewal. */
  why: "expired" | "refused";
  /** The safe-until its keeper had counted (real time). */
  believed_until?: number;
}

export interface PauseDetail {
  /** When the worker resumes. */
  until: number;
}

export interface WriteAcceptedDetail {
  writer: string;
  op: number;
  /** The highest token before, if any (ordered tokens with fencing). */
  previous?: bigint;
}

export interface WriteRejectedDetail {
  writer: string;
  op: number;
  reason: "stale" | "uuid_reused";
  /** The highest token the storage had accepted. */
  highest?: bigint;
}

export interface WriteDetail {
  writer: string;
  op: number;
}

export interface JobDoneDetail {
  end: "completed" | "fenced_out" | "lease_lost";
}

export interface RestartDetail {
  /** 1 for the first restart. */
  incarnation: number;
}

export interface ClockJumpDetail {
  by_ms: number;
}

export interface AuthorityRestartDetail {
  persisted: boolean;
  /** The token the next grant will carry (absent: exhausted). */
  next_token?: bigint;
}

/** Fields every event has; `kind` says what `detail` holds. */
export interface EventOf<K extends string, D> {
  /** Position in the trace, from 0. */
  seq: number;
  /** Virtual time. */
  t_ms: number;
  /** "lock", "storage" or a worker's name. */
  actor: string;
  kind: K;
  /** The fencing token involved, if any. */
  token: bigint | null;
  detail: D;
}

/** Nothing more to say. */
export type NoDetail = Record<string, never>;

/** One event of a trace. */
export type TraceEvent =
  | EventOf<"send", SendDetail>
  | EventOf<"deliver", DeliverDetail>
  | EventOf<"grant", GrantDetail>
  | EventOf<"deny", DenyDetail>
  | EventOf<"renew", RenewDetail>
  | EventOf<"renew_lost", HolderDetail>
  | EventOf<"release", ReleaseDetail>
  | EventOf<"expire", ExpireDetail>
  | EventOf<"lease_lost", LeaseLostDetail>
  | EventOf<"pause_start", PauseDetail>
  | EventOf<"pause_end", NoDetail>
  | EventOf<"write_accepted", WriteAcceptedDetail>
  | EventOf<"write_rejected", WriteRejectedDetail>
  | EventOf<"write_deduplicated", WriteDetail>
  | EventOf<"job_done", JobDoneDetail>
  /** `token`: that of a lease the lock service still gave the crashed process (left to run out). */
  | EventOf<"crash", NoDetail>
  | EventOf<"restart", RestartDetail>
  | EventOf<"clock_jump", ClockJumpDetail>
  | EventOf<"authority_restart", AuthorityRestartDetail>;

export type EventKind = TraceEvent["kind"];

/** A write the storage applied. */
export interface AppliedWrite {
  writer: string;
  token: bigint;
  op: number;
  t_ms: number;
  seq: number;
}

/** A whole run: the same fields, in the same order, as `fencepost sim --format json`. */
export interface Trace {
  scenario: string;
  seed: bigint;
  /** Whether the storage checked tokens. */
  fencing: boolean;
  /** Worker names, by index. */
  workers: string[];
  events: TraceEvent[];
  /** Whether the run stopped early (the scenario's `end_ms`, or the event limit). */
  truncated: boolean;
  verdict: Verdict;
  /** The storage's document at the end: applied writes in order. */
  document: AppliedWrite[];
}

/** What one worker believes. */
export interface WorkerBelief {
  name: string;
  /** The token it thinks it holds. */
  holds: bigint | null;
  /** Until when it thinks so. */
  until: number | null;
  /** Frozen until this instant. */
  paused_until: number | null;
  /** Its process is down. */
  crashed: boolean;
  /** It believes it holds a lease the lock service no longer gives it. */
  zombie: boolean;
}

/** Everyone's view at one instant. */
export interface Beliefs {
  t_ms: number;
  workers: WorkerBelief[];
  /** The lock service's real holder. */
  authority: { worker: string; token: bigint; until: number } | null;
  storage: {
    /** Highest token it accepted. */
    highest: bigint | null;
    /** Writes it applied. */
    writes: number;
    /** Who wrote the document last. */
    last_writer: string | null;
  };
}

export interface RunOptions {
  /** Force the storage's token check on or off (default: as the scenario says). */
  fencing?: boolean;
  /** Use this seed instead of the scenario's. */
  seed?: U64;
  /** Stop at the first step that reaches this many events (1 to 1,000,000, the default), keeping
   * that step's events (a few at most, so a trace may hold slightly more). A run that could need more
   * memory than is left is refused (see the top of this file); one that ends within 10,000
   * events never is, while there is room for that many. */
  maxEvents?: number;
}

/** One simulated run, kept in the module for its explanations and beliefs. */
export class SimRun {
  private constructor();
  /** The whole trace (built on first use, then the same object). */
  readonly trace: Trace;
  readonly verdict: Verdict;
  /** One plain sentence saying what event `seq` means. */
  explain(seq: number): string;
  /** What every actor believes at `tMs` (after every event at or before it). */
  beliefsAt(tMs: number): Beliefs;
  /** The trace as JSON text, byte for byte what `fencepost sim --format json` prints. */
  toJson(): string;
  /** Frees the module memory now (otherwise it is freed when this object is collected). */
  free(): void;
  /** `free()`, for `using` (where the runtime has `Symbol.dispose`). */
  [Symbol.dispose](): void;
}

/** Runs a scenario, or the preset of that name, or a prepared scenario. */
export function run(scenario: Scenario | string | PreparedScenario, options?: RunOptions): SimRun;

/**
 * A scenario read and checked once, for many runs: `run()` of a scenario object copies, writes
 * and reads it again every time, which costs more than a short run itself. Later changes to the
 * object it was made from do not reach it.
 */
export class PreparedScenario {
  private constructor();
  /** Runs it, with the options of `run()`. */
  run(options?: RunOptions): SimRun;
  /** Frees the module memory now (otherwise it is freed when this object is collected). */
  free(): void;
  /** `free()`, for `using` (where the runtime has `Symbol.dispose`). */
  [Symbol.dispose](): void;
}

/** Reads and checks a scenario (or the preset of that name) once, for many runs. */
export function prepare(scenario: Scenario | string): PreparedScenario;

/** JSON text as the simulator writes it (compact, keys in order, bigints as plain integers). */
export function toJson(value: object): string;

// ---------------------------------------------------------------------------------------------
// Presets and templates.

/** A named story: its scenario and the invariants it breaks with fencing forced on and off. */
export interface Preset {
  name: string;
  title: string;
  story: string;
  scenario: Scenario;
  with_fencing: Invariant[];
  without_fencing: Invariant[];
}

/** Every preset, the paused-worker story first (fresh objects on every call). */
export function presets(): Preset[];

/** An inclusive range, or a plain number for a fixed value. */
export type Between = number | { min: number; max: number };

export interface WorkersTemplate {
  /** 1 to 26 workers, named A, B, ... */
  count: Between;
  start_ms?: Between;
  work_ms: Between;
  writes?: Between;
  renew?: { probability: number; every_ms: Between };
  retry?: { probability: number; after_ms: Between };
}

export type FaultTemplate =
  | { kind: "pause"; probability: number; at: Between; for: Between }
  | { kind: "pause_at"; probability: number; points?: Point[]; nth?: Between; for: Between }
  | { kind: "hold"; probability: number; nth_write?: Between; for: Between }
  | { kind: "partition"; probability: number; from: Between; for: Between }
  | {
      kind: "clock";
      probability: number;
      skew_ms?: Between;
      drift_ppm?: Between;
      jump_at?: Between | null;
      jump_ms?: Between;
    }
  | { kind: "crash"; probability: number; at: Between; restart_after?: Between | null }
  | { kind: "authority_restart"; probability: number; at: Between; persisted: boolean };

/** A family of scenarios, one per seed (`"version": 1`). */
export interface Template {
  version: 1;
  name?: string;
  lease_ttl_ms: Between;
  lock_delay_ms?: Between;
  first_token?: U64;
  latency_ms?: Latency;
  protections?: Protections;
  workers: WorkersTemplate;
  faults?: FaultTemplate[];
  end_ms?: number | null;
}

/** The built-in templates (fresh objects on every call). */
export function templates(): Array<{ name: string; template: Template }>;

// ---------------------------------------------------------------------------------------------
// Seed sweeps.

export interface SweepOptions {
  /** How many seeds (required). */
  seeds: number;
  /** The first seed (default 0). */
  firstSeed?: U64;
  /** Run each scenario with fencing forced on and off ("both", the default), or one of them. */
  modes?: "both" | "fencingOn" | "fencingOff";
  /** Violating seeds kept per mode (default 5). */
  keepSeeds?: number;
  /** Event limit of each run (default 100,000; at most 2,872,179, what the simulator's memory can
   * hold; the sweep is also refused while live objects, or memory the module grew to before,
   * leave too little). */
  maxEvents?: number;
}

/** Counts for one way of running. */
export interface ModeReport {
  violating_runs: number;
  /** Runs that violated each invariant. */
  by_invariant: Record<Invariant, number>;
  /** Runs stopped by the event limit. */
  truncated_runs: number;
  /** The first violating seeds. */
  first_violating: Array<{ seed: bigint; broken: Invariant[] }>;
}

export interface SweepReport {
  name: string;
  first_seed: bigint;
  seeds: number;
  /** Seeds run so far (each once per mode). */
  runs: number;
  fencing_on: ModeReport | null;
  fencing_off: ModeReport | null;
}

export interface Progress {
  done: number;
  total: number;
}

/** A seed sweep that advances in slices. */
export class Sweep {
  /** `source`: a built-in template or preset name, a scenario, or a template. */
  constructor(source: string | Scenario | Template, options: SweepOptions);
  /** Runs the next `n` seeds (default 100). */
  step(n?: number): Progress;
  /** Runs every remaining seed. */
  run(): SweepReport;
  readonly done: number;
  readonly total: number;
  readonly finished: boolean;
  /** What it found so far. */
  readonly report: SweepReport;
  free(): void;
  /** `free()`, for `using` (where the runtime has `Symbol.dispose`). */
  [Symbol.dispose](): void;
}

// ---------------------------------------------------------------------------------------------
// Exhaustive search.

/** Which faults the search may inject, and how many at most. */
export interface Scope {
  /** Most faults on one path (at most 16). */
  max_faults: number;
  /** Decision points where a worker may pause (default all three). */
  points?: Point[];
  /** Pause lengths (at most 8). */
  pause_ms?: number[];
  /** Extra delays of a held write (at most 8). */
  hold_ms?: number[];
  /** Clock jumps (negative: back; at most 8). */
  jump_ms?: number[];
  /** Workers that may be hit (empty: all). */
  workers?: string[];
}

export interface SearchOptions {
  /** Faults on one path for the default scope: pauses, held writes and clock jumps of half, one
   * and one and a half lease TTLs (default 2). */
  maxFaults?: number;
  /** A whole scope instead. */
  scope?: Scope;
  /** Force the storage's token check on or off (default: as the scenario says). */
  fencing?: boolean;
  /** Do not expand states at this depth (default 10,000). */
  maxDepth?: number;
  /** Stop after this many distinct states (default 1,000,000; at most 1,483,149, as many as fit in
   * the 2 GiB one search may take). */
  maxStates?: number;
  /** Stop at the first, so shortest, counterexample (default true). */
  stopAtFirst?: boolean;
}

/** A shortest path to a violation, as a scenario `run` replays. */
export interface Counterexample {
  depth: number;
  invariant: Invariant;
  broken: Invariant[];
  t_ms: number;
  /** The faults the search injected, in the order they struck. */
  faults: Fault[];
  /** The world (clock skew and drift included) with those faults. */
  scenario: Scenario;
}

export interface SearchReport {
  fencing: boolean;
  states_explored: number;
  states_generated: number;
  distinct_states: number;
  depth: number;
  violating_states: number;
  /** Every state of the scope was explored. */
  complete: boolean;
  depth_limited: boolean;
  counterexample: Counterexample | null;
}

/** A breadth-first search that advances in slices. */
export class Search {
  /** `scenario`: a preset name or a scenario. Its world is searched: the scenario without its
   * faults, but for clock skew and drift, which describe the machines and stay (a
   * counterexample's `scenario` keeps them, and a clock jump in its `faults` carries the
   * worker's skew and drift). */
  constructor(scenario: Scenario | string, options?: SearchOptions);
  /** Expands up to `budget` states (default 10,000); returns whether the search has finished. */
  step(budget?: number): boolean;
  run(): SearchReport;
  readonly finished: boolean;
  readonly report: SearchReport;
  free(): void;
  /** `free()`, for `using` (where the runtime has `Symbol.dispose`). */
  [Symbol.dispose](): void;
}

/** Searches to the end. */
export function search(scenario: Scenario | string, options?: SearchOptions): SearchReport;

// ---------------------------------------------------------------------------------------------
// The history checker.

/** A write the storage should not have applied. */
export interface WriteFinding {
  /** Line of the offending write (1-based). */
  line: number;
  kind: "token_regression" | "stale_owner";
  resource: string;
  writer: string;
  token: bigint;
  /** The offending write's `t`, exactly as logged (any unsigned 64-bit integer). */
  t: bigint;
  /** The newer write it came after. */
  newer_writer: string;
  newer_token: bigint;
  newer_line: number;
  /** The nemeses active at that instant (a campaign's history; absent when none was). */
  nemeses?: string[];
}

/** A campaign's grant whose token is not above an earlier grant of the lock. */
export interface GrantFinding {
  line: number;
  kind: "grant_order";
  lock: string;
  process: string;
  token: bigint;
  t: bigint;
  earlier_process: string;
  earlier_token: bigint;
  earlier_line: number;
  nemeses?: string[];
}

/** Acknowledged writes above their resource's final token (line 0: at the end, no final row). */
export interface AckLostFinding {
  line: number;
  kind: "ack_lost";
  resource: string;
  t: bigint;
  writes: number;
  /** Whether `writes` is a lower bound. */
  at_least: boolean;
  process: string;
  token: bigint;
  write_line: number;
  final_token: bigint | null;
  nemeses?: string[];
}

/** Two processes believing they held one lock at once (line 0: known at the end). */
export interface OverlapFinding {
  line: number;
  kind: "belief_overlap";
  lock: string;
  processes: string[];
  t: bigint;
  from: number;
  to: number;
  beyond_drift: boolean;
  began_line: number;
  nemeses?: string[];
}

/** Something a history shows should not have happened. */
export type Finding = WriteFinding | GrantFinding | AckLostFinding | OverlapFinding;

/** A line that is not a write record. */
export interface Malformed {
  line: number;
  message: string;
}

export interface LineReport {
  malformed: Malformed | null;
  findings: Finding[];
}

export interface HistorySummary {
  lines: number;
  accepted: number;
  rejected: number;
  malformed: number;
  token_regressions: number;
  stale_owners: number;
  resources: number;
}

export interface HistoryReport {
  summary: HistorySummary;
  findings: Finding[];
  malformed: Malformed[];
}

/** Checks a storage's write log line by line. */
export class HistoryChecker {
  constructor();
  /** Checks the next line, e.g. `{"t":1000,"resource":"r","writer":"A","token":33,"result":"ok"}`.
   * A line longer than 1 MiB of UTF-8 is malformed, as in `checkHistory` and `fencepost check`. */
  check(line: string): LineReport;
  readonly summary: HistorySummary;
  free(): void;
  /** `free()`, for `using` (where the runtime has `Symbol.dispose`). */
  [Symbol.dispose](): void;
}

/** Checks a whole log: JSON Lines text or an array of lines; keeps the first `keep` (default 100)
 * findings and malformed lines. A line longer than 1 MiB of UTF-8 is malformed ("longer than
 * 1048576 bytes"), and the lines after it are checked. Text with a lone surrogate (not well-formed Unicode, which no
 * log file holds) is refused with a RangeError naming its line, here and in `check`. */
export function checkHistory(lines: string | readonly string[], options?: { keep?: number }): HistoryReport;

// ---------------------------------------------------------------------------------------------
// Loading.

/** What `init` can load the module from. */
export type ModuleSource =
  | WebAssembly.Module
  | ArrayBuffer
  | ArrayBufferView
  | Response
  | PromiseLike<Response>
  | URL
  | string;

/** Loads the simulator's module (every entry but `fencepost/sim/slim` has already done it). */
export function init(input: ModuleSource): Promise<void>;
/** Loads it synchronously from a compiled module or its bytes. */
export function initSync(module: WebAssembly.Module | ArrayBuffer | ArrayBufferView): void;
