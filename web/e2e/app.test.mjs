// End-to-end tests of the visualizer in headless Chromium (release build, served on 127.0.0.1).
// Run by `cargo xtask test`: BASE_URL names the server, SHOT_DIR where screenshots go.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { BASE, open, playToEnd, setRange, text } from "./browser.mjs";
import { browserSession } from "./session.mjs";

const SHOTS = process.env.SHOT_DIR;
const { page, context, track, shot } = browserSession();

async function download(p, button) {
  const [d] = await Promise.all([p.waitForEvent("download"), p.getByRole("button", { name: button }).click()]);
  return { name: d.suggestedFilename(), text: readFileSync(await d.path(), "utf8") };
}

const events = (p) => p.locator("ol.events li").allInnerTexts();

/// The narration of the paused-worker story's first two events, as stepping reaches them.
const FIRST_EVENT = "0 s — A sends acquire to lock, due at 0.050 s";
const SECOND_EVENT = "0.050 s — acquire from A (sent at 0 s) reaches lock";

/// Where virtual time `secs` is on a timeline's SVG (from its axis labels), in CSS pixels.
async function xOf(svg, secs) {
  const ticks = await svg.locator(".tick text").evaluateAll((ts) =>
    Object.fromEntries(ts.map((t) => [t.textContent, Number(t.getAttribute("x"))])),
  );
  return ticks["0 s"] + ((ticks["10 s"] - ticks["0 s"]) / 10) * secs;
}

/// The top of lane `i` on a timeline's SVG (0: the lock service, 1: worker A, 2: worker B, then
/// the storage), read from its lane bands as `xOf` reads the axis, not copied from the Rust.
async function laneTop(svg, i) {
  return Number(await svg.locator(".lane-band").nth(i).getAttribute("y"));
}

/// Whether an element lies wholly inside the window.
const inView = (locator) =>
  locator.evaluate((el) => {
    const r = el.getBoundingClientRect();
    return r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight;
  });

async function openTourAt(p, chapter) {
  await p.evaluate(() => localStorage.clear());
  await p.goto(BASE);
  await p.waitForSelector(".tour");
  const tour = p.getByRole("region", { name: "Guided tour" });
  for (let i = 1; i < chapter; i++) await tour.getByRole("button", { name: "Next →" }).click();
  return tour;
}

describe("the paused-worker story", () => {
  test("played to the end, the storage refuses A's token 33: ✗ 33 < 34, highest 34", async () => {
    const p = await page();
    // Before playing, nothing has been written or refused.
    assert.equal(await p.locator("svg.lanes .badge.rejected").count(), 0);
    assert.equal(await text(p, ".storage-panel .highest"), "highest none yet");
    await playToEnd(p);
    const rejected = p.locator("#timeline-main svg.lanes .badge.rejected");
    assert.equal(await rejected.count(), 1);
    assert.equal(await rejected.isVisible(), true);
    assert.equal(await rejected.textContent(), "✗ 33 < 34");
    // Event 30: the storage refuses A's write (A's keeper told it of the loss at event 28).
    assert.equal(await rejected.getAttribute("data-seq"), "30");
    assert.equal(await text(p, ".storage-panel .highest"), "highest 34");
    assert.match(await text(p, ".storage-panel ol.document"), /^B's data — write #1, token 34/);
    assert.equal(await p.locator(".banner").count(), 0);
    assert.match(await text(p, ".verdict-ok"), /Every invariant held/);
    const list = await events(p);
    assert.ok(list.some((e) => e.includes("the storage refuses A's write with token 33: it has already accepted 34 from B")));
    await shot(p, "desktop-fenced.png");

    // Clicking an event in the narration moves the playhead there.
    await p.locator("ol.events li").nth(19).locator("button").click();
    assert.equal(await text(p, ".playbar .clock"), "31.2 s / 46.1 s");
    assert.equal(await text(p, ".narration .now"), "31.2 s — the storage applies B's write #1 with token 34");
    assert.equal(await p.locator("#timeline-main svg.lanes .badge.rejected").count(), 0);
    assert.equal(await text(p, ".storage-panel .highest"), "highest 34");
    await p.getByRole("button", { name: "Go to the end" }).click();

    // Fencing off: the same story corrupts the document, and the banner says so.
    await p.getByLabel(/Fencing: the storage refuses old tokens/).uncheck();
    await p.getByRole("button", { name: "Go to the end" }).click();
    const banner = p.getByRole("alert").filter({ hasText: "Stale write accepted" });
    assert.equal(await banner.locator(".headline").innerText(), "Stale write accepted: A's old data now sits on top of B's newer write");
    const doc = p.locator(".storage-panel ol.document li");
    assert.equal(await doc.count(), 2);
    assert.match(await doc.nth(1).innerText(), /^A's data — write #1, token 33, at 46\.050 s ⚠ stale ← current value$/);
    assert.match(await p.locator("#timeline-main .badge.accepted-stale").textContent(), /✓ 33 < 34 stale/);
    await shot(p, "desktop-unfenced.png");
  });

  test("with unique tokens every token is an id, and the storage says why the late write got in", async () => {
    const p = await page("#preset=uuid-token");
    await playToEnd(p);
    const svg = p.locator("#timeline-main svg.lanes");
    const stale = await svg.locator(".badge.accepted-stale").textContent();
    assert.match(stale, /^✓ [0-9a-f]{6} stale$/);
    const a = stale.slice(2, 8);
    // A's id is the same on its lease, its write and its grant.
    assert.equal(await svg.locator(".lease text", { hasText: `lease ${a}` }).count(), 1);
    assert.equal(await svg.locator(".badge.write-sent", { hasText: `write ${a}` }).count(), 1);
    assert.equal(await svg.locator(".badge.grant", { hasText: `${a} → A` }).count(), 1);
    const b = (await svg.locator(".badge.grant", { hasText: "→ B" }).textContent()).slice(0, 6);
    assert.match(b, /^[0-9a-f]{6}$/);
    assert.notEqual(a, b);
    // Nothing on the page writes the tokens as ordered numbers.
    const marks = await svg.locator(".badge text, .lease text, .zombie text").allTextContents();
    assert.ok(marks.every((m) => !/\b3[34]\b|</.test(m)), marks.join(" | "));
    const labels = await p.locator(".lane-label").allInnerTexts();
    assert.ok(labels.length > 0 && labels.every((l) => !/\b3[34]\b|highest/.test(l)), labels.join(" | "));
    assert.equal(await text(p, ".storage-panel .highest"), `last token ${a}`);
    assert.equal(
      await text(p, ".storage-panel .fence-note"),
      "Unique ids: the storage can only check that a token is not one it saw replaced before. Ids carry no order, so it cannot tell an old owner's token from a new one, and a late write with an unused token gets in.",
    );
    assert.match(await text(p, ".storage-panel ol.document"), new RegExp(`A's data — write #1, token ${a}, at 46\\.050 s ⚠ stale`));
    const list = await events(p);
    assert.ok(
      list.some((e) => e.includes(`the storage applies A's write #1 with token ${a}, unable to tell that it is older than ${b}: stale data lands`)),
      list.join("\n"),
    );
    assert.ok(list.every((e) => !/token 3[34]\b|accepted 3[34]\b/.test(e)));
    await p.locator(".banner details summary").click();
    const details = await p.locator(".banner details li").allInnerTexts();
    assert.ok(details.length > 0 && details.every((d) => !/token 3[34]\b/.test(d)), details.join(" | "));
    await shot(p, "uuid-token.png");
  });

  test("compare mode stacks fencing off and on with one playhead", async () => {
    const p = await page();
    assert.equal(await p.locator(".which-run").count(), 0);
    await p.getByLabel(/Compare: fencing off and on/).check();
    assert.equal(await p.locator("#timeline-off svg.lanes").count(), 1);
    assert.equal(await p.locator("#timeline-on svg.lanes").count(), 1);
    await playToEnd(p);
    const [off, on] = [p.locator(".compare-one").nth(0), p.locator(".compare-one").nth(1)];
    assert.match(await off.locator(".banner .headline").innerText(), /^Stale write accepted/);
    assert.match(await on.locator(".verdict-ok").innerText(), /Every invariant held/);
    const heads = await p.locator(".playhead-time").allTextContents();
    assert.deepEqual(heads, ["46.150 s", "46.150 s"]);
    // The storage panel and the event list say which of the two runs they describe.
    const which = () => p.locator(".storage-panel .which-run, .narration .which-run").allInnerTexts();
    assert.deepEqual(await which(), Array(2).fill("Showing the lower timeline: fencing on, as the scenario has it."));
    await p.getByLabel(/Fencing: the storage refuses old tokens/).uncheck();
    assert.deepEqual(await which(), Array(2).fill("Showing the upper timeline: fencing off, as the scenario has it."));
    await p.getByLabel(/Fencing: the storage refuses old tokens/).check();
    // Export SVG takes both timelines, one above the other, each under its caption.
    const svg = await download(p, "Export SVG");
    assert.equal(svg.name, "paused-worker-timeline-compare.svg");
    assert.match(svg.text, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    const off_at = svg.text.indexOf(">Fencing off: the storage keeps whatever arrives last</text>");
    const on_at = svg.text.indexOf(">Fencing on: the storage refuses tokens below the highest</text>");
    assert.ok(off_at > 0 && on_at > off_at, "both captions, fencing off first");
    assert.ok(svg.text.indexOf("✓ 33 &lt; 34 stale") > off_at);
    assert.ok(svg.text.indexOf("✗ 33 &lt; 34") > on_at);
    assert.equal(svg.text.match(/>worker A<\/text>/g).length, 2);
    assert.deepEqual(p.errors, []);
  });

  test("clicking a worker's lane injects a pause and re-runs the story", async () => {
    const p = await page();
    const before = await events(p);
    const hash = new URL(p.url()).hash;
    const svg = p.locator("#timeline-main svg.lanes");
    // x of 30 s and of 0 s from the axis labels; worker B is the third lane.
    const ticks = await svg.locator(".tick text").evaluateAll((ts) =>
      Object.fromEntries(ts.map((t) => [t.textContent, Number(t.getAttribute("x"))])),
    );
    const x = ticks["30 s"] + ((ticks["30 s"] - ticks["0 s"]) / 30) * 0.5;
    await svg.click({ position: { x, y: 26 + 2 * 68 + 34 } });
    await p.waitForFunction((n) => document.querySelectorAll("ol.events li").length !== n, before.length);
    assert.match(await text(p, ".faults ul"), /B freezes at 30\.[3-6] s for 45 s/);
    const afterList = await events(p);
    assert.notDeepEqual(afterList, before);
    assert.ok(afterList.some((e) => /B\s+B freezes \(a GC pause or a suspended VM\)/.test(e)));
    assert.notEqual(new URL(p.url()).hash, hash);
    // Removing it brings the original story back.
    await p.getByRole("button", { name: /Remove: B freezes/ }).click();
    assert.deepEqual(await events(p), before);
  });
});

describe("the guided tour", () => {
  const TITLES = [
    "The lease",
    "The pause",
    "The expiry",
    "The takeover",
    "The stale write",
    "What fencing does",
    "Without fencing",
    "Auto-renew",
    "Why auto-renew is not enough",
  ];

  test("is what a new visitor sees, and Next walks every chapter", async () => {
    const p = await page("");
    await p.evaluate(() => localStorage.clear());
    await p.goto(BASE);
    await p.waitForSelector("svg.lanes");
    const tour = p.getByRole("region", { name: "Guided tour" });
    const times = [];
    for (let i = 0; i < TITLES.length; i++) {
      assert.equal(await tour.locator(".tour-step").innerText(), `GUIDED TOUR · CHAPTER ${i + 1} OF 9`.toUpperCase());
      assert.equal(await tour.locator("h2").innerText(), TITLES[i]);
      assert.ok((await p.locator(".lane-label.lit").count()) > 0, `chapter ${i + 1} highlights actors`);
      times.push(await text(p, ".playbar .clock"));
      if (i === 5) assert.match(await text(p, ".narration .now"), /the storage refuses A's write with token 33/);
      if (i === 6) assert.match(await text(p, ".banner .headline"), /^Stale write accepted/);
      if (i === 1) await shot(p, "tour-pause.png");
      if (i + 1 < TITLES.length) await tour.getByRole("button", { name: "Next →" }).click();
    }
    assert.deepEqual(
      times.map((t) => t.split(" / ")[0]),
      ["0.1 s", "10.1 s", "30.050 s", "31.2 s", "46 s", "46.050 s", "46.150 s", "21.397 s", "22.150 s"],
    );
    await tour.getByRole("button", { name: "Back" }).click();
    assert.equal(await tour.locator("h2").innerText(), TITLES[7]);
    await tour.getByRole("button", { name: "Next →" }).click();
    await tour.getByRole("button", { name: "Finish the tour" }).click();
    assert.equal(await p.locator(".tour").count(), 0);
    // Seen once: the next visit opens on the story itself.
    await p.goto(BASE);
    await p.waitForSelector("svg.lanes");
    assert.equal(await p.locator(".tour").count(), 0);
  });

  test("one click leaves it", async () => {
    const p = await page("");
    await p.evaluate(() => localStorage.clear());
    await p.goto(BASE);
    await p.waitForSelector(".tour");
    await p.getByRole("button", { name: "Leave tour" }).click();
    assert.equal(await p.locator(".tour").count(), 0);
    assert.match(new URL(p.url()).hash, /^#s=/);
  });

  test("an edit during the tour leaves it, so the card never contradicts the timeline", async () => {
    const p = await page("");
    let tour = await openTourAt(p, 6);
    assert.equal(await tour.locator("h2").innerText(), "What fencing does");
    assert.match(await tour.locator(".tour-text").innerText(), /it refuses it/);
    // `f` (focus is on the card's Next button): fencing goes off, and the card goes away with it.
    await p.keyboard.press("f");
    assert.equal(await p.locator(".tour").count(), 0);
    assert.equal(await p.getByLabel(/Fencing: the storage refuses old tokens/).isChecked(), false);
    assert.match(await text(p, ".banner .headline"), /^Stale write accepted/);
    assert.equal(
      await text(p, ".messages .notice-text"),
      "You left the tour: the story is yours to change now. \u201cTake the tour\u201d brings its story back.",
    );
    assert.equal(await p.getByRole("button", { name: "Take the tour" }).isVisible(), true);

    // Ticking the box does the same.
    tour = await openTourAt(p, 6);
    await p.getByLabel(/Fencing: the storage refuses old tokens/).uncheck();
    assert.equal(await p.locator(".tour").count(), 0);

    // So does a click on worker B's lane: what it added is said, not silent.
    tour = await openTourAt(p, 6);
    const svg = p.locator("#timeline-main svg.lanes");
    await svg.click({ position: { x: await xOf(svg, 22.15), y: (await laneTop(svg, 2)) + 4 } });
    assert.equal(await p.locator(".tour").count(), 0);
    assert.equal(
      await text(p, ".messages .notice-text"),
      "Pause added where you clicked: B freezes at 22.1 s for 45 s. You left the tour.",
    );
    assert.match(await text(p, ".faults ul"), /B freezes at 22\.1 s for 45 s/);

    // Moving around the story does not leave it.
    tour = await openTourAt(p, 6);
    await p.getByRole("button", { name: "Previous event" }).click();
    await p.keyboard.press("End");
    await setRange(p.getByLabel("Playback speed"), 20);
    assert.equal(await tour.locator("h2").innerText(), "What fencing does");
    await tour.getByRole("button", { name: "Leave tour" }).click();
  });

  test("a reload in the middle of the tour stays on its chapter", async () => {
    const p = await page("");
    let tour = await openTourAt(p, 4);
    assert.equal(new URL(p.url()).hash, "#tour=4");
    await p.reload();
    await p.waitForSelector(".tour");
    tour = p.getByRole("region", { name: "Guided tour" });
    assert.equal(await tour.locator("h2").innerText(), "The takeover");
    assert.equal(await text(p, ".playbar .clock"), "31.2 s / 46.1 s");
    await tour.getByRole("button", { name: "Next →" }).click();
    assert.equal(new URL(p.url()).hash, "#tour=5");
    await tour.getByRole("button", { name: "Leave tour" }).click();
    assert.match(new URL(p.url()).hash, /^#s=/);
  });

  test("a shared link or an embed does not use it up, and it tells its own story after edits", async () => {
    const p = await page("");
    await p.evaluate(() => localStorage.clear());
    for (const path of ["#preset=paused-worker", "?embed#preset=paused-worker"]) {
      await p.goto(BASE + path);
      await p.waitForSelector("svg.lanes");
      assert.equal(await p.locator(".tour").count(), 0);
    }
    await p.goto(BASE);
    await p.waitForSelector(".tour");
    await p.getByRole("button", { name: "Leave tour" }).click();
    // The story, edited, then the tour again: the story as the tour tells it.
    await p.waitForSelector("ol.events li");
    await setRange(p.getByRole("slider", { name: "Lease TTL" }), 10000);
    assert.equal(await p.getByLabel("Preset story").inputValue(), "");
    await p.getByRole("button", { name: "Take the tour" }).click();
    const tour = p.getByRole("region", { name: "Guided tour" });
    assert.match(await tour.locator(".tour-text").innerText(), /the next 30 seconds/);
    assert.equal(await text(p, ".sliders output"), "30 s");
    assert.equal(await p.getByLabel("Preset story").inputValue(), "paused-worker");
    await tour.getByRole("button", { name: "Next →" }).click();
    assert.equal(await text(p, ".playbar .clock").then((t) => t.split(" / ")[0]), "10.1 s");
  });
});

describe("each worker's safe-until band, and why auto-renew is not enough", () => {
  /// What the page shows of worker `name`'s band on the main timeline, read from the SVG.
  async function band(p, name) {
    const g = p.locator(`#timeline-main svg.lanes .safe-band[data-worker="${name}"]`);
    if ((await g.count()) === 0) return null;
    const rect = g.locator("rect");
    const label = g.locator("text.deadline-label");
    const lostMark = g.locator(".lost-mark text");
    return {
      from: Number(await g.getAttribute("data-from")),
      to: Number(await g.getAttribute("data-to")),
      until: Number(await g.getAttribute("data-until")),
      lost: await g.getAttribute("data-lost"),
      x: Number(await rect.getAttribute("x")),
      y: Number(await rect.getAttribute("y")),
      width: Number(await rect.getAttribute("width")),
      label: (await label.count()) ? await label.textContent() : null,
      lostMark: (await lostMark.count()) ? await lostMark.textContent() : null,
      visible: await rect.isVisible(),
    };
  }

  test("the last chapter: A renews, freezes past its band, and only the fence refuses 33", async () => {
    const p = await page("");
    await p.evaluate(() => localStorage.clear());
    await p.goto(BASE);
    await p.waitForSelector(".tour");
    const tour = p.getByRole("region", { name: "Guided tour" });
    // Read the way a learner does: Next through every chapter to the last.
    for (let i = 1; i < 9; i++) await tour.getByRole("button", { name: "Next →" }).click();
    assert.equal(await tour.locator(".tour-step").innerText(), "GUIDED TOUR · CHAPTER 9 OF 9");
    assert.equal(await tour.locator("h2").innerText(), "Why auto-renew is not enough");
    assert.match(await tour.locator(".tour-text").innerText(), /A's band stops at 16\.1 seconds/);
    assert.equal(new URL(p.url()).hash, "#tour=9");
    assert.equal(await text(p, ".playbar .clock"), "22.150 s / 22.2 s");
    assert.equal(
      await text(p, ".narration .now"),
      "22.150 s — the storage refuses A's write with token 33: it has already accepted 34 from B",
    );
    const svg = p.locator("#timeline-main svg.lanes");
    // A's band: from when it learned of 33 (0.1 s) to the 16.1 s its last renewal gave it; its
    // keeper said at 22.1 s that the lease is lost.
    const a = await band(p, "A");
    assert.deepEqual([a.from, a.to, a.until, a.lost, a.label, a.visible], [100, 16100, 16100, "expired", "safe until 16.1 s", true]);
    assert.ok(Math.abs(a.x - (await xOf(svg, 0.1))) < 1, `A's band starts at 0.1 s: x ${a.x}`);
    assert.ok(Math.abs(a.x + a.width - (await xOf(svg, 16.1))) < 1, `A's band ends at 16.1 s: ${a.x + a.width}`);
    assert.ok(a.y > (await laneTop(svg, 1)) && a.y < (await laneTop(svg, 2)), "on A's lane");
    // B's band: from its grant (16.25 s) to its release at 17.35 s, on B's lane.
    const b = await band(p, "B");
    assert.deepEqual([b.from, b.to, b.until, b.lost, b.label], [16250, 17350, 26150, null, null]);
    assert.ok(b.y > (await laneTop(svg, 2)) && b.y < (await laneTop(svg, 3)), "on B's lane");
    // The moment A's keeper told it is marked on its band, at 22.1 s; the fence's refusal is on
    // the storage's lane.
    assert.equal(a.lostMark, "✗ knows: lost");
    const mark = Number(await svg.locator('.safe-band[data-worker="A"] .lost-mark line').getAttribute("x1"));
    assert.ok(Math.abs(mark - (await xOf(svg, 22.1))) < 1, `the mark is at 22.1 s: x ${mark}`);
    assert.equal(b.lostMark, null);
    const key = await p.getByRole("region", { name: "Legend" }).locator("li").allInnerTexts();
    assert.ok(key.some((i) => i.trim() === "safe until: how long the worker's lease keeper lets it act"), JSON.stringify(key));
    assert.equal(await svg.locator(".badge.rejected").textContent(), "✗ 33 < 34");
    await shot(p, "tour-auto-renew-not-enough.png");

    // One chapter back: renewal through a slow network keeps A's band ahead of the playhead.
    await tour.getByRole("button", { name: "Back" }).click();
    assert.equal(await tour.locator("h2").innerText(), "Auto-renew");
    assert.equal(await text(p, ".playbar .clock"), "21.397 s / 47.629 s");
    const renewed = await band(p, "A");
    assert.deepEqual(
      [renewed.from, renewed.to, renewed.until, renewed.lost, renewed.label],
      [3538, 38538, 38538, null, "safe until 38.538 s"],
    );
    const head = Number(await svg.locator(".playhead line").getAttribute("x1"));
    assert.ok(renewed.x + renewed.width > head + 50, "the band reaches well past the playhead");
    assert.ok(Math.abs(renewed.x + renewed.width - (await xOf(svg, 38.538))) < 1);
    assert.equal(await band(p, "B"), null, "B holds no lease yet");
    await shot(p, "tour-auto-renew.png");
  });

  test("stepping through the long pause, the band grows with each renewal answer and then stays", async () => {
    const p = await page("#preset=renewal-long-pause");
    assert.equal(await band(p, "A"), null, "no band before A learns of its lease");
    const next = p.getByRole("button", { name: "Next event" });
    // Event 4 (0.1 s): A learns it holds 33, safe until 10 s.
    for (let i = 0; i < 5; i++) await next.click();
    assert.equal(await text(p, ".narration .now"), "0.1 s — A learns it holds the lock with token 33 and believes it does until 10 s");
    assert.deepEqual([(await band(p, "A")).from, (await band(p, "A")).to], [100, 10000]);
    // Events 5 to 14: the first renewal's answer (3.2 s) moves it to 13.1 s.
    for (let i = 0; i < 10; i++) await next.click();
    assert.match(await text(p, ".narration .now"), /^3\.2 s — A learns its lease was renewed/);
    assert.equal((await band(p, "A")).until, 13100);
    // At the end, fencing off: the band stopped at 16.1 s and A's 33 lands on B's 34.
    await p.getByLabel(/Fencing: the storage refuses old tokens/).uncheck();
    await p.getByRole("button", { name: "Go to the end" }).click();
    const a = await band(p, "A");
    assert.deepEqual([a.to, a.until, a.lost], [16100, 16100, "expired"]);
    assert.equal(await text(p, ".banner .headline"), "Stale write accepted: A's old data now sits on top of B's newer write");
    assert.match(await p.locator("#timeline-main .badge.accepted-stale").textContent(), /✓ 33 < 34 stale/);
    await shot(p, "renewal-long-pause-unfenced.png");
  });
});

describe("sharing", () => {
  test("the URL carries the whole scenario: opening it reproduces the trace", async () => {
    const p = await page();
    await p.getByLabel("Seed", { exact: true }).fill("7");
    await p.getByLabel("Seed", { exact: true }).press("Enter");
    await setRange(p.getByRole("slider", { name: /Network latency/ }), 400);
    await p.getByLabel(/Lock-delay after an expiry/).check();
    await p.getByLabel("Worker to freeze").selectOption({ label: "B" });
    await p.getByLabel("Pause start, in seconds").fill("20");
    await p.getByRole("button", { name: "Add pause" }).click();
    assert.match(await text(p, ".faults ul"), /B freezes at 20 s for 45 s/);
    const url = p.url();
    assert.match(new URL(url).hash, /^#s=[A-Za-z0-9_-]+$/);
    const first = await download(p, "Export trace JSON");
    assert.equal(first.name, "paused-worker-trace.json");
    const trace = JSON.parse(first.text);
    assert.equal(trace.seed, 7);

    const q = await open(context(), url);
    track(q);
    assert.equal((await download(q, "Export trace JSON")).text, first.text);
    assert.deepEqual(await events(q), await events(p));
    assert.equal(await q.getByLabel("Seed", { exact: true }).inputValue(), "7");
  });

  test("Back returns to the story before; a link that fails to load keeps its address", async () => {
    const p = await page();
    const story = p.getByLabel("Preset story");
    await p.waitForFunction(() => document.querySelector(".scenario-panel select").value === "paused-worker");
    const before = p.url();
    await story.selectOption("gc-pause");
    // Edits change the entry of the story they edit, not add entries.
    await setRange(p.getByRole("slider", { name: "Lease TTL" }), 10000);
    await p.getByLabel(/Idempotency keys on writes/).check();
    assert.equal(await story.inputValue(), "");
    const edited = p.url();
    await p.goBack();
    await p.waitForFunction(() => document.querySelector(".scenario-panel select").value === "paused-worker");
    assert.equal(p.url(), before);
    assert.equal(await p.getByLabel(/Idempotency keys on writes/).isChecked(), false);
    assert.equal(await text(p, ".playbar .clock"), "0 s / 46.1 s");
    await p.goForward();
    await p.waitForFunction(() => document.querySelector(".scenario-panel select").value === "");
    assert.equal(p.url(), edited);
    assert.match(await text(p, ".scenario-panel select"), /gc-pause \(edited\)/);
    assert.equal(await p.getByLabel(/Idempotency keys on writes/).isChecked(), true);

    // A broken link on arrival: the message, and the link itself is still in the address bar.
    const q = await page("#s=%%%not-base64");
    assert.match(await text(q, ".messages .error"), /garbled.*showing the paused-worker story instead/);
    await q.waitForTimeout(100);
    assert.equal(new URL(q.url()).hash, "#s=%%%not-base64");
    // The first change makes the address the scenario's again.
    await q.getByLabel(/Idempotency keys on writes/).check();
    assert.match(new URL(q.url()).hash, /^#s=[A-Za-z0-9_-]+$/);
    // A broken link pasted into the open page: the page says it kept the scenario it had.
    await q.evaluate(() => (location.hash = "#preset=no-such-story"));
    await q.waitForFunction(() => document.querySelector(".messages .error")?.textContent.includes("no-such-story"));
    assert.equal(
      await text(q, ".messages .error-text"),
      "There is no preset named `no-such-story` — still showing the scenario from before.",
    );
    assert.equal(await q.getByLabel(/Idempotency keys on writes/).isChecked(), true);
  });

  test("copy link offers the address of this very scenario", async () => {
    const p = await page();
    await p.getByLabel(/Idempotency keys on writes/).check();
    await p.getByRole("button", { name: "Copy link" }).click();
    const link = p.locator(".link-out input");
    await link.waitFor();
    assert.equal(await link.inputValue(), p.url());
    assert.match(await text(p, ".messages .notice"), /^(Link copied to the clipboard\.|The browser did not allow copying; copy the link below\.)$/);
    const q = await open(context(), await link.inputValue());
    track(q);
    assert.equal(await q.getByLabel(/Idempotency keys on writes/).isChecked(), true);
    assert.deepEqual(await events(q), await events(p));
  });

  test("export SVG and scenario JSON, import a scenario, errors in the page", async () => {
    const p = await page();
    await playToEnd(p);
    const svg = await download(p, "Export SVG");
    assert.equal(svg.name, "paused-worker-timeline.svg");
    assert.match(svg.text, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    assert.ok(svg.text.includes("✗ 33 &lt; 34"));
    assert.ok(svg.text.includes(">worker A</text>"));
    const scenario = JSON.parse((await download(p, "Export scenario JSON")).text);
    assert.equal(scenario.name, "paused-worker");

    const file = p.locator(".share-panel input[type=file]");
    await file.setInputFiles({ name: "bad.json", mimeType: "application/json", buffer: Buffer.from('{"version": 1, "workers": [') });
    assert.match(await text(p, ".messages .error-text"), /^Could not import bad\.json: EOF while parsing a list at line 1 column 27$/);
    await file.setInputFiles({
      name: "three.json",
      mimeType: "application/json",
      buffer: Buffer.from(JSON.stringify({ ...scenario, name: "three", workers: [...scenario.workers, { name: "C", start_ms: 2000, job: { work_ms: 500 } }] })),
    });
    assert.match(await text(p, ".messages .notice"), /Imported three\.json/);
    assert.equal(await p.locator(".lane-label").count(), 5);
    await file.setInputFiles({ name: "dup.json", mimeType: "application/json", buffer: Buffer.from(JSON.stringify({ ...scenario, workers: [scenario.workers[0], scenario.workers[0]] })) });
    assert.equal(await text(p, ".messages .error-text"), "Could not import dup.json: workers[1].name: `A` is used twice");
    assert.equal(await p.locator(".lane-label").count(), 5);
  });

  test("a broken link or extreme settings show messages, never a crash", async () => {
    const p = await page("#s=%%%not-base64");
    assert.match(await text(p, ".messages .error"), /garbled/);
    assert.match(await text(p, ".scenario-panel select"), /The paused worker/);
    await p.goto(BASE + "#s=" + Buffer.from('{"version":1,"lease_ttl_ms":0,"workers":[]}').toString("base64url"));
    await p.waitForFunction(() => document.querySelector(".messages .error")?.textContent.includes("lease_ttl_ms"));
    await p.goto(BASE + "#preset=no-such-story");
    await p.waitForFunction(() => document.querySelector(".messages .error")?.textContent.includes("no-such-story"));
    for (const [name, v] of [[/Lease TTL/, 0], [/Lease TTL/, 1e15], [/Pause length/, 1e18], [/Network latency/, -5], [/Network latency/, 1e12]]) {
      await setRange(p.getByRole("slider", { name }), v);
    }
    await setRange(p.getByLabel("Playback speed"), 1e9);
    await setRange(p.getByRole("slider", { name: "Playhead" }), 1e20);
    await p.getByLabel("Seed", { exact: true }).fill("not a number");
    await p.getByLabel("Seed", { exact: true }).press("Enter");
    assert.match(await text(p, "#seed-error"), /The seed must be a whole number/);
    await p.getByLabel("Pause start, in seconds").fill("-3");
    await p.getByRole("button", { name: "Add pause" }).click();
    assert.match(await text(p, "#pause-error"), /is not a time in seconds/);
    await playToEnd(p);
    assert.equal(await p.locator("svg.lanes").count(), 1);
  });
});

describe("editing without surprises", () => {
  test("clicking a badge or a label changes nothing; a lane click says what it added, and Undo takes it back", async () => {
    const p = await page();
    await playToEnd(p);
    const before = await events(p);
    const hash = new URL(p.url()).hash;
    const clock = await text(p, ".playbar .clock");
    const svg = p.locator("#timeline-main svg.lanes");
    const write33 = svg.locator(".badge.write-sent", { hasText: "write 33" });
    await write33.locator("text").click();
    const w = (await write33.locator("rect").boundingBox()).width;
    await write33.locator("rect").click({ position: { x: w - 4, y: 7 } });
    await svg.locator(".lease text", { hasText: "lease 33" }).click();
    await svg.locator(".badge.rejected").click();
    assert.deepEqual(await events(p), before);
    assert.equal(new URL(p.url()).hash, hash);
    assert.equal(await text(p, ".playbar .clock"), clock);
    assert.equal(await p.locator(".faults ul li").count(), 1);
    assert.equal(await p.locator(".messages .notice").count(), 0);

    // A click on the lane itself adds a pause there, and says so.
    await svg.click({ position: { x: await xOf(svg, 20.05), y: (await laneTop(svg, 2)) + 4 } });
    const notice = p.locator(".messages .notice");
    assert.equal(await notice.locator(".notice-text").innerText(), "Pause added where you clicked: B freezes at 20 s for 45 s.");
    assert.equal(await inView(notice), true);
    assert.equal(await p.locator(".faults ul li").count(), 2);
    assert.notDeepEqual(await events(p), before);
    await notice.getByRole("button", { name: "Undo" }).click();
    assert.equal(await p.locator(".messages .notice").count(), 0);
    assert.deepEqual(await events(p), before);
    assert.equal(await p.locator(".faults ul li").count(), 1);
    assert.equal(new URL(p.url()).hash, hash);
    assert.equal(await p.getByLabel("Preset story").inputValue(), "paused-worker");
  });

  test("editor errors show next to their field, in view, and the seed box says what is in use", async () => {
    const p = await page();
    const seed = p.getByLabel("Seed", { exact: true });
    await seed.scrollIntoViewIfNeeded();
    await seed.fill("abc");
    await seed.press("Enter");
    const seedError = p.locator("#seed-error");
    assert.equal(
      await seedError.innerText(),
      "The seed must be a whole number from 0 to 18446744073709551615; `abc` is not. The run still uses seed 1.",
    );
    assert.equal(await inView(seedError), true);
    // The box shows the seed in use, and points to the message.
    assert.equal(await seed.inputValue(), "1");
    assert.equal(await seed.getAttribute("aria-describedby"), "seed-error");
    assert.equal(await p.locator(".messages .error").count(), 0);
    await seed.fill("zz");
    await seed.press("Enter");
    assert.match(await seedError.innerText(), /`zz` is not\. The run still uses seed 1\.$/);
    // A good seed is taken, and the message goes.
    await seed.fill("7");
    await seed.press("Enter");
    assert.equal(await seedError.count(), 0);
    assert.equal(await seed.inputValue(), "7");
    assert.equal(await seed.getAttribute("aria-describedby"), null);

    const at = p.getByLabel("Pause start, in seconds");
    await at.scrollIntoViewIfNeeded();
    await at.fill("soon");
    await p.getByRole("button", { name: "Add pause" }).click();
    const pauseError = p.locator("#pause-error");
    assert.equal(await pauseError.innerText(), "Pause not added: `soon` is not a time in seconds.");
    assert.equal(await inView(pauseError), true);
    assert.equal(await p.locator(".messages .error").count(), 0);
    assert.equal(await p.locator(".faults ul li").count(), 1);
  });

  test("a pause after the end of the run is refused, with the range that works", async () => {
    const p = await page();
    // The picker starts on the first worker.
    assert.equal(await p.getByLabel("Worker to freeze").inputValue(), "0");
    const at = p.getByLabel("Pause start, in seconds");
    await at.fill("99999999");
    await p.getByRole("button", { name: "Add pause" }).click();
    assert.equal(
      await text(p, "#pause-error"),
      "Pause not added: the run ends at 46.1 s, and a pause at 99999999 s would come after everything has happened. Pick a time from 0 to 46.1 s.",
    );
    assert.equal(await text(p, ".playbar .clock"), "0 s / 46.1 s");
    assert.equal(await p.locator(".faults ul li").count(), 1);
    await at.fill("46.1");
    await p.getByRole("button", { name: "Add pause" }).click();
    assert.equal(await p.locator("#pause-error").count(), 0);
    assert.equal(await p.locator(".faults ul li").count(), 2);
    assert.match(await text(p, ".faults ul li:nth-child(2)"), /^A freezes at 46\.1 s for 45 s/);
  });

  test("the play bar keeps its size and place while the clock runs", async () => {
    const p = await page();
    const box = (sel) => p.locator(sel).first().boundingBox();
    const measure = async () => ({
      bar: await box(".playbar"),
      clock: await box(".playbar .clock"),
      zoom: await box(".playbar .zoom"),
      speed: await box(".playbar .speed"),
      narration: await box(".narration"),
    });
    const first = await measure();
    assert.equal(await text(p, ".playbar .clock"), "0 s / 46.1 s");
    // One row: the zoom buttons sit beside the speed slider, not under it.
    assert.ok(Math.abs(first.zoom.y - first.speed.y) < 12, JSON.stringify(first));
    for (const [t, shown] of [[960, "0.960 s"], [30050, "30.050 s"], [46100, "46.1 s"]]) {
      await setRange(p.getByRole("slider", { name: "Playhead" }), t);
      assert.equal(await text(p, ".playbar .clock"), `${shown} / 46.1 s`);
      assert.deepEqual(await measure(), first, `at ${shown}`);
    }
    await setRange(p.getByLabel("Playback speed"), -10);
    await p.getByRole("slider", { name: "Playhead" }).focus();
    await p.keyboard.press("Home");
    await p.getByRole("button", { name: "Play" }).click();
    await p.waitForFunction(() => /^0\.\d+ s \//.test(document.querySelector(".playbar .clock").textContent.trim()));
    assert.deepEqual(await measure(), first, "while playing");
    if (SHOTS) await p.screenshot({ path: join(SHOTS, "playbar-playing.png"), clip: { x: 0, y: 0, width: 1280, height: 760 } });
    await p.getByRole("button", { name: "Pause", exact: true }).click();
  });
  test("the playhead's time never sits on a tick label", async () => {
    const p = await page();
    const overlaps = () =>
      p.evaluate(() => {
        const head = document.querySelector("#timeline-main .playhead-time").getBoundingClientRect();
        return [...document.querySelectorAll("#timeline-main .tick text")]
          .filter((t) => getComputedStyle(t).visibility !== "hidden")
          .map((t) => [t.textContent, t.getBoundingClientRect()])
          .filter(([, r]) => r.right > head.left && r.left < head.right && r.bottom > head.top && r.top < head.bottom)
          .map(([label]) => label);
      });
    for (const t of [10, 4990, 10000, 30050, 46100]) {
      await setRange(p.getByRole("slider", { name: "Playhead" }), t);
      assert.deepEqual(await overlaps(), [], `at ${t} ms`);
    }
    // Only the labels under it are hidden.
    assert.equal(await p.locator("#timeline-main .tick text.covered").count(), 0);
    await setRange(p.getByRole("slider", { name: "Playhead" }), 10);
    assert.deepEqual(await p.locator("#timeline-main .tick text.covered").allTextContents(), ["0 s"]);
  });
});

describe("the Explore panel", () => {
  test("a sweep runs in slices with progress, counts with and without fencing, and loads a violating seed", async () => {
    const p = await page();
    const panel = p.getByRole("region", { name: "Explore" });
    await panel.getByLabel("Number of seeds").fill("300");
    await panel.getByRole("button", { name: "Run sweep" }).click();
    // The page keeps responding while the sweep runs.
    await p.getByRole("button", { name: "Next event" }).click();
    assert.equal(await text(p, ".narration .now"), FIRST_EVENT);
    await p.waitForFunction(() => document.querySelector(".progress-text")?.textContent.includes("300 / 300 seeds — done"), null, { timeout: 60000 });
    const rows = panel.locator("table.sweep tbody tr");
    assert.match(await rows.nth(0).innerText(), /^on\s+0 of 300\s+—/);
    const off = await rows.nth(1).innerText();
    const hits = Number(off.match(/^off\s+(\d+) of 300/)[1]);
    assert.ok(hits > 0, off);
    assert.equal(await panel.locator("progress").getAttribute("value"), "300");
    const seed = rows.nth(1).locator("button.seed").first();
    const label = await seed.innerText();
    await seed.click();
    assert.equal(await p.getByLabel(/Fencing: the storage refuses/).isChecked(), false);
    assert.match(await text(p, ".scenario-panel select"), /pauses-holds-skew/);
    await p.getByRole("button", { name: "Go to the end" }).click();
    assert.equal(await p.locator(".banner").count(), 1);
    // The loaded run breaks exactly what the sweep said that seed breaks.
    const trace = JSON.parse((await download(p, "Export trace JSON")).text);
    const broken = [...new Set(trace.verdict.violations.map((v) => v.invariant))].sort().join(" ");
    assert.equal(`(${broken})`, label.match(/\(.*\)$/)[0]);
  });

  test("a seed of a finished sweep loads the scenario swept, whatever the picker and the editor say now", async () => {
    const p = await page();
    const panel = p.getByRole("region", { name: "Explore" });
    const ttl = () => text(p, ".sliders output");
    const swept = { ttl: await ttl(), faults: await text(p, ".faults ul") };
    await panel.getByLabel("What to sweep").selectOption("current");
    await panel.getByLabel("Number of seeds").fill("20");
    await panel.getByRole("button", { name: "Run sweep" }).click();
    await p.waitForFunction(() => document.querySelector(".progress-text")?.textContent.includes("20 / 20 seeds — done"), null, { timeout: 60000 });
    // Afterwards, another source is picked and the scenario on screen is edited.
    await panel.getByLabel("What to sweep").selectOption({ index: 0 });
    await setRange(p.getByRole("slider", { name: "Lease TTL" }), 10000);
    assert.equal(await ttl(), "10 s");
    assert.notEqual(swept.ttl, "10 s");
    const seed = panel.locator("table.sweep tbody tr").nth(1).locator("button.seed").first();
    const n = (await seed.innerText()).match(/^seed (\d+) /)[1];
    await seed.click();
    // The paused-worker story with that seed, fencing off, as the sweep ran it.
    assert.equal(await p.getByLabel("Seed", { exact: true }).inputValue(), n);
    assert.equal(await ttl(), swept.ttl);
    assert.equal(await text(p, ".faults ul"), swept.faults);
    assert.equal(await p.getByLabel(/Fencing: the storage refuses/).isChecked(), false);
    assert.match(await text(p, ".scenario-panel select"), /paused-worker \(from Explore\)/);
    // Loading it brings the timeline back into view.
    assert.equal(await p.evaluate(() => window.scrollY), 0);
    assert.equal(await inView(p.locator("#timeline-main")), true);
    // Once edited, it is the learner's own.
    await setRange(p.getByRole("slider", { name: "Lease TTL" }), 20000);
    assert.match(await text(p, ".scenario-panel select"), /paused-worker \(edited\)/);
  });

  test("a long sweep can be cancelled", async () => {
    const p = await page();
    const panel = p.getByRole("region", { name: "Explore" });
    await panel.getByLabel("Number of seeds").fill("1000000");
    await panel.getByRole("button", { name: "Run sweep" }).click();
    await p.waitForFunction(() => /^[1-9]\d* \/ 1000000 seeds/.test(document.querySelector(".progress-text")?.textContent ?? ""));
    await panel.getByRole("button", { name: "Cancel" }).click();
    const status = await text(p, ".progress-text");
    assert.match(status, /^\d+ \/ 1000000 seeds — cancelled/);
    await p.waitForTimeout(300);
    assert.equal(await text(p, ".progress-text"), status, "nothing runs after cancel");
    await panel.getByLabel("Number of seeds").fill("0");
    await panel.getByRole("button", { name: "Run sweep" }).click();
    assert.match(await panel.locator(".error-inline").innerText(), /whole number from 1 to 1000000/);
  });

  test("the exhaustive search finds the shortest counterexample without fencing, none with it", async () => {
    const p = await page();
    const panel = p.getByRole("region", { name: "Explore" });
    await panel.getByRole("button", { name: "Find the shortest counterexample" }).click();
    await p.waitForFunction(() => document.querySelector(".search-result")?.textContent.includes("the whole scope"));
    assert.match(await panel.locator(".search-result").innerText(), /No violation anywhere in the scope/);
    await p.getByLabel(/Fencing: the storage refuses/).uncheck();
    await panel.getByRole("button", { name: "Find the shortest counterexample" }).click();
    await p.waitForSelector(".search-result .cx");
    assert.equal(await text(p, ".search-result .cx"), "Shortest counterexample: 16 actions, breaks I1 I2 I4 at 32.150 s.");
    assert.equal(await text(p, ".search-result ul"), "A's write 1 is held in the network for 30 s");
    await panel.getByRole("button", { name: "Load the counterexample" }).click();
    assert.match(await text(p, ".faults ul"), /^A's write 1 is held in the network for 30 s/);
    await p.getByRole("button", { name: "Go to the end" }).click();
    assert.match(await text(p, ".banner .headline"), /^Stale write accepted/);
  });
});

describe("keyboard, embedding and small screens", () => {
  test("space plays and pauses, arrows step, f toggles fencing, ? shows help", async () => {
    const p = await page();
    const now = () => text(p, ".narration .now");
    await p.keyboard.press("Home");
    assert.match(await now(), /^Nothing has happened yet/);
    await p.keyboard.press("ArrowRight");
    assert.equal(await now(), FIRST_EVENT);
    await p.keyboard.press("ArrowRight");
    assert.equal(await now(), SECOND_EVENT);
    assert.equal(await p.locator("ol.events li.current").innerText().then((t) => t.includes("acquire from A")), true);
    await p.keyboard.press("ArrowLeft");
    assert.equal(await now(), FIRST_EVENT);
    await setRange(p.getByLabel("Playback speed"), -10);
    await p.locator("body").focus();
    await p.keyboard.press(" ");
    assert.equal(await p.locator(".playbar .play").getAttribute("aria-label"), "Pause");
    await p.keyboard.press(" ");
    assert.equal(await p.locator(".playbar .play").getAttribute("aria-label"), "Play");
    assert.equal(await p.getByLabel(/Fencing: the storage refuses/).isChecked(), true);
    await p.keyboard.press("f");
    assert.equal(await p.getByLabel(/Fencing: the storage refuses/).isChecked(), false);
    await p.keyboard.press("End");
    assert.match(await text(p, ".banner .headline"), /^Stale write accepted/);
    await p.keyboard.press("?");
    const help = p.getByRole("dialog", { name: "Keyboard shortcuts" });
    assert.equal(await help.isVisible(), true);
    await p.keyboard.press("Escape");
    assert.equal(await help.count(), 0);
  });

  test("Space and Enter belong to the focused control; the shortcuts still work on sliders", async () => {
    const p = await page();
    const fencing = p.getByLabel(/Fencing: the storage refuses old tokens/);
    const playing = () => p.locator(".playbar .play").getAttribute("aria-label");
    const now = () => text(p, ".narration .now");
    await fencing.focus();
    await p.keyboard.press(" ");
    assert.equal(await fencing.isChecked(), false);
    assert.equal(await playing(), "Play");
    await p.keyboard.press(" ");
    assert.equal(await fencing.isChecked(), true);
    assert.equal(await playing(), "Play");
    // A focused button does what it says.
    await p.getByRole("button", { name: "Next event" }).focus();
    await p.keyboard.press("Home");
    assert.match(await now(), /^Nothing has happened yet/);
    await p.keyboard.press(" ");
    assert.equal(await now(), FIRST_EVENT);
    await p.keyboard.press("Enter");
    assert.equal(await now(), SECOND_EVENT);
    assert.equal(await playing(), "Play");
    // In the event list, Space picks the event.
    await p.locator("ol.events li").nth(4).locator("button").focus();
    await p.keyboard.press(" ");
    assert.equal(await p.locator("ol.events li.current").count(), 1);
    assert.equal(await p.locator("ol.events li").nth(4).getAttribute("class"), "current");
    assert.equal(await playing(), "Play");
    // On the sliders, Space plays and pauses, f and ? work.
    for (const slider of [p.getByLabel("Playback speed"), p.getByRole("slider", { name: "Playhead" })]) {
      await setRange(p.getByLabel("Playback speed"), -10);
      await slider.focus();
      await p.keyboard.press(" ");
      assert.equal(await playing(), "Pause");
      await p.keyboard.press(" ");
      assert.equal(await playing(), "Play");
    }
    // On a slider, the arrows and Home move the slider, not the story.
    const speed = p.getByLabel("Playback speed");
    await speed.focus();
    const [story, slow] = [await now(), await speed.inputValue()];
    await p.keyboard.press("ArrowRight");
    assert.equal(await now(), story);
    assert.equal(Number(await speed.inputValue()), Number(slow) + 1);
    await p.keyboard.press("Home");
    assert.equal(await now(), story);
    assert.equal(await speed.inputValue(), await speed.getAttribute("min"));
    await p.keyboard.press("f");
    assert.equal(await fencing.isChecked(), false);
    await p.keyboard.press("?");
    assert.equal(await p.getByRole("dialog", { name: "Keyboard shortcuts" }).isVisible(), true);
    await p.keyboard.press("Escape");
    // In a text box, Space is a character.
    const at = p.getByLabel("Pause start, in seconds");
    await at.fill("");
    await at.press(" ");
    assert.equal(await at.inputValue(), " ");
    assert.equal(await playing(), "Play");
  });

  test("?embed shows the timeline and the play controls only", async () => {
    const p = await page("?embed#preset=paused-worker");
    assert.equal(await p.locator(".scenario-panel, .share-panel, .narration, .tour").count(), 0);
    assert.equal(await p.locator(".playbar").count(), 1);
    await playToEnd(p);
    assert.equal(await p.locator("svg.lanes .badge.rejected").textContent(), "✗ 33 < 34");
  });

  test("at 375 px only the lanes scroll sideways; light, dark and mobile screenshots", async () => {
    const p = await page("");
    await p.evaluate(() => localStorage.clear());
    await p.setViewportSize({ width: 375, height: 800 });
    await p.goto(BASE);
    await p.waitForSelector(".tour");
    const overflow = () =>
      p.evaluate(() => {
        const vw = document.documentElement.clientWidth;
        const bad = [];
        if (document.documentElement.scrollWidth > vw) bad.push(`page is ${document.documentElement.scrollWidth} px wide`);
        for (const el of document.querySelectorAll("body *")) {
          if (el.closest(".lanes-scroll")) continue;
          const r = el.getBoundingClientRect();
          if (r.width > 0 && (r.right > vw + 0.5 || r.left < -0.5)) bad.push(`${el.tagName.toLowerCase()}.${el.className} spans ${r.left}..${r.right}`);
        }
        const lanes = [...document.querySelectorAll(".lanes-scroll")].map((s) => s.scrollWidth > s.clientWidth);
        return { bad, lanesScroll: lanes };
      });
    let o = await overflow();
    assert.deepEqual(o.bad, []);
    assert.deepEqual(o.lanesScroll, [true]);
    await p.getByRole("button", { name: "Next →" }).click();
    await p.getByRole("button", { name: "Next →" }).click();
    await shot(p, "mobile-tour.png");
    await p.getByRole("button", { name: "Leave tour" }).click();
    await p.getByLabel(/Compare: fencing off and on/).check();
    await p.locator(".banner details, details").evaluateAll((ds) => ds.forEach((d) => (d.open = true)));
    o = await overflow();
    assert.deepEqual(o.bad, []);
    assert.deepEqual(o.lanesScroll, [true, true]);
    await playToEnd(p);
    o = await overflow();
    assert.deepEqual(o.bad, []);
    await shot(p, "mobile-compare.png");

    await p.setViewportSize({ width: 1280, height: 900 });
    await p.emulateMedia({ colorScheme: "dark" });
    const bg = await p.evaluate(() => getComputedStyle(document.body).backgroundColor);
    assert.equal(bg, "rgb(18, 21, 27)");
    await shot(p, "desktop-dark.png");
    await p.emulateMedia({ colorScheme: "light" });
  });

  test("every control has an accessible name", async () => {
    const p = await page();
    const unnamed = await p.evaluate(() => {
      const out = [];
      for (const el of document.querySelectorAll("button, input, select, [tabindex]")) {
        const labelled =
          el.getAttribute("aria-label") ||
          el.getAttribute("aria-labelledby") ||
          (el.labels && [...el.labels].some((l) => l.textContent.trim())) ||
          (el.tagName === "BUTTON" && el.textContent.trim());
        if (!labelled) out.push(el.outerHTML.slice(0, 80));
      }
      return out;
    });
    assert.deepEqual(unnamed, []);
  });
});

describe("a lane click, the play bar and odd links, as a person meets them", () => {
  test("Undo after a lane click in the tour gives back the chapter, its address and its history", async () => {
    // A story of its own before the tour (not the first-visit tour, which depends on storage).
    const p = await page();
    const start = p.url();
    let tour = await openTourAt(p, 6);
    const clock = await text(p, ".playbar .clock");
    assert.equal(new URL(p.url()).hash, "#tour=6");
    const svg = p.locator("#timeline-main svg.lanes");
    const clickB = async () => svg.click({ position: { x: await xOf(svg, 21.25), y: (await laneTop(svg, 2)) + 4 } });

    // Back after the click returns to the chapter it left.
    await clickB();
    assert.equal(await p.locator(".tour").count(), 0);
    assert.match(new URL(p.url()).hash, /^#s=/);
    await p.goBack();
    await p.waitForSelector(".tour");
    assert.equal(await tour.locator("h2").innerText(), "What fencing does");
    assert.equal(new URL(p.url()).hash, "#tour=6");
    assert.equal(await text(p, ".playbar .clock"), clock);
    assert.equal(await p.locator(".faults ul li").count(), 1);
    assert.equal(await p.locator(".messages .notice").count(), 0);

    // Undo reverses the whole click: the pause, and leaving the tour.
    await clickB();
    const notice = p.locator(".messages .notice");
    assert.equal(
      await notice.locator(".notice-text").innerText(),
      "Pause added where you clicked: B freezes at 21.2 s for 45 s. You left the tour.",
    );
    await notice.getByRole("button", { name: "Undo" }).click();
    await p.waitForSelector(".tour");
    tour = p.getByRole("region", { name: "Guided tour" });
    assert.equal(await tour.locator("h2").innerText(), "What fencing does");
    await p.waitForFunction(() => location.hash === "#tour=6");
    assert.equal(await text(p, ".playbar .clock"), clock);
    assert.equal(await p.locator(".faults ul li").count(), 1);
    assert.equal(await p.locator(".messages .notice").count(), 0);
    assert.equal(await p.getByRole("button", { name: "Take the tour" }).count(), 0);
    // And no second copy of the chapter is left in the history: Back goes to the entry before
    // it (the story this page showed before the tour was opened).
    await p.goBack();
    await p.waitForFunction(() => !location.hash.startsWith("#tour="));
    await p.waitForSelector("svg.lanes");
    assert.equal(p.url(), start);
    assert.equal(await p.locator(".tour").count(), 0);
  });

  test("a lane click's notice goes when another story is loaded, and stays gone on Back", async () => {
    const p = await page();
    const svg = p.locator("#timeline-main svg.lanes");
    await svg.click({ position: { x: await xOf(svg, 20.05), y: (await laneTop(svg, 2)) + 4 } });
    assert.equal(await text(p, ".messages .notice-text"), "Pause added where you clicked: B freezes at 20 s for 45 s.");
    await p.getByLabel("Preset story").selectOption("gc-pause");
    assert.equal(await p.locator(".messages .notice").count(), 0);
    assert.doesNotMatch(await text(p, ".faults ul"), /B freezes/);
    await p.goBack();
    await p.waitForFunction(() => document.querySelector(".scenario-panel select").value === "");
    assert.equal(await p.locator(".messages .notice").count(), 0);
    // Any other change of the scenario does the same.
    await svg.click({ position: { x: await xOf(svg, 10.05), y: (await laneTop(svg, 1)) + 4 } });
    assert.equal(await p.locator(".messages .notice").count(), 1);
    await p.getByLabel(/Idempotency keys on writes/).check();
    assert.equal(await p.locator(".messages .notice").count(), 0);
  });

  test("on a phone scrolled down to the timeline, a lane tap's notice and Undo come into view", async () => {
    const p = await page();
    await p.setViewportSize({ width: 375, height: 700 });
    const svg = p.locator("#timeline-main svg.lanes");
    await svg.evaluate((el) => window.scrollTo(0, el.getBoundingClientRect().top + window.scrollY));
    assert.ok((await svg.boundingBox()).y < 5);
    const before = await text(p, ".playbar .clock");
    await svg.click({ position: { x: await xOf(svg, 5.05), y: (await laneTop(svg, 1)) + 4 } });
    const notice = p.locator(".messages .notice");
    await notice.waitFor();
    assert.notEqual(await text(p, ".playbar .clock"), before);
    assert.equal(await inView(notice), true);
    assert.equal(await inView(notice.getByRole("button", { name: "Undo" })), true);
    await notice.getByRole("button", { name: "Undo" }).click();
    assert.equal(await text(p, ".playbar .clock"), before);
    await p.setViewportSize({ width: 1280, height: 900 });
  });

  test("compare mode with unique ids: captions and key say what the storage can and cannot do", async () => {
    const p = await page("#preset=uuid-token");
    await p.getByLabel(/Compare: fencing off and on/).check();
    assert.equal(await text(p, "#timeline-off figcaption"), "Fencing off: the storage keeps whatever arrives last");
    assert.equal(
      await text(p, "#timeline-on figcaption"),
      "Fencing on, with unique ids: the storage cannot tell old tokens from new",
    );
    const key = p.getByRole("region", { name: "Legend" });
    const items = await key.locator("li").allInnerTexts();
    assert.ok(!items.some((i) => /\b3[34]\b/.test(i)), JSON.stringify(items));
    assert.ok(items.some((i) => /^✓ [0-9a-f]{6} write applied$/.test(i)), JSON.stringify(items));
    assert.ok(
      items.some((i) => /^✓ [0-9a-f]{6} stale stale write applied: ids carry no order, so the storage cannot tell it is older$/.test(i)),
      JSON.stringify(items),
    );
    assert.ok(items.some((i) => /^✗ [0-9a-f]{6} reused write refused: the storage has seen this id replaced$/.test(i)), JSON.stringify(items));
    // With numbers, the key and caption keep their numbers.
    await p.getByLabel(/Unique \(UUID\) tokens/).uncheck();
    assert.equal(await text(p, "#timeline-on figcaption"), "Fencing on: the storage refuses tokens below the highest");
    const numbered = await key.locator("li").allInnerTexts();
    assert.ok(numbered.includes("✓ 34 write applied"), JSON.stringify(numbered));
    assert.ok(numbered.includes("✗ 33 < 34 write refused: its token is older"), JSON.stringify(numbered));
  });

  test("no control of the play bar moves or resizes when playback starts and stops", async () => {
    const p = await page();
    const boxes = () =>
      p.evaluate(() =>
        [...document.querySelectorAll(".playbar button, .playbar input, .playbar output, .playbar .clock")].map((el) => {
          const r = el.getBoundingClientRect();
          return [el.title || el.getAttribute("aria-label") || el.tagName, Math.round(r.x), Math.round(r.y), Math.round(r.width), Math.round(r.height)];
        }),
      );
    const stopped = await boxes();
    assert.equal(stopped.length, 11, JSON.stringify(stopped));
    await setRange(p.getByLabel("Playback speed"), -10);
    await p.getByRole("button", { name: "Play" }).click();
    await p.waitForFunction(() => document.querySelector(".playbar .play").textContent.includes("Pause"));
    assert.equal(await text(p, ".playbar .play"), "❚❚ Pause");
    const playing = await boxes();
    await p.getByRole("button", { name: "Pause", exact: true }).click();
    assert.equal(await text(p, ".playbar .play"), "▶ Play");
    assert.deepEqual(playing, stopped);
    assert.deepEqual(await boxes(), stopped);
  });

  test("a tour chapter that does not exist is named as such, on arrival and typed into an open page", async () => {
    for (const bad of ["99", "0", "-1", "", "3x"]) {
      const p = await page(`#tour=${bad}`);
      assert.equal(
        await text(p, ".messages .error-text"),
        `The tour has no chapter \`${bad}\`: its chapters are #tour=1 to #tour=9 — showing the paused-worker story instead.`,
      );
    }
    const p = await page();
    await p.evaluate(() => (location.hash = "#tour=10"));
    await p.waitForSelector(".messages .error");
    assert.equal(
      await text(p, ".messages .error-text"),
      "The tour has no chapter `10`: its chapters are #tour=1 to #tour=9 — still showing the scenario from before.",
    );
    await p.evaluate(() => (location.hash = "#tour=3"));
    await p.waitForSelector(".tour");
    assert.equal(await p.getByRole("region", { name: "Guided tour" }).locator("h2").innerText(), "The expiry");
  });
});

describe("the smaller things a learner meets", () => {
  const picked = (p) => p.getByLabel("Preset story").locator("option:checked").innerText();
  const focused = (p) => p.evaluate(() => document.activeElement?.textContent.trim() ?? "");

  test("the tour's fencing-off chapter names its story as the tour left it, not as edited", async () => {
    // Chapter 7 turns fencing off: no longer the preset, so the picker says where it came from.
    const p = await page("#tour=7");
    assert.equal(await p.getByRole("region", { name: "Guided tour" }).locator("h2").innerText(), "Without fencing");
    assert.equal(await picked(p), "paused-worker (as the tour left it)");
    await p.getByRole("button", { name: "Leave tour" }).click();
    assert.equal(await picked(p), "paused-worker (as the tour left it)");
    // A change of the learner's own is an edit.
    await p.getByLabel(/Idempotency keys on writes/).check();
    assert.equal(await picked(p), "paused-worker (edited)");
    // The last chapter tells a preset as it is: the picker names it.
    const last = await page("#tour=9");
    assert.equal(await last.getByRole("region", { name: "Guided tour" }).locator("h2").innerText(), "Why auto-renew is not enough");
    assert.equal(await picked(last), "A pause longer than the safe margin");
    await last.getByRole("button", { name: "Finish the tour" }).click();
    assert.equal(await picked(last), "A pause longer than the safe margin");
  });

  test("a seed from Explore still says so after Back and Forward", async () => {
    const p = await page();
    const panel = p.getByRole("region", { name: "Explore" });
    await panel.getByLabel("Number of seeds").fill("300");
    await panel.getByRole("button", { name: "Run sweep" }).click();
    await p.waitForFunction(() => document.querySelector(".progress-text")?.textContent.includes("300 / 300 seeds — done"), null, { timeout: 60000 });
    await panel.locator("table.sweep tbody tr").nth(1).locator("button.seed").first().click();
    assert.match(await picked(p), /^pauses-holds-skew.* \(from Explore\)$/);
    const loaded = await picked(p);
    await p.goBack();
    await p.waitForFunction(() => document.querySelector(".scenario-panel select").value === "paused-worker");
    await p.goForward();
    await p.waitForFunction(() => document.querySelector(".scenario-panel select").value === "");
    assert.equal(await picked(p), loaded);
    await p.reload();
    await p.waitForSelector(".scenario-panel select");
    assert.equal(await picked(p), loaded);
  });

  test("Undo takes back lane clicks one at a time, and says so", async () => {
    const p = await page();
    const svg = p.locator("#timeline-main svg.lanes");
    const faults = () => p.locator(".faults ul li").allInnerTexts();
    const before = await faults();
    for (const at of [5.05, 10.05, 15.05]) await svg.click({ position: { x: await xOf(svg, at), y: (await laneTop(svg, 2)) + 4 } });
    assert.equal((await faults()).length, before.length + 3);
    const notice = p.locator(".messages .notice");
    const undo = notice.getByRole("button", { name: "Undo" });
    await undo.click();
    assert.equal(
      await notice.locator(".notice-text").innerText(),
      "Pause removed: B freezes at 15 s for 45 s. Undo again takes back the click before it.",
    );
    assert.equal((await faults()).length, before.length + 2);
    await undo.click();
    await undo.click();
    assert.deepEqual(await faults(), before);
    assert.equal(await p.locator(".messages .notice").count(), 0);
    assert.equal(await p.getByLabel("Preset story").inputValue(), "paused-worker");
  });

  test("a time typed into the Freeze box stays through playback, and after a refusal", async () => {
    const p = await page();
    const at = p.getByLabel("Pause start, in seconds");
    assert.equal(await at.inputValue(), "0.0");
    await p.getByRole("button", { name: "Next event" }).click();
    await p.getByRole("button", { name: "Go to the end" }).click();
    // Untouched, it follows the playhead.
    assert.equal(await at.inputValue(), "46.1");
    await at.fill("12.5");
    await p.getByRole("button", { name: "Previous event" }).click();
    await p.getByRole("button", { name: "Restart" }).click();
    assert.equal(await at.inputValue(), "12.5");
    await at.fill("500");
    await p.getByRole("button", { name: "Add pause" }).click();
    assert.match(await text(p, "#pause-error"), /a pause at 500 s would come after everything/);
    assert.equal(await at.inputValue(), "500");
    await at.fill("12.5");
    await p.getByRole("button", { name: "Add pause" }).click();
    assert.match(await text(p, ".faults ul"), /A freezes at 12\.5 s for 45 s/);
    // Once added, it follows the playhead again.
    await p.getByRole("button", { name: "Go to the end" }).click();
    assert.match(await at.inputValue(), /^\d+\.\d$/);
    assert.notEqual(await at.inputValue(), "12.5");
  });

  test("one Tab stop skips the event list to the editor", async () => {
    const p = await page();
    await p.getByRole("button", { name: "Zoom in" }).focus();
    await p.keyboard.press("Tab");
    assert.equal(await focused(p), "Skip the event list, to the scenario editor");
    const skip = p.getByRole("button", { name: "Skip the event list, to the scenario editor" });
    assert.equal(await inView(skip), true);
    await p.keyboard.press("Enter");
    assert.equal(await p.evaluate(() => document.activeElement.getAttribute("aria-label")), "Preset story");
  });

  test("a lane click ahead of the playhead is marked where it landed, until the playhead gets there", async () => {
    const p = await page();
    const svg = p.locator("#timeline-main svg.lanes");
    await svg.click({ position: { x: await xOf(svg, 20.05), y: (await laneTop(svg, 2)) + 4 } });
    const mark = svg.locator(".pending-pause");
    assert.equal(await mark.count(), 1);
    assert.equal(await mark.locator("text").textContent(), "pause added here");
    const x = Number(await mark.locator("line").getAttribute("x1"));
    assert.ok(Math.abs(x - (await xOf(svg, 20))) < 0.6, `${x}`);
    const { y1, y2 } = await mark.locator("line").evaluate((l) => ({ y1: Number(l.getAttribute("y1")), y2: Number(l.getAttribute("y2")) }));
    const [top, next] = [await laneTop(svg, 2), await laneTop(svg, 3)];
    assert.ok(y1 > top && y2 < next, `${y1} ${y2} (lane ${top} to ${next})`);
    await setRange(p.getByRole("slider", { name: "Playhead" }), 19000);
    assert.equal(await mark.count(), 1);
    await setRange(p.getByRole("slider", { name: "Playhead" }), 21000);
    assert.equal(await mark.count(), 0);
    await setRange(p.getByRole("slider", { name: "Playhead" }), 0);
    assert.equal(await mark.count(), 1);
    await p.locator(".messages .notice").getByRole("button", { name: "Undo" }).click();
    assert.equal(await mark.count(), 0);
  });

  test("focus goes on from Take the tour, Finish the tour and Undo, not back to the page's top", async () => {
    const p = await page();
    await p.getByRole("button", { name: "Take the tour" }).click();
    await p.waitForFunction(() => document.activeElement !== document.body);
    assert.equal(await focused(p), "Next →");
    // Keyboard only from here: Enter eight times walks to the last chapter. Like a person, each
    // press waits for the next chapter to be shown with the focus back on a button.
    for (let i = 0; i < 8; i++) {
      const step = await p.locator(".tour .tour-step").innerText();
      await p.keyboard.press("Enter");
      await p.waitForFunction(
        (before) => document.querySelector(".tour .tour-step")?.innerText !== before && document.activeElement !== document.body,
        step,
      );
    }
    assert.equal(await p.getByRole("region", { name: "Guided tour" }).locator("h2").innerText(), "Why auto-renew is not enough");
    await p.waitForFunction(() => document.activeElement !== document.body);
    assert.equal(await focused(p), "Finish the tour");
    await p.keyboard.press("Enter");
    assert.equal(await p.locator(".tour").count(), 0);
    await p.waitForFunction(() => document.activeElement !== document.body);
    assert.equal(await p.evaluate(() => document.activeElement.className), "play primary");
    const svg = p.locator("#timeline-main svg.lanes");
    await svg.click({ position: { x: await xOf(svg, 5.05), y: (await laneTop(svg, 2)) + 4 } });
    await p.locator(".messages .notice").getByRole("button", { name: "Undo" }).click();
    await p.waitForFunction(() => document.activeElement !== document.body);
    assert.equal(await p.evaluate(() => document.activeElement.className), "play primary");
  });
});

describe("the picker, the event list and the play bar, as a person leaves them", () => {
  /// The story the picker shows (what a person sees in it, not its `selected` attributes).
  const shownStory = (p) =>
    p.getByLabel("Preset story").evaluate((s) => [s.value, s.selectedOptions[0]?.textContent ?? ""]);
  const gc = ["gc-pause", "A stop-the-world GC pause"];

  test("the Story picker names the story on screen after Undo, f twice, and Back and Forward", async () => {
    const p = await page();
    const picker = p.getByLabel("Preset story");
    const svg = p.locator("#timeline-main svg.lanes");
    const clickB = async () => svg.click({ position: { x: await xOf(svg, 5.05), y: (await laneTop(svg, 2)) + 4 } });

    // A lane click, then Undo.
    await picker.selectOption("gc-pause");
    assert.deepEqual(await shownStory(p), gc);
    await clickB();
    assert.deepEqual(await shownStory(p), ["", "gc-pause (edited)"]);
    await p.locator(".messages .notice").getByRole("button", { name: "Undo" }).click();
    assert.deepEqual(await shownStory(p), gc);
    assert.match(await text(p, ".scenario-panel .story"), /garbage-collection pause/);

    // Fencing off and on again with the keyboard.
    await picker.selectOption("clock-skew");
    await p.locator("header.top h1").click();
    await p.keyboard.press("f");
    assert.deepEqual(await shownStory(p), ["", "clock-skew (edited)"]);
    await p.keyboard.press("f");
    assert.deepEqual(await shownStory(p), ["clock-skew", "A slow clock"]);
    // The option it shows is the one in use: choosing another one loads it.
    await picker.selectOption("paused-worker");
    assert.deepEqual(await shownStory(p), ["paused-worker", "The paused worker"]);
    assert.match(await text(p, ".scenario-panel .story"), /token 33 and a 30 s lease/);

    // An edited story, another preset, Back and Forward.
    await clickB();
    assert.deepEqual(await shownStory(p), ["", "paused-worker (edited)"]);
    await picker.selectOption("gc-pause");
    await p.goBack();
    await p.waitForFunction(() => document.querySelector(".scenario-panel select").value === "");
    assert.deepEqual(await shownStory(p), ["", "paused-worker (edited)"]);
    await p.reload();
    await p.waitForSelector(".scenario-panel select");
    assert.deepEqual(await shownStory(p), ["", "paused-worker (edited)"]);
    await p.goForward();
    await p.waitForFunction(() => document.querySelector(".scenario-panel select").value === "gc-pause");
    assert.deepEqual(await shownStory(p), gc);
    assert.match(await text(p, ".scenario-panel .story"), /garbage-collection pause/);
  });

  test("an embed of a tour chapter shows that chapter's story at its moment", async () => {
    const p = await page("");
    for (const n of [3, 7]) {
      await p.goto(BASE + `#tour=${n}`);
      await p.waitForSelector(".tour");
      const clock = await text(p, ".playbar .clock");
      const badges = await p.locator("#timeline-main .badge").allTextContents();
      await p.goto("about:blank");
      await p.goto(BASE + `?embed#tour=${n}`);
      await p.waitForSelector("svg.lanes");
      assert.equal(await p.locator(".tour, .scenario-panel").count(), 0);
      assert.equal(await text(p, ".playbar .clock"), clock, `chapter ${n}`);
      assert.deepEqual(await p.locator("#timeline-main .badge").allTextContents(), badges, `chapter ${n}`);
      assert.equal(new URL(p.url()).hash, `#tour=${n}`);
    }
    // Chapter 7 is the story without fencing, at its end: the stale write got in.
    assert.equal(await p.locator("#timeline-main .badge.rejected").count(), 0);
    assert.match(await p.locator("#timeline-main .badge.accepted-stale").textContent(), /✓ 33 < 34 stale/);
    assert.notEqual(await text(p, ".playbar .clock"), "0 s / 46.1 s");
  });

  test("with unique ids the lock service's restart names its next token as an id", async () => {
    const p = await page("#preset=authority-restart-persisted");
    await p.getByLabel(/Unique \(UUID\) tokens/).check();
    await playToEnd(p);
    const restart = (await events(p)).find((e) => e.includes("restarts from its persisted state"));
    assert.match(restart, /its next token is [0-9a-f]{6}$/);
    assert.ok((await events(p)).every((e) => !/(token|accepted|issued|token is) 3\d\b/.test(e)));
    // The preset's own story quotes numbered tokens: with ids it is only named.
    assert.equal(await text(p, ".scenario-panel .story"), "A lock service that remembers, with unique ids in place of its numbered tokens.");
  });

  test("in a long, busy run the play bar keeps one row, whatever the clock's width", async () => {
    const p = await page(bigLink());
    await p.getByRole("button", { name: "Go to the end" }).click();
    assert.match(await text(p, ".playbar .clock"), /^\d{4}\.\d{3} s \/ \d{4}\.\d{3} s$/);
    const rows = () =>
      p.evaluate(() =>
        [...document.querySelectorAll(".playbar > *")].map((el) => {
          const r = el.getBoundingClientRect();
          return Math.round(r.top + r.height / 2);
        }),
      );
    for (const width of [1280, 1920]) {
      await p.setViewportSize({ width, height: 1000 });
      const mids = await rows();
      assert.equal(mids.length, 5);
      assert.ok(mids.every((m) => Math.abs(m - mids[0]) <= 2), `${width}: ${mids}`);
    }
  });

  test("in a long, busy run every badge is drawn at its moment, never ahead of the playhead", async () => {
    const p = await page(bigLink());
    const trace = JSON.parse((await download(p, "Export trace JSON")).text);
    const when = new Map(trace.events.map((e) => [e.seq, e.t_ms]));
    const svg = p.locator("#timeline-main svg.lanes");
    for (const secs of [120, 400]) {
      await setRange(p.getByRole("slider", { name: "Playhead" }), secs * 1000);
      const head = Number(await svg.locator(".playhead line").getAttribute("x1"));
      const ticks = await svg.locator(".tick text").evaluateAll((ts) => ts.map((t) => [parseFloat(t.textContent), Number(t.getAttribute("x"))]));
      const [[s0, x0], [s1, x1]] = ticks;
      const xAt = (ms) => x0 + ((x1 - x0) / (s1 - s0)) * (ms / 1000 - s0);
      const badges = await svg.locator(".badge").evaluateAll((bs) => bs.map((b) => [Number(b.dataset.seq), Number(b.querySelector("rect").getAttribute("x"))]));
      assert.ok(badges.length > 100, `${badges.length}`);
      for (const [seq, x] of badges) {
        assert.ok(x <= head + 0.5, `at ${secs} s, badge ${seq} at x ${x} is right of the playhead at ${head}`);
        const at = xAt(when.get(seq));
        assert.ok(x >= at - 1 && x <= at + 81, `at ${secs} s, badge ${seq} at x ${x}, its event at ${at}`);
      }
    }
  });
});

/// A long, busy run: eight workers, 120 faults, some 1545 s long.
function bigLink() {
  const names = "ABCDEFGH".split("");
  let seed = 7;
  const rnd = (n) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const span = 1500000;
  const writes = 5;
  const faults = [];
  for (let i = 0; i < 120; i++) {
    const worker = names[rnd(names.length)];
    const k = i % 4;
    if (k < 2) faults.push({ kind: "pause", worker, at: rnd(span), for: 5000 + rnd(60000) });
    else if (k === 2) faults.push({ kind: "hold", worker, nth_write: 1 + rnd(writes), for: 1000 + rnd(40000) });
    else {
      const from = rnd(span);
      faults.push({ kind: "partition", worker, from, to: from + 1000 + rnd(30000) });
    }
  }
  const scenario = {
    version: 1, name: "big", seed: 3, lease_ttl_ms: 10000, first_token: 33, latency_ms: { min: 20, max: 400 },
    protections: { fencing: true, token_kind: "ordered", idempotency_keys: false, check_before_write: false },
    workers: names.map((name, i) => ({ name, start_ms: i * 3000, job: { work_ms: 2000, writes } })),
    faults,
  };
  return "#s=" + Buffer.from(JSON.stringify(scenario)).toString("base64url");
}
