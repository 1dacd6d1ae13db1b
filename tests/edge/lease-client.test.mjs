// fencepost/client (the package in npm/dist) against the real lease service in real workerd and
// real Deno: acquire, background renewal and release; ifAvailable; waiting on a held lock; a
// callback that throws; a renewal refused 409; the service gone mid-lease; the fenced fetch; the
// client in a Deno script; two contending clients checked by `fencepost check`; a real pause of a
// holder process (SIGSTOP) longer than its lease; and a Worker holding a lease through a service
// binding.
//
// Where a test needs to see or steer what the client sends, it hands the client a `fetch` that
// calls the real one and records each request and answer: every answer is the service's own.
//
// Needs WORKERD_BIN, DENO_BIN and FENCEPOST_CLI (the `fencepost` CLI).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { ROOT, freePort, hostFixture, sleep } from "./hosts.mjs";
import { acquire, getDoc, lockState, metrics, release, wantedHosts } from "./client.mjs";
import { LeaseClient, LeaseLostError, LeaseServiceError, LockHeldError } from "../../npm/dist/client/node.mjs";

const wanted = wantedHosts();

/** The fetch the client gets in tests that look at its traffic: the real one, recorded. */
function tap() {
  const seen = [];
  const f = async (input, init) => {
    const request = new Request(input, init);
    const body = request.method === "GET" ? "" : await request.clone().text();
    const entry = { method: request.method, path: new URL(request.url).pathname, headers: request.headers, body };
    seen.push(entry);
    const response = await fetch(request);
    entry.status = response.status;
    if (request.url.includes("/acquire") && response.status === 200) entry.grant = await response.clone().json();
    return response;
  };
  return { fetch: f, seen };
}

/**
 * A real HTTP hop in front of the service at `target` that holds the answer to the first acquire
 * for `holdMs` before passing it on (a stalled proxy or network): a grant that reaches the client
 * late. Records each request's path and body and the service's status and answer, in order.
 */
async function holdingProxy(target, holdMs) {
  const seen = [];
  let holding = true;
  const server = createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const body = Buffer.concat(chunks).toString();
    const url = new URL(req.url, target);
    const init = { method: req.method, headers: { "content-type": req.headers["content-type"] ?? "text/plain" } };
    const answer = await fetch(url, req.method === "GET" ? init : { ...init, body });
    const text = await answer.text();
    seen.push({ path: url.pathname, body: body === "" ? null : JSON.parse(body), status: answer.status, json: JSON.parse(text) });
    if (holding && url.pathname.endsWith("/acquire")) {
      holding = false;
      await sleep(holdMs);
    }
    res.writeHead(answer.status, { "content-type": answer.headers.get("content-type") });
    res.end(text);
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  const close = () => {
    server.closeAllConnections();
    return new Promise((ok) => server.close(ok));
  };
  return { base: `http://127.0.0.1:${server.address().port}/`, seen, close };
}

/**
 * Resolves when `signal` aborts, with `performance.now()` at that moment; rejects after
 * `timeoutMs`. Its timer also keeps this process alive meanwhile: the client's own timers do not.
 */
function aborted(signal, timeoutMs = 5_000) {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`the signal did not abort within ${timeoutMs} ms`)), timeoutMs);
    signal.addEventListener("abort", () => {
      clearTimeout(t);
      resolve(performance.now());
    }, { once: true });
  });
}

/** Checks what hold-once.js saw: renewed once, a write admitted, released. */
function heldOnce(seen) {
  // 1200 ms leases renew 399 ms after the send, so one renewal moves the deadline by at least
  // that; by how much more depends on when the timer ran (a busy machine runs it late, workerd's
  // clock is coarse), but never by the whole lease: a renewal sent after it had lost the lease.
  assert.ok(seen.renewedBy >= 399 && seen.renewedBy < 1200, `${seen.renewedBy}`);
  assert.match(seen.token, /^[1-9][0-9]*$/);
  assert.deepEqual(seen, {
    token: seen.token,
    renewedBy: seen.renewedBy,
    status: 200,
    body: { token: seen.token, highest: seen.token },
    released: true,
    why: "released",
  });
}

for (const name of wanted) {
  describe(`${name}: lease client`, () => {
    const host = hostFixture(name);
    const client = () => new LeaseClient({ url: host.server.base });

    test("acquire, renew in the background, release", async () => {
      const base = host.server.base;
      const before = await metrics(base);
      const t0 = performance.now();
      const lease = await client().acquire("round-trip", { ttlMs: 1_500 });
      const t1 = performance.now();
      assert.equal(typeof lease.token, "bigint");
      assert.ok(lease.token > 0n);
      assert.match(lease.header, new RegExp(`^${lease.token}\\.1\\.[0-9a-f]{64}$`));
      assert.equal(lease.state, "held");
      assert.equal(lease.signal.aborted, false);
      // Counted from the send: 1500 ms less 0.1% drift (1.5 ms, so 1498 whole ms) and the 100 ms margin.
      assert.ok(lease.safeUntil >= Math.floor(t0) + 1_398 && lease.safeUntil <= Math.floor(t1) + 1_398, `${lease.safeUntil}`);
      const first = lease.safeUntil;
      // One renewal a third of the way in (499 ms after the acquire was sent), the next not before
      // 998 ms; the new safe-until counts from the renewal's send.
      await sleep(750);
      assert.equal((await metrics(base)).fencepost_renewals_total - before.fencepost_renewals_total, 1);
      assert.ok(lease.safeUntil >= first + 499 && lease.safeUntil <= first + 750, `${lease.safeUntil} after ${first}`);
      assert.equal(lease.state, "held");
      assert.equal((await lockState(base, "round-trip")).json.state, "held");
      assert.equal(await lease.release(), true);
      assert.equal(lease.state, "lost");
      assert.equal(lease.signal.aborted, true);
      assert.ok(lease.signal.reason instanceof LeaseLostError);
      assert.equal(lease.signal.reason.why, "released");
      assert.deepEqual((await lockState(base, "round-trip")).json, { state: "free" });
      assert.throws(() => lease.assertSafe(), { name: "LeaseLostError", why: "released" });
      // Released once: a second release sends nothing and says so.
      assert.equal(await lease.release(), false);
    });

    test("onState is told the grant, each renewal's new safe-until and the release, nothing else", async () => {
      const told = [];
      const watched = new LeaseClient({ url: host.server.base, onState: (c) => told.push(c) });
      const lease = await watched.acquire("observed", { ttlMs: 1_200 });
      assert.deepEqual(told, [{ lock: "observed", state: "held", token: lease.token, safeUntil: lease.safeUntil, why: null }]);
      // One renewal 399 ms in: its answer moves safe-until, and only that is told.
      await sleep(600);
      assert.equal(told.length, 2);
      assert.equal(told[1].state, "held");
      assert.equal(told[1].safeUntil, lease.safeUntil);
      assert.ok(told[1].safeUntil > told[0].safeUntil);
      assert.equal(await lease.release(), true);
      // A release keeps the last deadline: it says until when the lease could have been acted on.
      assert.deepEqual(told[2], { lock: "observed", state: "released", token: lease.token, safeUntil: told[1].safeUntil, why: "released" });
      assert.equal(told.length, 3);
      // An observer that throws changes nothing for the lease.
      const throwing = new LeaseClient({ url: host.server.base, onState: () => { throw new Error("observer"); } });
      const other = await throwing.acquire("observed", { ttlMs: 1_200 });
      assert.equal(other.state, "held");
      assert.equal(await other.release(), true);
      assert.throws(() => new LeaseClient({ url: host.server.base, onState: 1 }), { name: "TypeError", message: /options.onState must be a function/ });
    });

    test("ifAvailable gives the callback null while another holder has the lock", async () => {
      const base = host.server.base;
      const other = await acquire(base, "busy", 5_000);
      assert.equal(other.status, 200, other.text);
      const got = await client().request("busy", { ifAvailable: true }, async (lease) => (lease === null ? "none" : "a lease"));
      assert.equal(got, "none");
      assert.equal((await release(base, "busy", other.json)).status, 200);
      const after = await client().request("busy", { ifAvailable: true, ttlMs: 1_000 }, async (lease) => lease.token);
      assert.ok(after > BigInt(other.json.token));
    });

    test("a held lock is tried again with backoff until it is released, or until waitMs", async () => {
      const base = host.server.base;
      const first = await client().acquire("wait", { ttlMs: 10_000 });
      const t0 = performance.now();
      await assert.rejects(client().acquire("wait", { ttlMs: 1_000, waitMs: 300 }), (e) => {
        assert.ok(e instanceof LockHeldError);
        assert.equal(e.lock, "wait");
        return true;
      });
      const gaveUp = performance.now() - t0;
      assert.ok(gaveUp >= 300 && gaveUp < 1_500, `${gaveUp} ms`);
      const { fetch, seen } = tap();
      const waiting = new LeaseClient({ url: base, fetch }).acquire("wait", { ttlMs: 1_000, waitMs: 10_000 });
      await sleep(700);
      assert.equal(await first.release(), true);
      const second = await waiting;
      assert.ok(second.token > first.token, `${second.token} after ${first.token}`);
      const tries = seen.filter((r) => r.path === "/locks/wait/acquire");
      // Refused while held (backing off from 25 ms, doubling up to 1 s), then granted once.
      assert.deepEqual(tries.slice(-1).map((r) => r.status), [200]);
      assert.ok(tries.length >= 3 && tries.length <= 8, `${tries.length} tries`);
      assert.ok(tries.slice(0, -1).every((r) => r.status === 409));
      assert.equal(await second.release(), true);
    });

    test("the lease is released when the callback throws", async () => {
      let held = null;
      await assert.rejects(
        client().request("thrower", { ttlMs: 5_000 }, async (lease) => {
          held = lease;
          assert.equal((await lockState(host.server.base, "thrower")).json.state, "held");
          throw new Error("boom");
        }),
        { message: "boom" },
      );
      assert.equal(held.signal.reason.why, "released");
      assert.deepEqual((await lockState(host.server.base, "thrower")).json, { state: "free" });
    });

    test("a renewal refused 409 aborts the signal at once and is not retried", async () => {
      const base = host.server.base;
      const { fetch, seen } = tap();
      const lease = await new LeaseClient({ url: base, fetch }).acquire("refused", { ttlMs: 1_500 });
      const grant = seen[0].grant;
      // The lease's own secret ends it behind the client's back (what an operator could do).
      assert.equal((await release(base, "refused", grant)).status, 200);
      const at = await aborted(lease.signal);
      // Refused at the first renewal (500 ms in), long before safe-until.
      assert.ok(at < lease.safeUntil - 500, `aborted at ${at}, safe until ${lease.safeUntil}`);
      assert.equal(lease.signal.reason.why, "refused");
      assert.equal(lease.state, "lost");
      const renewals = seen.filter((r) => r.path === "/locks/refused/renew");
      assert.deepEqual(renewals.map((r) => r.status), [409]);
      const sent = seen.length;
      await assert.rejects(lease.fetch("docs/refused", { method: "PUT", body: "late" }), { name: "LeaseLostError", why: "refused" });
      // Nothing more goes out: no retry, no release of a lease that is gone.
      assert.equal(await lease.release(), false);
      await sleep(600);
      assert.equal(seen.length, sent);
    });

    // A 2 s lease judged with a 1 s margin is safe for 998 ms after the acquire is sent; the
    // proxy holds the grant 1.3 s, so it arrives too late to act on, while the service still
    // holds it for the client (until 2 s after it granted it).
    const late = { ttlMs: 2_000, holdMs: 1_300, marginMs: 1_000 };

    test("a grant that arrives after its safe-until is released, and a fresh lease acquired within waitMs", async () => {
      const base = host.server.base;
      const proxy = await holdingProxy(base, late.holdMs);
      try {
        const client = new LeaseClient({ url: proxy.base, marginMs: late.marginMs });
        const t0 = performance.now();
        const lease = await client.acquire("late", { ttlMs: late.ttlMs, waitMs: 5_000 });
        const took = performance.now() - t0;
        const seen = proxy.seen.slice(0, 3);
        assert.deepEqual(
          seen.map((r) => [r.path, r.status]),
          [
            ["/locks/late/acquire", 200],
            ["/locks/late/release", 200],
            ["/locks/late/acquire", 200],
          ],
        );
        // The late grant is given back by its own lease id and token, and the service frees it.
        const [first, given, second] = seen;
        assert.deepEqual(given.body, { leaseId: first.json.leaseId, token: first.json.token });
        assert.deepEqual(given.json, { released: "free", depth: 0 });
        // The lease handed out is the second grant, the next token, held with its safe-until ahead.
        assert.equal(BigInt(second.json.token), BigInt(first.json.token) + 1n);
        assert.equal(lease.token, BigInt(second.json.token));
        assert.equal(lease.state, "held");
        assert.equal(lease.signal.aborted, false);
        assert.ok(lease.safeUntil > performance.now(), `${lease.safeUntil}`);
        assert.ok(took >= late.holdMs && took < 5_000, `${took} ms`);
        assert.equal((await lockState(base, "late")).json.state, "held");
        assert.equal(await lease.release(), true);
        assert.deepEqual((await lockState(base, "late")).json, { state: "free" });
      } finally {
        await proxy.close();
      }
    });

    test("a grant that arrives after its safe-until and after waitMs is released, and the acquire fails", async () => {
      const base = host.server.base;
      const proxy = await holdingProxy(base, late.holdMs);
      try {
        const client = new LeaseClient({ url: proxy.base, marginMs: late.marginMs });
        await assert.rejects(client.acquire("late-wait", { ttlMs: late.ttlMs, waitMs: 500 }), (e) => {
          assert.ok(e instanceof LeaseServiceError);
          assert.equal(e.message, 'the service granted lock "late-wait" too late to act on: the answer came after its safe-until');
          assert.equal(e.status, 200);
          return true;
        });
        assert.deepEqual(
          proxy.seen.map((r) => [r.path, r.status]),
          [
            ["/locks/late-wait/acquire", 200],
            ["/locks/late-wait/release", 200],
          ],
        );
        assert.deepEqual((await lockState(base, "late-wait")).json, { state: "free" });
      } finally {
        await proxy.close();
      }
    });

    test("lease.fetch sends the exact header, and the service admits it", async () => {
      const base = host.server.base;
      const { fetch, seen } = tap();
      await new LeaseClient({ url: base, fetch }).request("fenced-doc", { ttlMs: 2_000 }, async (lease) => {
        const r = await lease.fetch("docs/fenced-doc", { method: "PUT", body: "written under the lease" });
        assert.equal(r.status, 200);
        assert.deepEqual(await r.json(), { token: lease.token.toString(), highest: lease.token.toString() });
        const put = seen.find((s) => s.method === "PUT");
        assert.equal(put.headers.get("fencing-token"), lease.header);
        assert.equal(put.path, "/docs/fenced-doc");
      });
      const doc = await getDoc(base, "fenced-doc");
      assert.equal(doc.json.data, "written under the lease");
    });
  });

  describe(`${name}: lease client, service stopped mid-lease`, () => {
    const host = hostFixture(name);

    test("the signal aborts no later than safe-until plus one timer tick", async () => {
      const lease = await new LeaseClient({ url: host.server.base }).acquire("orphan", { ttlMs: 1_500 });
      const safeUntil = lease.safeUntil;
      await host.server.stop();
      const at = await aborted(lease.signal);
      assert.equal(lease.signal.reason.why, "expired");
      // Failed renewals made it uncertain, not lost: it stayed usable until safe-until, not after.
      assert.ok(at >= safeUntil, `aborted at ${at}, before safe-until ${safeUntil}`);
      assert.ok(at <= safeUntil + 20, `aborted at ${at}, ${at - safeUntil} ms after safe-until`);
      assert.equal(lease.safeUntil, safeUntil);
      assert.equal(await lease.release(), false);
      // A service that cannot be reached is tried until waitMs, then its error is the answer.
      const t0 = performance.now();
      await assert.rejects(new LeaseClient({ url: host.server.base }).acquire("orphan", { waitMs: 300 }), (e) => {
        assert.equal(e.name, "LeaseServiceError");
        assert.equal(e.message, "the lease service could not be reached: fetch failed");
        assert.equal(e.status, 0);
        assert.equal(e.cause.name, "TypeError");
        return true;
      });
      assert.ok(performance.now() - t0 >= 300);
    });
  });

  describe(`${name}: lease client in Deno`, () => {
    const host = hostFixture(name);

    test("a Deno script holds, renews, writes through and releases a lease", () => {
      const base = host.server.base;
      const out = execFileSync(
        process.env.DENO_BIN,
        ["run", "--quiet", "--no-prompt", `--allow-net=${new URL(base).host}`, `--allow-read=${ROOT}/npm/dist`, "lease-holder-deno.ts", base, "from-deno"],
        { cwd: import.meta.dirname, env: { ...process.env, DENO_NO_UPDATE_CHECK: "1" }, encoding: "utf8" },
      );
      heldOnce(JSON.parse(out));
    });
  });

  describe(`${name}: two lease clients contending for one lock`, () => {
    const host = hostFixture(name, { writeLog: true });

    test("never overlap: their write log passes `fencepost check`", { timeout: 60_000 }, async () => {
      const base = host.server.base;
      const sections = [];
      const worker = async (writer) => {
        const client = new LeaseClient({ url: base });
        for (let i = 0; i < 5; i++) {
          await client.request("contended", { ttlMs: 2_000, waitMs: 20_000 }, async (lease) => {
            const entered = performance.now();
            for (const part of [1, 2]) {
              const r = await lease.fetch("docs/contended", {
                method: "PUT",
                body: `${writer}-${i}-${part}`,
                headers: { "Fencepost-Writer": writer },
              });
              assert.equal(r.status, 200);
              await sleep(20);
            }
            sections.push({ token: lease.token, entered, left: performance.now() });
          });
        }
      };
      await Promise.all([worker("A"), worker("B")]);
      // In token order, each critical section ends before the next begins.
      sections.sort((x, y) => (x.token < y.token ? -1 : 1));
      for (let k = 1; k < sections.length; k++) {
        assert.ok(sections[k - 1].left <= sections[k].entered, `section ${k - 1} overlaps section ${k}`);
      }
      assert.equal(sections.length, 10);
      const dir = mkdtempSync(join(tmpdir(), "fencepost-contended-"));
      try {
        const log = join(dir, "writes.jsonl");
        writeFileSync(log, `${host.server.writes().join("\n")}\n`);
        const bin = process.env.FENCEPOST_CLI;
        assert.ok(bin, "FENCEPOST_CLI (the fencepost CLI) is not set");
        const out = execFileSync(bin, ["check", log, "--format", "json"], { encoding: "utf8" });
        const { summary } = JSON.parse(out.trim().split("\n").at(-1));
        assert.deepEqual(
          [summary.lines, summary.accepted, summary.rejected, summary.stale_owners, summary.token_regressions, summary.malformed],
          [20, 20, 0, 0, 0, 0],
        );
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });

  describe(`${name}: a holder process paused longer than its lease`, () => {
    const host = hostFixture(name);

    test("woken, its signal is aborted before it can send, and its forced write is refused 409", { timeout: 30_000 }, async () => {
      const base = host.server.base;
      const child = spawn(process.execPath, ["lease-holder.mjs", base, "paused", "2000"], {
        cwd: import.meta.dirname,
        stdio: ["pipe", "pipe", "inherit"],
      });
      const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
      const next = async () => JSON.parse((await lines.next()).value);
      const send = (line) => child.stdin.write(`${line}\n`);
      try {
        const a = await next();
        assert.equal(a.event, "acquired");
        send("write from-A");
        assert.deepEqual(await next(), { event: "wrote", status: 200, body: { token: a.token, highest: a.token } });

        child.kill("SIGSTOP");
        await sleep(3_000);
        const b = await new LeaseClient({ url: base }).acquire("paused", { ttlMs: 10_000, waitMs: 5_000 });
        assert.ok(b.token > BigInt(a.token), `${b.token} after ${a.token}`);
        const wrote = await b.fetch("docs/paused", { method: "PUT", body: "from-B" });
        assert.equal(wrote.status, 200);
        child.kill("SIGCONT");

        // Woken, the first thing it hears is its own timer: the lease is gone.
        const woke = await next();
        assert.equal(woke.event, "aborted");
        assert.deepEqual([woke.name, woke.why], ["LeaseLostError", "expired"]);
        assert.ok(woke.at >= woke.safeUntil);
        send("write from-A-again");
        assert.deepEqual(await next(), { event: "refused", name: "LeaseLostError", why: "expired", aborted: true, state: "lost" });
        send("force from-A-forced");
        assert.deepEqual(await next(), {
          event: "forced",
          status: 409,
          body: { presented: a.token, highest: b.token.toString() },
        });
        assert.deepEqual((await getDoc(base, "paused")).json, { data: "from-B", token: b.token.toString() });
        assert.equal(await b.release(), true);
        const exited = new Promise((r) => child.once("exit", r));
        child.stdin.end("exit\n");
        assert.equal(await exited, 0);
      } finally {
        child.kill("SIGKILL");
      }
    });
  });
}

if (wanted.includes("workerd")) {
  describe("workerd: a Worker holding a lease through a service binding", () => {
    test("acquires, renews, writes through and releases over the binding's fetch", { timeout: 60_000 }, async () => {
      const dir = mkdtempSync(join(tmpdir(), "fencepost-binding-"));
      const port = await freePort();
      const child = spawn(
        process.env.WORKERD_BIN,
        ["serve", "lease-client-worker.capnp", "--socket-addr", `http=127.0.0.1:${port}`, "--directory-path", `do-storage=${dir}`],
        { cwd: import.meta.dirname, stdio: ["ignore", "inherit", "inherit"] },
      );
      try {
        let r = null;
        for (let tries = 0; r === null; tries++) {
          try {
            r = await fetch(`http://127.0.0.1:${port}/bound`);
          } catch (e) {
            if (tries > 100) throw e;
            await sleep(100);
          }
        }
        assert.equal(r.status, 200);
        heldOnce(await r.json());
      } finally {
        child.kill("SIGKILL");
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}
