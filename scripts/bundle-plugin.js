#!/usr/bin/env node
/**
 * Part of `npm run build`: bundles the native plugin (dist/native/plugin/run.js and everything it
 * requires: grpc-js, Pulumi's protocol stubs, zod, undici) with esbuild, so that
 * bin/pulumi-resource-secops starts without resolving any node_modules:
 *   dist/plugin/pulumi-resource-secops.js  what starts: the gRPC server, the stubs, the RPCs
 *   dist/plugin/secops-undici.js           undici, required with the plugin's first API request
 *   dist/plugin/secops-zod.js              zod, required with the first check of an input or answer
 * undici and zod are 2.1 of 3.9 MB of the whole: kept out of the start file, they are not read and
 * compiled by a plugin that only starts and is configured (`npm run bench` at 7e9edf1 on the 2-core
 * CI machine, Node 22.23: start 0.91x -> 0.64x of Pulumi's Node.js provider host, idle memory
 * 0.96x -> 0.85x). The release archive's single
 * executable (scripts/package-plugin.js) embeds one file holding all of it: `bundle({ split: false })`.
 * grpc-js and google-protobuf are taken from @pulumi/pulumi's own folder, as its stubs' are, so the
 * stubs and the server share one instance of each. The program SDK (`@pulumi/pulumi` itself) is never
 * bundled: the build fails if it is reached.
 */
"use strict";
const { dirname, join, relative } = require("node:path");
const esbuild = require("esbuild");

const ROOT = join(__dirname, "..");
const OUT = join(ROOT, "dist", "plugin", "pulumi-resource-secops.js");
const pulumiBase = dirname(require.resolve("@pulumi/pulumi/package.json", { paths: [ROOT] }));

/** The packages kept in files of their own beside the start file, by package name. */
const VENDORS = { undici: "secops-undici.js", zod: "secops-zod.js" };

/**
 * Routes grpc-js and google-protobuf to @pulumi/pulumi's copies and keeps the program SDK out; with
 * `split`, a require of a VENDORS package becomes a require of its file beside the bundle.
 */
const plugin = (split) => ({
  name: "secops-plugin",
  setup(build) {
    if (split)
      build.onResolve({ filter: /^(undici|zod)$/ }, (args) => ({
        path: `./${VENDORS[args.path]}`,
        external: true,
      }));
    build.onResolve({ filter: /^(google-protobuf|@grpc\/grpc-js)(\/|$)/ }, (args) => ({
      path: require.resolve(args.path, { paths: [pulumiBase] }),
    }));
    build.onResolve({ filter: /^@pulumi\/pulumi(\/|$)/ }, (args) =>
      args.path.startsWith("@pulumi/pulumi/proto/") ? undefined : { path: args.path, external: true },
    );
  },
});

/** Fails when the bundle reached the program SDK. */
function checkInputs(result) {
  const inputs = Object.keys(result.metafile.inputs);
  const bad = inputs.filter(
    (f) => f.includes("node_modules/@pulumi/pulumi/") && !f.includes("node_modules/@pulumi/pulumi/proto/"),
  );
  if (bad.length > 0) throw new Error(`the plugin bundle reached the program SDK: ${bad.join(", ")}`);
  return inputs.length;
}

/** The options every bundle shares. Names are kept, so error classes keep theirs in messages. */
const COMMON = {
  bundle: true,
  platform: "node",
  target: "node22",
  format: "cjs",
  keepNames: true,
  legalComments: "none",
  metafile: true,
  logLevel: "error",
  define: { SECOPS_BUNDLE: "true" },
};

/**
 * Bundles the plugin into `outfile`; with `split` (the default), undici and zod beside it. `define`
 * adds compile-time constants: the benchmark's variant without the team-wide Check
 * (`SECOPS_TEAM_SCOPE: "false"`, scripts/bench-engine.js) is built this way, never shipped.
 */
async function bundle({ outfile = OUT, split = true, define = {} } = {}) {
  const result = await esbuild.build({
    ...COMMON,
    define: { ...COMMON.define, ...define },
    entryPoints: [join(ROOT, "dist", "native", "plugin", "run.js")],
    outfile,
    plugins: [plugin(split)],
  });
  let inputs = checkInputs(result);
  if (split)
    for (const [name, file] of Object.entries(VENDORS)) {
      const vendor = await esbuild.build({
        ...COMMON,
        stdin: { contents: `module.exports = require(${JSON.stringify(name)});`, resolveDir: ROOT },
        outfile: join(dirname(outfile), file),
        plugins: [plugin(false)],
      });
      inputs += checkInputs(vendor);
    }
  return { path: outfile, inputs };
}

if (require.main === module)
  bundle().then(
    (b) => console.error(`plugin bundle: ${relative(ROOT, b.path)} (${b.inputs} modules)`),
    (err) => {
      console.error(`bundle-plugin: ${err.message}`);
      process.exit(1);
    },
  );

module.exports = { bundle, OUT };
