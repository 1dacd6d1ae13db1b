// The fenced lease service over HTTP, in real workerd (Durable Objects on local disk) and real Deno
// (KV in a local file). Both runtimes get the same tests. Servers listen on 127.0.0.1 on a free
// port and are always stopped.
//
// Needs: WORKERD_BIN and DENO_BIN (paths to the runtimes); EDGE_RUNTIMES may list a subset
// ("workerd,deno"). Time is real: leases are a few hundred milliseconds long and the tests wait
// them out, so no clock in the service can be bent by a client.

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "../..");
const SHORT_TTL = 400;

function freePort() {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.once("error", fail);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => ok(port));
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const RUNTIMES = {
  workerd: (port, dir) => [
    process.env.WORKERD_BIN,
    [
      "serve",
      join(ROOT, "examples/cloudflare/workerd.capnp"),
      "--socket-addr",
      `http=127.0.0.1:${port}`,
      "--directory-path",
      `do-storage=${dir}`,
    ],
    {},
  ],
  deno: (port, dir) => [
    process.env.DENO_BIN,
    [
      "run",
      "--quiet",
      "--unstable-kv",
      "--no-prompt",
      `--allow-net=127.0.0.1:${port}`,
      `--allow-read=${ROOT}/npm,${ROOT}/examples,${dir}`,
      `--allow-write=${dir}`,
      "--allow-env=PORT,HOST,KV_PATH",
      "--config",
      join(ROOT, "examples/deno/deno.json"),
      join(ROOT, "examples/deno/main.ts"),
    ],
    { PORT: String(port), KV_PATH: join(dir, "kv.sqlite3"), DENO_NO_UPDATE_CHECK: "1" },
  ],
};

const running = new Set();
process.on("exit", () => {
  for (const child of running) child.kill("SIGKILL");
});

/** Starts a runtime and waits until it answers HTTP. */
async function start(name, port, dir) {
  const [bin, args, env] = RUNTIMES[name](port, dir);
  assert.ok(bin, `${name.toUpperCase()}_BIN is not set`);
  const child = spawn(bin, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  running.add(child);
  let log = "";
  child.stdout.on("data", (d) => (log += d));
  child.stderr.on("data", (d) => (log += d));
  const exited = new Promise((r) => child.once("exit", r));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited early:\n${log}`);
    try {
      const r = await fetch(`${base}/docs/readiness-probe`);
      if (r.status === 404) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`${name} did not answer within 30 s:\n${log}`);
    }
    await sleep(100);
  }
  return {
    base,
    log: () => log,
    async stop() {
      if (child.exitCode === null) {
        child.kill("SIGKILL");
        await exited;
      }
      running.delete(child);
    },
  };
}

async function call(base, method, path, body, headers = {}) {
  const init = { method, headers: { ...headers } };
  if (body !== undefined) {
    const raw = typeof body === "string" || body instanceof Uint8Array;
    init.body = raw ? body : JSON.stringify(body);
    if (!raw) init.headers["content-type"] = "application/json";
  }
  const r = await fetch(base + path, init);
  const text = await r.text();
  let json = null;
  try {
    json = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: r.status, json, text };
}

const acquire = (base, lock, holder, ttlMs) => call(base, "POST", `/locks/${lock}/acquire`, { holder, ttlMs });
const release = (base, lock, holder, token) => call(base, "POST", `/locks/${lock}/release`, { holder, token });
const put = (base, key, token, data) => call(base, "PUT", `/docs/${key}`, data, { "Fencing-Token": token });

const wanted = (process.env.EDGE_RUNTIMES ?? "workerd,deno").split(",").filter(Boolean);

for (const name of wanted) {
  describe(name, () => {
    let dir;
    let port;
    let server;
    /** Every token granted on the lock "story", to check the restart. */
    const storyTokens = [];

    before(async () => {
      dir = mkdtempSync(join(tmpdir(), `fencepost-${name}-`));
      port = await freePort();
      server = await start(name, port, dir);
    });

    after(async () => {
      await server?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    test("the story: A's lease runs out, B writes with a higher token, A's stale write gets 409", async () => {
      const b = server.base;
      const a = await acquire(b, "story", "A", SHORT_TTL);
      assert.equal(a.status, 200, a.text);
      const tA = a.json.token;
      assert.match(tA, /^[1-9][0-9]*$/);
      storyTokens.push(BigInt(tA));
      const early = await acquire(b, "story", "B", SHORT_TTL);
      assert.equal(early.status, 409, early.text);
      assert.equal(early.json.holder, "A");
      assert.equal(early.json.until, a.json.expiresAt);
      await sleep(SHORT_TTL + 150); // A is "paused"; its lease runs out
      const bb = await acquire(b, "story", "B", 60_000);
      assert.equal(bb.status, 200, bb.text);
      const tB = bb.json.token;
      storyTokens.push(BigInt(tB));
      assert.ok(BigInt(tB) > BigInt(tA), `${tB} > ${tA}`);
      assert.equal((await put(b, "story", tB, "B's data")).status, 200);
      const stale = await put(b, "story", tA, "A's data");
      assert.equal(stale.status, 409, stale.text);
      assert.deepEqual(stale.json, { presented: tA, highest: tB });
      const doc = await call(b, "GET", "/docs/story");
      assert.equal(doc.status, 200);
      assert.deepEqual(doc.json, { data: "B's data", token: tB });
      // A cannot renew or release what it lost.
      const renew = await call(b, "POST", "/locks/story/renew", { holder: "A", token: tA });
      assert.equal(renew.status, 409, renew.text);
      assert.match(renew.json.error, /^lost/);
    });

    test("50 concurrent acquires from 10 holders: one holder at a time, tokens strictly increase", async () => {
      const b = server.base;
      const grants = [];
      let requests = 0;
      async function holder(h) {
        for (let i = 0; i < 5; i++) {
          requests++;
          const r = await acquire(b, "crowd", h, 5_000);
          const gotAt = performance.now();
          if (r.status === 200) {
            const releaseSentAt = performance.now();
            const rel = await release(b, "crowd", h, r.json.token);
            grants.push({ h, token: BigInt(r.json.token), gotAt, releaseSentAt });
            assert.equal(rel.status, 200, rel.text);
            assert.deepEqual(rel.json, { released: "free", depth: 0 });
          } else {
            assert.equal(r.status, 409, r.text);
            assert.equal(typeof r.json.holder, "string");
            assert.notEqual(r.json.holder, h);
          }
        }
      }
      await Promise.all(Array.from({ length: 10 }, (_, i) => holder(`h${i}`)));
      assert.equal(requests, 50);
      assert.ok(grants.length >= 3, `only ${grants.length} grants: the test needs several hand-overs`);
      const byToken = [...grants].sort((x, y) => (x.token < y.token ? -1 : 1));
      for (let i = 1; i < byToken.length; i++) {
        assert.ok(byToken[i].token > byToken[i - 1].token, "tokens are distinct");
        // The earlier holder let go before the next one was told it holds the lock.
        assert.ok(byToken[i - 1].releaseSentAt <= byToken[i].gotAt, "no overlap");
      }
      // The order of grants in time is the order of their tokens.
      const byTime = [...grants].sort((x, y) => x.gotAt - y.gotAt).map((g) => g.token);
      assert.deepEqual(byTime, byToken.map((g) => g.token));
    });

    test("100 acquires racing on one lock by one holder: every one re-enters, none is turned away", async () => {
      const b = server.base;
      const results = await Promise.all(Array.from({ length: 100 }, () => acquire(b, "busy", "A", 60_000)));
      for (const r of results) assert.equal(r.status, 200, r.text);
      assert.equal(new Set(results.map((r) => r.json.token)).size, 1, "one lease, one token");
      const rel = await release(b, "busy", "A", results[0].json.token);
      assert.deepEqual(rel.json, { released: "held", depth: 99 });
    });

    test("after a takeover, 100 concurrent writes with the old token all get 409", async () => {
      const b = server.base;
      const a = await acquire(b, "takeover", "A", SHORT_TTL);
      assert.equal(a.status, 200);
      await sleep(SHORT_TTL + 150);
      const bb = await acquire(b, "takeover", "B", 60_000);
      assert.equal(bb.status, 200);
      assert.equal((await put(b, "takeover", bb.json.token, "B wins")).status, 200);
      const results = await Promise.all(
        Array.from({ length: 100 }, (_, i) => put(b, "takeover", a.json.token, `stale ${i}`)),
      );
      for (const r of results) {
        assert.equal(r.status, 409, r.text);
        assert.deepEqual(r.json, { presented: a.json.token, highest: bb.json.token });
      }
      const doc = await call(b, "GET", "/docs/takeover");
      assert.deepEqual(doc.json, { data: "B wins", token: bb.json.token });
    });

    test("malformed input gets 400 with a reason, and the service keeps working", async () => {
      const b = server.base;
      const cases = [
        [call(b, "POST", "/locks/m/acquire", "{not json"), /not valid JSON/],
        [call(b, "POST", "/locks/m/acquire", "[1,2]"), /JSON object/],
        [call(b, "POST", "/locks/m/acquire", {}), /holder is required/],
        [call(b, "POST", "/locks/m/acquire", { holder: 7 }), /holder must be a string/],
        [call(b, "POST", "/locks/m/acquire", { holder: "A", ttlMs: -5 }), /ttlMs must be/],
        [call(b, "POST", "/locks/m/renew", { holder: "A", token: "abc" }), /token "abc" is malformed/],
        [call(b, "POST", "/locks/m/renew", { holder: "A", token: "-1" }), /token "-1" is malformed/],
        [
          call(b, "POST", "/locks/m/release", { holder: "A", token: "18446744073709551616" }),
          /token "18446744073709551616" is malformed/,
        ],
        [call(b, "POST", "/locks/m/renew", { holder: "A", token: 34 }), /decimal string/],
        [put(b, "m", "abc", "x"), /Fencing-Token "abc" is malformed/],
        [put(b, "m", "-1", "x"), /Fencing-Token "-1" is malformed/],
        [put(b, "m", "18446744073709551616", "x"), /Fencing-Token "18446744073709551616" is malformed/],
        [put(b, "m", "0", "x"), /Fencing-Token "0" is malformed/],
        [call(b, "PUT", "/docs/m", "x"), /Fencing-Token header is required/],
        [call(b, "POST", "/locks/m/acquire", JSON.stringify({ holder: "A", pad: "x".repeat(10 * 1024 * 1024) })), /larger than 65536 bytes/],
        [call(b, "POST", "/locks/bad%zz/acquire", { holder: "A" }), /percent-encoding/],
        [call(b, "POST", `/locks/${"x".repeat(200)}/acquire`, { holder: "A" }), /lock name must be/],
        // JSON can spell a lone surrogate; it is the client's mistake, not the server's.
        [call(b, "POST", "/locks/m/acquire", '{"holder":"A\\ud800"}'), /holder must be well-formed Unicode/],
        [call(b, "PUT", "/docs/m", new Uint8Array([0xff, 0xfe, 0x00]), { "Fencing-Token": "1" }), /not valid UTF-8/],
      ];
      for (const [pending, message] of cases) {
        const r = await pending;
        assert.equal(r.status, 400, r.text);
        assert.match(r.json.error, message);
      }
      assert.equal((await call(b, "GET", "/nowhere")).status, 404);
      assert.equal((await call(b, "GET", "/locks/m/acquire")).status, 405);
      const ok = await acquire(b, "m", "A", 60_000);
      assert.equal(ok.status, 200, ok.text);
      assert.equal((await put(b, "m", ok.json.token, "fine")).status, 200);
      assert.deepEqual((await call(b, "GET", "/docs/m")).json, { data: "fine", token: ok.json.token });
    });

    test("documents keep their text exactly, up to the host's limit", async () => {
      const b = server.base;
      const lease = await acquire(b, "text", "A", 60_000);
      assert.equal(lease.status, 200, lease.text);
      const token = lease.json.token;
      // A leading byte-order mark is part of the text.
      assert.equal((await put(b, "text", token, "\uFEFFhello")).status, 200);
      assert.deepEqual((await call(b, "GET", "/docs/text")).json, { data: "\uFEFFhello", token });
      // Deno KV holds 60 KiB of document (its values are capped at 64 KiB); Durable Objects the
      // request limit, 64 KiB. Multi-byte text counts in bytes on both.
      const limit = name === "deno" ? 60 * 1024 : 64 * 1024;
      const full = "€".repeat(Math.floor(limit / 3)) + "x".repeat(limit % 3);
      const stored = await put(b, "text", token, full);
      assert.equal(stored.status, 200, stored.text);
      assert.equal((await call(b, "GET", "/docs/text")).json.data, full);
      const over = await put(b, "text", token, full + "x");
      assert.equal(over.status, 400, over.text);
      assert.equal(over.json.error, `body is larger than ${limit} bytes`);
    });

    if (name === "deno") {
      test("a stored state the service cannot read is a 500, not the client's fault", async () => {
        // Another process writes garbage where the lock's snapshot lives.
        const [bin] = RUNTIMES.deno(port, dir);
        const kvPath = join(dir, "kv.sqlite3");
        const code = `const kv = await Deno.openKv(${JSON.stringify(kvPath)}); await kv.set(["lock", "broken"], new Uint8Array([1, 2, 3])); kv.close();`;
        await new Promise((ok, fail) => {
          const child = spawn(bin, ["eval", "--unstable-kv", code], { env: { ...process.env, DENO_NO_UPDATE_CHECK: "1" }, stdio: "inherit" });
          child.once("exit", (c) => (c === 0 ? ok() : fail(new Error(`deno eval exited ${c}`))));
        });
        const r = await acquire(server.base, "broken", "A", 1_000);
        assert.equal(r.status, 500, r.text);
        assert.deepEqual(r.json, { error: "internal error" });
        assert.match(server.log(), /fencepost service: RangeError: snapshot: snapshot is truncated/);
        const other = await acquire(server.base, "fine", "A", 1_000);
        assert.equal(other.status, 200, other.text);
      });
    }

    test("after a restart of the runtime, grants resume above every earlier token and documents stay", async () => {
      assert.ok(storyTokens.length >= 2, "the story ran first");
      await server.stop();
      server = await start(name, port, dir);
      const b = server.base;
      const doc = await call(b, "GET", "/docs/story");
      assert.equal(doc.status, 200, doc.text);
      assert.equal(doc.json.data, "B's data");
      // B's 60 s lease survived the restart with the lock's state.
      const c = await acquire(b, "story", "C", 1_000);
      assert.equal(c.status, 409, c.text);
      assert.equal(c.json.holder, "B");
      const freed = await call(b, "POST", "/locks/story/release", { holder: "B", token: storyTokens[1].toString() });
      assert.equal(freed.status, 200, freed.text);
      const d = await acquire(b, "story", "D", 1_000);
      assert.equal(d.status, 200, d.text);
      const max = storyTokens.reduce((m, t) => (t > m ? t : m), 0n);
      assert.ok(BigInt(d.json.token) > max, `${d.json.token} > ${max}`);
      const stale = await put(b, "story", storyTokens[0].toString(), "late A");
      assert.equal(stale.status, 409);
    });
  });
}
