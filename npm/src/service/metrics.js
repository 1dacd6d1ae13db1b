// Counters of one service object, answered at GET /metrics in the Prometheus text format. They
// start at 0 when the object is made, as Prometheus counters may: a scraper sees the reset and
// keeps counting. Each is counted once the work it names is done: a grant, renewal, release or
// expiry after its state was committed, so a commit that lost a race and was tried again counts once.
//
// Where the work runs somewhere else than the answer to /metrics (a Durable Object behind a
// Worker: other isolates, often other machines), the worker of the work reports what it counted
// in the COUNTED header of its answer and the front takes it from there (`takeFrom`).

const HELP = {
  grants: "Leases granted, fresh or re-entered.",
  renewals: "Leases renewed.",
  releases: "Leases released.",
  expiries: "Leases noticed expired.",
  stale_rejections: "Document writes refused because a newer token had been accepted.",
  forged_rejections: "Document writes refused because the token's signature does not verify.",
  invalid_rejections: "Document writes refused because the Fencing-Token is not a signed token.",
};

/** The counter names, in the order /metrics lists them. */
export const COUNTERS = Object.freeze(Object.keys(HELP));

/** The response header that carries what the answer's own work counted, names separated by spaces. */
export const COUNTED = "fencepost-counted";

/** Gauges: what is so now, when a service object has it. */
const GAUGE_HELP = {
  waiting: "Acquires waiting now in this service object for a held lock.",
};

export class Metrics {
  #counts = Object.fromEntries(COUNTERS.map((k) => [k, 0]));
  #gauges;

  /** `gauges`: answers the gauges' values now, by name (see GAUGE_HELP); none without it. */
  constructor(gauges = () => ({})) {
    this.#gauges = gauges;
  }

  /** Adds one to each counter named in `names` (repeats count again). */
  add(names) {
    for (const name of names) {
      if (!Object.hasOwn(this.#counts, name)) throw new RangeError(`no counter named ${JSON.stringify(name)}`);
      this.#counts[name] += 1;
    }
  }

  /** The value of counter `name`. */
  get(name) {
    return this.#counts[name];
  }

  /**
   * Counts what `response` says its work counted (its COUNTED header, from a service made with
   * `reportCounts`), and answers it without that header, so it never reaches a client. Names this
   * object does not know are ignored: the header comes from code of the same deployment.
   */
  takeFrom(response) {
    const said = response.headers.get(COUNTED);
    if (said === null) return response;
    this.add(said.split(" ").filter((n) => Object.hasOwn(this.#counts, n)));
    const out = new Response(response.body, response);
    out.headers.delete(COUNTED);
    return out;
  }

  /** The counters in the Prometheus text exposition format. */
  text() {
    let out = "";
    for (const [name, help] of Object.entries(HELP)) {
      const metric = `fencepost_${name}_total`;
      out += `# HELP ${metric} ${help}\n# TYPE ${metric} counter\n${metric} ${this.#counts[name]}\n`;
    }
    for (const [name, value] of Object.entries(this.#gauges())) {
      const metric = `fencepost_${name}`;
      out += `# HELP ${metric} ${GAUGE_HELP[name]}\n# TYPE ${metric} gauge\n${metric} ${value}\n`;
    }
    return out;
  }

  /** The answer to GET /metrics. */
  response() {
    return new Response(this.text(), { status: 200, headers: { "content-type": "text/plain; version=0.0.4" } });
  }
}
