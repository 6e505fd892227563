#!/usr/bin/env node
/**
 * Part of `npm test`, `npm run demo` and `npm run bench`: bundles the offline runner (tests/rig/, the
 * test rig; it is not part of the package) with esbuild into .rig/index.js, for the child processes
 * and scripts that run it outside jest. Packages stay external (resolved from this repository's
 * node_modules); the provider sources the rig reads (protocol helpers) are bundled in.
 */
"use strict";
const { join } = require("node:path");
const esbuild = require("esbuild");

const ROOT = join(__dirname, "..");
const OUT = join(ROOT, ".rig", "index.js");

esbuild.buildSync({
  entryPoints: [join(ROOT, "tests", "rig", "index.ts")],
  outfile: OUT,
  bundle: true,
  platform: "node",
  target: "node22",
  format: "cjs",
  packages: "external",
  logLevel: "warning",
});

module.exports = { RIG: OUT };
