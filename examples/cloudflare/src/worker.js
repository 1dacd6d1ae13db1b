// A fenced lease service on Cloudflare Workers + Durable Objects.
//
// One Durable Object per lock hosts fencepost's lease authority; one per document is a fenced
// resource. Durable Objects run one request at a time per object and their storage is strongly
// consistent, so each object is the single, serialised home of its state: that is what makes the
// rules hold across every machine the Worker runs on.
//
// Settings (see ../../shared/settings.js) are Worker secrets and variables: FENCEPOST_KEYS (a
// secret: `wrangler secret put FENCEPOST_KEYS`), FENCEPOST_MAX_TTL_MS, FENCEPOST_WRITE_LOG,
// FENCEPOST_CORS_ORIGINS.

import { DurableObject } from "cloudflare:workers";
import { withCors } from "../../shared/cors.js";
import { adoptDoc, docGet, docPut, durableObjectDocs, hasDocTable } from "../../shared/documents.js";
import { answer, HttpError, json, readJson, readText } from "../../shared/http.js";
import { metricsResponse } from "../../shared/metrics.js";
import {
  deleteAt,
  idle,
  loadAuthority,
  lockOp,
  lockState,
  logWrite,
  route,
  signedToken,
} from "../../shared/service.js";
import { readSettings } from "../../shared/settings.js";

/** The settings, read from the first `env` this isolate sees: bindings do not change while it lives. */
let settings = null;

function settingsOf(env) {
  settings ??= readSettings((name) => env[name]);
  if (settings.unavailable !== undefined) throw new HttpError(503, settings.unavailable);
  return settings;
}

export default {
  async fetch(request, env) {
    settings ??= readSettings((name) => env[name]);
    // Cross-origin rules apply here, at the Worker's edge; the objects behind it never see a preflight.
    return withCors(settings.corsOrigins, request, (r) => serve(r, env));
  },
};

/** Routes a request to the object of its lock or document (or answers it here). */
function serve(request, env) {
  return answer(async () => {
    settingsOf(env);
    const r = route(request);
    if (r === null) throw new HttpError(404, "no such endpoint");
    if (r.kind === "metrics") return metricsResponse();
    const ns = r.kind === "doc" ? env.DOCS : env.LOCKS;
    const stub = ns.get(ns.idFromName(r.kind === "doc" ? r.key : r.name));
    return stub.fetch(request);
  });
}

/**
 * The lease authority of one lock. Its snapshot is persisted before any grant is answered; an
 * alarm deletes it once the lock has been free for a while (see deleteAt in service.js).
 */
export class LockObject extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    this.storage = ctx.storage;
    this.env = env;
  }

  async fetch(request) {
    return answer(async () => {
      const s = settingsOf(this.env);
      const r = route(request);
      // The body first: reading it lets other requests in, so it comes before the lock's state is
      // read, and from there to the write nothing else runs (the object's input gate).
      const body = r.kind === "lock" ? await readJson(request) : null;
      const now = Date.now();
      const auth = loadAuthority(await this.storage.get("snapshot"), now);
      try {
        if (r.kind === "lockState") return lockState(auth, now);
        const { changed, response, deleteAt } = lockOp(s, auth, r.name, r.action, body, now);
        // fencepost's contract: the state behind a grant is durable before the grant is returned.
        if (changed) {
          await this.storage.put("snapshot", auth.snapshot());
          await this.storage.setAlarm(deleteAt);
        }
        return response;
      } finally {
        auth.free();
      }
    });
  }

  /** Deletes the lock's state once it has had no lease for the idle time, else looks again later. */
  async alarm() {
    const now = Date.now();
    const snapshot = await this.storage.get("snapshot");
    if (snapshot === undefined) return;
    const auth = loadAuthority(snapshot, now);
    try {
      if (idle(auth, now)) await this.storage.deleteAll();
      else await this.storage.setAlarm(deleteAt(settingsOf(this.env), auth, now));
    } finally {
      auth.free();
    }
  }
}

/**
 * A fenced document: a row of its object's SQL storage, written through `fencepost/store`'s
 * DurableObjectSqlStore, whose text and guard mark change in one transaction.
 */
export class DocObject extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    this.storage = ctx.storage;
    this.env = env;
    this.docs = durableObjectDocs(ctx.storage);
    /** Whether the table exists and holds what an earlier version stored: checked once an instance. */
    this.ready = false;
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
      const old = await this.storage.get(["highest", "doc"]);
      if (!create && !old.has("highest") && !hasDocTable(this.storage)) return;
      await this.docs.createTable();
      if (old.has("highest")) {
        await adoptDoc(this.docs, key, old.get("highest"), old.get("doc").data);
        await this.storage.delete(["highest", "doc"]);
      }
      this.ready = true;
    });
  }

  async fetch(request) {
    return answer(async () => {
      const s = settingsOf(this.env);
      const { key } = route(request);
      if (request.method === "GET") {
        await this.prepare(key, false);
        return this.ready ? docGet(this.docs, key) : json(404, { error: "no such document" });
      }
      const token = signedToken(s, request, key);
      const data = await readText(request);
      await this.prepare(key, true);
      const decision = await docPut(this.docs, key, token, data);
      logWrite(s, request, key, token, decision.accepted, Date.now());
      return decision.response;
    });
  }
}
