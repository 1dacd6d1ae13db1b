// The locks a team would pick instead of fencepost, in the benchmark (bench.mjs), on the same
// machine and driven by the same client loop: etcd's own lock API on the same three-member cluster
// fencepost's Node instances use, and redlock on one Redis server. Neither hands the resource
// anything to check, so a write is a plain write: an etcd put, a Redis SET.
//
// Their storage keeps no write log, so each contender keeps one for it, in the order the writes
// were acknowledged, with the lock's acquire order (counted by bench.mjs as grants came back) as
// the token: `fencepost check` then finds the writes that landed after a newer holder's, by the
// same rule it applies to fencepost's own log.

import Redis from "ioredis";
import Redlock, { ExecutionError } from "redlock";

const b64 = (text) => Buffer.from(text).toString("base64");

function logLine(lock, client, order) {
  return JSON.stringify({ t: Date.now(), resource: lock, writer: `client-${client}`, token: order, result: "ok" });
}

/** POSTs JSON to an etcd member's gateway; its parsed answer, or throws with its status and text. */
async function etcd(url, path, body) {
  const r = await fetch(url + path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const text = await r.text();
  if (r.status !== 200) throw Object.assign(new Error(`etcd ${path}: HTTP ${r.status}: ${text}`), { text });
  return JSON.parse(text);
}

/**
 * etcd's lock service (v3lock, through the JSON gateway). One cycle: grant a lease of the TTL,
 * lock with it (etcd puts a key under the lock's name attached to the lease and answers once
 * every earlier key of that name is gone: a queue, no polling), put the document, unlock
 * (delete that key), revoke the lease: five requests, each one raft proposal. Each client talks
 * to one member, so the clients are spread over the three.
 */
function etcdLock(endpoints, ttlMs) {
  const log = [];
  const ttl = Math.ceil(ttlMs / 1000);
  return {
    async acquire(lock, client) {
      const url = endpoints[client % endpoints.length];
      const lease = await etcd(url, "/v3/lease/grant", { TTL: String(ttl) });
      if (Number(lease.TTL) !== ttl) throw new Error(`etcd granted a lease of ${lease.TTL} s, not ${ttl} s`);
      const { key } = await etcd(url, "/v3/lock/lock", { name: b64(`bench/locks/${lock}`), lease: lease.ID });
      return { url, lease: lease.ID, key };
    },
    async write(lock, held, client, order, text) {
      await etcd(held.url, "/v3/kv/put", { key: b64(`bench/docs/${lock}`), value: b64(text) });
      log.push(logLine(lock, client, order));
      return true;
    },
    async release(_lock, held) {
      await etcd(held.url, "/v3/lock/unlock", { key: held.key });
      // A holder paused past its TTL finds its lease already expired (and its key deleted).
      await etcd(held.url, "/v3/lease/revoke", { ID: held.lease }).catch((e) => {
        if (!/requested lease not found/.test(e.text ?? "")) throw e;
      });
    },
    writeLog: () => log,
    stop: async () => {},
  };
}

/**
 * redlock 5 on one Redis server, one connection and one Redlock per client (as separate worker
 * processes would have). One cycle: the acquire script (SET NX PX in Lua), SET the document, the
 * release script: three round trips, all in Redis' memory. A held lock is tried again after 13 to
 * 25 ms, the first wait of fencepost's client (redlock's default, 100 to 300 ms, would idle the
 * lock most of the time).
 */
async function redlock(url, ttlMs, clients) {
  const log = [];
  const conns = [];
  for (let i = 0; i < clients; i++) {
    const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    conns.push({ redis, redlock: new Redlock([redis], { retryCount: -1, retryDelay: 19, retryJitter: 6 }) });
  }
  await Promise.all(conns.map((c) => c.redis.connect()));
  const r = {
    polls: 0,
    async acquire(lock, client) {
      const held = await conns[client].redlock.acquire([`bench:locks:${lock}`], ttlMs);
      r.polls += held.attempts.length - 1;
      return held;
    },
    async write(lock, _held, client, order, text) {
      await conns[client].redis.set(`bench:docs:${lock}`, text);
      log.push(logLine(lock, client, order));
      return true;
    },
    async release(_lock, held, client) {
      // Refused when the key expired while its holder was paused (it is another's now, or gone):
      // asked once, since asking again cannot change that.
      await conns[client].redlock.release(held, { retryCount: 0 }).catch((e) => {
        if (!(e instanceof ExecutionError)) throw e;
      });
    },
    writeLog: () => log,
    stop: () => Promise.all(conns.map((c) => c.redis.quit())),
  };
  return r;
}

/** The peers: `{ name, key, fencepost: false, start(ttlMs, retryMs, clients) }`. */
export const PEERS = [
  {
    name: "etcd lock API (same cluster)",
    key: "etcd-lock",
    start: async (ttlMs) => etcdLock(process.env.ETCD_ENDPOINTS.split(","), ttlMs),
  },
  {
    name: "redlock on Redis",
    key: "redlock",
    start: (ttlMs, _retryMs, clients) => redlock(process.env.REDIS_URL, ttlMs, clients),
  },
].map((c) => ({ ...c, fencepost: false }));
