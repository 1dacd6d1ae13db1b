// Runs do-worker.js in a real workerd, Durable Object storage on local disk in `dir`, on a free
// port of 127.0.0.1.
//
// workerd does not resolve packages, so this does what a bundler does: it resolves `fencepost`
// and `fencepost/store` with the `workerd` condition (Node's resolver) and names each module as
// workerd will ask for it (a bare specifier beside the module that imports it).

import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, posix, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort, start } from "./runtime.mjs";

function resolveWorkerd(specifier) {
  return fileURLToPath(
    execFileSync(process.execPath, ["--conditions=workerd", "--input-type=module", "-e", `process.stdout.write(import.meta.resolve(${JSON.stringify(specifier)}))`], {
      encoding: "utf8",
    }),
  );
}

/** Every module the worker loads, by the name workerd asks for it. */
function modules() {
  const worker = fileURLToPath(new URL("./do-worker.js", import.meta.url));
  const found = new Map([["do-worker.js", worker]]);
  const pending = [["do-worker.js", worker]];
  while (pending.length > 0) {
    const [name, file] = pending.pop();
    for (const [, spec] of readFileSync(file, "utf8").matchAll(/(?:from|import)\s*["']([^"']+)["']/g)) {
      const childName = posix.normalize(posix.join(posix.dirname(name), spec));
      const path = spec.startsWith(".") ? join(dirname(file), spec) : resolveWorkerd(spec);
      if (!found.has(childName)) {
        found.set(childName, path);
        if (path.endsWith(".js")) pending.push([childName, path]);
      }
    }
  }
  return found;
}

/** Writes the config into `dir` (capnp embeds files by paths relative to it); returns its path. */
export function configure(dir) {
  const list = [...modules()]
    .map(([name, path]) => `    (name = ${JSON.stringify(name)}, ${path.endsWith(".wasm") ? "wasm" : "esModule"} = embed ${JSON.stringify(relative(dir, path))}),`)
    .join("\n");
  const config = join(dir, "config.capnp");
  writeFileSync(
    config,
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = .worker), (name = "do-storage", disk = (writable = true)) ],
  sockets = [ (name = "http", address = "127.0.0.1:0", http = (), service = "main") ],
);
const worker :Workerd.Worker = (
  modules = [
${list}
  ],
  compatibilityDate = "2025-01-01",
  durableObjectNamespaces = [ (className = "Store", uniqueKey = "fencepost-store-test", enableSql = true) ],
  durableObjectStorage = (localDisk = "do-storage"),
  bindings = [ (name = "STORES", durableObjectNamespace = "Store") ],
);
`,
  );
  return config;
}

/** Starts workerd on the config in `dir`; `stop()` kills it. */
export async function startWorkerd(dir) {
  const port = await freePort();
  const bin = process.env.WORKERD_BIN ?? "node_modules/.bin/workerd";
  return start(bin, ["serve", join(dir, "config.capnp"), "--socket-addr", `http=127.0.0.1:${port}`, "--directory-path", `do-storage=${dir}`], port);
}
