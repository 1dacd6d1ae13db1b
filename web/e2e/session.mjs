// One headless browser per test file: launched before its tests and closed after them. Every page
// a test opens is checked for script errors (a panic in the app would be one) and closed when the
// test ends.
import { after, afterEach, before } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { launch, open } from "./browser.mjs";

const SHOTS = process.env.SHOT_DIR;

/** Registers the file's browser hooks; answers how to open pages and take screenshots in it. */
export function browserSession() {
  let browser;
  let pages = [];
  before(async () => {
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
  });
  afterEach(async () => {
    for (const p of pages) {
      assert.deepEqual(p.errors, [], "errors on the page");
      await p.close();
    }
    pages = [];
  });
  return {
    /** A page on `path` whose script errors fail the test. */
    async page(path = "#preset=paused-worker") {
      const p = await open(browser.context, path);
      pages.push(p);
      return p;
    },
    /** The browser's context, for a page a test opens by a full address. */
    context: () => browser.context,
    /** Checks and closes `p`, a page the test opened itself, like the others. */
    track(p) {
      pages.push(p);
      return p;
    },
    /** A full-page screenshot into SHOT_DIR, when it is set. */
    async shot(p, name) {
      if (SHOTS) await p.screenshot({ path: join(SHOTS, name), fullPage: true });
    },
  };
}
