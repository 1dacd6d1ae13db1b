// Writes tokens 1, 2, 3, ... to key "k" under prefix "burst" of the KV at argv[0], printing each
// token once its write is acknowledged, until it is killed.
import { DenoKvStore } from "fencepost/store";

const kv = await Deno.openKv(Deno.args[0]);
const store = new DenoKvStore(kv, { prefix: ["burst"] });
const out = new TextEncoder();
for (let t = 1n; ; t++) {
  const r = await store.write("k", t, `w${t}`);
  if (!r.ok) throw new Error(`write ${t} refused: ${r.reason}`);
  Deno.stdout.writeSync(out.encode(`${t}\n`));
}
