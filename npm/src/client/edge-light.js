// fencepost/client for the `edge-light` condition: the core module loaded as fencepost's own entry for
// it loads it (one instance for both entries), then the client.
import "../edge-light.js";

export * from "../client.js";
