// Runs worker.js in a real workerd on 127.0.0.1:<port> (the port is the first argument), asks it
// for the story over HTTP, checks the answer, and always stops workerd.
//
// workerd does not resolve packages, so this does what a bundler does: it resolves `fencepost`
// with the `workerd` condition (through Node's resolver) and lists the entry and every module it
// imports, by relative path, in the capnp config.
import { spawn, execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import assert from "node:assert/strict";

const port = Number(process.argv[2]);
assert.ok(Number.isInteger(port) && port > 0 && port < 65536, "usage: node run.mjs <port>");

const entry = fileURLToPath(
  execFileSync(
    process.execPath,
    ["--conditions=workerd", "--input-type=module", "-e", "process.stdout.write(import.meta.resolve('fencepost'))"],
    { encoding: "utf8" },
  ),
);
assert.match(entry, /dist[\\/]workerd\.js$/, "the workerd condition must pick dist/workerd.js");

// The entry and everything it imports relatively, named relative to the entry's directory.
const root = dirname(entry);
const modules = new Map([["fencepost", entry]]);
const pending = [entry];
while (pending.length > 0) {
  const file = pending.pop();
  const source = readFileSync(file, "utf8");
  for (const [, spec] of source.matchAll(/(?:from|import)\s*["'](\.\/[^"']+)["']/g)) {
    const path = join(dirname(file), spec);
    const name = relative(root, path);
    if (!modules.has(name)) {
      modules.set(name, path);
      if (path.endsWith(".js")) pending.push(path);
    }
  }
}
assert.ok(modules.has("fencepost_bg.wasm"), "the entry must import the .wasm file as a module");

// capnp embeds paths relative to the config file, which is written here.
const list = [["worker.js", "worker.js"], ...modules]
  .map(([name, path]) => {
    const kind = path.endsWith(".wasm") ? "wasm" : "esModule";
    const file = relative(process.cwd(), path).split("\\").join("/");
    return `    (name = ${JSON.stringify(name)}, ${kind} = embed ${JSON.stringify(file)}),`;
  })
  .join("\n");
writeFileSync(
  "config.capnp",
  `using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [ (name = "main", worker = .worker) ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ],
);

const worker :Workerd.Worker = (
  modules = [
${list}
  ],
  compatibilityDate = "2025-01-01",
);
`,
);

const workerd = spawn(join("node_modules", ".bin", "workerd"), ["serve", "config.capnp"], {
  stdio: ["ignore", "inherit", "inherit"],
});
const stop = () => {
  if (workerd.exitCode === null && workerd.signalCode === null) workerd.kill("SIGTERM");
};
process.on("exit", stop);
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => process.exit(1));

let exited = false;
workerd.on("exit", () => {
  exited = true;
});

try {
  let body;
  for (let attempt = 0; ; attempt++) {
    if (exited) throw new Error(`workerd exited early (code ${workerd.exitCode})`);
    try {
      const response = await fetch(`http://127.0.0.1:${port}/story`);
      assert.equal(response.status, 200);
      body = await response.json();
      break;
    } catch (e) {
      if (attempt >= 100 || e instanceof assert.AssertionError) throw e;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  assert.deepEqual(body, [
    { ok: true, token: "33n", expiresAt: 30000 },
    { ok: true, token: "34n", expiresAt: 75000 },
    { ok: true },
    { ok: false, reason: "stale", presented: "33n", highest: "34n" },
  ]);
  console.log("workerd: 34 accepted, 33 rejected with highest 34");
} finally {
  stop();
}
