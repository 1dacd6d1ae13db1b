// Serves this fixture on 127.0.0.1:<port> (the first argument) and opens, in headless Chromium
// (Debian's, driven by playwright-core), two pages that tell the same story: one imports the
// package's `browser` entry through an import map, the other is the same page bundled by Vite (as
// an app would ship it). Checks the story each tells. Then a third page, lease.html, holds a lease
// through fencepost/client from the real lease service at FENCEPOST_SERVICE (another origin, which
// lists this one in its CORS allowlist; started around this script by with-service.mjs): clicked
// like a person would, its shown result read and checked, a screenshot saved in
// FENCEPOST_SCREENSHOTS. Always closes the browser and the server.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { extname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import assert from "node:assert/strict";
import { chromium } from "playwright-core";
import { build } from "vite";
import { checkRound } from "./lease-round.mjs";

const port = Number(process.argv[2]);
assert.ok(Number.isInteger(port) && port > 0 && port < 65536, "usage: node run.mjs <port>");
const service = process.env.FENCEPOST_SERVICE;
const screenshots = process.env.FENCEPOST_SCREENSHOTS;
assert.ok(service && screenshots, "FENCEPOST_SERVICE and FENCEPOST_SCREENSHOTS must be set (run under with-service.mjs)");

// Browsers do not resolve packages: resolve `fencepost` with the `browser` condition, as a bundler
// would, and hand the page the result through an import map.
const resolveBrowser = (specifier) =>
  fileURLToPath(
    execFileSync(
      process.execPath,
      ["--conditions=browser", "--input-type=module", "-e", `process.stdout.write(import.meta.resolve(${JSON.stringify(specifier)}))`],
      { encoding: "utf8" },
    ),
  );
const entry = resolveBrowser("fencepost");
const simEntry = resolveBrowser("fencepost/sim");
assert.match(entry, /dist[\\/]browser\.js$/, "the browser condition must pick dist/browser.js");
assert.match(simEntry, /dist[\\/]sim[\\/]browser\.js$/, "the browser condition must pick dist/sim/browser.js");
const clientEntry = resolveBrowser("fencepost/client");
assert.match(clientEntry, /node_modules[\\/]fencepost[\\/]dist[\\/]client[\\/]browser\.js$/, "the browser condition must pick the installed dist/client/browser.js");
const here = process.cwd();
const urlOf = (file) => "/" + relative(here, file).split(sep).join("/");

const html = `<!doctype html>
<html>
  <head>
    <meta charset="utf-8">
    <title>fencepost in a browser</title>
    <link rel="icon" href="data:,">
    <script type="importmap">${JSON.stringify({ imports: { fencepost: urlOf(entry), "fencepost/sim": urlOf(simEntry) } })}</script>
    <script type="module" src="/page.js"></script>
  </head>
  <body><pre id="story"></pre><pre id="sim"></pre></body>
</html>
`;

const leaseHtml = readFileSync("lease.html", "utf8").replace(
  "<!--IMPORTMAP-->",
  `<script type="importmap">${JSON.stringify({ imports: { "fencepost/client": urlOf(clientEntry) } })}</script>`,
);

// The bundled page: Vite resolves `fencepost` with the browser condition, copies the .wasm files
// it finds in `new URL(..., import.meta.url)` and keeps the entries' loading (package.json lists
// them as having side effects). Top-level await needs an esnext target.
const bundled = resolve(here, "vite-out");
await build({
  root: resolve(here, "bundled"),
  base: "/bundled/",
  logLevel: "warn",
  build: { outDir: bundled, emptyOutDir: true, target: "esnext" },
});
const wasmFiles = readdirSync(join(bundled, "assets")).filter((f) => f.endsWith(".wasm"));
assert.equal(wasmFiles.length, 2, `Vite must emit both modules: ${wasmFiles}`);

const TYPES = { ".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm", ".html": "text/html" };
const server = createServer((req, res) => {
  const path = decodeURIComponent(new URL(req.url, "http://x").pathname);
  if (path === "/" || path === "/lease") {
    res.writeHead(200, { "content-type": "text/html" }).end(path === "/" ? html : leaseHtml);
    return;
  }
  const file = path.startsWith("/bundled/")
    ? resolve(bundled, "." + path.slice("/bundled".length).replace(/\/$/, "/index.html"))
    : resolve(here, "." + path);
  const type = TYPES[extname(file)];
  if (!file.startsWith(here + sep) || type === undefined) {
    res.writeHead(404).end();
    return;
  }
  try {
    res.writeHead(200, { "content-type": type }).end(readFileSync(file));
  } catch {
    res.writeHead(404).end();
  }
});
await new Promise((ok, fail) => server.once("error", fail).listen(port, "127.0.0.1", ok));

const profile = mkdtempSync(join(tmpdir(), "fencepost-chromium-"));
let context;
try {
  context = await chromium.launchPersistentContext(profile, {
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  for (const [where, what] of [
    ["/", "import map"],
    ["/bundled/", "Vite bundle"],
  ]) {
    const page = await context.newPage();
    const errors = [];
    page.on("pageerror", (e) => errors.push(e.message));
    page.on("console", (m) => {
      if (m.type() === "error") errors.push(m.text());
    });
    await page.goto(`http://127.0.0.1:${port}${where}`);
    await page
      .waitForFunction(() => window.fencepostStory !== undefined && window.fencepostSim !== undefined, null, { timeout: 15_000 })
      .catch(() => {
        throw new Error(`the page (${what}) told no story: ${errors.join("; ") || "no error reported"}`);
      });
    const story = JSON.parse(await page.evaluate(() => window.fencepostStory));
    assert.deepEqual(story, [
      { ok: true, token: "33n", expiresAt: 30000 },
      { ok: true, token: "34n", expiresAt: 75000 },
      { ok: true },
      { ok: false, reason: "stale", presented: "33n", highest: "34n" },
    ]);
    assert.deepEqual(JSON.parse(await page.evaluate(() => window.fencepostSim)), {
      rejected: [
        { actor: "storage", token: "33n", highest: "34n", because: "the storage refuses A's write with token 33: it has already accepted 34 from B" },
      ],
      fencingOff: [
        ["I1", 30],
        ["I2", 30],
        ["I4", 30],
      ],
    });
    assert.equal(await page.evaluate(() => window.fencepostDisposable), true, `${what}: Symbol.dispose is missing`);
    assert.deepEqual(errors, [], what);
    console.log(`chromium (${what}): 34 accepted, 33 rejected with highest 34; fencepost/sim rejects 33 and breaks I2 without fencing`);
    await page.close();
  }

  await holdLease(context);
} finally {
  await context?.close();
  await new Promise((ok) => server.close(ok));
  rmSync(profile, { recursive: true, force: true });
}

/** The lease page, driven like a person: load it, click, wait for the result it shows, read it. */
async function holdLease(context) {
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  const origin = `http://127.0.0.1:${port}`;
  const text = `written from a page of ${origin}`;
  const query = new URLSearchParams({ service, lock: "chromium", text });
  await page.goto(`${origin}/lease?${query}`);
  const status = () => page.textContent("#status");
  await page.waitForFunction(() => document.getElementById("status").textContent === "ready", null, { timeout: 15_000 }).catch(async () => {
    throw new Error(`the lease page did not load (${await status()}): ${errors.join("; ") || "no error reported"}`);
  });
  await page.click("#start");
  await page.waitForFunction(() => /^(done|failed)/.test(document.getElementById("status").textContent), null, { timeout: 30_000 });
  mkdirSync(screenshots, { recursive: true });
  const shot = join(screenshots, "lease-client.png");
  await page.screenshot({ path: shot, fullPage: true });
  console.log(`screenshot: ${shot}`);
  assert.equal(await status(), "done");
  assert.deepEqual(errors, []);
  const report = JSON.parse(await page.textContent("#report"));
  checkRound(assert, report, { text });
  // What a person reads on the page is the same as what was checked.
  const shown = {};
  for (const id of ["token", "header", "renewals", "held-state", "doc", "lock-after"]) shown[id] = await page.textContent(`#${id}`);
  assert.deepEqual(shown, {
    token: report.token,
    header: report.header,
    renewals: report.renewals.join(", "),
    "held-state": "held",
    doc: JSON.stringify({ data: text, token: report.token }),
    "lock-after": JSON.stringify({ state: "free" }),
  });
  await page.close();
  console.log(`chromium: a page of another origin held lease ${report.token} (${report.renewals.length} renewals), wrote and released it`);
}
