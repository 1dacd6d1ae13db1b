// `fencepost serve` as a user meets it: its help, a clear refusal naming each missing or bad
// option or setting (exit status 2), an engine it cannot reach (exit 1), request bodies of every
// framing within the service's limits, and SIGTERM, which lets a request in flight finish before
// the process exits.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { request } from "node:http";
import { test } from "node:test";
import { acquire, call, getDoc, put } from "./calls.mjs";
import { BIN, KEYS, etcdEndpoints, freePort, postgresUrl, sleep, startInstance } from "./instances.mjs";

function run(args, env = { FENCEPOST_KEYS: KEYS }) {
  const r = spawnSync(BIN, args, { env: { PATH: process.env.PATH, ...env }, encoding: "utf8", timeout: 30_000 });
  return { status: r.status, out: r.stdout, err: r.stderr };
}

const HINT = "(see fencepost --help; settings: FENCEPOST_KEYS, FENCEPOST_MAX_TTL_MS, FENCEPOST_IDLE_KEEP_MS, FENCEPOST_WRITE_LOG, FENCEPOST_CORS_ORIGINS)\n";

test("--help prints the usage and exits 0", () => {
  const r = run(["--help"]);
  assert.equal(r.status, 0);
  assert.ok(r.out.startsWith("Usage: fencepost serve (--etcd URL[,URL...] | --postgres URL) [--documents sqlite:PATH | --documents postgres://...] [--port N]\n"), r.out);
  assert.match(r.out, /FENCEPOST_KEYS {10}required/);
});

test("a missing or bad option or setting exits 2 with a message naming it", async () => {
  const etcd = etcdEndpoints();
  const cases = [
    [[], "a command is required: serve"],
    [["start"], 'unknown command "start"; the one command is serve'],
    [["serve"], "give exactly one of --etcd and --postgres: where the locks live"],
    [["serve", "--etcd", etcd, "--postgres", postgresUrl()], "give exactly one of --etcd and --postgres: where the locks live"],
    [["serve", "--etcd", etcd, "--port", "70000"], '--port must be a port number from 0 to 65535, got "70000"'],
    [["serve", "--etcd", etcd, "--port"], "Option '--port <value>' argument missing"],
    [["serve", "--etcd", etcd, "--verbose"], "Unknown option '--verbose'. To specify a positional argument starting with a '-', place it at the end of the command after '--', as in '-- \"--verbose\""],
    [["serve", "--etcd", "ftp://x"], '--etcd must be http(s) URLs of etcd members separated by commas, got "ftp://x"'],
    [["serve", "--postgres", "mysql://x"], '--postgres must be a postgres:// URL, got "mysql://x"'],
    [["serve", "--etcd", etcd, "--documents", "sqlite:"], "--documents sqlite:PATH needs a path"],
    [["serve", "--etcd", etcd, "--documents", "redis://x"], '--documents must be a postgres:// URL, got "redis://x"'],
  ];
  for (const [args, message] of cases) {
    const r = run(args);
    assert.deepEqual([r.status, r.err], [2, `fencepost: ${message}\n${HINT}`], args.join(" "));
  }
  const settings = [
    [{}, "the service has no signing key: set FENCEPOST_KEYS"],
    [{ FENCEPOST_KEYS: "1:short" }, "the service's settings are refused: key: signing key is 5 bytes; at least 16 are required"],
    [{ FENCEPOST_KEYS: KEYS, FENCEPOST_MAX_TTL_MS: "soon" }, "the service's settings are refused: FENCEPOST_MAX_TTL_MS must be a whole number of milliseconds from 1 to 86400000"],
    [{ FENCEPOST_KEYS: KEYS, FENCEPOST_CORS_ORIGINS: "https://a.example/" }, "the service's settings are refused: FENCEPOST_CORS_ORIGINS entry 1 must be an origin like https://app.example.com (scheme, host, optional port, no path or trailing slash)"],
  ];
  for (const [env, message] of settings) {
    const r = run(["serve", "--etcd", etcd], env);
    assert.deepEqual([r.status, r.err], [2, `fencepost: ${message}\n${HINT}`], JSON.stringify(env));
  }
});

test("an engine it cannot reach at start exits 1, naming it", async () => {
  const port = await freePort();
  const r = run(["serve", "--etcd", `http://127.0.0.1:${port}`]);
  assert.equal(r.status, 1, r.err);
  assert.match(r.err, /^fencepost: cannot start: etcd \/v3\/kv\/range: .*127\.0\.0\.1:\d+/);
});

test("SIGTERM: the request in flight is answered, then the process exits 0", async () => {
  const instance = await startInstance(["--postgres", postgresUrl()]);
  const lock = `sigterm-${process.pid}`;
  const g = await acquire(instance.base, lock, 30_000);
  assert.equal(g.status, 200, g.text);
  // A PUT whose body arrives in two parts: SIGTERM comes between them.
  const answered = new Promise((ok, fail) => {
    const url = new URL(`/docs/${lock}`, instance.base);
    const req = request(url, { method: "PUT", headers: { "fencing-token": g.json.header, "content-length": "10" } }, (res) => {
      let body = "";
      res.on("data", (d) => (body += d));
      res.on("end", () => ok({ status: res.statusCode, body }));
    });
    req.on("error", fail);
    req.write("first");
    sleep(300).then(() => {
      process.kill(instance.pid, "SIGTERM");
      return sleep(300);
    }).then(() => req.end("later"));
  });
  const r = await answered;
  assert.deepEqual([r.status, JSON.parse(r.body)], [200, { token: g.json.token, highest: g.json.token }]);
  assert.deepEqual(await instance.exited, { code: 0, signal: null });
  assert.match(instance.log(), /fencepost service: SIGTERM: answering the requests in flight, then exiting/);
  // It no longer listens.
  await assert.rejects(fetch(`${instance.base}/metrics`));
});

/** PUTs `parts` to /docs/:key as a chunked body (no Content-Length): `{ status, json }`. */
function putChunked(base, key, header, parts) {
  return new Promise((ok, fail) => {
    const req = request(new URL(`/docs/${key}`, base), { method: "PUT", headers: { "fencing-token": header } }, (res) => {
      let body = "";
      res.on("data", (d) => (body += d));
      res.on("end", () => ok({ status: res.statusCode, json: JSON.parse(body) }));
    });
    req.on("error", fail);
    for (const part of parts) req.write(part);
    req.end();
  });
}

test("bodies: a declared length up to 64 KiB, a longer one and a chunked one, each within the service's limits", async () => {
  const instance = await startInstance(["--postgres", postgresUrl()]);
  try {
    const lock = `bodies-${process.pid}`;
    const g = await acquire(instance.base, lock, 30_000);
    assert.equal(g.status, 200, g.text);
    const accepted = { token: g.json.token, highest: g.json.token };
    // Exactly the limit, read whole.
    const full = "x".repeat(64 * 1024);
    assert.deepEqual((await put(instance.base, lock, g.json.header, full)).json, accepted);
    assert.equal((await getDoc(instance.base, lock)).json.data, full);
    // One byte more, streamed to the service, which refuses it; the document is unchanged.
    const over = await put(instance.base, lock, g.json.header, `${full}y`);
    assert.deepEqual([over.status, over.json], [400, { error: "body is larger than 65536 bytes" }]);
    assert.equal((await getDoc(instance.base, lock)).json.data, full);
    // Chunked, without a length: streamed, and whole.
    assert.deepEqual(await putChunked(instance.base, lock, g.json.header, ["chunked ", "in ", "three"]), { status: 200, json: accepted });
    assert.equal((await getDoc(instance.base, lock)).json.data, "chunked in three");
    // A lock call declaring 10 MiB is refused without being kept.
    const big = await call(instance.base, "POST", `/locks/${lock}/acquire`, JSON.stringify({ pad: "x".repeat(10 * 1024 * 1024) }));
    assert.deepEqual([big.status, big.json], [400, { error: "body is larger than 65536 bytes" }]);
  } finally {
    await instance.stop();
  }
});
