// The engines `fencepost serve` runs over, opened from its command line: where locks live (etcd or
// Postgres) and where documents live (SQLite or Postgres). The drivers are the caller's to install
// (`pg`, `better-sqlite3`): the package depends on neither, since most users need one or none.

import { PostgresStore, SqliteStore } from "fencepost/store";
import { EtcdLocks } from "./backends/etcd.js";
import { createdByAnyone, PostgresLocks, unavailable } from "./backends/postgres.js";
import { BackendUnavailableError } from "./errors.js";
import { keepAliveFetch } from "./node-fetch.js";

/** The table of documents, in SQLite or Postgres. */
const DOCUMENTS_TABLE = "fencepost_documents";
/** The SQLite file of documents when nothing else is said: beside the process. */
const DEFAULT_SQLITE = "fencepost-documents.sqlite3";

/** A driver the command needs, or a TypeError saying which package to install and why. */
async function driver(name, why) {
  try {
    return (await import(name)).default;
  } catch (e) {
    if (e?.code !== "ERR_MODULE_NOT_FOUND") throw e;
    throw new TypeError(`${why} needs the npm package ${name}: npm install ${name}`);
  }
}

function postgresUrl(option, url) {
  if (!/^postgres(ql)?:\/\//.test(url)) throw new TypeError(`${option} must be a postgres:// URL, got ${JSON.stringify(url)}`);
  return url;
}

async function pool(url, option) {
  const pg = await driver("pg", option);
  const p = new pg.Pool({ connectionString: postgresUrl(option, url), connectionTimeoutMillis: 5000 });
  // A pooled connection the server drops (a restart) is reported here; the next query reconnects.
  p.on("error", (e) => console.error(`fencepost service: Postgres connection lost: ${e.message}`));
  return p;
}

function etcdEndpoints(list) {
  const urls = list.split(",").map((u) => u.trim());
  for (const u of urls) {
    let ok = false;
    try {
      ok = ["http:", "https:"].includes(new URL(u).protocol);
    } catch {
      // refused below
    }
    if (!ok) throw new TypeError(`--etcd must be http(s) URLs of etcd members separated by commas, got ${JSON.stringify(u)}`);
  }
  return urls;
}

/**
 * `store`'s reads and writes, with an engine that cannot answer (a Postgres restarting, a SQLite
 * file locked by another process) said as BackendUnavailableError: the service answers 503.
 */
function guarded(store) {
  const said = async (call) => {
    try {
      return await call();
    } catch (e) {
      const u = unavailable(e);
      if (u !== e) throw u;
      if (e?.code === "SQLITE_BUSY") throw new BackendUnavailableError("the SQLite file is busy", { cause: e });
      throw e;
    }
  };
  return { write: (...a) => said(() => store.write(...a)), read: (key) => said(() => store.read(key)) };
}

async function openDocuments(where, lockPool) {
  if (where === undefined && lockPool !== null) where = "postgres:";
  where ??= `sqlite:${DEFAULT_SQLITE}`;
  if (where.startsWith("sqlite:")) {
    const path = where.slice("sqlite:".length);
    if (path === "") throw new TypeError("--documents sqlite:PATH needs a path");
    const Database = await driver("better-sqlite3", "--documents sqlite:");
    const db = new Database(path, { timeout: 5000 });
    db.pragma("journal_mode = WAL");
    const store = new SqliteStore(db, { table: DOCUMENTS_TABLE });
    await store.createTable();
    return { store, describe: `SQLite ${path}`, close: async () => db.close() };
  }
  const own = where === "postgres:" ? null : await pool(where, "--documents");
  const p = own ?? lockPool;
  const store = new PostgresStore(p, { table: DOCUMENTS_TABLE });
  // Instances starting together race to create the table; see PostgresLocks#createTable.
  await createdByAnyone(() => store.createTable()).catch((e) => Promise.reject(unavailable(e)));
  return { store, describe: "Postgres", close: async () => own?.end() };
}

/** Opens what the command line names: `{ locks, documents, describe, close() }`. */
export async function open({ etcd, postgres, documents }) {
  let locks;
  let lockPool = null;
  let describe;
  if (etcd !== undefined) {
    const endpoints = etcdEndpoints(etcd);
    locks = new EtcdLocks({ endpoints, fetch: keepAliveFetch() });
    describe = `etcd ${endpoints.join(",")}`;
  } else {
    lockPool = await pool(postgres, "--postgres");
    locks = new PostgresLocks(lockPool);
    await locks.createTable();
    describe = "Postgres";
  }
  // Refused here, with the engine named, rather than answering every request 503.
  await locks.read("fencepost-startup-probe");
  const docs = await openDocuments(documents, lockPool);
  return {
    locks,
    documents: guarded(docs.store),
    describe: `${describe}, documents in ${docs.describe}`,
    close: async () => {
      await docs.close();
      await lockPool?.end();
    },
  };
}
