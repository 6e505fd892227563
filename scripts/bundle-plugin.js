#!/usr/bin/env node
/**
 * Part of `npm run build`: bundles the native plugin (dist/native/plugin/main.js and everything it
 * requires) into one file, dist/plugin/pulumi-resource-secops.js, which bin/pulumi-resource-secops runs
 * and the release archive's single executable embeds (scripts/package-plugin.js). Starting it resolves
 * no node_modules. grpc-js and google-protobuf are taken from @pulumi/pulumi's own folder, as the
 * stubs are; the program SDK (`@pulumi/pulumi` itself) is never bundled: the build fails if any of it
 * but the protocol stubs is reached.
 */
"use strict";
const { dirname, join, relative } = require("node:path");
const esbuild = require("esbuild");

const ROOT = join(__dirname, "..");
const OUT = join(ROOT, "dist", "plugin", "pulumi-resource-secops.js");
const pulumiBase = dirname(require.resolve("@pulumi/pulumi/package.json", { paths: [ROOT] }));

/** Routes grpc-js and google-protobuf to @pulumi/pulumi's copies; keeps the program SDK out. */
const plugin = {
  name: "secops-plugin",
  setup(build) {
    build.onResolve({ filter: /^(@grpc\/grpc-js|google-protobuf)(\/|$)/ }, (args) => ({
      path: require.resolve(args.path, { paths: [pulumiBase] }),
    }));
    build.onResolve({ filter: /^@pulumi\/pulumi(\/|$)/ }, (args) =>
      args.path.startsWith("@pulumi/pulumi/proto/") ? undefined : { path: args.path, external: true },
    );
  },
};

async function bundle() {
  const result = await esbuild.build({
    entryPoints: [join(ROOT, "dist", "native", "plugin", "run.js")],
    outfile: OUT,
    bundle: true,
    platform: "node",
    target: "node22",
    format: "cjs",
    // Whitespace and syntax only: mangled identifiers (2.9 -> 2.2 MB) cost 12 MB more idle RSS per
    // plugin here (64 -> 76 MB, Node 22), more than the faster parse saved. Names kept, so error
    // classes and functions keep theirs in messages.
    minifyWhitespace: true,
    minifySyntax: true,
    keepNames: true,
    legalComments: "none",
    define: { SECOPS_BUNDLE: "true" },
    plugins: [plugin],
    metafile: true,
    logLevel: "error",
  });
  const sdk = Object.keys(result.metafile.inputs).filter(
    (f) => f.includes("node_modules/@pulumi/pulumi/") && !f.includes("node_modules/@pulumi/pulumi/proto/"),
  );
  if (sdk.length > 0) throw new Error(`the plugin bundle reached the program SDK: ${sdk.join(", ")}`);
  const size = result.metafile.outputs[relative(process.cwd(), OUT)]?.bytes;
  return { path: OUT, bytes: size, inputs: Object.keys(result.metafile.inputs).length };
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
