// The Durable Object SQL test's worker: one Durable Object per store (named by `?object=`), each
// with a DurableObjectSqlStore, driven over HTTP by do.test.mjs. Tokens travel as "<digits>n"
// strings, errors as their name and message.
import { TokenSigner } from "fencepost";
import { DurableObjectSqlStore } from "fencepost/store";

const encode = (v) => JSON.stringify(v, (_, x) => (typeof x === "bigint" ? `${x}n` : x));
const reply = (v, status = 200) => new Response(encode(v), { status, headers: { "content-type": "application/json" } });
const tokenOf = (t) => (typeof t === "string" && /^[0-9]+n$/.test(t) ? BigInt(t.slice(0, -1)) : t);

export class Store {
  constructor(ctx) {
    this.ctx = ctx;
    this.store = null;
    /** Writes in the order the object applied them: each runs to its end before the next. */
    this.applied = 0;
    /** The benchmark's token counter and tallies. */
    this.next = 0;
    this.marked = 0;
    this.accepted = 0;
    this.stale = 0;
  }

  async fetch(request) {
    const url = new URL(request.url);
    const body = request.method === "POST" ? await request.json() : {};
    try {
      switch (url.pathname) {
        case "/open": {
          const options = { table: body.table ?? "docs" };
          if (body.keyColumn) options.keyColumn = body.keyColumn;
          if (body.valueColumn) options.valueColumn = body.valueColumn;
          if (body.signingKey) {
            options.signer = new TokenSigner(new TextEncoder().encode(body.signingKey));
            options.lock = (key) => `${body.lockPrefix}${key}`;
          }
          this.store = new DurableObjectSqlStore(this.ctx.storage, options);
          await this.store.createTable();
          return reply({ ok: true });
        }
        case "/sql": {
          const rows = this.ctx.storage.sql.exec(body.sql, ...(body.params ?? [])).toArray();
          return reply(rows);
        }
        case "/write": {
          const result = await this.store.write(body.key, tokenOf(body.token), body.value, body.options);
          return reply({ result, seq: result.ok ? ++this.applied : null });
        }
        case "/bench": {
          // `n` writes to one key: fenced through the store (with an idempotency key, one of 40
          // in turn: "keyed"), the same upsert without a fence ("plain"), or that upsert writing
          // the token's stored form too ("floor"); with `shared`, each fenced write takes the
          // next token of the object's counter, as the writers of the concurrency figure do.
          const sql = this.ctx.storage.sql;
          for (let i = 0; i < body.n; i++) {
            if (body.kind === "fenced" || body.kind === "keyed") {
              const token = body.shared ? BigInt(++this.next) : BigInt(body.from + i);
              const r = body.kind === "keyed" ? await this.store.write("keyed", token, `v${i}`, { idempotencyKey: `op${i % 40}` }) : await this.store.write("bench", token, `v${i}`);
              if (r.ok) this.accepted++;
              else this.stale++;
            } else if (body.kind === "floor") {
              // The token bound as the store binds it (below 2^53, a number SQLite writes as 20 digits).
              sql.exec(
                `INSERT INTO bench (key, value, fence) VALUES (?, ?, printf('%020d', ?)) ON CONFLICT (key) DO UPDATE SET value = excluded.value, fence = excluded.fence`,
                "floor",
                JSON.stringify(`v${i}`),
                ++this.marked,
              );
            } else {
              sql.exec(`INSERT INTO bench (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, "plain", JSON.stringify(`v${i}`));
            }
          }
          return reply({ n: body.n, accepted: this.accepted, stale: this.stale });
        }
        case "/read":
          return reply(await this.store.read(body.key));
        default:
          return reply({ error: "NotFound", message: url.pathname }, 404);
      }
    } catch (e) {
      return reply({ error: e.name, message: e.message }, 400);
    }
  }
}

export default {
  fetch(request, env) {
    const name = new URL(request.url).searchParams.get("object") ?? "main";
    return env.STORES.get(env.STORES.idFromName(name)).fetch(request);
  },
};
