// The fenced lease service on Cloudflare Workers + Durable Objects: a thin host of
// `fencepost/service`.
//
// One Durable Object per lock keeps its lease authority (DurableObjectLocks); one per document is
// a fenced resource (`fencepost/store`'s DurableObjectSqlStore). Durable Objects run one request
// at a time per object and their storage is strongly consistent, so each object is the single,
// serialised home of its state: that is what makes the rules hold across every machine the Worker
// runs on. The front Worker only routes, answers cross-origin preflights and /metrics, and counts
// what the objects report they did: they run in other isolates, often on other machines, so
// counters kept inside them would never reach the front's /metrics.
//
// Settings are Worker secrets and variables: FENCEPOST_KEYS (a secret: `wrangler secret put
// FENCEPOST_KEYS`), FENCEPOST_MAX_TTL_MS, FENCEPOST_IDLE_KEEP_MS, FENCEPOST_WRITE_LOG,
// FENCEPOST_CORS_ORIGINS (see the package's service/index.d.ts).

import { DurableObject } from "cloudflare:workers";
import { DurableObjectSqlStore } from "fencepost/store";
import {
  adoptDoc,
  answer,
  corsOrigins,
  DurableObjectLocks,
  HttpError,
  json,
  LeaseService,
  Metrics,
  readSettings,
  route,
  withCors,
} from "fencepost/service";

/** The settings, read from the first `env` this isolate sees: bindings do not change while it lives. */
let settings = null;

function settingsOf(env) {
  settings ??= readSettings((name) => env[name]);
  return settings;
}

/**
 * A service over `backends` for an object, or null when the settings are refused. Cross-origin
 * rules apply at the front; an object reports what it counted in its answers (reportCounts).
 */
function objectService(env, backends) {
  const s = settingsOf(env);
  if (s.unavailable !== undefined) return null;
  return new LeaseService({ ...s, corsOrigins: [], reportCounts: true, ...backends });
}

/** What the front counts: the work the objects behind it report in their answers. */
const metrics = new Metrics();

export default {
  async fetch(request, env) {
    const s = settingsOf(env);
    if (s.unavailable !== undefined) return json(503, { error: s.unavailable });
    return withCors(corsOrigins(s.corsOrigins), request, (r) => front(r, env));
  },
};

/** Routes a request to the object of its lock or document, or answers /metrics here. */
function front(request, env) {
  return answer(async () => {
    const r = route(request);
    if (r === null) throw new HttpError(404, "no such endpoint");
    if (r.kind === "metrics") return metrics.response();
    const ns = r.kind === "doc" ? env.DOCS : env.LOCKS;
    const stub = ns.get(ns.idFromName(r.kind === "doc" ? r.key : r.name));
    return metrics.takeFrom(await stub.fetch(request));
  });
}

/** The lease authority of one lock; an alarm deletes its state once it has been idle a while. */
export class LockObject extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    this.locks = new DurableObjectLocks(ctx.storage);
    this.service = objectService(env, { locks: this.locks });
  }

  async fetch(request) {
    if (this.service === null) return json(503, { error: settingsOf(this.env).unavailable });
    return this.service.fetch(request);
  }

  async alarm() {
    await this.locks.sweep(Date.now());
  }
}

/** The table of a document's object (one object per document, so one row). */
const TABLE = "document";

/**
 * A fenced document: a row of its object's SQL storage, written through `fencepost/store`'s
 * DurableObjectSqlStore, whose text and guard mark change in one transaction.
 */
export class DocObject extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    this.docs = new DurableObjectSqlStore(ctx.storage, { table: TABLE });
    // The table is made ready on the first write the service admits to the store (after the token
    // verified), or looked for on the first read: a refused or reading request stores nothing.
    const documents = {
      write: async (key, token, value) => {
        await this.prepare(key, true);
        return this.docs.write(key, token, value);
      },
      read: async (key) => {
        await this.prepare(key, false);
        return this.ready ? this.docs.read(key) : null;
      },
    };
    this.service = objectService(env, { documents });
    /** Whether the table exists and holds what an earlier version stored: checked once an instance. */
    this.ready = false;
  }

  /** Whether the document's table exists: a GET must not create state. */
  hasTable() {
    return this.ctx.storage.sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", TABLE).toArray().length > 0;
  }

  /**
   * Makes the document's table ready: created (unless `create` is false and nothing is stored, so
   * a GET of a missing document stores nothing), with the document an earlier version of the
   * service stored (keys "highest" and "doc" of the object's key-value storage) moved into it
   * through the core and then deleted. Nothing else runs meanwhile, so no request sees it half-moved.
   */
  async prepare(key, create) {
    if (this.ready) return;
    await this.ctx.blockConcurrencyWhile(async () => {
      if (this.ready) return;
      const old = await this.ctx.storage.get(["highest", "doc"]);
      if (!create && !old.has("highest") && !this.hasTable()) return;
      await this.docs.createTable();
      if (old.has("highest")) {
        await adoptDoc(this.docs, key, old.get("highest"), old.get("doc").data);
        await this.ctx.storage.delete(["highest", "doc"]);
      }
      this.ready = true;
    });
  }

  async fetch(request) {
    if (this.service === null) return json(503, { error: settingsOf(this.env).unavailable });
    return this.service.fetch(request);
  }
}
