// fencepost/client for the `browser` condition: the core module loaded as fencepost's own entry for
// it loads it (one instance for both entries), then the client.
import "../browser.js";

export * from "../client.js";
