// Bundles one file of the npm package with the pinned esbuild, for `cargo xtask dist`:
//
//   node bundle.mjs '{"input": ..., "output": ..., "format": "esm" | "cjs", "glue": {...}, "core": ...}'
//
// - `input`: an ES module of npm/src; everything it imports is bundled with it, in one scope
//   where esbuild orders the files by their imports;
// - `format`: "esm" keeps the input's exports as exports; "cjs" makes them `module.exports`, with
//   the names spelled out where Node's ES module loader reads them;
// - `glue`: wasm-bindgen's glue by the name the sources import it (`./fencepost_bg.js`), mapped
//   to the file the CLI wrote (it is generated, so it is not in npm/src): bundled in like the rest;
// - `core`: for fencepost/client, what client.js's import of the core API (`./api.js`) becomes, an
//   import of the package's own built entry, so the client and the core share one instance of the
//   module.
import { build } from "esbuild";

const job = JSON.parse(process.argv[2]);

const layout = {
  name: "fencepost-layout",
  setup(b) {
    b.onResolve({ filter: /_bg\.js$/ }, (args) => (job.glue[args.path] ? { path: job.glue[args.path] } : undefined));
    if (job.core) {
      b.onResolve({ filter: /^\.\/api\.js$/ }, (args) => (args.importer.endsWith("/client.js") ? { path: job.core, external: true } : undefined));
    }
  },
};

const result = await build({
  entryPoints: [job.input],
  outfile: job.output,
  bundle: true,
  format: job.format,
  platform: job.format === "cjs" ? "node" : "neutral",
  // Every statement is kept as written: the package's own sideEffects list is about its built
  // files, not its sources.
  ignoreAnnotations: true,
  // Functions and classes keep the names they are declared with (a bundled class that refers to
  // itself is otherwise renamed `_Name`), so `.name`, stack traces and inspected values read as
  // in the sources.
  keepNames: true,
  logLevel: "warning",
  plugins: [layout],
});
// A warning (an import of a name no file exports, say) fails the build: the file would run wrong.
if (result.warnings.length > 0) process.exit(1);
