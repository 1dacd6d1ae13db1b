// fencepost/store's DenoKvStore on a real Deno KV (Deno's local, SQLite-backed KV, opened from a
// file), run with `deno test`: the shared cases, 100 writers on four handles whose compare-and-set
// commits race, and a Deno process killed in the middle of its writes.

import assert from "node:assert/strict";
import { test } from "node:test";
import { DenoKvStore } from "fencepost/store";
import { cases, check, shuffled } from "./cases.mjs";

const dir = await Deno.makeTempDir({ prefix: "fencepost-kv-" });
const path = `${dir}/kv.sqlite3`;
const kv = await Deno.openKv(path);

cases(
  "Deno KV",
  async (name, options = {}) => new DenoKvStore(kv, { prefix: [name], ...options }),
  async (name, key) => {
    const { value } = await kv.get([name, key]);
    return { fence: value.fence, fence_ops: value.ops };
  },
  async (name, key, part, text) => {
    const { value } = await kv.get([name, key]);
    await kv.set([name, key], { ...value, [{ fence_ops: "ops" }[part] ?? part]: text });
  },
);

test("Deno KV: a foreign value under a store's key is a StoreDamageError and is kept", async () => {
  // Without a prefix the store shares its keys with whatever else the database holds.
  const store = new DenoKvStore(kv);
  for (const foreign of ["a plain string", { value: "\"x\"", fence: "00000000000000000001" }, { note: 1 }]) {
    await kv.set(["shared"], foreign);
    const damaged = (e) => e.name === "StoreDamageError" && /^fencepost\/store: entry "shared" holds .+, not a fenced entry \{ value, fence, ops \}; it was left as it is$/.test(e.message);
    await assert.rejects(store.write("shared", 99n, "mine"), damaged);
    await assert.rejects(store.read("shared"), damaged);
    assert.deepEqual((await kv.get(["shared"])).value, foreign);
  }
  await kv.delete(["shared"]);
  assert.deepEqual(await store.write("shared", 99n, "mine"), { ok: true });
});

test("Deno KV: bad options are refused", () => {
  assert.throws(() => new DenoKvStore({}), TypeError);
  assert.throws(() => new DenoKvStore(kv, { prefix: "docs" }), TypeError);
  assert.throws(() => new DenoKvStore(kv, { table: "docs" }), TypeError);
});

/** A KV handle that notes the versionstamp of every commit it makes (the order KV applied them). */
function noting(handle, commits) {
  return {
    get: (key) => handle.get(key),
    atomic() {
      const op = handle.atomic();
      let written;
      const noted = {
        check: (...c) => (op.check(...c), noted),
        set: (key, value) => ((written = value), op.set(key, value), noted),
        async commit() {
          const r = await op.commit();
          if (r.ok) commits.push({ versionstamp: r.versionstamp, value: written });
          return r;
        },
      };
      return noted;
    },
  };
}


test("Deno KV: 100 writers on four handles race their commits and keep the fence", async () => {
  const handles = await Promise.all([0, 1, 2, 3].map(() => Deno.openKv(path)));
  try {
    const commits = [];
    const stores = handles.map((h) => new DenoKvStore(noting(h, commits), { prefix: ["crowd"] }));
    const results = await Promise.all(shuffled(100).map(async (token, i) => ({ token, result: await stores[i % 4].write("one", token, `w${token}`) })));
    assert.ok(results.every((r) => r.result.ok || r.result.reason === "stale"));
    assert.ok(results.find((r) => r.token === 100n).result.ok, "the highest token is never refused");
    assert.deepEqual(await stores[0].read("one"), { value: "w100", token: 100n });
    // Lost races happened, and each was read and decided again.
    const retries = stores.reduce((n, s) => n + s.retries, 0);
    assert.ok(retries > 0, `${retries} retries`);
    // The commits in KV's order (versionstamps grow with every commit), then the refusals.
    commits.sort((a, b) => (a.versionstamp < b.versionstamp ? -1 : 1));
    const accepted = results.filter((r) => r.result.ok);
    assert.equal(commits.length, accepted.length);
    const log = commits.map((c, i) => ({ t: i, resource: "one", writer: JSON.parse(c.value.value), token: Number(c.value.fence), result: "ok" }));
    for (const r of results.filter((r) => !r.result.ok)) log.push({ t: 0, resource: "one", writer: `w${r.token}`, token: Number(r.token), result: "rejected" });
    const { status, report, stderr } = check(log);
    assert.equal(status, 0, stderr + JSON.stringify(report));
    assert.equal(report.find((o) => o.summary).summary.accepted, accepted.length);
  } finally {
    for (const h of handles) h.close();
  }
});

test("Deno KV: a process killed in the middle of its writes leaves value and mark together", async () => {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "--unstable-kv", `--allow-read`, `--allow-write=${dir}`, new URL("./deno-kv-writer.mjs", import.meta.url).pathname, path],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  // It writes 1, 2, 3, ... to "k" and says so after each; kill it a hundred writes in.
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  let acknowledged = 0n;
  while (acknowledged < 100n) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the writer ended early");
    seen += value;
    const lines = seen.split("\n");
    seen = lines.pop();
    for (const l of lines) acknowledged = BigInt(l);
  }
  child.kill("SIGKILL");
  assert.equal((await child.status).signal, "SIGKILL");
  await reader.cancel();
  const store = new DenoKvStore(kv, { prefix: ["burst"] });
  const after = await store.read("k");
  assert.equal(after.value, `w${after.token}`);
  assert.ok(after.token >= acknowledged, `${acknowledged} was acknowledged, the mark is ${after.token}`);
  assert.deepEqual(await store.write("k", after.token - 1n, "stale"), { ok: false, reason: "stale", presented: after.token - 1n, highest: after.token });
  assert.deepEqual(await store.write("k", after.token + 1n, "after the crash"), { ok: true });
});

test("Deno KV: closes, and its files go", async () => {
  kv.close();
  await Deno.remove(dir, { recursive: true });
});
