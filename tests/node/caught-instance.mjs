// The package keeps its WebAssembly instance to itself. Tests that must reach past it (to grow the
// memory to its end, or to read the stack pointer the module exports) take the instance as
// `init()` makes it.

/** Runs `init` (a package's initSync) and answers the WebAssembly.Instance it made. */
export function caughtInstance(init) {
  let caught = null;
  const Instance = WebAssembly.Instance;
  WebAssembly.Instance = function (module, imports) {
    caught = new Instance(module, imports);
    return caught;
  };
  try {
    init();
  } finally {
    WebAssembly.Instance = Instance;
  }
  if (caught === null) throw new Error("init() made no WebAssembly instance");
  return caught;
}
