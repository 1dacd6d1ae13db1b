// Shared by the package's two modules (fencepost and fencepost/sim): loading a WebAssembly module
// into its wasm-bindgen glue, and checking and describing arguments. `cargo xtask dist` bundles it
// into each module's API (and the client's), in both formats, and copies it beside the store's
// and the service's modules, which import it as it is.

/** The largest unsigned 64-bit integer. */
export const U64_MAX = 0xffff_ffff_ffff_ffffn;
/** A module's "no object" index. */
export const NONE = 0xffff_ffff;

/** Whether `v` is raw bytes: an ArrayBuffer or a typed array / DataView. */
function isBytes(v) {
  return v instanceof ArrayBuffer || ArrayBuffer.isView(v);
}

/**
 * The loader of one module: `glue` is the wasm-bindgen glue (imported as `raw`), `glueName` its file
 * name, `label` the module's name in messages, `slim` its bring-your-own-wasm entry, `marker` an
 * export only that module has, `attached(exports)` what to do once the module is instantiated.
 */
export function wasmLoader(glue, glueName, label, slim, marker, attached) {
  let loaded = false;
  const wasmName = glueName.replace(/\.js$/, ".wasm");
  const imports = () => ({ [`./${glueName}`]: glue });
  const notOurs = (why) => new TypeError(`module is not ${label}'s WebAssembly (${wasmName}): ${why}`);
  /**
   * Bytes that do not compile, or a module that wants imports other than the glue's (V8 reports a
   * missing import module as a TypeError, other imports as a LinkError), is not this one.
   */
  const linkError = (e) =>
    e instanceof WebAssembly.LinkError || e instanceof WebAssembly.CompileError || e instanceof TypeError
      ? notOurs(e.message)
      : e;
  function attach(exports) {
    if (loaded) return;
    // A module that instantiates but is another one (an empty module has no imports) is refused
    // before it is kept: the right one can still be loaded after.
    if (typeof exports[marker] !== "function" || !(exports.memory instanceof WebAssembly.Memory)) {
      throw notOurs(`it has no export \`${marker}\``);
    }
    glue.__wbg_set_wasm(exports);
    if (typeof exports.__wbindgen_start === "function") exports.__wbindgen_start();
    loaded = true;
    attached(exports);
  }
  function initSync(module) {
    if (!(module instanceof WebAssembly.Module) && !isBytes(module)) {
      throw new TypeError(
        `module must be a WebAssembly.Module, an ArrayBuffer or a typed array, got ${describe(module)}`,
      );
    }
    if (loaded) return;
    let instance;
    try {
      if (!(module instanceof WebAssembly.Module)) module = new WebAssembly.Module(module);
      instance = new WebAssembly.Instance(module, imports());
    } catch (e) {
      throw linkError(e);
    }
    attach(instance.exports);
  }
  async function init(input) {
    if (loaded) {
      // Nothing to load; a promise handed in may still fail, and nobody else will hear of it.
      Promise.resolve(input).catch(() => {});
      return;
    }
    if (input instanceof WebAssembly.Module || isBytes(input)) {
      initSync(input);
      return;
    }
    if (typeof input === "string" || input instanceof URL) input = fetch(input);
    else if (typeof Request === "function" && input instanceof Request) input = fetch(input);
    const response = await input;
    if (typeof Response === "undefined" || !(response instanceof Response)) {
      throw new TypeError(
        `input must be a WebAssembly.Module, bytes, a Response or a URL, got ${describe(response)}`,
      );
    }
    if (!response.ok) {
      throw new Error(`${label}: fetching its WebAssembly failed: HTTP ${response.status}`);
    }
    const streaming =
      typeof WebAssembly.instantiateStreaming === "function" &&
      (response.headers.get("Content-Type") || "").startsWith("application/wasm");
    if (response.bodyUsed) throw new TypeError("input is a Response whose body was already read");
    // Read before the try: a failure to read the body is not a wrong module.
    const bytes = streaming ? null : await response.arrayBuffer();
    let instance;
    try {
      ({ instance } = streaming
        ? await WebAssembly.instantiateStreaming(response, imports())
        : await WebAssembly.instantiate(bytes, imports()));
    } catch (e) {
      throw linkError(e);
    }
    attach(instance.exports);
  }
  function ready() {
    if (!loaded) {
      throw new Error(
        `${label}: the WebAssembly module is not loaded; with ${slim}, call init() or initSync() first`,
      );
    }
  }
  return { initSync, init, ready };
}

const HUGE = 10n ** 1000n;

/** A short description of a bad argument, never longer than a line. */
export function describe(v) {
  switch (typeof v) {
    case "bigint": {
      // Printing a bigint of millions of digits would take seconds: say how big it is instead.
      if (v >= HUGE || v <= -HUGE) return `a ${v < 0n ? "negative " : ""}bigint of more than 1000 digits`;
      const s = v.toString();
      return s.length > 24 ? `${s.slice(0, 12)}…${s.slice(-4)}n (${s.length} digits)` : `${s}n`;
    }
    case "string":
      return v.length > 24 ? `a string of ${v.length} characters` : JSON.stringify(v);
    case "number":
    case "boolean":
    case "undefined":
      return String(v);
    case "symbol":
      return "a symbol";
    case "function":
      return "a function";
    default:
      if (v === null) return "null";
      if (Array.isArray(v)) return "an array";
      return `an object (${Object.prototype.toString.call(v).slice(8, -1)})`;
  }
}

/** An options object (or undefined) whose keys are all in `allowed`. */
export function checkOptions(argName, v, allowed) {
  if (v === undefined) return {};
  if (typeof v !== "object" || v === null || Array.isArray(v)) {
    throw new TypeError(`${argName} must be an object, got ${describe(v)}`);
  }
  for (const key of Object.keys(v)) {
    if (!allowed.includes(key)) {
      throw new TypeError(
        `${argName} has an unknown key ${JSON.stringify(key.length > 40 ? `${key.slice(0, 40)}…` : key)}; known keys: ${allowed.join(", ")}`,
      );
    }
  }
  return v;
}

/** A time or duration in milliseconds: a non-negative safe integer. */
export function ms(argName, v) {
  if (typeof v !== "number") throw new TypeError(`${argName} must be a number of milliseconds, got ${describe(v)}`);
  if (!Number.isSafeInteger(v) || v < 0) {
    throw new RangeError(`${argName} must be a whole number of milliseconds from 0 to 2^53 - 1, got ${describe(v)}`);
  }
  return v;
}

/** A string of at most `max` UTF-16 code units. */
export function text(argName, v, max) {
  if (typeof v !== "string") throw new TypeError(`${argName} must be a string, got ${describe(v)}`);
  if (v.length > max) throw new RangeError(`${argName} must be at most ${max} characters, got ${v.length}`);
  return v;
}

/** The error for a call on an object whose memory was freed. */
export function freed(what) {
  return new TypeError(`this ${what} was freed`);
}
