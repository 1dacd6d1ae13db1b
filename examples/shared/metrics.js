// Counters of one instance of the service (one isolate or process), answered at GET /metrics in
// the Prometheus text format. They start at 0 whenever the instance starts, as Prometheus counters
// may: a scraper sees the reset and keeps counting.

const HELP = {
  grants: "Leases granted, fresh or re-entered.",
  renewals: "Leases renewed.",
  releases: "Leases released.",
  expiries: "Leases noticed expired.",
  stale_rejections: "Document writes refused because a newer token had been accepted.",
  forged_rejections: "Document writes refused because the token's signature does not verify.",
  invalid_rejections: "Document writes refused because the Fencing-Token is not a signed token.",
};

const counts = Object.fromEntries(Object.keys(HELP).map((k) => [k, 0]));

/** Adds one to the counter `name`. */
export function count(name) {
  counts[name] += 1;
}

/** The counters in the Prometheus text exposition format. */
export function metricsText() {
  let out = "";
  for (const [name, help] of Object.entries(HELP)) {
    const metric = `fencepost_${name}_total`;
    out += `# HELP ${metric} ${help}\n# TYPE ${metric} counter\n${metric} ${counts[name]}\n`;
  }
  return out;
}

/** GET /metrics. */
export function metricsResponse() {
  return new Response(metricsText(), { status: 200, headers: { "content-type": "text/plain; version=0.0.4" } });
}
