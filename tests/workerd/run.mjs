// Runs worker.js in a real workerd on 127.0.0.1:<port> (the first argument), asks it for the story
// over HTTP and checks the answer. In the same workerd, holder.js holds a lease through
// fencepost/client from the lease service (the example's own worker, examples/cloudflare, whose
// capnp is FENCEPOST_SERVICE_CAPNP) behind a service binding, asked over HTTP on <holder-port> (the
// second argument). Always stops workerd and removes the service's storage.
//
// workerd does not resolve packages, so this does what a bundler does: it resolves `fencepost`,
// `fencepost/sim` and `fencepost/client` with the `workerd` condition (through Node's resolver) and
// lists each entry and every module it imports in the capnp config.
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, posix, relative } from "node:path";
import { fileURLToPath } from "node:url";
import assert from "node:assert/strict";
import { checkRound } from "./lease-round.mjs";

const port = Number(process.argv[2]);
const holderPort = Number(process.argv[3]);
const isPort = (p) => Number.isInteger(p) && p > 0 && p < 65536;
assert.ok(isPort(port) && isPort(holderPort), "usage: node run.mjs <port> <holder-port>");
const serviceCapnp = process.env.FENCEPOST_SERVICE_CAPNP;
assert.ok(serviceCapnp, "FENCEPOST_SERVICE_CAPNP (examples/cloudflare/workerd.capnp) is not set");

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

/**
 * Each entry (name -> file) and everything it imports relatively. workerd resolves a relative
 * import against the importing module's name, so the modules an entry imports are named from the
 * entry's name.
 */
function modulesOf(entries) {
  const modules = new Map();
  const pending = [];
  for (const [name, path] of Object.entries(entries)) {
    modules.set(name, path);
    pending.push([name, path]);
  }
  while (pending.length > 0) {
    const [name, file] = pending.pop();
    const source = readFileSync(file, "utf8");
    for (const [, spec] of source.matchAll(/(?:from|import)\s*["'](\.\.?\/[^"']+)["']/g)) {
      const childName = posix.join(posix.dirname(name), spec);
      const path = join(dirname(file), spec);
      if (!modules.has(childName)) {
        modules.set(childName, path);
        if (/\.m?js$/.test(path)) pending.push([childName, path]);
      }
    }
  }
  return modules;
}

/** The capnp module list of `modules` (paths embedded relative to the config, written here). */
function capnpModules(modules) {
  return [...modules]
    .map(([name, path]) => {
      const kind = path.endsWith(".wasm") ? "wasm" : "esModule";
      const file = relative(process.cwd(), path).split("\\").join("/");
      return `    (name = ${JSON.stringify(name)}, ${kind} = embed ${JSON.stringify(file)}),`;
    })
    .join("\n");
}

const entries = { fencepost: resolveWorkerd("fencepost"), "fencepost/sim": resolveWorkerd("fencepost/sim") };
assert.match(entries.fencepost, /dist[\\/]workerd\.js$/, "the workerd condition must pick dist/workerd.js");
assert.match(entries["fencepost/sim"], /dist[\\/]sim[\\/]workerd\.js$/, "the workerd condition must pick dist/sim/workerd.js");
const modules = modulesOf({ "worker.js": "worker.js", ...entries });
assert.ok(modules.has("fencepost_bg.wasm"), "the core's entry must import its .wasm file as a module");
assert.ok(modules.has("fencepost/fencepost_sim_bg.wasm"), "the simulator's entry must import its .wasm file as a module");

const clientEntry = resolveWorkerd("fencepost/client");
assert.match(clientEntry, /node_modules[\\/]fencepost[\\/]dist[\\/]client[\\/]workerd\.js$/, "the workerd condition must pick the installed dist/client/workerd.js");
const holderModules = modulesOf({ "holder.js": "holder.js", "lease-round.mjs": "lease-round.mjs", "fencepost/client": clientEntry });
assert.ok(holderModules.has("fencepost_bg.wasm"), "the client's entry must load the core's .wasm file as a module");

writeFileSync(
  "config.capnp",
  `using Workerd = import "/workerd/workerd.capnp";
using Example = import ${JSON.stringify(relative(process.cwd(), serviceCapnp).split("\\").join("/"))};

const config :Workerd.Config = (
  services = [
    (name = "main", worker = .worker),
    (name = "holder", worker = .holder),
    (name = "leases", worker = Example.leases),
    (name = "fencepost-objects", worker = Example.objects),
    (name = "do-storage", disk = (writable = true)),
  ],
  sockets = [
    (name = "http", address = "127.0.0.1:${port}", http = (), service = "main"),
    (name = "holder", address = "127.0.0.1:${holderPort}", http = (), service = "holder"),
  ],
);

const worker :Workerd.Worker = (
  modules = [
${capnpModules(modules)}
  ],
  compatibilityDate = "2025-01-01",
);

const holder :Workerd.Worker = (
  modules = [
${capnpModules(holderModules)}
  ],
  compatibilityDate = "2025-01-01",
  bindings = [ (name = "LEASES", service = "leases") ],
);
`,
);

const storage = mkdtempSync(join(tmpdir(), "fencepost-workerd-fixture-"));
const workerd = spawn(join("node_modules", ".bin", "workerd"), ["serve", "config.capnp", "--directory-path", `do-storage=${storage}`], {
  stdio: ["ignore", "inherit", "inherit"],
});
const stop = () => {
  if (workerd.exitCode === null && workerd.signalCode === null) workerd.kill("SIGTERM");
  rmSync(storage, { recursive: true, force: true });
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

  const text = "written from a Worker through a service binding";
  const held = await fetch(`http://127.0.0.1:${holderPort}/workerd-binding?text=${encodeURIComponent(text)}`);
  assert.equal(held.status, 200);
  const report = await held.json();
  checkRound(assert, report, { text });
  console.log(`workerd: a Worker held lease ${report.token} over a service binding (${report.renewals.length} renewals), wrote and released it`);
} finally {
  stop();
}
