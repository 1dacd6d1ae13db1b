// The stand-in a host serves when its settings are missing or refused: every request is answered
// 503 naming what is wrong, so a deployment without its key says so instead of running open.

import { json } from "./http.js";

/** A `fetch` handler that answers every request 503 with `{ error: reason }`. */
export function refusingService(reason) {
  return { fetch: async () => json(503, { error: reason }) };
}
