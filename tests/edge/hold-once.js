// One lease held the same way in every runtime the tests drive (a Deno script, a Worker): acquire
// a 1200 ms lease, wait 600 ms for a background renewal, write through lease.fetch, release; answer
// what was seen, for the test to compare.

export async function holdOnce(client, lock) {
  const lease = await client.acquire(lock, { ttlMs: 1_200 });
  const first = lease.safeUntil;
  await new Promise((r) => setTimeout(r, 600));
  const renewedBy = lease.safeUntil - first;
  const wrote = await lease.fetch(`docs/${lock}`, { method: "PUT", body: `held once: ${lock}` });
  const body = await wrote.json();
  const released = await lease.release();
  return { token: lease.token.toString(), renewedBy, status: wrote.status, body, released, why: lease.signal.reason.why };
}
