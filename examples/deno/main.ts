// A fenced lease service on Deno, with its state in Deno KV.
//
// Every change goes through `kv.atomic().check(...)`: a request reads the state with its
// versionstamp, decides with fencepost, and commits only if nobody changed that state meanwhile.
// Concurrent requests therefore serialise per lock and per document; a request that lost the race
// reads again and retries (a bounded number of times). Deno KV is strongly consistent, which is
// what makes the rules hold for every instance of the service sharing the store.
//
//   FENCEPOST_KEYS=<key id>:<secret> deno run --unstable-kv --allow-net --allow-read \
//     --allow-write --allow-env main.ts      (or `deno task dev`, with a development key)
//   (PORT: listen port, default 8000; HOST: address to listen on, default 127.0.0.1;
//   KV_PATH: local KV file, default: Deno's default store; the service's own settings are in
//   ../shared/settings.js)

import { answer, HttpError, json, readJson, readText } from "../shared/http.js";
import { metricsResponse } from "../shared/metrics.js";
import { docPut, loadAuthority, lockOp, lockState, logWrite, route, signedToken } from "../shared/service.js";
import { readSettings } from "../shared/settings.js";

/** Attempts before a request gives up under contention. */
const MAX_ATTEMPTS = 64;
/**
 * Largest document, in bytes. Deno KV caps a value at 64 KiB after serialisation, and a document's
 * value also holds its token and guard mark, so documents here are a little smaller than the
 * service's 64 KiB request limit.
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

/** A document as stored: its guard's mark, its token, and its text as UTF-8 bytes. */
type Doc = { highest: string; token: string; data: Uint8Array };

const decoder = new TextDecoder("utf-8", { ignoreBOM: true });

async function doc(request: Request, name: string): Promise<Response> {
  const key = ["doc", name];
  if (request.method === "GET") {
    const entry = await store(() => kv.get<Doc>(key));
    if (entry.value === null) return json(404, { error: "no such document" });
    return json(200, { data: decoder.decode(entry.value.data), token: entry.value.token });
  }
  const token = signedToken(settings, request, name);
  const data = new TextEncoder().encode(await readText(request, MAX_DOC_BYTES));
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    if (attempt > 0) await backoff(attempt);
    const entry = await store(() => kv.get<Doc>(key));
    const decision = docPut(entry.value?.highest ?? null, token);
    if (!decision.accepted) {
      logWrite(settings, request, name, token, false, Date.now());
      return decision.response;
    }
    // The guard's mark and the data change together, or not at all.
    const value: Doc = { highest: decision.highest, token: token.toString(), data };
    const commit = await store(() => kv.atomic().check(entry).set(key, value).commit());
    if (commit.ok) {
      logWrite(settings, request, name, token, true, Date.now());
      return decision.response;
    }
  }
  throw new HttpError(503, "too much contention on this document; try again");
}

function handle(request: Request): Promise<Response> {
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
