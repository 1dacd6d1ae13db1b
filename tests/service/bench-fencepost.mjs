// fencepost's contenders in the benchmark (bench.mjs): the lease service on each of its hosts,
// driven over HTTP. Node + etcd is three `fencepost serve` instances over the three-member etcd
// cluster (documents in Postgres, where instances on several machines would keep them), Node +
// Postgres two instances with locks and documents in Postgres; workerd and Deno are the edge
// examples, one process each. A client sends each call to an instance picked at random: any
// instance serves any lease. Every write is a signed PUT /docs/:lock, fenced by the store.

import { acquire, put, release } from "./calls.mjs";
import { etcdEndpoints, freePort, mergedWrites, postgresUrl, scratch, sleep, startInstance } from "./instances.mjs";

const pick = (list) => list[Math.floor(Math.random() * list.length)];

/**
 * Repeats `call` on a random base while it answers 503 (an engine busy or briefly unreachable:
 * the client's part is to try again) or fails to connect; answers the first other answer.
 */
async function retrying(bases, call) {
  for (let tries = 0; ; tries++) {
    const r = await call(pick(bases)).catch((e) => ({ status: 0, error: e }));
    if (r.status !== 503 && r.status !== 0) return r;
    if (tries === 200) throw new Error(`no answer but 503 after ${tries} tries: ${r.error ?? r.text}`);
    await sleep(Math.random() * 4);
  }
}

function unexpected(what, r) {
  return new Error(`${what}: HTTP ${r.status} ${r.text}`);
}

/**
 * A contender over `hosts` (`[{ base, writes(), stop() }]`), acquiring as the package's
 * LeaseClient does: each acquire asks the service to wait up to a quarter of the TTL for a held
 * lock (it answers the moment it can grant it), and a "held" that came after that whole wait is
 * asked again at once; a quicker one (a service at its bounds) after `retryMs(attempt)`, counted
 * from the send.
 */
function overHttp(hosts, ttlMs, retryMs) {
  const bases = hosts.map((h) => h.base);
  const waitMs = Math.floor(ttlMs / 4);
  const c = {
    /** Acquires answered "held", asked again. */
    polls: 0,
    async acquire(lock) {
      for (let attempt = 0; ; attempt++) {
        const sent = performance.now();
        const r = await retrying(bases, (base) => acquire(base, lock, ttlMs, { waitMs }));
        if (r.status === 200) return r.json;
        if (r.status !== 409 || r.json?.error !== "held") throw unexpected(`acquire ${lock}`, r);
        c.polls++;
        const elapsed = performance.now() - sent;
        if (elapsed < waitMs) await sleep(retryMs(attempt) - elapsed);
      }
    },
    /** True when the store accepted the write, false when it refused it as stale. */
    async write(lock, grant, client, _order, text) {
      const writer = { "Fencepost-Writer": `client-${client}` };
      const r = await retrying(bases, (base) => put(base, lock, grant.header, text, writer));
      if (r.status === 200) return true;
      if (r.status === 409) return false;
      throw unexpected(`PUT /docs/${lock}`, r);
    },
    async release(lock, grant) {
      const r = await retrying(bases, (base) => release(base, lock, grant));
      // 409: the lease ran out while its holder was paused, and another took the lock.
      if (r.status !== 200 && r.status !== 409) throw unexpected(`release ${lock}`, r);
    },
    writeLog: () => mergedWrites(hosts),
    stop: () => Promise.all(hosts.map((h) => h.stop())),
  };
  return c;
}

/** `count` instances of `fencepost serve` with `args`, started one after another. */
async function instances(count, args) {
  const list = [];
  try {
    for (let i = 0; i < count; i++) list.push(await startInstance(args));
  } catch (e) {
    await Promise.all(list.map((h) => h.stop()));
    throw e;
  }
  return list;
}

/** An edge host (workerd or Deno) from tests/lease-service/host.mjs, its storage in a scratch dir. */
async function edgeHost(name) {
  const { start } = await import(process.env.EDGE_HOSTS);
  const { dir, remove } = scratch();
  const host = await start(name, await freePort(), dir, { writeLog: true }).catch((e) => {
    remove();
    throw e;
  });
  return [{ ...host, stop: async () => (await host.stop(), remove()) }];
}

/** fencepost's contenders: `{ name, key, fencepost: true, start(ttlMs, retryMs) }`. */
export const FENCEPOST = [
  {
    name: "fencepost, Node + etcd (3 instances)",
    key: "node-etcd",
    start: async (ttlMs, retryMs) =>
      overHttp(await instances(3, ["--etcd", etcdEndpoints(), "--documents", postgresUrl()]), ttlMs, retryMs),
  },
  {
    name: "fencepost, Node + Postgres (2 instances)",
    key: "node-postgres",
    start: async (ttlMs, retryMs) => overHttp(await instances(2, ["--postgres", postgresUrl()]), ttlMs, retryMs),
  },
  {
    name: "fencepost, workerd (Durable Objects)",
    key: "workerd",
    start: async (ttlMs, retryMs) => overHttp(await edgeHost("workerd"), ttlMs, retryMs),
  },
  {
    name: "fencepost, Deno (Deno KV)",
    key: "deno",
    start: async (ttlMs, retryMs) => overHttp(await edgeHost("deno"), ttlMs, retryMs),
  },
].map((c) => ({ ...c, fencepost: true }));
