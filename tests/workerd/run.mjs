// Runs worker.js in a real workerd on 127.0.0.1:<port> (the port is the first argument), asks it
// for the story over HTTP, checks the answer, and always stops workerd.
//
// workerd does not resolve packages, so this does what a bundler does: it resolves `fencepost`
// and `fencepost/sim` with the `workerd` condition (through Node's resolver) and lists each entry
// and every module it imports in the capnp config.
import { spawn, execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, posix, relative } from "node:path";
import { fileURLToPath } from "node:url";
import assert from "node:assert/strict";

const port = Number(process.argv[2]);
assert.ok(Number.isInteger(port) && port > 0 && port < 65536, "usage: node run.mjs <port>");

/** Where `specifier` resolves with the `workerd` condition (through Node's resolver). */
function resolveWorkerd(specifier) {
  return fileURLToPath(
    execFileSync(
      process.execPath,
      ["--conditions=workerd", "--input-type=module", "-e", `process.stdout.write(import.meta.resolve(${JSON.stringify(specifier)}))`],
      { encoding: "utf8" },
    ),
  );
}

const entries = { fencepost: resolveWorkerd("fencepost"), "fencepost/sim": resolveWorkerd("fencepost/sim") };
assert.match(entries.fencepost, /dist[\\/]workerd\.js$/, "the workerd condition must pick dist/workerd.js");
assert.match(entries["fencepost/sim"], /dist[\\/]sim[\\/]workerd\.js$/, "the workerd condition must pick dist/sim/workerd.js");

// Each entry and everything it imports relatively. workerd resolves a relative import against the
// importing module's name, so the modules an entry imports are named from the entry's name.
const modules = new Map();
const pending = [];
for (const [name, path] of Object.entries(entries)) {
  modules.set(name, path);
  pending.push([name, path]);
}
while (pending.length > 0) {
  const [name, file] = pending.pop();
  const source = readFileSync(file, "utf8");
  for (const [, spec] of source.matchAll(/(?:from|import)\s*["'](\.\/[^"']+)["']/g)) {
    const childName = posix.join(posix.dirname(name), spec);
    const path = join(dirname(file), spec);
    if (!modules.has(childName)) {
      modules.set(childName, path);
      if (path.endsWith(".js")) pending.push([childName, path]);
    }
  }
}
assert.ok(modules.has("fencepost_bg.wasm"), "the core's entry must import its .wasm file as a module");
assert.ok(modules.has("fencepost/fencepost_sim_bg.wasm"), "the simulator's entry must import its .wasm file as a module");

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
  const response = await fetch(`http://127.0.0.1:${port}/sim`);
  assert.equal(response.status, 200);
  assert.deepEqual(await response.json(), {
    rejected: [{ actor: "storage", token: "33n", highest: "34n", reason: "stale", because: "the storage refuses A's write with token 33: it has already accepted 34 from B" }],
    fencingOff: [
      ["I1", 30],
      ["I2", 30],
      ["I4", 30],
    ],
  });
  console.log("workerd: fencepost/sim rejects 33 (highest 34) with fencing and breaks I2 without");
} finally {
  stop();
}
