// fencepost/client in headless Chromium (Debian's, driven by playwright-core) against the real lease
// service: a page served from one origin holds a lease of the service on another, which allows the
// page's origin through FENCEPOST_CORS_ORIGINS. A click starts it; the page acquires, keeps the
// lease renewed past its first safe-until, writes through `lease.fetch`, reads the document back and
// releases, showing each step; the test reads what the page shows and checks the service agrees.
// The page takes the package's `browser` entry through an import map, as run.mjs in tests/browser
// does. A screenshot goes to target/edge-browser/.
//
// Needs WORKERD_BIN and DENO_BIN.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { extname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { ROOT, hostFixture } from "./hosts.mjs";
import { getDoc, lockState, wantedHosts } from "./client.mjs";

const wanted = wantedHosts();

const PAGE_DIR = join(import.meta.dirname, "browser");
const DIST = join(ROOT, "npm/dist");

// Browsers do not resolve packages: resolve `fencepost/client` with the `browser` condition (from
// the package's own folder, as a bundler would from an app that installed it) and map the result.
const entry = fileURLToPath(
  execFileSync(process.execPath, ["--conditions=browser", "--input-type=module", "-e", 'process.stdout.write(import.meta.resolve("fencepost/client"))'], {
    cwd: join(ROOT, "npm"),
    encoding: "utf8",
  }),
);
assert.equal(entry, join(DIST, "client/browser.js"), "the browser condition must pick dist/client/browser.js");
const importMap = { imports: { "fencepost/client": "/fencepost/" + relative(DIST, entry).split(sep).join("/") } };

const TYPES = { ".js": "text/javascript", ".wasm": "application/wasm", ".html": "text/html" };

/** The page, its script and the package's dist folder under /fencepost/, on 127.0.0.1. */
function pageServer() {
  const html = readFileSync(join(PAGE_DIR, "page.html"), "utf8").replace(
    "<!--IMPORTMAP-->",
    `<script type="importmap">${JSON.stringify(importMap)}</script>`,
  );
  return createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, "http://x").pathname);
    if (path === "/") {
      res.writeHead(200, { "content-type": "text/html" }).end(html);
      return;
    }
    const file = path.startsWith("/fencepost/") ? resolve(DIST, "." + path.slice("/fencepost".length)) : resolve(PAGE_DIR, "." + path);
    const type = TYPES[extname(file)];
    if (!(file.startsWith(DIST + sep) || file.startsWith(PAGE_DIR + sep)) || type === undefined) {
      res.writeHead(404).end();
      return;
    }
    try {
      res.writeHead(200, { "content-type": type }).end(readFileSync(file));
    } catch {
      res.writeHead(404).end();
    }
  });
}

/** What the page shows, by element id. */
const IDS = ["status", "token", "header", "state", "requests", "held-state", "sent-header", "write", "doc", "released", "final-state"];

for (const name of wanted) {
  describe(`${name}: lease client in Chromium, from a page of another origin`, () => {
    const host = hostFixture(name, null);
    let server;
    let origin;
    let profile;
    let context;
    before(async () => {
      server = pageServer();
      await new Promise((ok, fail) => server.once("error", fail).listen(0, "127.0.0.1", ok));
      origin = `http://127.0.0.1:${server.address().port}`;
      profile = mkdtempSync(join(tmpdir(), "fencepost-chromium-"));
      context = await chromium.launchPersistentContext(profile, {
        executablePath: "/usr/bin/chromium",
        headless: true,
        args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
      });
    });
    after(async () => {
      await context?.close();
      await new Promise((ok) => (server ? server.close(ok) : ok()));
      if (profile) rmSync(profile, { recursive: true, force: true });
    });

    test("a click acquires, renews past the first TTL, writes fenced, reads back and releases", { timeout: 60_000 }, async () => {
      const base = await host.restart({ corsOrigins: origin });
      const page = await context.newPage();
      const errors = [];
      page.on("pageerror", (e) => errors.push(e.message));
      page.on("console", (m) => {
        if (m.type() === "error") errors.push(m.text());
      });
      await page.goto(`${origin}/?service=${encodeURIComponent(base)}&lock=browser-doc`);
      await page.waitForFunction(() => document.getElementById("status").textContent === "ready", null, { timeout: 15_000 }).catch(() => {
        throw new Error(`the page did not load: ${errors.join("; ") || "no error reported"}`);
      });
      await page.click("#start");
      await page.waitForFunction(() => /^(done|failed)/.test(document.getElementById("status").textContent), null, { timeout: 30_000 });
      const shown = Object.fromEntries(await Promise.all(IDS.map(async (id) => [id, await page.textContent(`#${id}`)])));
      const shot = join(ROOT, "target/edge-browser", `lease-client-${name}.png`);
      mkdirSync(join(ROOT, "target/edge-browser"), { recursive: true });
      await page.screenshot({ path: shot, fullPage: true });
      console.log(`screenshot: ${shot}`);
      await page.close();
      assert.deepEqual(errors, []);

      const { token } = shown;
      assert.match(token, /^[1-9][0-9]*$/);
      // 1500 ms leases renew a third of the way in: 2500 ms of holding sends four or five renewals.
      const [acquires, renewals] = shown.requests.split(" / ").map(Number);
      assert.equal(acquires, 1);
      assert.ok(renewals >= 3 && renewals <= 6, `renewals: ${renewals}`);
      assert.deepEqual(shown, {
        status: "done",
        token,
        header: shown.header,
        state: "held",
        requests: `1 / ${renewals}`,
        "held-state": "held",
        "sent-header": shown.header,
        write: `200 {"token":"${token}","highest":"${token}"}`,
        doc: `200 {"data":"written from ${origin}","token":"${token}"}`,
        released: "true",
        "final-state": "lost",
      });
      // Signed for this lock with the service's key 1: <token>.<key id>.<MAC>.
      assert.match(shown.header, new RegExp(`^${token}\\.1\\.[0-9a-f]{64}$`));
      // The service agrees: the document holds the page's write under its token, the lock is free.
      assert.deepEqual((await getDoc(base, "browser-doc")).json, { data: `written from ${origin}`, token });
      assert.deepEqual((await lockState(base, "browser-doc")).json, { state: "free" });
    });

    test("a page of an origin the service does not list cannot call it", { timeout: 60_000 }, async () => {
      const base = await host.restart({ corsOrigins: "https://app.example" });
      const page = await context.newPage();
      // A lock of its own: Chromium keeps the first test's preflight answer for this origin and URL
      // (max-age), and would send the acquire on its strength; the page still could not read it.
      await page.goto(`${origin}/?service=${encodeURIComponent(base)}&lock=browser-unlisted`);
      await page.waitForFunction(() => document.getElementById("status").textContent === "ready", null, { timeout: 15_000 });
      await page.click("#start");
      await page.waitForFunction(() => /^(done|failed)/.test(document.getElementById("status").textContent), null, { timeout: 30_000 });
      // The preflight gets no allow headers, so Chromium sends no acquire and the client sees a
      // network failure; it tries again (a failure to reach the service is transient) until the
      // page's 1 s wait runs out, then rejects with that failure, Chromium's words as its cause.
      const status = await page.textContent("#status");
      await page.close();
      assert.equal(status, "failed: LeaseServiceError: the lease service could not be reached: Failed to fetch");
      // Nothing reached the service: the lock was never taken.
      assert.deepEqual((await lockState(base, "browser-unlisted")).json, { state: "free" });
    });
  });
}
