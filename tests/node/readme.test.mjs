// The README that ships in the package, run as it is written: every ```js block that runs in
// Node (a block whose comments say "In a browser" does not; the Deno one does, with its `npm:`
// specifier resolved by Node; the Worker one is called with requests), and every value a
// comment claims compared with what the statement before it gives. A claim is a comment that
// reads as a value after a statement (`expr; // { ok: true }`), or the comment lines right under
// a statement; `{ ... }` stands for any value and `...]` ends an array with more elements.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

const require = createRequire(import.meta.url);
const README = readFileSync(require.resolve("fencepost/package.json").replace(/package\.json$/, "README.md"), "utf8");

/** The README's ```js blocks: their first line's number and their lines. */
function jsBlocks(text) {
  const blocks = [];
  let block = null;
  text.split("\n").forEach((line, k) => {
    if (block === null && line === "```js") block = { line: k + 2, lines: [] };
    else if (block !== null && line === "```") {
      blocks.push(block);
      block = null;
    } else if (block !== null) block.lines.push(line);
  });
  return blocks;
}

const ANY = Symbol("any value");
const MORE = Symbol("more elements");

/** The value a comment claims, or undefined when it is prose. */
function claimed(comment) {
  if (!/^([{["\d-]|true\b|false\b|null\b)/.test(comment)) return undefined;
  const source = comment.replaceAll("{ ... }", "ANY").replace(/,\s*\.\.\.\s*\]/g, ", MORE]");
  try {
    return { value: new Function("ANY", "MORE", `return (${source});`)(ANY, MORE) };
  } catch {
    return undefined;
  }
}

/** Whether `actual` is what `expected` (with ANY and MORE) describes. */
function matches(actual, expected) {
  if (expected === ANY) return true;
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return false;
    const more = expected.at(-1) === MORE;
    const known = more ? expected.slice(0, -1) : expected;
    if (more ? actual.length < known.length : actual.length !== known.length) return false;
    return known.every((e, k) => matches(actual[k], e));
  }
  if (expected !== null && typeof expected === "object") {
    if (actual === null || typeof actual !== "object" || Array.isArray(actual)) return false;
    const keys = Object.keys(expected);
    return (
      keys.length === Object.keys(actual).length && keys.every((k) => Object.hasOwn(actual, k) && matches(actual[k], expected[k]))
    );
  }
  return Object.is(actual, expected);
}

/**
 * The block as a module that checks its claims through `globalThis.readmeClaim`, and how many
 * claims it makes.
 */
function withChecks(block) {
  const out = [];
  let claims = 0;
  const { lines } = block;
  for (let k = 0; k < lines.length; k++) {
    const line = lines[k];
    const code = /^(?<code>[^/]*?;)\s*(?:\/\/\s*(?<comment>.*))?$/.exec(line)?.groups;
    if (code === undefined || /^\s*(import|export)\b/.test(line)) {
      out.push(line);
      continue;
    }
    let comment = code.comment;
    let end = k;
    if (comment === undefined) {
      // The comment lines right under the statement.
      const under = [];
      while (end + 1 < lines.length && /^\s*\/\//.test(lines[end + 1])) under.push(lines[++end].replace(/^\s*\/\/\s?/, ""));
      comment = under.join("\n");
    }
    const value = claimed(comment.trim());
    if (value === undefined) {
      out.push(line);
      continue;
    }
    claims++;
    const at = `README line ${block.line + k}`;
    const declared = /^(?<head>\s*const (?<name>\w+) = )/.exec(code.code)?.groups;
    const statement = code.code.slice(0, -1);
    const check = (expr) => `globalThis.readmeClaim(${expr}, ${JSON.stringify(comment.trim())}, ${JSON.stringify(at)});`;
    out.push(declared ? `${code.code} ${check(declared.name)}` : check(`(${statement})`));
    for (let j = k + 1; j <= end; j++) out.push("");
    k = end;
  }
  return { source: out.join("\n"), claims };
}

test("the README's examples run in Node and give what their comments say", async () => {
  const runnable = jsBlocks(README).filter((b) => !b.lines.some((l) => /^\s*\/\/ In a browser/.test(l)));
  // fencepost/slim shares its API module with the other entries: a block that loads the module
  // itself runs first, while nothing has loaded it (else its init would have nothing to do).
  const slim = (b) => b.lines.some((l) => l.includes('from "fencepost/slim"'));
  const blocks = [...runnable.filter(slim), ...runnable.filter((b) => !slim(b))];
  assert.equal(blocks.filter(slim).length, 1, "README blocks that load fencepost/slim themselves");
  const { FenceGuard: Unloaded } = await import("fencepost/slim");
  assert.throws(() => new Unloaded(), /the WebAssembly module is not loaded/);
  let checked = 0;
  globalThis.readmeClaim = (actual, comment, at) => {
    checked++;
    const { value } = claimed(comment);
    assert.ok(matches(actual, value), `${at}: the comment says ${comment}, the code gives ${JSON.stringify(actual, (_, v) => (typeof v === "bigint" ? `${v}n` : v))}`);
  };
  // The browser's frame loop, for the sweep: frames run one after another until none is asked for.
  let frames = 0;
  globalThis.requestAnimationFrame = (f) => {
    frames++;
    setImmediate(() => {
      frames--;
      f();
    });
  };
  const logged = [];
  const log = console.log;
  console.log = (...args) => logged.push(args);
  let claims = 0;
  const workers = [];
  try {
    for (const block of blocks) {
      const { source, claims: n } = withChecks(block);
      claims += n;
      // Beside the fixture's node_modules, so `fencepost` resolves to the installed package.
      const file = `readme-${block.line}.mjs`;
      writeFileSync(file, source.replaceAll('"npm:fencepost"', '"fencepost"'));
      try {
        const module = await import(pathToFileURL(file).href);
        if (module.default?.fetch) workers.push(module.default);
      } finally {
        rmSync(file);
      }
    }
    while (frames > 0) await new Promise((resolve) => setImmediate(resolve));
  } finally {
    console.log = log;
    delete globalThis.requestAnimationFrame;
  }
  assert.equal(claims, 12, "claims found in the README");
  assert.equal(checked, claims);
  // The Deno quick start logs its admission, the sweep the runs that broke without fencing.
  assert.deepEqual(logged[0], [{ ok: true }]);
  assert.equal(logged.length, 2);
  assert.ok(Number.isInteger(logged[1][0]) && logged[1][0] > 0, `the sweep logged ${logged[1][0]}`);
  // The Worker quick start answers as its code says.
  assert.equal(workers.length, 1);
  const ask = async (token) => {
    const headers = token === undefined ? {} : { "Fencing-Token": token };
    const r = await workers[0].fetch(new Request("https://example.test/", { headers }));
    return [r.status, await r.text()];
  };
  assert.deepEqual(await ask("34"), [200, "written"]);
  assert.deepEqual(await ask("33"), [409, "stale token 33, already saw 34"]);
  assert.deepEqual(await ask("34"), [200, "written"]);
  assert.deepEqual(await ask("0"), [400, "no valid Fencing-Token"]);
  assert.deepEqual(await ask(undefined), [400, "no valid Fencing-Token"]);
});

test("a wrong claim is caught", () => {
  // The checker itself: a changed value, a missing key, a shorter list all fail.
  assert.ok(matches({ ok: true, token: 33n }, claimed("{ ok: true, token: 33n }").value));
  assert.ok(!matches({ ok: true, token: 34n }, claimed("{ ok: true, token: 33n }").value));
  assert.ok(!matches({ ok: true }, claimed("{ ok: true, token: 33n }").value));
  assert.ok(!matches({ ok: true, token: 33n, extra: 1 }, claimed("{ ok: true, token: 33n }").value));
  assert.ok(matches({ a: { deep: [1] }, b: 2 }, claimed("{ a: { ... }, b: 2 }").value));
  assert.ok(matches(["a", "b", "c"], claimed('["a", "b", ...]').value));
  assert.ok(!matches(["a"], claimed('["a", "b", ...]').value));
  assert.ok(!matches(["a", "b", "c"], claimed('["a", "b"]').value));
  assert.equal(claimed("run it atomically with the write"), undefined);
  assert.equal(claimed("... A pauses for 45 s"), undefined);
  const { source, claims } = withChecks({ line: 10, lines: ["const a = f();  // 3", "g();", "// [1, 2]", "h(); // prose"] });
  assert.equal(claims, 2);
  assert.equal(
    source,
    'const a = f(); globalThis.readmeClaim(a, "3", "README line 10");\nglobalThis.readmeClaim((g()), "[1, 2]", "README line 11");\n\nh(); // prose',
  );
});
