// fencepost/client for the `workerd` condition: the core module loaded as fencepost's own entry for
// it loads it (one instance for both entries), then the client.
import "../workerd.js";

export * from "../client.js";
