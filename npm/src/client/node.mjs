// fencepost/client for Node.js (import): the core module loaded as fencepost's own entry for Node
// loads it (one instance for both entries), then the client.
import "../node.mjs";

export * from "../client.js";
