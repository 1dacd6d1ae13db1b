// The README's "Fencing your own table" examples (its ```javascript blocks), run as written against
// the real engines (SQLite in memory, Postgres on PGHOST), with every `// → value` claim compared
// with what the statement before it resolves to; and its Postgres statement compared with the one
// the store runs.
import assert from "node:assert/strict";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { test } from "node:test";
import { pathToFileURL } from "node:url";

const require = createRequire(import.meta.url);
const README = readFileSync(require.resolve("fencepost/package.json").replace(/package\.json$/, "README.md"), "utf8");
const section = README.slice(README.indexOf("## Fencing your own table"), README.indexOf("## What is in the package"));

/** The section's ```javascript blocks. */
const blocks = [...section.matchAll(/```javascript\n([\s\S]*?)```/g)].map((m) => m[1]);

/**
 * The block with each claimed statement turned into a comparison: `stmt; // → v` and a `stmt;`
 * followed by a `// → v` line become `claim(await-less stmt, v)`.
 */
function checked(block) {
  const lines = block.split("\n");
  const out = [];
  for (let k = 0; k < lines.length; k++) {
    const inline = lines[k].match(/^await (.*); \/\/ → (.*)$/);
    const below = lines[k + 1]?.match(/^\/\/ → (.*)$/);
    const statement = lines[k].match(/^await (.*);$/);
    if (inline) out.push(`claim(await ${inline[1]}, ${inline[2]}, ${JSON.stringify(inline[1])});`);
    else if (statement && below) {
      out.push(`claim(await ${statement[1]}, ${below[1]}, ${JSON.stringify(statement[1])});`);
      k++;
    } else out.push(lines[k]);
  }
  return out.join("\n");
}

globalThis.claim = (actual, expected, what) => assert.deepEqual(actual, expected, what);

test("the README's store examples have claims to check", () => {
  assert.equal(blocks.length, 2);
  for (const b of blocks) assert.ok(checked(b).split("claim(").length > 3, b);
});

for (const [k, block] of blocks.entries()) {
  test(`README store example ${k + 1} runs as written and resolves to what it claims`, async () => {
    // A module beside this test, so its imports resolve from this fixture's node_modules.
    const file = new URL(`./readme-example-${k + 1}.mjs`, import.meta.url);
    writeFileSync(file, checked(block));
    try {
      await import(file);
    } finally {
      rmSync(file, { force: true });
    }
  });
}


const sqlBlocks = [...section.matchAll(/```sql\n([\s\S]*?)```/g)].map((m) => m[1]);
const statements = () => import(pathToFileURL(require.resolve("fencepost/package.json").replace(/package\.json$/, "dist/store/sql.js")));

test("the README's Postgres statement is the one the store runs", async () => {
  assert.equal(sqlBlocks.length, 2);
  const { postgresWrite } = await statements();
  // The README names the entries' pattern instead of spelling it out.
  const run = postgresWrite("orders", "key", "value", false).replace(/\$re\$.*?\$re\$/g, "ENTRIES");
  assert.equal(sqlBlocks[0].trimEnd(), run);
});

test("the README's SQLite statement is the one the store runs, laid out to be read", async () => {
  const { sqliteWrite } = await statements();
  // The store's text is kept short (see sqliteWrite), the README's laid out: blanks are one, and
  // none beside punctuation, so words stay apart ("IS NULL" is not "ISNULL").
  const words = (sql) => sql.replace(/\s+/g, " ").replace(/ ?([(),=<>]) ?/g, "$1").trim();
  assert.equal(words(sqlBlocks[1]), words(sqliteWrite("orders", "key", "value", false)));
});
