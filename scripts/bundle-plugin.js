#!/usr/bin/env node
/**
 * Part of `npm run build`: bundles the native plugin (dist/native/plugin/run.js and everything it
 * requires) for bin/pulumi-resource-secops, so that starting it resolves no node_modules:
 *   dist/plugin/pulumi-resource-secops.js  what starts: the server, the protocol messages, the RPCs
 *   dist/plugin/secops-zod.js              zod, loaded with the first API call
 *   dist/plugin/secops-ajv.js              ajv, loaded only for a response schema the small
 *                                          compiler (client/fast-check.ts) does not handle
 *   dist/plugin/secops-undici.js           undici: the plugin's client sends with Node's HTTP client
 *                                          (transport "node"), so only a FormData body loads it
 * A plugin that is never asked to reach the API never parses or holds them (issue 22: one plugin runs
 * per client team on every preview, and its idle memory is the price of each). The release archive's
 * single executable embeds one file holding both (`bundle({ split: false })`, scripts/package-plugin.js).
 * google-protobuf is taken from @pulumi/pulumi's own folder, as the stubs' is. Neither the program SDK
 * (`@pulumi/pulumi` itself) nor grpc-js is bundled (the plugin serves gRPC on node:http2,
 * provider/native/plugin/h2-grpc.ts): the build fails if any of either is reached.
 */
"use strict";
const { dirname, join, relative } = require("node:path");
const { readFileSync } = require("node:fs");
const esbuild = require("esbuild");
const { trim, KEEP } = require("./trim-pb.js");

const ROOT = join(__dirname, "..");
const OUT = join(ROOT, "dist", "plugin", "pulumi-resource-secops.js");
const pulumiBase = dirname(require.resolve("@pulumi/pulumi/package.json", { paths: [ROOT] }));

/** Packages the plugin needs only to reach the API, by the file beside the bundle that holds them. */
const LAZY = [
  ["secops-zod.js", /^zod(\/|$)/],
  ["secops-ajv.js", /^ajv(\/|$)/],
  ["secops-undici.js", /^undici(\/|$)/],
];
const lazyFile = (path) => LAZY.find(([, re]) => re.test(path))?.[0];

/** The options both bundles share: whitespace and syntax minified, names kept. */
const COMMON = {
  bundle: true,
  platform: "node",
  target: "node22",
  format: "cjs",
  // Whitespace and syntax only: mangled identifiers cost 12 MB more idle RSS per plugin here (64 -> 76
  // MB, Node 22), more than the faster parse saved. Names kept, so error classes keep theirs.
  minifyWhitespace: true,
  minifySyntax: true,
  keepNames: true,
  legalComments: "none",
  metafile: true,
  logLevel: "error",
};

/** What the plugin bundles for zod/v4/locales/index.cjs: English, the locale zod configures itself. */
const ZOD_LOCALES = `"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.en = require("./en.cjs").default;
`;

/**
 * Routes google-protobuf to @pulumi/pulumi's copy and keeps the program SDK out; with `lazy` (a map
 * from file to the names reached), every require of a LAZY package becomes a property of its file,
 * required when first reached.
 */
function plugin(lazy) {
  return {
    name: "secops-plugin",
    setup(build) {
      build.onResolve({ filter: /^google-protobuf(\/|$)/ }, (args) => ({
        path: require.resolve(args.path, { paths: [pulumiBase] }),
      }));
      build.onResolve({ filter: /^@pulumi\/pulumi(\/|$)/ }, (args) =>
        args.path.startsWith("@pulumi/pulumi/proto/") ? undefined : { path: args.path, external: true },
      );
      // zod's locales index requires all of its ~60 languages (378 KB of the 743 KB zod file, every
      // one run when zod loads); the plugin's messages are English, so z.locales holds `en` alone.
      build.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.cjs$/ }, (args) => ({
        contents: ZOD_LOCALES,
        loader: "js",
        resolveDir: dirname(args.path),
      }));
      // Only the messages the plugin uses, and what they reach (scripts/trim-pb.js).
      build.onLoad({ filter: /[\\/]@pulumi[\\/]pulumi[\\/]proto[\\/]\w+_pb\.js$/ }, (args) => {
        const keep = KEEP[args.path.split(/[\\/]/).pop()];
        return keep ? { contents: trim(readFileSync(args.path, "utf8"), keep), loader: "js" } : undefined;
      });
      if (!lazy) return;
      for (const [file, filter] of LAZY) {
        build.onResolve({ filter }, (args) => ({ path: args.path, namespace: "secops-vendor" }));
        build.onResolve({ filter: new RegExp(`^\\./${file.replace(".", "\\.")}$`) }, (args) => ({
          path: args.path,
          external: true,
        }));
      }
      build.onLoad({ filter: /.*/, namespace: "secops-vendor" }, (args) => {
        const file = lazyFile(args.path);
        if (!lazy.has(file)) lazy.set(file, new Set());
        lazy.get(file).add(args.path);
        return { contents: `module.exports = require("./${file}")[${JSON.stringify(args.path)}];` };
      });
    },
  };
}

/** Fails when the bundle reached the program SDK or grpc-js. */
function checkInputs(result) {
  const bad = Object.keys(result.metafile.inputs).filter(
    (f) =>
      (f.includes("node_modules/@pulumi/pulumi/") && !f.includes("node_modules/@pulumi/pulumi/proto/")) ||
      f.includes("node_modules/@grpc/"),
  );
  if (bad.length > 0)
    throw new Error(`the plugin bundle reached the program SDK or grpc-js: ${bad.join(", ")}`);
  return Object.keys(result.metafile.inputs).length;
}

/**
 * Bundles the plugin into `outfile`; with `split` (the default), LAZY packages go to their files
 * beside it, one getter per name the plugin requires.
 */
async function bundle({ split = true, outfile = OUT } = {}) {
  const lazy = split ? new Map() : undefined;
  const main = await esbuild.build({
    ...COMMON,
    entryPoints: [join(ROOT, "dist", "native", "plugin", "run.js")],
    outfile,
    define: { SECOPS_BUNDLE: "true" },
    plugins: [plugin(lazy)],
  });
  let inputs = checkInputs(main);
  for (const [file, names] of lazy ?? []) {
    const getters = [...names]
      .sort()
      .map((name) => `  get ${JSON.stringify(name)}() { return require(${JSON.stringify(name)}); },`);
    const vendor = await esbuild.build({
      ...COMMON,
      stdin: { contents: `module.exports = {\n${getters.join("\n")}\n};\n`, resolveDir: ROOT },
      outfile: join(dirname(outfile), file),
      plugins: [plugin(undefined)],
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
