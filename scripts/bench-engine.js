/**
 * The engine part of `npm run bench` (BENCH_ONLY=engine): `pulumi preview` and `pulumi up` of 1,000
 * HVA rules (one default provider), and of 20 teams x 50 rules (20 explicit providers), through the
 * real Pulumi CLI (.ci/pulumi-cli/build.sh, or `pulumi` on PATH) and the Automation API, against the
 * simulator in its own process. The same program runs twice: on this package's plugin, and on the
 * anchor, a minimal provider served by Pulumi's own Node.js provider host (scripts/bench-anchors.js
 * `host`: this package's schema, trivial resource calls, no API request). Printed per row: wall time
 * and the plugin processes' peak RSS (summed over the providers' processes, sampled every 50 ms), and
 * the ratio plugin / anchor. The difference is the provider's own work, the API requests included.
 */
"use strict";
const { execFileSync, spawn } = require("node:child_process");
const {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} = require("node:fs");
const { tmpdir } = require("node:os");
const { delimiter, dirname, join } = require("node:path");
const { writeAnchors } = require("./bench-anchors");
const { bundle } = require("./bundle-plugin");

const ROOT = join(__dirname, "..");
const DRIVER = join(ROOT, "tests", "helpers", "automation-driver.js");

/** The CLI's folder: `pulumi` on PATH, else the pinned build. */
function cliBin() {
  for (const d of (process.env.PATH || "").split(delimiter)) {
    try {
      execFileSync(join(d, "pulumi"), ["version"], { stdio: "ignore" });
      return d;
    } catch {
      // not here
    }
  }
  return execFileSync(join(ROOT, ".ci", "pulumi-cli", "build.sh"), { encoding: "utf8" }).trim();
}

/** The program: `teams` explicit providers (0: the default one) and `perTeam` rules each. */
const program = (teams, perTeam) => `"use strict";
const pulumi = require("@pulumi/pulumi");
const secops = require("pulumi-secops/native");
const config = new pulumi.Config();
const teams = ${teams};
for (let t = 0; t < Math.max(teams, 1); t++) {
  const provider = teams ? new secops.Provider("team" + t, { apiKey: config.requireSecret("key"), baseUrl: config.require("url") }) : undefined;
  for (let i = 0; i < ${perTeam}; i++)
    new secops.HvaAutomationRule("t" + t + "-r" + i, { field: "name", search: "bench-" + t + "-" + i + "-*" }, { provider });
}
`;

/** Resident memory of the processes whose command line holds `pulumi-resource-secops` (or the anchor). */
function pluginRss(marker) {
  let total = 0;
  for (const pid of readdirSync("/proc").filter((n) => /^\d+$/.test(n))) {
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(marker)) continue;
      const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
      if (kb) total += Number(kb[1]) * 1024;
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

/** One Automation API operation in its own process; resolves with its wall time and peak plugin RSS. */
function operation(request, env, marker) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    let peak = 0;
    const sampler = setInterval(() => (peak = Math.max(peak, pluginRss(marker))), 50);
    const child = spawn(process.execPath, [DRIVER, JSON.stringify(request)], {
      cwd: ROOT,
      env: { ...process.env, ...env },
    });
    let out = "";
    child.stdout.on("data", (c) => (out += c));
    child.stderr.on("data", (c) => (out += c));
    child.on("error", reject);
    child.on("close", () => {
      clearInterval(sampler);
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      const line = out.trim().split("\n").pop() || "{}";
      let result;
      try {
        result = JSON.parse(line);
      } catch {
        return reject(new Error(`the automation driver printed no result: ${out}`));
      }
      if (!result.ok) return reject(new Error(`${request.op} failed: ${result.message}`));
      resolve({ ms, peak });
    });
  });
}

/** A stack of `source` whose plugin is found in `pluginDir`; runs preview, up, destroy (or preview only). */
async function run(work, name, source, pluginDir, marker, cli, settings, previewOnly = false) {
  const dir = join(work, name);
  mkdirSync(join(dir, "node_modules", "@pulumi"), { recursive: true });
  symlinkSync(ROOT, join(dir, "node_modules", "pulumi-secops"), "dir");
  symlinkSync(
    dirname(require.resolve("@pulumi/pulumi/package.json", { paths: [ROOT] })),
    join(dir, "node_modules", "@pulumi", "pulumi"),
    "dir",
  );
  const file = join(dir, "index.js");
  writeFileSync(file, source);
  const backend = join(dir, ".backend");
  mkdirSync(backend);
  const env = {
    PULUMI_BACKEND_URL: `file://${backend}`,
    PULUMI_CONFIG_PASSPHRASE: "bench",
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_HOME: join(backend, "home"),
    PATH: [cli, pluginDir, process.env.PATH].join(delimiter),
    SECOPS_INTENT_DIR: join(backend, "intents"),
    SECOPS_API_KEY: settings.key,
    SECOPS_BASE_URL: settings.url,
  };
  const request = (op) => ({ project: "bench", workDir: dir, program: file, op, options: {}, cli, env });
  await operation(request("init"), env, marker);
  for (const [k, v] of Object.entries({ "bench:key": settings.key, "bench:url": settings.url }))
    execFileSync(
      join(cli, "pulumi"),
      ["config", "set", ...(k === "bench:key" ? ["--secret"] : []), k, v, "--stack", "dev"],
      {
        cwd: dir,
        env: { ...process.env, ...env },
      },
    );
  const preview = await operation(request("preview"), env, marker);
  if (previewOnly) return { preview };
  const up = await operation(request("up"), env, marker);
  await operation(request("destroy"), env, marker);
  return { preview, up };
}

async function engineBench(report, startSimProcess) {
  const cli = cliBin();
  const version = execFileSync(join(cli, "pulumi"), ["version"], { encoding: "utf8" }).trim();
  console.log(`engine: Pulumi CLI ${version} (${cli})`);
  const work = mkdtempSync(join(tmpdir(), "secops-bench-engine-"));
  const sim = await startSimProcess();
  try {
    const anchors = await writeAnchors(work);
    // The anchor as a plugin named secops, in a folder of its own: the same program finds it instead.
    const anchorDir = join(work, "anchor-bin");
    mkdirSync(anchorDir);
    const anchor = join(anchorDir, "pulumi-resource-secops");
    writeFileSync(anchor, `#!/bin/sh\nexec "${process.execPath}" "${anchors.host}" "$@"\n`);
    chmodSync(anchor, 0o755);
    const settings = { key: sim.apiKeys.admin, url: sim.url };
    // The plugin without the team-wide Check, for its cost: a variant bundle in a folder of its own.
    const noCheckDir = join(work, "nocheck-bin");
    mkdirSync(noCheckDir);
    const variant = join(noCheckDir, "secops-nocheck", "pulumi-resource-secops.js");
    await bundle({ outfile: variant, define: { SECOPS_TEAM_SCOPE: "false" } });
    const noCheck = join(noCheckDir, "pulumi-resource-secops");
    writeFileSync(noCheck, `#!/bin/sh\nexec "${process.execPath}" "${variant}" "$@"\n`);
    chmodSync(noCheck, 0o755);
    const fmt = (x) => `${(x.ms / 1000).toFixed(1)} s, ${(x.peak / 2 ** 20).toFixed(0)} MB`;
    for (const [label, teams, perTeam] of [
      ["1,000 rules", 0, 1000],
      ["20 teams x 50 rules", 20, 50],
    ]) {
      const source = program(teams, perTeam);
      const slug = label.replace(/\W+/g, "-");
      const ours = await run(
        work,
        `plugin-${slug}`,
        source,
        join(ROOT, "bin"),
        "pulumi-resource-secops",
        cli,
        settings,
      );
      const floor = await run(work, `anchor-${slug}`, source, anchorDir, "pulumi-host.js", cli, settings);
      if (teams === 0) {
        // What the team-wide Check costs at preview (issue 53): the same preview, the same plugin
        // built without it (a variant bundle, never shipped), in this run.
        const without = await run(
          work,
          `nocheck-${slug}`,
          source,
          noCheckDir,
          "secops-nocheck",
          cli,
          settings,
          true,
        );
        console.log(
          `engine preview of ${label}: plugin ${fmt(ours.preview)}; without the team-wide Check ${fmt(without.preview)}`,
        );
        report(
          `engine preview of ${label}, wall time with the team-wide Check / without it`,
          `${(ours.preview.ms / without.preview.ms).toFixed(2)}x`,
          "measured",
          true,
        );
      }
      for (const op of ["preview", "up"]) {
        const t = ours[op].ms / floor[op].ms;
        const m = ours[op].peak / floor[op].peak;
        console.log(
          `engine ${op} of ${label}: plugin ${fmt(ours[op])}; Pulumi's Node.js host (no API calls) ${fmt(floor[op])}`,
        );
        report(
          `engine ${op} of ${label}, wall time plugin / Pulumi's host`,
          `${t.toFixed(2)}x`,
          "measured",
          true,
        );
        report(
          `engine ${op} of ${label}, peak RSS of the provider processes plugin / Pulumi's host`,
          `${m.toFixed(2)}x`,
          "measured",
          true,
        );
      }
    }
  } finally {
    await sim.close();
    rmSync(work, { recursive: true, force: true });
  }
}

module.exports = { engineBench };
