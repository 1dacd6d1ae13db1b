// Launching Debian's Chromium headless with playwright-core, and small helpers for the app.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";

export const BASE = process.env.BASE_URL ?? "http://127.0.0.1:8080/";

// Flags that keep Chromium from reaching out to the network (closed here) and from needing a
// sandbox (we run as root).
const FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/// A fresh browser profile in a new temporary directory; `close()` removes it.
export async function launch(options = {}) {
  const dir = mkdtempSync(join(tmpdir(), "fencepost-chromium-"));
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    headless: true,
    args: FLAGS,
    viewport: { width: 1280, height: 900 },
    acceptDownloads: true,
    ...options,
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/// A new page that records page errors (a panic in the app would be one) and console errors.
export async function open(context, path = "") {
  const page = await context.newPage();
  page.errors = [];
  page.on("pageerror", (e) => page.errors.push(e.message));
  page.on("console", (m) => {
    if (m.type() === "error") page.errors.push(m.text());
  });
  await page.goto(path.startsWith("http") ? path : BASE + path);
  await page.waitForSelector("svg.lanes");
  // The event list is drawn right after the first timeline (not at all when embedded).
  await page.waitForFunction(() => document.querySelector(".app.embed") || document.querySelector("ol.events li"));
  return page;
}

/// Sets a range input the way dragging it would (value, then input and change events).
export async function setRange(locator, value) {
  await locator.evaluate((el, v) => {
    el.value = v;
    el.dispatchEvent(new Event("input", { bubbles: true }));
    el.dispatchEvent(new Event("change", { bubbles: true }));
  }, String(value));
}

/// Fastest playback, play, and wait until the playhead stops at the end.
export async function playToEnd(page) {
  await setRange(page.getByLabel("Playback speed"), 30);
  await page.getByRole("button", { name: "Play" }).click();
  await page.waitForFunction(() => {
    const clock = document.querySelector(".playbar .clock")?.textContent ?? "";
    const [now, end] = clock.split(" / ");
    const playing = document.querySelector(".playbar .play")?.textContent.includes("Pause");
    return now && now === end && !playing;
  });
}

export const text = (page, selector) => page.locator(selector).first().innerText();
