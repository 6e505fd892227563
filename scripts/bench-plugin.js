/**
 * The plugin's cost per team (issue 22), part "plugin" of `npm run bench`: the engine starts one
 * plugin process per provider instance, so start time and idle memory are paid per team per command.
 *
 *   start to port line: npm bin/ plugin / a bare grpc-js server that prints its port (target <= 1.5x)
 *   the same for the release archive's single executable                           (target <= 1.0x)
 *   idle RSS of a configured bin/ plugin (target <= 55 MB, <= 1.4x of `node -e` idle)
 *   50 plugins started at once, configured: wall (<= 12 s), total RSS (<= 3 GB); PSS shown too
 *   full lists sent for 1,000 Reads interleaved with 1,000 Updates through one plugin (<= 10)
 *   RSS after 1,000 creates and after 5,000 mixed operations, each after a GC / idle RSS (<= 1.2), and /
 *   RSS after one operation of each kind (the growth, with the code a first API call loads counted out)
 */
"use strict";
const { execFileSync, spawn } = require("node:child_process");
const { existsSync, readFileSync, mkdtempSync, rmSync, writeFileSync } = require("node:fs");
const { tmpdir } = require("node:os");
const { dirname, join } = require("node:path");

const ROOT = join(__dirname, "..");
const { NativePluginProcess, secret } = require(join(ROOT, "dist", "testing", "index.js"));
const { createSimulator } = require(join(ROOT, "dist", "simulator", "index.js"));
const { SecOpsClient } = require(join(ROOT, "dist", "index.js"));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const pulumiDir = dirname(require.resolve("@pulumi/pulumi/package.json", { paths: [ROOT] }));
const GRPC = require.resolve("@grpc/grpc-js", { paths: [pulumiDir] });
/** The floor: a bare grpc-js server that binds 127.0.0.1:0 and prints its port, started by node. */
const BARE = [
  process.execPath,
  [
    "-e",
    `const g=require(${JSON.stringify(GRPC)});const s=new g.Server();` +
      `s.bindAsync("127.0.0.1:0",g.ServerCredentials.createInsecure(),(e,p)=>{console.log(p)});`,
  ],
];
const NODE_IDLE = [process.execPath, ["-e", "console.log(0);setInterval(()=>{},1e6)"]];

/** Memory of a process from /proc (MB): resident, and proportional (shared pages divided). */
function memory(pid) {
  const r = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
  const kb = (k) => Number(new RegExp(`^${k}:\\s+(\\d+)`, "m").exec(r)[1]);
  return { rss: kb("Rss") / 1024, pss: kb("Pss") / 1024 };
}

/** Starts `cmd args` and resolves when it prints its first line: [child, ms]. */
function startToLine(cmd, args, env = process.env) {
  return new Promise((resolve, reject) => {
    const t = process.hrtime.bigint();
    const child = spawn(cmd, args, { stdio: ["ignore", "pipe", "ignore"], env });
    child.once("error", reject);
    child.stdout.once("data", () => resolve([child, Number(process.hrtime.bigint() - t) / 1e6]));
  });
}

/** Median start-to-port of `n` sequential starts of each command, interleaved (same noise). */
async function starts(commands, n = 15) {
  const times = commands.map(() => []);
  for (let i = 0; i < n; i++)
    for (const [k, [cmd, args, env]] of commands.entries()) {
      const [child, ms] = await startToLine(cmd, args, env);
      times[k].push(ms);
      child.kill("SIGKILL");
    }
  return times.map(median);
}

const settle = (ms) => new Promise((r) => setTimeout(r, ms));

/** Idle RSS of a configured plugin and of `node -e`, medians of 5. */
async function idle() {
  const plugin = [];
  const node = [];
  for (let i = 0; i < 5; i++) {
    const p = await NativePluginProcess.start();
    await p.configure({ apiKey: secret("bench-key-0000"), baseUrl: "http://127.0.0.1:9" }, {});
    const [n] = await startToLine(...NODE_IDLE);
    await settle(700);
    plugin.push(memory(p.child.pid).rss);
    node.push(memory(n.pid).rss);
    n.kill("SIGKILL");
    await p.close();
  }
  return { plugin: median(plugin), node: median(node) };
}

/** 50 configured plugins started at once: wall time until all are configured, total RSS and PSS. */
async function fifty(count = 50) {
  const t = Date.now();
  const plugins = await Promise.all(
    Array.from({ length: count }, async () => {
      const p = await NativePluginProcess.start();
      await p.configure({ apiKey: secret("bench-key-0000"), baseUrl: "http://127.0.0.1:9" }, {});
      return p;
    }),
  );
  const wall = (Date.now() - t) / 1000;
  await settle(700);
  const mems = plugins.map((p) => memory(p.child.pid));
  await Promise.all(plugins.map((p) => p.close()));
  const sum = (k) => mems.reduce((a, m) => a + m[k], 0) / 1024;
  return { wall, rss: sum("rss"), pss: sum("pss") };
}

/** The release archive's executable, packaged (npm run package:plugin) and extracted once. */
function releaseExecutable() {
  const { ARCHIVE } = require("./package-plugin.js");
  if (!existsSync(ARCHIVE))
    execFileSync(process.execPath, [join(__dirname, "package-plugin.js")], { stdio: "inherit" });
  const dir = mkdtempSync(join(tmpdir(), "secops-bench-sea-"));
  execFileSync("tar", ["-C", dir, "-xzf", ARCHIVE]);
  return {
    exe: join(dir, "pulumi-resource-secops"),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** 1,000 rules made directly, then a Read and an Update of each, interleaved, through one plugin. */
async function listsUnderWrites(count = 1000) {
  const sim = await createSimulator({ seed: 5 });
  const client = new SecOpsClient({ apiKey: sim.apiKeys.admin, baseUrl: sim.url });
  const made = [];
  for (let i = 0; i < count; i += 50)
    made.push(
      ...(await Promise.all(
        Array.from({ length: 50 }, (_, k) =>
          client.createHvaRule({ field: "name", search: `bench-${i + k}-*` }),
        ),
      )),
    );
  const plugin = await NativePluginProcess.start();
  await plugin.configure({ apiKey: secret(sim.apiKeys.admin), baseUrl: sim.url }, {});
  await sim.control.resetStats();
  const urn = "urn:pulumi:bench::bench::secops:index:HvaAutomationRule::r";
  const t = Date.now();
  for (const rule of made) {
    const props = { field: "name", search: rule.search, enabled: rule.enabled, teamId: rule.teamId };
    await plugin.read(rule.id, urn, props, props);
    await plugin.update(rule.id, urn, props, { field: "name", search: rule.search, enabled: !rule.enabled });
  }
  const seconds = (Date.now() - t) / 1000;
  const lists = (await sim.control.stats()).requests["GET /endpoint/hva/automation"] ?? 0;
  await plugin.close();
  await client.close?.();
  await sim.close();
  return { lists, seconds };
}

/**
 * A preload for the plugin under test only: SIGUSR2 runs a full GC that gives memory back (V8's own
 * gc, reached without --expose-gc on the command line, as its memory reducer does after a while idle),
 * so "after a GC" is measured, not guessed from idle timers. A plain forced gc() is not that: it keeps
 * the pages it evacuated pooled, and RSS measured after it reads 40 MB higher than it settles.
 */
const GC_ON_SIGNAL = `
require("v8").setFlagsFromString("--expose-gc");
const gc = require("vm").runInNewContext("gc");
process.on("SIGUSR2", () => gc({ type: "major", execution: "sync", flavor: "last-resort" }));
`;

/** CPU seconds (user + system) a process has used, from /proc. */
function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * RSS (MB) of the plugin after a GC that gives memory back, and two seconds without calls: the plugin
 * gives its C heap's free pages back from the first second without an API call (native/plugin/trim.ts).
 */
async function rssAfterGc(plugin) {
  plugin.child.kill("SIGUSR2");
  await settle(2_000);
  return memory(plugin.child.pid).rss;
}

/** How long a plugin is left alone after the load for `leftIdle`: V8's memory reducer, not a signal. */
const LEFT_IDLE_MS = 25_000;

/**
 * One configured plugin: idle RSS, then after 1,000 creates, then after 5,000 mixed operations (Check,
 * Diff, Create, Read, Update, Delete and Invoke over 500 live rules), each after a GC, and the CPU the
 * plugin used for all of it. `extraEnv` for the plugin (SECOPS_PLUGIN_TURBOFAN=1 keeps V8's TurboFan);
 * with `leftIdle`, also its RSS once left alone LEFT_IDLE_MS after the load, no GC forced.
 */
async function memoryUnderLoad(extraEnv = {}, { leftIdle = false } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "secops-bench-gc-"));
  const preload = join(dir, "gc-on-signal.js");
  writeFileSync(preload, GC_ON_SIGNAL);
  const sim = await createSimulator({ seed: 6 });
  const env = { ...process.env, ...extraEnv, NODE_OPTIONS: `--require ${preload}` };
  const plugin = await NativePluginProcess.start({ env });
  try {
    await plugin.configure({ apiKey: secret(sim.apiKeys.admin), baseUrl: sim.url }, {});
    await settle(700);
    const idle = await rssAfterGc(plugin);
    const urn = (i) => `urn:pulumi:bench::bench::secops:index:HvaAutomationRule::r${i}`;
    const live = [];
    const create = async (i) => {
      const made = await plugin.create(urn(i), { field: "name", search: `mem-${i}-*`, enabled: true });
      live.push({ i, id: made.id, props: made.properties });
    };
    let ops = 0;
    /** Check, Diff, Read, Update and Invoke of one live rule; every tenth round a Delete and a Create. */
    const mixed = async (round) => {
      const r = live[round % live.length];
      const news = { field: "name", search: r.props.search, enabled: round % 2 === 0 };
      await plugin.check(urn(r.i), r.props, news);
      await plugin.diff(r.id, urn(r.i), r.props, news);
      await plugin.read(r.id, urn(r.i), r.props, r.props);
      r.props = (await plugin.update(r.id, urn(r.i), r.props, news)).properties ?? r.props;
      await plugin.invoke("secops:index:getIdentity", {});
      ops += 5;
      if (round % 10 !== 9) return;
      const gone = live.splice(round % live.length, 1)[0];
      await plugin.delete(gone.id, urn(gone.i), gone.props);
      await create(100000 + round);
      ops += 2;
    };
    await create(0);
    for (let round = 0; round < 10; round++) await mixed(round);
    const warm = await rssAfterGc(plugin);
    for (let i = 1; i < 1000; i += 9) await Promise.all(Array.from({ length: 9 }, (_, k) => create(i + k)));
    const afterCreates = await rssAfterGc(plugin);
    ops = 0;
    for (let round = 0; ops < 5000; round++) await mixed(round);
    if (leftIdle) await settle(LEFT_IDLE_MS);
    const idleAfter = leftIdle ? memory(plugin.child.pid).rss : undefined;
    const afterMixed = await rssAfterGc(plugin);
    return { idle, warm, afterCreates, afterMixed, idleAfter, ops, cpu: cpuSeconds(plugin.child.pid) };
  } finally {
    await plugin.close();
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function pluginBench(report) {
  const mem = await memoryUnderLoad({}, { leftIdle: true });
  const turbofan = await memoryUnderLoad({ SECOPS_PLUGIN_TURBOFAN: "1" });
  const ratio = (a, b) => (a / b).toFixed(2);
  report(
    "plugin RSS after a GC: after 1,000 creates / idle, after 5,000 mixed operations / idle",
    `${ratio(mem.afterCreates, mem.idle)}, ${ratio(mem.afterMixed, mem.idle)} (idle ${mem.idle.toFixed(0)} MB, ` +
      `after one of each operation ${mem.warm.toFixed(0)}, after 1,000 creates ${mem.afterCreates.toFixed(0)}, ` +
      `after ${mem.ops} more ${mem.afterMixed.toFixed(0)}; ` +
      `left idle ${LEFT_IDLE_MS / 1000} s after them with no GC forced ${mem.idleAfter.toFixed(0)})`,
    "<= 1.2 each",
    mem.afterCreates / mem.idle <= 1.2 && mem.afterMixed / mem.idle <= 1.2,
  );
  report(
    "the same / after one operation of each kind (growth under load, the first call's code counted out)",
    `${ratio(mem.afterCreates, mem.warm)}, ${ratio(mem.afterMixed, mem.warm)}`,
    "<= 1.2 each",
    mem.afterCreates / mem.warm <= 1.2 && mem.afterMixed / mem.warm <= 1.2,
  );
  report(
    "the same load with V8's TurboFan kept (SECOPS_PLUGIN_TURBOFAN=1): RSS after it / idle; plugin CPU, off / on",
    `${ratio(turbofan.afterMixed, turbofan.idle)} (${turbofan.afterMixed.toFixed(0)} MB, off ${mem.afterMixed.toFixed(0)}); ` +
      `CPU ${ratio(mem.cpu, turbofan.cpu)}x (${mem.cpu.toFixed(2)} / ${turbofan.cpu.toFixed(2)} s)`,
    "the price of the default, shown",
    true,
  );
  const cache = await listsUnderWrites();
  report(
    "full lists for 1,000 Reads interleaved with 1,000 Updates through one plugin",
    `${cache.lists} (in ${cache.seconds.toFixed(1)} s)`,
    "<= 10",
    cache.lists <= 10,
  );
  const sea = releaseExecutable();
  try {
    const bin = [process.execPath, [NativePluginProcess.executable]];
    const noNode = { PATH: "/nonexistent" };
    const [bare, npmBin, exe] = await starts([BARE, bin, [sea.exe, [], noNode]]);
    report(
      "plugin start to port, npm bin/ / a bare grpc-js server (15 starts each, medians)",
      `${(npmBin / bare).toFixed(2)}x (${npmBin.toFixed(0)} / ${bare.toFixed(0)} ms)`,
      "<= 1.5x",
      npmBin / bare <= 1.5,
    );
    report(
      "plugin start to port, release single executable / a bare grpc-js server",
      `${(exe / bare).toFixed(2)}x (${exe.toFixed(0)} / ${bare.toFixed(0)} ms)`,
      "<= 1.0x",
      exe / bare <= 1.0,
    );
  } finally {
    sea.cleanup();
  }
  const quiet = await idle();
  report(
    "plugin idle RSS, configured (npm bin/; median of 5) and / `node -e` idle",
    `${quiet.plugin.toFixed(0)} MB, ${(quiet.plugin / quiet.node).toFixed(2)}x (node ${quiet.node.toFixed(0)} MB)`,
    "<= 55 MB, <= 1.4x",
    quiet.plugin <= 55 && quiet.plugin / quiet.node <= 1.4,
  );
  const many = await fifty();
  report(
    "50 plugins started at once and configured: wall, total RSS (PSS)",
    `${many.wall.toFixed(1)} s, ${many.rss.toFixed(2)} GB (${many.pss.toFixed(2)} GB)`,
    "<= 12 s, <= 3 GB",
    many.wall <= 12 && many.rss <= 3,
  );
}

module.exports = { pluginBench, listsUnderWrites, memoryUnderLoad };
