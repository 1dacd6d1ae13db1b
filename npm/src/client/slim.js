// fencepost/client without loading the core module: call init() or initSync() of fencepost/slim
// before the first acquire.
export * from "../client.js";
