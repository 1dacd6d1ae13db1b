// The fenced lease service on Deno, with its locks and documents in Deno KV: a thin host of
// `fencepost/service`. Locks go through DenoKvLocks (read with a versionstamp, committed with
// `kv.atomic().check(...)`), documents through `fencepost/store`'s DenoKvStore, which keeps a
// document's text and guard mark in one KV entry. Deno KV is strongly consistent, which is what
// makes the rules hold for every instance of the service sharing the store.
//
//   FENCEPOST_KEYS=<key id>:<secret> deno run --unstable-kv --allow-net --allow-read \
//     --allow-write --allow-env main.ts      (or `deno task dev`, with a development key)
//   (PORT: listen port, default 8000; HOST: address to listen on, default 127.0.0.1;
//   KV_PATH: local KV file, default: Deno's default store; the service's own settings are
//   FENCEPOST_KEYS, FENCEPOST_MAX_TTL_MS, FENCEPOST_IDLE_KEEP_MS, FENCEPOST_WRITE_LOG and
//   FENCEPOST_CORS_ORIGINS, described in the package's service/index.d.ts)

import { DenoKvStore } from "fencepost/store";
import {
  adoptDoc,
  BackendUnavailableError,
  DenoKvLocks,
  HttpError,
  LeaseService,
  readSettings,
  refusingService,
} from "fencepost/service";

/**
 * Largest document body, in bytes. Deno KV caps a value at 64 KiB after serialisation, and a
 * document's entry also holds its guard mark, so documents here are a little smaller than the
 * service's 64 KiB request limit. The store keeps the text as JSON, which V8 serialises at two
 * bytes a character once any character is beyond U+00FF: such a document holds up to about 32 K
 * characters, and a larger one is refused with 400 when KV refuses it (see `kvDocuments`).
 */
const MAX_DOC_BYTES = 60 * 1024;

/**
 * The documents' key parts before a document's key. Not ["doc"]: documents stored there by
 * earlier versions have another shape, which a store would take for an empty entry (see
 * adoptOldDocs).
 */
const PREFIX = ["document"];

/** Deno KV refuses a value over 64 KiB, as its commit says; the document is then the client's fault. */
function tooLarge(e: unknown): boolean {
  return e instanceof TypeError && /value too large/i.test(e.message);
}

/**
 * The fenced documents of `kv`, with Deno KV's own refusals said in HTTP: a value too large is
 * the client's 400, a store busy (another process holds its file's lock) a 503 to retry.
 */
function kvDocuments(kv: Deno.Kv) {
  const store = new DenoKvStore(kv, { prefix: PREFIX });
  const said = async <T>(call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (e) {
      if (tooLarge(e)) {
        throw new HttpError(400, "document is larger than Deno KV holds: its text is stored as JSON, two bytes a character when any is beyond U+00FF");
      }
      if (e instanceof Error && /database is locked/i.test(e.message)) throw new BackendUnavailableError("Deno KV is busy", { cause: e });
      throw e;
    }
  };
  return {
    write: (key: string, token: bigint, value: unknown) => said(() => store.write(key, token, value)),
    read: (key: string) => said(() => store.read(key)),
    store,
  };
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

const kv = await Deno.openKv(Deno.env.get("KV_PATH") || undefined);
const documents = kvDocuments(kv);
const adopted = await adoptOldDocs(kv, documents.store);
if (adopted > 0) console.log(`moved ${adopted} documents of an earlier version into the fenced store`);

/** Read once, at start: a changed key takes a restart, as a redeploy does. */
const settings = readSettings((name: string) => Deno.env.get(name));
const service = settings.unavailable !== undefined ? refusingService(settings.unavailable) : new LeaseService({
  ...settings,
  locks: new DenoKvLocks(kv),
  documents,
  maxDocumentBytes: MAX_DOC_BYTES,
});

const port = Number(Deno.env.get("PORT") ?? "8000");
const hostname = Deno.env.get("HOST") ?? "127.0.0.1";
Deno.serve({ hostname, port, onListen: ({ port }) => console.log(`listening on http://${hostname}:${port}`) }, service.fetch);
