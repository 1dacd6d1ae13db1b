// What the lease service refuses by default, in real workerd and real Deno: forged and foreign
// tokens, lock takeover by anyone but the lease's holder, leases longer than the deployer allows,
// oversized bodies, and serving at all without a signing key. And what it tells: a lock's state
// without its holder, and its counters.

import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { connect } from "node:net";
import { hostFixture } from "./hosts.mjs";
import { acquire, call, getDoc, lockState, metrics, put, release, renew, wantedHosts } from "./client.mjs";

const wanted = wantedHosts();

/** Sends raw bytes and reads the whole answer (the server closes or answers within 10 s). */
function rawHttp(port, text) {
  return new Promise((ok, fail) => {
    const s = connect(port, "127.0.0.1", () => s.write(text));
    let got = "";
    const timer = setTimeout(() => {
      s.destroy();
      fail(new Error(`no complete answer within 10 s; got ${JSON.stringify(got)}`));
    }, 10_000);
    s.on("data", (d) => {
      got += d;
      // The answer is complete once its JSON body closed.
      if (/\r\n\r\n[\s\S]*\}\s*$/.test(got)) {
        clearTimeout(timer);
        s.destroy();
        ok(got);
      }
    });
    s.on("error", (e) => {
      clearTimeout(timer);
      fail(e);
    });
  });
}

for (const name of wanted) {
  describe(`${name}: safe by default`, () => {
    const host = hostFixture(name);

    test("a forged, foreign or tampered token cannot poison a document: 401/403, nothing changes", async () => {
      const b = host.server.base;
      const lease = await acquire(b, "poison", 60_000);
      assert.equal(lease.status, 200, lease.text);
      const { header, token } = lease.json;
      assert.equal((await put(b, "poison", header, "honest")).status, 200);
      const other = await acquire(b, "elsewhere", 60_000);
      assert.equal(other.status, 200, other.text);
      const [, keyId, mac] = header.split(".");
      const flip = (hex) => hex.slice(0, -1) + (hex.at(-1) === "0" ? "1" : "0");
      const max = "18446744073709551615";
      const cases = [
        // The attack: the largest token, bare.
        [max, 401, "Fencing-Token must be signed: send the `header` the lock's acquire or renew answered"],
        [`${token}`, 401, "Fencing-Token must be signed: send the `header` the lock's acquire or renew answered"],
        // The largest token with a made-up signature, or with this lease's signature.
        [`${max}.${keyId}.${"0".repeat(64)}`, 403, 'Fencing-Token does not verify for lock "poison"'],
        [`${max}.${keyId}.${mac}`, 403, 'Fencing-Token does not verify for lock "poison"'],
        // A genuine token of another lock.
        [other.json.header, 403, 'Fencing-Token does not verify for lock "poison"'],
        // One bit of the MAC changed.
        [`${token}.${keyId}.${flip(mac)}`, 403, 'Fencing-Token does not verify for lock "poison"'],
        // Another key id put on the same MAC.
        [`${token}.7.${mac}`, 403, "Fencing-Token is signed with key 7, which this service does not have"],
        // Garbage after the MAC, a short MAC, upper-case hex, the v1 form without a key id.
        [`${header}00`, 401, "Fencing-Token header is not a signed token: signature is too long: 33 bytes, expected 32"],
        [`${header.slice(0, -2)}`, 401, "Fencing-Token header is not a signed token: signature is truncated: 31 bytes, expected 32"],
        [`${token}.${keyId}.${mac.toUpperCase()}`, 401, /^Fencing-Token header is not a signed token: signature has a non-hex character at byte /],
        [`${token}.${mac}`, 401, /^Fencing-Token header is not a signed token: signed token has no key id/],
      ];
      for (const [value, status, error] of cases) {
        const r = await put(b, "poison", value, "poison");
        assert.equal(r.status, status, `${value}: ${r.text}`);
        if (typeof error === "string") assert.deepEqual(r.json, { error }, value);
        else assert.match(r.json.error, error, value);
        assert.deepEqual((await getDoc(b, "poison")).json, { data: "honest", token }, `after ${value}`);
      }
      // The mark did not move: the honest holder still writes, and so does the next one.
      assert.equal((await put(b, "poison", header, "still honest")).status, 200);
      assert.deepEqual((await release(b, "poison", lease.json)).json, { released: "free", depth: 0 });
      const next = await acquire(b, "poison", 60_000);
      assert.equal(BigInt(next.json.token), BigInt(token) + 1n);
      const w = await put(b, "poison", next.json.header, "next owner");
      assert.equal(w.status, 200, w.text);
      assert.deepEqual(w.json, { token: next.json.token, highest: next.json.token });
    });

    test("a lease cannot be taken over: nothing is echoed, and only its leaseId renews or releases it", async () => {
      const b = host.server.base;
      const a = await acquire(b, "takeover", 60_000);
      assert.equal(a.status, 200, a.text);
      // The refusal carries no holder and no secret.
      const refused = await acquire(b, "takeover", 60_000);
      assert.equal(refused.status, 409, refused.text);
      assert.deepEqual(refused.json, { error: "held", until: a.json.expiresAt });
      assert.ok(!refused.text.includes(a.json.leaseId));
      const state = await lockState(b, "takeover");
      assert.deepEqual(state.json, { state: "held", until: a.json.expiresAt });
      assert.ok(!state.text.includes(a.json.leaseId));
      // Re-entering with a leaseId that is not the lease's.
      const guess = "0123456789abcdef0123456789abcdef";
      const reenter = await acquire(b, "takeover", 60_000, { leaseId: guess });
      assert.equal(reenter.status, 409, reenter.text);
      assert.deepEqual(reenter.json, { error: "lost: no live lease with this leaseId" });
      // The right token with a wrong leaseId: 403, and the lease is unchanged.
      const stolen = { ...a.json, leaseId: guess };
      for (const r of [await renew(b, "takeover", stolen, 300_000), await release(b, "takeover", stolen)]) {
        assert.equal(r.status, 403, r.text);
        assert.deepEqual(r.json, { error: "forbidden: this leaseId does not hold the lease of this token" });
      }
      assert.deepEqual((await lockState(b, "takeover")).json, { state: "held", until: a.json.expiresAt });
      const renewed = await renew(b, "takeover", a.json, 60_000);
      assert.equal(renewed.status, 200, renewed.text);
      assert.deepEqual((await release(b, "takeover", a.json)).json, { released: "free", depth: 0 });
      assert.deepEqual((await lockState(b, "takeover")).json, { state: "free" });
    });

    test("leases are capped at the deployer's ceiling (default five minutes)", async () => {
      const b = host.server.base;
      for (const ttlMs of [300_001, 24 * 60 * 60 * 1000]) {
        const r = await acquire(b, "long", ttlMs);
        assert.equal(r.status, 400, r.text);
        assert.deepEqual(r.json, { error: "ttlMs must be a whole number from 1 to 300000" });
      }
      assert.deepEqual((await lockState(b, "long")).json, { state: "free" });
      const ok = await acquire(b, "long", 300_000);
      assert.equal(ok.status, 200, ok.text);
      const renewed = await renew(b, "long", ok.json, 300_001);
      assert.equal(renewed.status, 400, renewed.text);
      assert.deepEqual((await release(b, "long", ok.json)).json, { released: "free", depth: 0 });
    });

    test("Content-Length is checked before the body is read", async () => {
      // 32 MiB announced and never sent: the answer comes without waiting for it.
      const answer = await rawHttp(
        host.port,
        "POST /locks/big/acquire HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 33554432\r\n\r\n{",
      );
      assert.match(answer, /^HTTP\/1\.1 400 /);
      assert.match(answer, /\{"error":"body is larger than 65536 bytes"\}/);
      const bad = await call(host.server.base, "POST", "/locks/big/acquire", "{}", { "content-length": "2" });
      assert.equal(bad.status, 200, bad.text);
      assert.deepEqual((await release(host.server.base, "big", bad.json)).json, { released: "free", depth: 0 });
    });
  });

  describe(`${name}: observability`, () => {
    const host = hostFixture(name);

    test("GET /metrics counts grants, renewals, releases, expiries and refused writes", async () => {
      const b = host.server.base;
      const zero = await metrics(b);
      assert.equal(zero.status, 200);
      assert.equal(zero.type, "text/plain; version=0.0.4");
      const names = ["grants", "renewals", "releases", "expiries", "stale_rejections", "forged_rejections", "invalid_rejections"];
      assert.deepEqual(
        Object.keys(zero).filter((k) => k.startsWith("fencepost_")),
        names.map((n) => `fencepost_${n}_total`),
      );
      for (const n of names) assert.equal(zero[`fencepost_${n}_total`], 0, n);
      const a = (await acquire(b, "counted", 300)).json;
      await renew(b, "counted", a, 300);
      await put(b, "counted", a.header, "a");
      await new Promise((r) => setTimeout(r, 450));
      const c = (await acquire(b, "counted", 60_000)).json; // notices A's expiry
      await put(b, "counted", c.header, "c");
      await put(b, "counted", a.header, "stale");
      await put(b, "counted", `${c.token}.1.${"0".repeat(64)}`, "forged");
      await put(b, "counted", c.token, "unsigned");
      await release(b, "counted", c);
      const m = await metrics(b);
      assert.deepEqual(
        names.map((n) => m[`fencepost_${n}_total`]),
        [2, 1, 1, 1, 1, 1, 1],
      );
    });

    test("GET /metrics counts each grant and renewal once, however many commits raced", async () => {
      const b = host.server.base;
      const before = await metrics(b);
      const delta = async (n) => (await metrics(b))[`fencepost_${n}_total`] - before[`fencepost_${n}_total`];
      // 24 acquires of one free lock at once: one is granted; the others lose the race to commit
      // its state, read it again and find it held. Only the grant that was stored counts.
      const tries = await Promise.all(Array.from({ length: 24 }, () => acquire(b, "raced", 60_000)));
      const won = tries.filter((r) => r.status === 200);
      assert.equal(won.length, 1, tries.map((r) => r.status).join(" "));
      assert.deepEqual(new Set(tries.filter((r) => r.status !== 200).map((r) => r.json.error)), new Set(["held"]));
      assert.equal(await delta("grants"), 1);
      // 16 renewals of that lease at once: every one is stored in the end, each counted once.
      const renewals = await Promise.all(Array.from({ length: 16 }, () => renew(b, "raced", won[0].json, 60_000)));
      assert.deepEqual(renewals.map((r) => r.status), Array(16).fill(200));
      assert.equal(await delta("renewals"), 16);
      assert.equal((await release(b, "raced", won[0].json)).status, 200);
      assert.equal(await delta("releases"), 1);
      assert.equal(await delta("expiries"), 0);
    });
  });

  describe(`${name}: without a signing key`, () => {
    const host = hostFixture(name, null);

    for (const [what, keys, error] of [
      ["no FENCEPOST_KEYS", null, "the service has no signing key: set FENCEPOST_KEYS"],
      [
        "a key shorter than 16 bytes",
        "1:short",
        "the service's settings are refused: key: signing key is 5 bytes; at least 16 are required",
      ],
      [
        "a malformed key list",
        "dev-secret-without-an-id-0000000",
        'the service\'s settings are refused: FENCEPOST_KEYS entry 1 must be "<key id 0..4294967295>:<secret>"',
      ],
    ]) {
      test(`${what}: every request gets 503 saying what to set`, async () => {
        const base = await host.restart({ keys });
        {
          for (const [method, path, body] of [
            ["POST", "/locks/x/acquire", {}],
            ["GET", "/locks/x"],
            ["PUT", "/docs/x", "data"],
            ["GET", "/docs/x"],
            ["GET", "/metrics"],
          ]) {
            const r = await call(base, method, path, body, { "Fencing-Token": "1" });
            assert.equal(r.status, 503, `${method} ${path}: ${r.text}`);
            assert.deepEqual(r.json, { error });
          }
        }
      });
    }
  });
}
