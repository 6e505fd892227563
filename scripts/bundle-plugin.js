#!/usr/bin/env node
/**
 * Part of `npm run build`: bundles the native plugin (dist/native/plugin/run.js and everything it
 * requires: grpc-js, Pulumi's protocol stubs, zod, undici) into dist/plugin/pulumi-resource-secops.js
 * with esbuild, so that bin/pulumi-resource-secops starts without resolving any node_modules and the
 * release archive's single executable (scripts/package-plugin.js) embeds one file.
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

/** Routes grpc-js and google-protobuf to @pulumi/pulumi's copies and keeps the program SDK out. */
const plugin = {
  name: "secops-plugin",
  setup(build) {
    build.onResolve({ filter: /^(google-protobuf|@grpc\/grpc-js)(\/|$)/ }, (args) => ({
      path: require.resolve(args.path, { paths: [pulumiBase] }),
    }));
    build.onResolve({ filter: /^@pulumi\/pulumi(\/|$)/ }, (args) =>
      args.path.startsWith("@pulumi/pulumi/proto/") ? undefined : { path: args.path, external: true },
    );
  },
};

/** Fails when the bundle reached the program SDK. */
function checkInputs(result) {
  const inputs = Object.keys(result.metafile.inputs);
  const bad = inputs.filter(
    (f) => f.includes("node_modules/@pulumi/pulumi/") && !f.includes("node_modules/@pulumi/pulumi/proto/"),
  );
  if (bad.length > 0) throw new Error(`the plugin bundle reached the program SDK: ${bad.join(", ")}`);
  return inputs.length;
}

/** Bundles the plugin into `outfile`. */
async function bundle({ outfile = OUT } = {}) {
  const result = await esbuild.build({
    entryPoints: [join(ROOT, "dist", "native", "plugin", "run.js")],
    outfile,
    bundle: true,
    platform: "node",
    target: "node22",
    format: "cjs",
    // Names kept, so error classes keep theirs in messages.
    keepNames: true,
    legalComments: "none",
    metafile: true,
    logLevel: "error",
    define: { SECOPS_BUNDLE: "true" },
    plugins: [plugin],
  });
  return { path: outfile, inputs: checkInputs(result) };
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
