// Cross-origin access, in real workerd and real Deno: off by default; with FENCEPOST_CORS_ORIGINS
// set, exactly the listed origins get a preflight answer and readable responses, any other origin
// gets no grant; a malformed list makes the service refuse to serve, naming the setting.

import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { hostFixture } from "./hosts.mjs";
import { wantedHosts } from "./client.mjs";

const wanted = wantedHosts();

const APP = "http://app.example:8080";
const OTHER = "https://elsewhere.example";

/** The response's access-control-* headers, by name. */
function corsHeaders(r) {
  return Object.fromEntries([...r.headers].filter(([k]) => k.startsWith("access-control-")));
}

const preflight = (base, origin) =>
  fetch(`${base}/locks/cors/acquire`, {
    method: "OPTIONS",
    headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "content-type" },
  });

const acquireFrom = (base, origin, lock) =>
  fetch(`${base}/locks/${lock}/acquire`, {
    method: "POST",
    headers: { origin, "content-type": "application/json" },
    body: JSON.stringify({ ttlMs: 5_000 }),
  });

for (const name of wanted) {
  describe(`${name}: CORS allowed for listed origins only`, () => {
    const host = hostFixture(name, { corsOrigins: `${APP}, https://second.example` });

    test("an allowed origin's preflight is answered 204 with what the client needs", async () => {
      const r = await preflight(host.server.base, APP);
      assert.equal(r.status, 204);
      assert.equal(await r.text(), "");
      assert.deepEqual(corsHeaders(r), {
        "access-control-allow-headers": "content-type, fencing-token, fencepost-writer",
        "access-control-allow-methods": "POST, PUT, GET",
        "access-control-allow-origin": APP,
        "access-control-max-age": "600",
      });
      assert.equal(r.headers.get("vary"), "Origin");
    });

    test("an allowed origin's requests are answered with its origin, never * or credentials", async () => {
      const b = host.server.base;
      const granted = await acquireFrom(b, "https://second.example", "cors-real");
      assert.equal(granted.status, 200);
      assert.deepEqual(corsHeaders(granted), { "access-control-allow-origin": "https://second.example" });
      assert.equal(granted.headers.get("vary"), "Origin");
      // Refusals and answers of the objects behind the Worker carry it too.
      const held = await acquireFrom(b, APP, "cors-real");
      assert.equal(held.status, 409);
      assert.equal((await held.json()).error, "held");
      assert.deepEqual(corsHeaders(held), { "access-control-allow-origin": APP });
      const missing = await fetch(`${b}/docs/cors-none`, { headers: { origin: APP } });
      assert.equal(missing.status, 404);
      assert.deepEqual(corsHeaders(missing), { "access-control-allow-origin": APP });
    });

    test("another origin, a look-alike or no origin gets no CORS headers; its preflight no allow headers", async () => {
      const b = host.server.base;
      for (const origin of [OTHER, `${APP}/`, "http://app.example", "null"]) {
        const pre = await preflight(b, origin);
        assert.notEqual(pre.status, 204, origin);
        await pre.arrayBuffer();
        assert.deepEqual(corsHeaders(pre), {}, origin);
        const r = await acquireFrom(b, origin, `cors-other-${encodeURIComponent(origin).length}`);
        assert.equal(r.status, 200, origin);
        await r.arrayBuffer();
        assert.deepEqual(corsHeaders(r), {}, origin);
        assert.equal(r.headers.get("vary"), "Origin");
      }
      const plain = await fetch(`${b}/locks/cors-plain`);
      assert.equal(plain.status, 200);
      assert.deepEqual(await plain.json(), { state: "free" });
      assert.deepEqual(corsHeaders(plain), {});
    });
  });

  describe(`${name}: CORS off by default`, () => {
    const host = hostFixture(name);

    test("with FENCEPOST_CORS_ORIGINS unset no origin gets CORS headers, and OPTIONS is not answered", async () => {
      const b = host.server.base;
      const pre = await preflight(b, APP);
      assert.equal(pre.status, 405);
      assert.deepEqual(await pre.json(), { error: "use POST for /locks/:name/acquire" });
      assert.deepEqual(corsHeaders(pre), {});
      const r = await acquireFrom(b, APP, "cors-default");
      assert.equal(r.status, 200);
      await r.arrayBuffer();
      assert.deepEqual(corsHeaders(r), {});
      assert.equal(r.headers.get("vary"), null);
    });
  });

  describe(`${name}: a malformed CORS list`, () => {
    const host = hostFixture(name, null);

    for (const [what, list, entry] of [
      ["a wildcard", "*", 1],
      ["an origin with a path", `${APP},https://app.example/page`, 2],
      ["an origin with a trailing slash", `${APP}/`, 1],
      ["a scheme that is not http(s)", "ftp://app.example", 1],
    ]) {
      test(`${what}: every request gets 503 naming FENCEPOST_CORS_ORIGINS`, async () => {
        const base = await host.restart({ corsOrigins: list });
        const expected = {
          error: `the service's settings are refused: FENCEPOST_CORS_ORIGINS entry ${entry} must be an origin like https://app.example.com (scheme, host, optional port, no path or trailing slash)`,
        };
        for (const [method, path] of [
          ["POST", "/locks/x/acquire"],
          ["GET", "/docs/x"],
          ["OPTIONS", "/locks/x/acquire"],
        ]) {
          const r = await fetch(base + path, {
            method,
            headers: { origin: APP, "content-type": "application/json" },
            body: method === "POST" ? "{}" : undefined,
          });
          assert.equal(r.status, 503, `${method} ${path}`);
          assert.deepEqual(await r.json(), expected);
          assert.deepEqual(corsHeaders(r), {});
        }
      });
    }
  });
}
