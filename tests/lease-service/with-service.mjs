// Runs a command next to a real lease service: starts a host of fencepost/service
// (workerd or Deno, see host.mjs) on a free port of 127.0.0.1 with fresh storage, runs the command
// with the service's base URL in FENCEPOST_SERVICE, then stops the host and removes its storage,
// whatever the command did. Exits with the command's status.
//
//   node with-service.mjs --host <workerd|deno> [--cors-origin <origin>] -- <command> [args...]
//
// `--cors-origin` lists one page origin in the service's FENCEPOST_CORS_ORIGINS, for a browser
// test whose page is served from that origin. Needs WORKERD_BIN and DENO_BIN.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { freePort, start } from "./host.mjs";

const { values, positionals } = parseArgs({
  options: { host: { type: "string" }, "cors-origin": { type: "string" } },
  allowPositionals: true,
});
const HOSTS = ["workerd", "deno"];
if (!HOSTS.includes(values.host) || positionals.length === 0) {
  console.error("usage: node with-service.mjs --host <workerd|deno> [--cors-origin <origin>] -- <command> [args...]");
  process.exit(2);
}

const dir = mkdtempSync(join(tmpdir(), `fencepost-service-${values.host}-`));
let server = null;
let status = 1;
try {
  server = await start(values.host, await freePort(), dir, { corsOrigins: values["cors-origin"] });
  console.log(`lease service (${values.host}) at ${server.base}`);
  const [command, ...args] = positionals;
  const child = spawn(command, args, { stdio: "inherit", env: { ...process.env, FENCEPOST_SERVICE: server.base } });
  status = await new Promise((done, fail) => {
    child.once("error", fail);
    child.once("exit", (code, signal) => done(code ?? (signal ? 1 : 0)));
  });
  if (status !== 0) console.error(`the service's log:\n${server.log()}`);
} finally {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(status);
