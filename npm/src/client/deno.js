// fencepost/client for the `deno` condition: the core module loaded as fencepost's own entry for
// it loads it (one instance for both entries), then the client.
import "../deno.js";

export * from "../client.js";
