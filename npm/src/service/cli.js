#!/usr/bin/env node
// `npx fencepost serve`: the lease service on Node, over etcd or Postgres. Instances keep no state
// of their own, so any number of them behind a load balancer serve the same locks.

import { parseArgs } from "node:util";
import { open } from "./engines.js";
import { LeaseService } from "./service.js";
import { BackendUnavailableError } from "./errors.js";
import { readSettings, SETTINGS } from "./settings.js";
import { serveNode } from "./node.js";

const USAGE = `Usage: fencepost serve (--etcd URL[,URL...] | --postgres URL) [--documents sqlite:PATH | --documents postgres://...] [--port N]

Serves the fencepost lease service (locks with fencing tokens, and fenced documents) over HTTP.

  --etcd URL[,URL...]   keep locks in etcd v3: the client URLs of its members (its JSON gateway)
  --postgres URL        keep locks in Postgres (a postgres:// connection string)
  --documents WHERE     where documents live: sqlite:PATH or a postgres:// URL (default: the
                        Postgres of --postgres, else the SQLite file fencepost-documents.sqlite3
                        in the current directory)
  --port N              the port to listen on (default 8000); HOST names the address (default
                        127.0.0.1; 0.0.0.0 to serve other machines)
  -h, --help            show this help

Settings, from the environment:
  FENCEPOST_KEYS          required: "<key id>:<secret>[,<key id>:<secret>...]"; the first signs,
                          the others only verify; the same on every instance
  FENCEPOST_MAX_TTL_MS    the longest lease a client may ask for (default 300000)
  FENCEPOST_IDLE_KEEP_MS  how long an idle lock's state is kept (default 60000, at least 1000)
  FENCEPOST_CORS_ORIGINS  origins whose pages may call the service, separated by commas
  FENCEPOST_WRITE_LOG     "1": print each document write as a JSON line for \`fencepost check\`

SIGTERM or SIGINT stops taking requests, answers those in flight (acquires waiting for a lock
at once, "held"), and exits.`;

/** A refusal of the command line or the settings: printed with the usage hint, exit status 2. */
class UsageError extends Error {}

function parse(argv) {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        etcd: { type: "string" },
        postgres: { type: "string" },
        documents: { type: "string" },
        port: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (e) {
    throw new UsageError(e.message);
  }
  const { values, positionals } = parsed;
  if (values.help) return { help: true };
  if (positionals.length !== 1 || positionals[0] !== "serve") {
    throw new UsageError(positionals.length === 0 ? "a command is required: serve" : `unknown command ${JSON.stringify(positionals.join(" "))}; the one command is serve`);
  }
  if ((values.etcd === undefined) === (values.postgres === undefined)) {
    throw new UsageError("give exactly one of --etcd and --postgres: where the locks live");
  }
  const port = values.port ?? "8000";
  if (!/^[0-9]{1,5}$/.test(port) || Number(port) > 65535) throw new UsageError(`--port must be a port number from 0 to 65535, got ${JSON.stringify(port)}`);
  return { etcd: values.etcd, postgres: values.postgres, documents: values.documents, port: Number(port) };
}

async function serve(args) {
  const settings = readSettings((name) => process.env[name]);
  if (settings.unavailable !== undefined) throw new UsageError(settings.unavailable);
  const engines = await open(args);
  const service = new LeaseService({ ...settings, locks: engines.locks, documents: engines.documents });
  const hostname = process.env.HOST || "127.0.0.1";
  const server = await serveNode(service.fetch, { port: args.port, hostname });
  console.log(`fencepost service listening on ${server.url} (locks in ${engines.describe})`);
  // Idle locks' states are deleted a while after their time came; any instance may do it.
  const sweeping = setInterval(() => service.sweep().catch((e) => console.error("fencepost service: sweep:", e.message)), Math.min(settings.idleKeepMs, 5000));
  sweeping.unref();
  let stopping = false;
  const stop = async (signal) => {
    if (stopping) return;
    stopping = true;
    console.log(`fencepost service: ${signal}: answering the requests in flight, then exiting`);
    clearInterval(sweeping);
    // Acquires waiting for a lock are answered now, as their wait's end would, not cut off.
    service.endWaits();
    await server.close();
    await engines.close();
    process.exit(0);
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
}

async function main(argv) {
  try {
    const args = parse(argv);
    if (args.help) {
      console.log(USAGE);
      return;
    }
    await serve(args);
  } catch (e) {
    if (e instanceof BackendUnavailableError) {
      console.error(`fencepost: cannot start: ${e.message}`);
      process.exit(1);
    }
    if (!(e instanceof UsageError) && !(e instanceof TypeError) && !(e instanceof RangeError)) throw e;
    console.error(`fencepost: ${e.message}\n(see fencepost --help; settings: ${SETTINGS.join(", ")})`);
    process.exit(2);
  }
}

await main(process.argv.slice(2));
