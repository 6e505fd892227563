#!/usr/bin/env node
/**
 * Part of `npm test`, `npm run demo` and `npm run bench`: bundles the offline runner (tests/rig/, the
 * test rig; it is not part of the package) with esbuild into .rig/index.js, for the child processes
 * and scripts that run it outside jest. Packages stay external (resolved from this repository's
 * node_modules); the provider sources the rig reads (protocol helpers) are bundled in.
 */
"use strict";
const { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } = require("node:fs");
const { dirname, join } = require("node:path");
const esbuild = require("esbuild");

const ROOT = join(__dirname, "..");
const OUT = join(ROOT, ".rig", "index.js");

const [bundle] = esbuild.buildSync({
  entryPoints: [join(ROOT, "tests", "rig", "index.ts")],
  outfile: OUT,
  bundle: true,
  platform: "node",
  target: "node22",
  format: "cjs",
  packages: "external",
  logLevel: "warning",
  write: false,
}).outputFiles;
// Written only when it changed, and whole (a rename): tests running beside a demo require this file.
if (!existsSync(OUT) || readFileSync(OUT, "utf8") !== bundle.text) {
  mkdirSync(dirname(OUT), { recursive: true });
  writeFileSync(`${OUT}.${process.pid}`, bundle.text);
  renameSync(`${OUT}.${process.pid}`, OUT);
}

module.exports = { RIG: OUT };
