// The visualizer's benchmark in headless Chromium (run by `cargo xtask bench`): a scenario of
// 8 workers and about 1,000 events.
//
// * load to first timeline: from navigation start to the first timeline drawn (the app records
//   performance.now() then), over several cold loads in fresh browser profiles;
// * frame time during playback: per tick of the playback clock, the time from the tick to the
//   frame being rendered, styled and laid out (the app records it with ?bench).
import { BASE, launch, setRange } from "./browser.mjs";

const GOAL_FIRST_MS = 500;
const GOAL_P95_MS = 16;
const LOADS = 5;

const workers = [..."ABCDEFGH"].map((name, i) => ({ name, start_ms: i * 300, job: { work_ms: 150, writes: 20 } }));
const scenario = {
  version: 1,
  name: "eight-workers",
  seed: 3,
  lease_ttl_ms: 10000,
  latency_ms: { min: 10, max: 60 },
  workers,
  faults: [
    { kind: "pause", worker: "C", at: 4000, for: 15000 },
    { kind: "pause", worker: "F", at: 30000, for: 12000 },
  ],
};
const url = `${BASE}?bench#s=${Buffer.from(JSON.stringify(scenario)).toString("base64url")}`;

const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};
const ms = (x) => `${x.toFixed(1)} ms`;

const firsts = [];
for (let i = 0; i < LOADS; i++) {
  const b = await launch();
  try {
    const page = await b.context.newPage();
    await page.goto(url);
    const t = await page.waitForFunction(() => window.__fencepostFirstTimeline, null, { timeout: 30000 });
    firsts.push(await t.jsonValue());
  } finally {
    await b.close();
  }
}

const b = await launch();
let frames;
let events;
try {
  const page = await b.context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(url);
  await page.waitForSelector("ol.events li");
  events = await page.locator("ol.events li").count();
  // About six seconds of playback: 12× for a 74 s run.
  await setRange(page.getByLabel("Playback speed"), 11);
  await page.evaluate(() => (window.__fencepostFrames = []));
  await page.getByRole("button", { name: "Play" }).click();
  await page.waitForFunction(
    () => document.querySelector(".playbar .play")?.getAttribute("aria-label") === "Play",
    null,
    { timeout: 60000, polling: 250 },
  );
  frames = await page.evaluate(() => window.__fencepostFrames);
  if (errors.length) throw new Error(`errors on the page: ${errors.join("; ")}`);
} finally {
  await b.close();
}

const first = { median: quantile(firsts, 0.5), worst: Math.max(...firsts) };
const p50 = quantile(frames, 0.5);
const p95 = quantile(frames, 0.95);
console.log(`visualizer: ${workers.length} workers, ${events} events`);
console.log(
  `  load to first timeline: median ${ms(first.median)}, worst ${ms(first.worst)} over ${LOADS} cold loads (goal <= ${GOAL_FIRST_MS} ms)`,
);
console.log(
  `  playback frame time: p50 ${ms(p50)}, p95 ${ms(p95)}, max ${ms(Math.max(...frames))} over ${frames.length} frames (goal p95 <= ${GOAL_P95_MS} ms)`,
);
const misses = [];
if (first.median > GOAL_FIRST_MS) misses.push("load to first timeline");
if (p95 > GOAL_P95_MS) misses.push("p95 frame time");
if (frames.length < 100) misses.push(`too few frames measured (${frames.length})`);
if (misses.length) {
  console.log(`  over goal: ${misses.join(", ")}`);
  process.exit(1);
}
console.log("  within goals");
