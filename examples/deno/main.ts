// A fenced lease service on Deno, with its state in Deno KV.
//
// Every change goes through `kv.atomic().check(...)`: a request reads the state with its
// versionstamp, decides with fencepost, and commits only if nobody changed that state meanwhile.
// Concurrent requests therefore serialise per lock and per document; a request that lost the race
// reads again and retries (a bounded number of times). Locks do that here; documents through
// `fencepost/store`'s DenoKvStore (../shared/documents.js), which keeps a document's text and
// guard mark in one KV entry. Deno KV is strongly consistent, which is what makes the rules hold
// for every instance of the service sharing the store.
//
//   FENCEPOST_KEYS=<key id>:<secret> deno run --unstable-kv --allow-net --allow-read \
//     --allow-write --allow-env main.ts      (or `deno task dev`, with a development key)
//   (PORT: listen port, default 8000; HOST: address to listen on, default 127.0.0.1;
//   KV_PATH: local KV file, default: Deno's default store; the service's own settings are in
//   ../shared/settings.js)

import { type DenoKvStore, StoreContentionError } from "fencepost/store";
import { withCors } from "../shared/cors.js";
import { adoptDoc, denoKvDocs, docGet, docPut } from "../shared/documents.js";
import { answer, HttpError, readJson, readText } from "../shared/http.js";
import { metricsResponse } from "../shared/metrics.js";
import { loadAuthority, lockOp, lockState, logWrite, route, signedToken } from "../shared/service.js";
import { readSettings } from "../shared/settings.js";

/** Attempts of a lock operation before it gives up under contention. */
const MAX_ATTEMPTS = 64;
/**
 * Largest document body, in bytes. Deno KV caps a value at 64 KiB after serialisation, and a
 * document's entry also holds its guard mark, so documents here are a little smaller than the
 * service's 64 KiB request limit. The store keeps the text as JSON, which V8 serialises at two
 * bytes a character once any character is beyond U+00FF: such a document holds up to about 32 K
 * characters, and a larger one is refused with 400 when KV refuses it (see `doc`).
 */
const MAX_DOC_BYTES = 60 * 1024;

/** Waits a random while, longer after each lost race, so racing requests spread out. */
function backoff(attempt: number): Promise<void> {
  const ms = Math.random() * Math.min(50, 2 ** attempt);
  return new Promise((r) => setTimeout(r, ms));
}

/**
 * Runs a KV call; a store that is busy (another process holds its lock, as when instances share a
 * local file) is a 503 the client may retry, not a failure of the request.
 */
async function store<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (e) {
    if (e instanceof Error && /database is locked/i.test(e.message)) {
      throw new HttpError(503, "the store is busy; try again");
    }
    throw e;
  }
}

const kv = await Deno.openKv(Deno.env.get("KV_PATH") || undefined);
/** Read once, at start: a changed key takes a restart, as a redeploy does. */
const settings = readSettings((name: string) => Deno.env.get(name));

async function lock(request: Request, name: string, action: string | null): Promise<Response> {
  const body = action === null ? null : await readJson(request);
  const key = ["lock", name];
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    if (attempt > 0) await backoff(attempt);
    const entry = await store(() => kv.get<Uint8Array>(key));
    const now = Date.now();
    const auth = loadAuthority(entry.value, now);
    try {
      if (action === null) return lockState(auth, now);
      const { changed, response, deleteAt } = lockOp(settings, auth, name, action, body, now);
      if (!changed) return response;
      // Persisted before the grant is returned, and only if nobody else changed the lock meanwhile.
      // KV deletes the state by itself once the lock has been free for a while (see deleteAt).
      const snapshot = auth.snapshot();
      const expireIn = Math.max(1, deleteAt - now);
      const commit = await store(() => kv.atomic().check(entry).set(key, snapshot, { expireIn }).commit());
      if (commit.ok) return response;
    } finally {
      auth.free();
    }
  }
  throw new HttpError(503, "too much contention on this lock; try again");
}

/**
 * A document as earlier versions of the service stored it, at ["doc", key]: its guard's mark, its
 * token, and its text as UTF-8 bytes.
 */
type OldDoc = { highest: string; token: string; data: Uint8Array };

const decoder = new TextDecoder("utf-8", { ignoreBOM: true });

/**
 * Moves every document an earlier version stored into the fenced store (see adoptDoc), then
 * deletes its old entry unless it changed meanwhile. Runs before the service listens, so no
 * request sees a document half-moved; instances starting together each move what is left,
 * through the core, so a mark is never lowered. An instance of the earlier version still writing
 * to the same KV would write where this one does not look: stop it first.
 */
async function adoptOldDocs(kv: Deno.Kv, docs: DenoKvStore): Promise<number> {
  let moved = 0;
  for await (const old of kv.list<OldDoc>({ prefix: ["doc"] })) {
    const key = old.key[1];
    if (old.key.length !== 2 || typeof key !== "string") continue;
    await adoptDoc(docs, key, old.value.highest, decoder.decode(old.value.data));
    // Counted only when this instance deleted it (another may have moved it meanwhile).
    if ((await kv.atomic().check(old).delete(old.key).commit()).ok) moved++;
  }
  return moved;
}

const docs = denoKvDocs(kv);
const adopted = await adoptOldDocs(kv, docs);
if (adopted > 0) console.log(`moved ${adopted} documents of an earlier version into the fenced store`);

/** Deno KV refuses a value over 64 KiB, as its commit says; the document is then the client's fault. */
function tooLarge(e: unknown): boolean {
  return e instanceof TypeError && /value too large/i.test(e.message);
}

async function doc(request: Request, name: string): Promise<Response> {
  if (request.method === "GET") return await store(() => docGet(docs, name));
  const token = signedToken(settings, request, name);
  const data = await readText(request, MAX_DOC_BYTES);
  let decision;
  try {
    // The store retries a lost race itself and ends in a StoreContentionError after its attempts.
    decision = await store(() => docPut(docs, name, token, data));
  } catch (e) {
    if (tooLarge(e)) {
      throw new HttpError(400, "document is larger than Deno KV holds: its text is stored as JSON, two bytes a character when any is beyond U+00FF");
    }
    if (e instanceof StoreContentionError) throw new HttpError(503, "too much contention on this document; try again");
    throw e;
  }
  logWrite(settings, request, name, token, decision.accepted, Date.now());
  return decision.response;
}

function handle(request: Request): Promise<Response> {
  return withCors(settings.corsOrigins, request, serve);
}

function serve(request: Request): Promise<Response> {
  return answer(async () => {
    if (settings.unavailable !== undefined) throw new HttpError(503, settings.unavailable);
    const r = route(request);
    if (r === null) throw new HttpError(404, "no such endpoint");
    if (r.kind === "metrics") return metricsResponse();
    if (r.kind === "doc") return doc(request, r.key);
    return lock(request, r.name, r.kind === "lock" ? r.action : null);
  });
}

const port = Number(Deno.env.get("PORT") ?? "8000");
const hostname = Deno.env.get("HOST") ?? "127.0.0.1";
Deno.serve({ hostname, port, onListen: ({ port }) => console.log(`listening on http://${hostname}:${port}`) }, handle);
