// End-to-end tests of a recorded run in the visualizer: a fault campaign's history opened the way
// a person does (the "Open a recorded run" picker, a file dropped on the page, or the address
// `cargo xtask demo --run FILE` prints), drawn on the timeline and opened on its first refused
// stale write. Run by `cargo xtask test-web` with app.test.mjs (BASE_URL, SHOT_DIR); xtask copies
// the fixture into the served app as recorded/paused-client.jsonl, as `demo --run` does.
//
// fixtures/paused-client.jsonl is an excerpt of a real campaign's history, recorded by
// `cargo xtask chaos --seconds 120 --seed 3 --clients 3` (target/chaos/seed-3/history.jsonl):
// every line with t <= 10500, whole and in order (the first refused stale write is at 10258).
// client-1 is granted e1 (token ...108) at 4.799 s through proxy-service-2, which holds its
// connection from 4.873 s to 10.255 s (proxy-hold); its document write is held there, its lease
// runs out at 6.659 s, and it gives the write up (unknown) at 8.2 s. deno-0, client-2 and
// clock-slow-0 take e1 in turn through the other instances; when the hold ends the proxy delivers
// the held write, and service-2 refuses it at 10.258 s: the store has token ...111. The whole
// history passes `fencepost check` (0 stale writes accepted); the excerpt has no final rows.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { text } from "./browser.mjs";
import { browserSession } from "./session.mjs";

const NAME = "paused-client.jsonl";
const RUN = readFileSync(new URL(`./fixtures/${NAME}`, import.meta.url));

// What the page must show of it, read off the file by hand.
const EXPECTED = {
  // Each client process a lane, between the lease service's for lock e1 and the stores'.
  lanes: ["lock e1", "client-0", "client-1", "client-2", "clock-slow-0", "deno-0", "stores"],
  // The 61st event drawn (e1's events only): service-2 refusing client-1's token ...108.
  seq: 60,
  mark: "✗ 1883888537492783108 < 1883888537492783111",
  sentence:
    "client-1 wrote to e1 with token 1883888537492783108 at 10.258 s, after its lease ran out at 6.659 s; " +
    "the store had already accepted token 1883888537492783111 from clock-slow-0 at 9.944 s, so it refused the write.",
  clock: /^10\.258 s \/ /,
  now:
    "10.258 s — the storage refuses client-1's write with token 1883888537492783108: it has already accepted " +
    "1883888537492783111 from clock-slow-0",
  lock: /^Lock e1, one of 6 locks granted in this run: /,
  // The proxy hold on proxy-service-2 and clock-slow-0's slow clock (client-2's pause is its lane's).
  faultSpans: 2,
};

const { page, context, shot } = browserSession();

const labels = (p) => p.locator("#timeline-main .lane-label .lane-name").allInnerTexts();

/// What a person sees of the run once it is open: its card, lanes, refusal mark and playhead.
async function assertOpenedOnTheRefusal(p, name) {
  const card = p.getByRole("region", { name: "Recorded run" });
  await card.waitFor();
  assert.equal(await card.locator("h2").innerText(), `Recorded run: ${name}`);
  assert.equal(await card.locator(".recorded-sentence").innerText(), EXPECTED.sentence);
  assert.deepEqual(await labels(p), EXPECTED.lanes);
  // The refused write is the last event that has happened: its mark is drawn, on the stores'
  // lane, at the playhead.
  const refused = p.locator("#timeline-main svg.lanes .badge.rejected");
  assert.equal(await refused.count(), 1);
  assert.equal(await refused.isVisible(), true);
  assert.equal(await refused.textContent(), EXPECTED.mark);
  assert.equal(await refused.getAttribute("data-seq"), String(EXPECTED.seq));
  const storesTop = Number(await p.locator("#timeline-main .lane-band").nth(EXPECTED.lanes.length - 1).getAttribute("y"));
  const markBox = await refused.boundingBox();
  const svgBox = await p.locator("#timeline-main svg.lanes").boundingBox();
  assert.ok(markBox.y - svgBox.y >= storesTop, "the mark sits on the stores' lane");
  assert.match(await text(p, ".playbar .clock"), EXPECTED.clock);
  assert.equal(await text(p, ".narration .now"), EXPECTED.now);
  assert.equal(await p.locator("#timeline-main .fault-span").count(), EXPECTED.faultSpans);
}

describe("a recorded run", () => {
  test("opened with the file picker, it starts at its first refused stale write", async () => {
    const p = await page();
    await p.locator(".open-run input[type=file]").setInputFiles({ name: NAME, mimeType: "application/jsonl", buffer: RUN });
    await assertOpenedOnTheRefusal(p, NAME);
    assert.match(await text(p, ".recorded-lock"), EXPECTED.lock);
    await shot(p, "recorded-run.png");
    // Stepping on plays the recorded run; Back to the simulator shows the story again.
    await p.getByRole("button", { name: "Next event" }).click();
    assert.equal(await p.getByRole("region", { name: "Recorded run" }).count(), 1);
    await p.getByRole("button", { name: "Back to the simulator" }).click();
    assert.equal(await p.getByRole("region", { name: "Recorded run" }).count(), 0);
    assert.deepEqual(await labels(p), ["lock service", "worker A", "worker B", "storage"]);
  });

  test("dropped on the page, or named by the address demo --run prints, it opens the same way", async () => {
    const p = await page();
    await p.evaluate(
      ([bytes, name]) => {
        const dt = new DataTransfer();
        dt.items.add(new File([new Uint8Array(bytes)], name, { type: "application/jsonl" }));
        document.body.dispatchEvent(new DragEvent("dragover", { dataTransfer: dt, bubbles: true, cancelable: true }));
        document.body.dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
      },
      [[...RUN], "dropped.jsonl"],
    );
    await assertOpenedOnTheRefusal(p, "dropped.jsonl");
    const served = await page(`?run=recorded/${NAME}`);
    await assertOpenedOnTheRefusal(served, NAME);
  });

  test("a real campaign's history: every client process a lane, and no refusal is said so", async () => {
    // fixtures/chaos-seed-27-first-10s.jsonl: the first 10 s of a real campaign, recorded by
    // `cargo xtask chaos --seconds 60 --seed 27` (target/chaos/seed-27/history.jsonl): every line
    // with t <= 10000, whole and in order. That campaign refused no stale write (they are rare:
    // 3 in a 10-minute run), so the page opens it at its start, on the first lock granted.
    const real = readFileSync(new URL("./fixtures/chaos-seed-27-first-10s.jsonl", import.meta.url));
    const p = await page();
    await p.locator(".open-run input[type=file]").setInputFiles({ name: "seed-27.jsonl", mimeType: "application/jsonl", buffer: real });
    const card = p.getByRole("region", { name: "Recorded run" });
    await card.waitFor();
    assert.deepEqual(await labels(p), ["lock d1", "client-0", "client-1", "client-2", "clock-slow-0", "deno-0", "stores"]);
    assert.equal(await card.locator(".recorded-sentence").count(), 0);
    assert.equal(await text(p, ".recorded-note"), "No write with lock d1's tokens was refused as stale in this run.");
    assert.match(await text(p, ".recorded-lock"), /^Lock d1, one of 6 locks granted in this run: /);
    assert.match(await text(p, ".playbar .clock"), /^0 s \/ /);
    // The pause of client-1 (on its lane) and the slow clock of clock-slow-0 (a span).
    assert.equal(await card.locator(".recorded-faults li").allInnerTexts().then((l) => l.length), 2);
    assert.equal(await p.locator("#timeline-main .fault-span").count(), 1);
    await p.getByRole("button", { name: "Go to the end" }).click();
    await shot(p, "recorded-run-real.png");
  });

  test("a file that is not a history says why, and the story stays", async () => {
    const p = await page();
    const input = p.locator(".open-run input[type=file]");
    await input.setInputFiles({ name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("hello\n{\"t\":\n") });
    // The page reads a file asynchronously: wait for the message about this file, not the last.
    await p.locator(".messages .error-text", { hasText: "notes.txt" }).waitFor();
    assert.equal(
      await text(p, ".messages .error-text"),
      "Could not open notes.txt: no line of this file is a history line (2 lines); line 1: malformed, skipped: expected a JSON object.",
    );
    const log = '{"t":1,"resource":"r","writer":"A","token":33,"result":"ok"}\n';
    await input.setInputFiles({ name: "writes.jsonl", mimeType: "application/jsonl", buffer: Buffer.from(log) });
    await p.locator(".messages .error-text", { hasText: "writes.jsonl" }).waitFor();
    assert.equal(
      await text(p, ".messages .error-text"),
      "Could not open writes.jsonl: no client was granted a lock in these 1 lines (a store's write log alone has no lanes to draw; fencepost check reads it).",
    );
    assert.equal(await p.getByRole("region", { name: "Recorded run" }).count(), 0);
    assert.deepEqual(await labels(p), ["lock service", "worker A", "worker B", "storage"]);
    // A history with a bad line still opens; the line is named as the checker names it.
    const lines = RUN.toString().split("\n");
    const broken = [lines[0], "{\"t\":5,\"kind\":\"grant\"}", ...lines.slice(1)].join("\n");
    await input.setInputFiles({ name: "broken.jsonl", mimeType: "application/jsonl", buffer: Buffer.from(broken) });
    await p.getByRole("region", { name: "Recorded run" }).waitFor();
    assert.match(
      await text(p, ".recorded-note"),
      /^1 of \d+ lines could not be read and were skipped \(first: line 2: malformed, skipped: grant: missing field `process`\)\.$/,
    );
    await shot(p, "recorded-run-malformed.png");
  });
});
