// The HTTP calls of the edge tests (tests/lease-service/calls.mjs) and the hosts they run on.

export { acquire, call, getDoc, lockState, metrics, put, release, renew } from "../lease-service/calls.mjs";

/** The hosts the tests may run on. */
const HOSTS = ["workerd", "deno"];

/**
 * The hosts to test: EDGE_RUNTIMES, a comma-separated subset of workerd and deno (default both).
 * Set but naming none, or naming another, is an error: a run that tests nothing must not pass.
 */
export function wantedHosts(env = process.env.EDGE_RUNTIMES) {
  if (env === undefined) return HOSTS;
  const names = env.split(",").map((s) => s.trim());
  const bad = names.filter((n) => !HOSTS.includes(n));
  if (names.length === 0 || bad.length > 0) {
    throw new Error(`EDGE_RUNTIMES must list hosts among ${HOSTS.join(", ")} separated by commas, got ${JSON.stringify(env)}`);
  }
  return names;
}
