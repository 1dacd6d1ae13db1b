// A fenced lease service on Cloudflare Workers + Durable Objects.
//
// One Durable Object per lock hosts fencepost's lease authority; one per document is a fenced
// resource. Durable Objects run one request at a time per object and their storage is strongly
// consistent, so each object is the single, serialised home of its state: that is what makes the
// rules hold across every machine the Worker runs on.

import { DurableObject } from "cloudflare:workers";
import {
  answer,
  docPut,
  fencingToken,
  HttpError,
  json,
  loadAuthority,
  lockOp,
  readJson,
  readText,
  route,
} from "../../shared/service.js";

export default {
  async fetch(request, env) {
    return answer(async () => {
      const r = route(request);
      if (r === null) throw new HttpError(404, "no such endpoint");
      const ns = r.kind === "lock" ? env.LOCKS : env.DOCS;
      const stub = ns.get(ns.idFromName(r.kind === "lock" ? r.name : r.key));
      return stub.fetch(request);
    });
  },
};

/** The lease authority of one lock. Its snapshot is persisted before any grant is answered. */
export class LockObject extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    this.storage = ctx.storage;
  }

  async fetch(request) {
    return answer(async () => {
      const { action } = route(request);
      const body = await readJson(request);
      const auth = loadAuthority(await this.storage.get("snapshot"));
      try {
        const { changed, response } = lockOp(auth, action, body, Date.now());
        // fencepost's contract: the state behind a grant is durable before the grant is returned.
        if (changed) await this.storage.put("snapshot", auth.snapshot());
        return response;
      } finally {
        auth.free();
      }
    });
  }
}

/** A fenced document: its data and its guard's high-water mark change in one atomic write. */
export class DocObject extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    this.storage = ctx.storage;
  }

  async fetch(request) {
    return answer(async () => {
      if (request.method === "GET") {
        const doc = await this.storage.get("doc");
        return doc === undefined ? json(404, { error: "no such document" }) : json(200, doc);
      }
      const token = fencingToken(request);
      const data = await readText(request);
      const decision = docPut(await this.storage.get("highest"), token);
      if (decision.accepted) {
        await this.storage.put({
          highest: decision.highest,
          doc: { data, token: token.toString() },
        });
      }
      return decision.response;
    });
  }
}
