// The one error a lock backend throws on purpose: its engine cannot answer now (unreachable, no
// quorum, busy, timed out). The service answers it with 503, which tells a client to try again;
// anything else a backend throws is a fault of the service's own and answered with 500.

export class BackendUnavailableError extends Error {
  constructor(message, options) {
    super(message, options);
    this.name = "BackendUnavailableError";
  }
}
