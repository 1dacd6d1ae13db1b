// fencepost/client for Node.js (require): one CommonJS file over fencepost's own (one instance of
// the core module for both). `cargo xtask dist` bundles this file with client.js into
// dist/client/node.cjs, where client.js's import of the core API becomes `require("../node.cjs")`.
export * from "../client.js";
