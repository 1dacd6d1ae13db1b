// A fenced lease service on Deno, with its state in Deno KV.
//
// Every change goes through `kv.atomic().check(...)`: a request reads the state with its
// versionstamp, decides with fencepost, and commits only if nobody changed that state meanwhile.
// Concurrent requests therefore serialise per lock and per document; a request that lost the race
// reads again and retries (a bounded number of times). Deno KV is strongly consistent, which is
// what makes the rules hold for every instance of the service sharing the store.
//
//   deno run --unstable-kv --allow-net --allow-read --allow-write --allow-env main.ts
//   (PORT: listen port, default 8000; KV_PATH: local KV file, default: Deno's default store)

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
} from "../shared/service.js";

/** Attempts before a request gives up under contention. */
const MAX_ATTEMPTS = 32;

const kv = await Deno.openKv(Deno.env.get("KV_PATH") || undefined);

async function lock(request: Request, name: string, action: string): Promise<Response> {
  const body = await readJson(request);
  const key = ["lock", name];
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const entry = await kv.get<Uint8Array>(key);
    const auth = loadAuthority(entry.value);
    try {
      const { changed, response } = lockOp(auth, action, body, Date.now());
      if (!changed) return response;
      // Persisted before the grant is returned, and only if nobody else changed the lock meanwhile.
      const commit = await kv.atomic().check(entry).set(key, auth.snapshot()).commit();
      if (commit.ok) return response;
    } finally {
      auth.free();
    }
  }
  throw new HttpError(503, "too much contention on this lock; try again");
}

type Doc = { highest: string; doc: { data: string; token: string } };

async function doc(request: Request, name: string): Promise<Response> {
  const key = ["doc", name];
  if (request.method === "GET") {
    const entry = await kv.get<Doc>(key);
    return entry.value === null ? json(404, { error: "no such document" }) : json(200, entry.value.doc);
  }
  const token = fencingToken(request);
  const data = await readText(request);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const entry = await kv.get<Doc>(key);
    const decision = docPut(entry.value?.highest ?? null, token);
    if (!decision.accepted) return decision.response;
    // The guard's mark and the data change together, or not at all.
    const value: Doc = { highest: decision.highest, doc: { data, token: token.toString() } };
    const commit = await kv.atomic().check(entry).set(key, value).commit();
    if (commit.ok) return decision.response;
  }
  throw new HttpError(503, "too much contention on this document; try again");
}

function handle(request: Request): Promise<Response> {
  return answer(async () => {
    const r = route(request);
    if (r === null) throw new HttpError(404, "no such endpoint");
    return r.kind === "lock" ? lock(request, r.name, r.action) : doc(request, r.key);
  });
}

const port = Number(Deno.env.get("PORT") ?? "8000");
Deno.serve({ hostname: "127.0.0.1", port, onListen: ({ port }) => console.log(`listening on http://127.0.0.1:${port}`) }, handle);
