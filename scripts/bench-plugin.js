/**
 * The plugin's cost per team (issues 22 and 33), part "plugin" of `npm run bench`. The engine starts
 * one plugin process per provider instance, so start time and memory are paid per team per command.
 * The anchor is Pulumi's own Node.js provider host (`@pulumi/pulumi/provider` `main()` serving this
 * package's schema and one trivial resource; scripts/bench-anchors.js), started the same way with the
 * same node in the same run. Every row is a ratio against it or against the plugin itself:
 *
 *   start to port ÷ the host's, npm bin/ (medians of 21 interleaved starts)          (target <= 0.7x)
 *   idle RSS, configured ÷ the host's, configured (medians of 5)                      (target <= 0.9x)
 *   RSS after 2,000 mixed operations against the simulator and 5 s idle, no GC forced ÷ its own idle
 *                                                                                     (target <= 1.6x)
 *   20 started, configured and invoked at once: total RSS ÷ 20 hosts' (the same)      (target <= 0.9x)
 *   start to port of the release archive's single executable ÷ the host's             (target <= 0.7x)
 *   wall time of 2,000 operations (500 Creates, Reads, Updates, Deletes, 50 at a time, in bursts
 *   taking turns with the floor's) ÷ the floor's doing one API call each (medians of 5) (target <= 1.5x)
 *   full lists sent for 1,000 Reads interleaved with 1,000 Updates through one plugin (target <= 10)
 *
 * Each row also shows the platform's floor measured in the same run (scripts/bench-anchors.js): a
 * bundled grpc-js server with Pulumi's stubs, and the same calling the API with undici and zod.
 */
"use strict";
const { execFileSync, spawn } = require("node:child_process");
const { existsSync, readFileSync, mkdtempSync, rmSync } = require("node:fs");
const { tmpdir } = require("node:os");
const { join } = require("node:path");
const { writeAnchors } = require("./bench-anchors");

const ROOT = join(__dirname, "..");
// The offline runner (tests/rig, not part of the package), bundled by requiring build-rig.
const { NativePluginProcess, secret } = require(require("./build-rig").RIG);
const { createSimulator } = require("secops-sim");
const { SecOpsClient } = require(join(ROOT, "dist", "index.js"));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const settle = (ms) => new Promise((r) => setTimeout(r, ms));
const x = (a, b) => `${(a / b).toFixed(2)}x`;
const mb = (v) => `${v.toFixed(0)} MB`;

/** Memory of a process from /proc (MB): resident, and proportional (shared pages divided). */
function memory(pid) {
  const r = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
  const kb = (k) => Number(new RegExp(`^${k}:\\s+(\\d+)`, "m").exec(r)[1]);
  return { rss: kb("Rss") / 1024, pss: kb("Pss") / 1024 };
}

/** CPU milliseconds (user + system) a process has used, from /proc (10 ms ticks). */
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Starts `cmd args` and resolves when it prints its first line: [child, wall ms, CPU ms by then]. */
function startToLine(cmd, args, env = process.env) {
  return new Promise((resolve, reject) => {
    const t = process.hrtime.bigint();
    const child = spawn(cmd, args, { stdio: ["ignore", "pipe", "ignore"], env });
    child.once("error", reject);
    child.stdout.once("data", () =>
      resolve([child, Number(process.hrtime.bigint() - t) / 1e6, cpuMs(child.pid)]),
    );
  });
}

/** Medians (wall and CPU to the port line) of `n` sequential starts of each command, interleaved. */
async function starts(commands, n = 21) {
  const wall = commands.map(() => []);
  const cpu = commands.map(() => []);
  for (let i = 0; i < n; i++)
    for (const [k, [cmd, args, env]] of commands.entries()) {
      const [child, ms, used] = await startToLine(cmd, args, env);
      wall[k].push(ms);
      cpu[k].push(used);
      child.kill("SIGKILL");
    }
  return commands.map((_, k) => ({ wall: median(wall[k]), cpu: median(cpu[k]) }));
}

/** Starts `executable` as the engine would (under the runner's watchdog, this node) and configures it. */
async function started(executable, sim, env = process.env) {
  const p = await NativePluginProcess.start({ executable, env });
  await p.configure(
    { apiKey: secret(sim.apiKeys.admin), baseUrl: sim.url },
    { "secops:config:apiKey": sim.apiKeys.admin, "secops:config:baseUrl": sim.url },
  );
  return p;
}

/** Idle RSS of each executable, configured: 5 rounds of all of them side by side, medians. */
async function idle(executables, sim) {
  const rss = executables.map(() => []);
  for (let round = 0; round < 5; round++) {
    const procs = await Promise.all(executables.map((e) => started(e, sim)));
    await settle(1_000);
    procs.forEach((p, k) => rss[k].push(memory(p.pid).rss));
    await Promise.all(procs.map((p) => p.close()));
  }
  return rss.map(median);
}

/** `count` of `executable` started at once, each configured and invoked once: total RSS and PSS. */
async function many(executable, sim, count = 20) {
  const procs = await Promise.all(
    Array.from({ length: count }, async () => {
      const p = await started(executable, sim);
      await p.invoke("secops:index:getIdentity", {});
      return p;
    }),
  );
  await settle(1_000);
  const mems = procs.map((p) => memory(p.pid));
  await Promise.all(procs.map((p) => p.close()));
  return { rss: mems.reduce((a, m) => a + m.rss, 0), pss: mems.reduce((a, m) => a + m.pss, 0) };
}

/** Operations in flight at once under load: an engine stepping through a large stack in parallel. */
const LANES = 8;
/** Rules created before the mixed rounds. */
const FIRST = 200;
const IDLE_AFTER_MS = 5_000;

/**
 * One configured process: RSS idle, then after 2,000 operations against the simulator (FIRST creates,
 * then rounds of Check, Diff, Read and Update of a live rule, every fourth round also a Delete and a
 * Create), LANES at a time, and IDLE_AFTER_MS without calls; no GC forced (what a user's machine holds).
 */
async function underLoad(executable, sim, { total = 2_000, env } = {}) {
  const p = await started(executable, sim, env);
  try {
    await settle(1_000);
    const idleRss = memory(p.pid).rss;
    const cpu0 = cpuMs(p.pid);
    const urn = (i) => `urn:pulumi:bench::bench::secops:index:HvaAutomationRule::r${i}`;
    const live = [];
    let ops = 0;
    let made = 0;
    const create = async () => {
      const i = made++;
      const r = await p.create(urn(i), { field: "name", search: `mem-${i}-*`, enabled: true });
      live.push({ i, id: r.id, props: r.properties });
      ops++;
    };
    const lanes = (f) => Promise.all(Array.from({ length: LANES }, f));
    await lanes(async () => {
      while (made < FIRST) await create();
    });
    let round = 0;
    await lanes(async () => {
      while (ops < total) {
        const n = round++;
        const r = live.splice(n % live.length, 1)[0]; // held by this lane alone while it works on it
        const news = { field: "name", search: r.props.search, enabled: n % 2 === 0 };
        await p.check(urn(r.i), r.props, news);
        await p.diff(r.id, urn(r.i), r.props, news);
        await p.read(r.id, urn(r.i), r.props, r.props);
        r.props = (await p.update(r.id, urn(r.i), r.props, news)).properties ?? r.props;
        ops += 4;
        if (n % 4 !== 3) {
          live.push(r);
          continue;
        }
        await p.delete(r.id, urn(r.i), r.props);
        await create();
        ops++;
      }
    });
    const busyCpu = cpuMs(p.pid) - cpu0;
    const peak = memory(p.pid).rss;
    await settle(IDLE_AFTER_MS);
    return { idle: idleRss, peak, after: memory(p.pid).rss, ops, cpu: busyCpu };
  } finally {
    await p.close();
  }
}

/** Calls in flight at once in the timed row (an engine stepping through a stack with --parallel 50). */
const TIMED_LANES = 50;

/**
 * `n` Creates, then `n` Reads, Updates and Deletes of what they made, TIMED_LANES at a time: wall ms
 * of each phase and of all, and the process's CPU ms.
 */
async function phases(p, tag, n) {
  const urn = (i) => `urn:pulumi:bench::bench::secops:index:HvaAutomationRule::${tag}-${i}`;
  const rules = [];
  const lanes = async (f) => {
    let next = 0;
    await Promise.all(
      Array.from({ length: TIMED_LANES }, async () => {
        while (next < n) await f(next++);
      }),
    );
  };
  const steps = {
    create: async (i) => {
      const made = await p.create(urn(i), { field: "name", search: `${tag}-${i}-*`, enabled: true });
      rules[i] = { id: made.id, props: made.properties };
    },
    read: (i) => p.read(rules[i].id, urn(i), rules[i].props, rules[i].props),
    update: async (i) => {
      const news = { field: "name", search: rules[i].props.search, enabled: false };
      rules[i].props =
        (await p.update(rules[i].id, urn(i), rules[i].props, news)).properties ?? rules[i].props;
    },
    delete: (i) => p.delete(rules[i].id, urn(i), rules[i].props),
  };
  const cpu0 = cpuMs(p.pid);
  const times = { all: 0 };
  for (const [name, step] of Object.entries(steps)) {
    const t = process.hrtime.bigint();
    await lanes(step);
    times[name] = Number(process.hrtime.bigint() - t) / 1e6;
    times.all += times[name];
  }
  return { ...times, cpu: cpuMs(p.pid) - cpu0 };
}

/** Adds the fields of `b` to those of `a`. */
const added = (a, b) => Object.fromEntries(Object.keys(b).map((k) => [k, (a?.[k] ?? 0) + b[k]]));

/**
 * Issue 40: the time of 2,000 operations through each executable. In each round every executable is
 * started and configured, warmed with 50 of each operation, then runs its 2,000 in bursts of 125
 * Creates, Reads, Updates and Deletes, the executables taking turns burst by burst (in an order that
 * rotates), so that a shared machine's drifting load weighs on each alike. The plugin's journal goes
 * to a folder of its own. Ratios per round to the last executable (the floor).
 */
async function timed(executables, sim, dir, { rounds = 5, n = 500, bursts = 4 } = {}) {
  const env = { ...process.env, SECOPS_INTENT_DIR: join(dir, "intents") };
  const runs = executables.map(() => []);
  let tag = 0;
  for (let round = 0; round < rounds; round++) {
    const procs = [];
    try {
      for (const e of executables) procs.push(await started(e, sim, env));
      for (const p of procs) await phases(p, `t${++tag}`, 50);
      const sums = procs.map(() => undefined);
      for (let b = 0; b < bursts; b++)
        for (let j = 0; j < procs.length; j++) {
          const k = (round + b + j) % procs.length;
          sums[k] = added(sums[k], await phases(procs[k], `t${++tag}`, n / bursts));
        }
      sums.forEach((sum, k) => runs[k].push(sum));
    } finally {
      await Promise.all(procs.map((p) => p.close()));
    }
  }
  const floor = runs.at(-1);
  return runs.map((r) => {
    const ratios = r.map((x, i) => x.all / floor[i].all);
    const of = (k) => median(r.map((x) => x[k]));
    return {
      ratio: median(ratios),
      low: Math.min(...ratios),
      high: Math.max(...ratios),
      cpu: median(r.map((x, i) => x.cpu / floor[i].cpu)),
      ms: {
        all: of("all"),
        create: of("create"),
        read: of("read"),
        update: of("update"),
        delete: of("delete"),
      },
    };
  });
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
  const plugin = await started(undefined, sim);
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

async function pluginBench(report) {
  const dir = mkdtempSync(join(tmpdir(), "secops-bench-host-"));
  const sim = await createSimulator({ seed: 6 });
  try {
    const { host, floor, floorApi } = await writeAnchors(dir);
    const plugin = NativePluginProcess.executable;
    const node = (file) => [process.execPath, [file]];

    const sea = releaseExecutable();
    try {
      const [h, p, f, fa, exe] = await starts([
        node(host),
        node(plugin),
        node(floor),
        node(floorApi),
        [sea.exe, [], { PATH: "/nonexistent" }],
      ]);
      report(
        "plugin start to port ÷ Pulumi's Node.js provider host's (npm bin/, 21 starts each, medians)",
        `${x(p.wall, h.wall)} (${p.wall.toFixed(0)} / ${h.wall.toFixed(0)} ms; CPU by the port line ${x(p.cpu, h.cpu)}); ` +
          `floor: grpc-js + Pulumi's stubs bundled ${x(f.wall, h.wall)} (CPU ${x(f.cpu, h.cpu)}), ` +
          `with undici and zod in the file ${x(fa.wall, h.wall)} (CPU ${x(fa.cpu, h.cpu)})`,
        "<= 0.7x",
        p.wall / h.wall <= 0.7,
      );
      report(
        "release single executable (Node 26.10, V8 code cache) start to port ÷ the host's",
        `${x(exe.wall, h.wall)} (${exe.wall.toFixed(0)} / ${h.wall.toFixed(0)} ms)`,
        "<= 0.7x",
        exe.wall / h.wall <= 0.7,
      );
    } finally {
      sea.cleanup();
    }

    const [ih, ip, iF, iFa] = await idle([host, plugin, floor, floorApi], sim);
    report(
      "plugin idle RSS, configured ÷ the host's, configured (medians of 5)",
      `${x(ip, ih)} (${mb(ip)} / ${mb(ih)}); floor: grpc-js + stubs bundled ${x(iF, ih)} (${mb(iF)}), ` +
        `with undici and zod in the file ${x(iFa, ih)} (${mb(iFa)})`,
      "<= 0.9x",
      ip / ih <= 0.9,
    );

    const load = await underLoad(plugin, sim);
    const floorLoad = await underLoad(floorApi, sim);
    const hostLoad = await underLoad(host, sim);
    const grew = (l) => `${x(l.after, l.idle)} (${mb(l.idle)} -> ${mb(l.after)})`;
    report(
      `plugin RSS after ${load.ops} mixed operations (${LANES} at a time) and ${IDLE_AFTER_MS / 1000} s idle, no GC forced ÷ its own idle`,
      `${grew(load)}, peak ${mb(load.peak)}, plugin CPU ${(load.cpu / 1000).toFixed(1)} s; ` +
        `floor: grpc-js + stubs + one undici GET checked by zod per call ${grew(floorLoad)}; ` +
        `the host's trivial resource (no API call) ${grew(hostLoad)}`,
      "<= 1.6x",
      load.after / load.idle <= 1.6,
    );

    const [tp, tf] = await timed([plugin, floorApi], sim, dir);
    const phase = (t) =>
      `${(t.ms.all / 1000).toFixed(2)} s: create ${t.ms.create.toFixed(0)}, read ${t.ms.read.toFixed(0)}, ` +
      `update ${t.ms.update.toFixed(0)}, delete ${t.ms.delete.toFixed(0)} ms`;
    report(
      `plugin wall time of 2,000 operations (500 Creates, Reads, Updates, Deletes, ${TIMED_LANES} at a time) ÷ the floor's (one undici GET checked by zod per call; in bursts taking turns; medians of 5 rounds)`,
      `${tp.ratio.toFixed(2)}x (rounds ${tp.low.toFixed(2)}-${tp.high.toFixed(2)}; plugin ${phase(tp)}; ` +
        `floor ${phase(tf)}; CPU ${tp.cpu.toFixed(2)}x)`,
      "<= 1.5x",
      tp.ratio <= 1.5,
    );

    // Three rounds, each starting 20 of each kind at once (the host, the plugin, the floor calling the
    // API), in rotation; medians of each kind's totals.
    const kinds = [host, plugin, floorApi];
    const totals = kinds.map(() => []);
    for (let round = 0; round < 3; round++)
      for (let j = 0; j < kinds.length; j++) {
        const k = (round + j) % kinds.length;
        totals[k].push(await many(kinds[k], sim));
      }
    const [mh, mp, mf] = totals.map((t) => ({
      rss: median(t.map((m) => m.rss)),
      pss: median(t.map((m) => m.pss)),
    }));
    const gb = (v) => `${(v / 1024).toFixed(2)} GB`;
    report(
      "20 plugins started, configured and invoked at once: total RSS ÷ 20 hosts' (the same; medians of 3)",
      `${x(mp.rss, mh.rss)} (${gb(mp.rss)} / ${gb(mh.rss)}; PSS ${gb(mp.pss)} / ${gb(mh.pss)}); ` +
        `floor: grpc-js + stubs + one undici GET checked by zod ${x(mf.rss, mh.rss)} (${gb(mf.rss)}); ` +
        `the plugin's and the floor's Invoke call the API, the host's answers without it`,
      "<= 0.9x",
      mp.rss / mh.rss <= 0.9,
    );
  } finally {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  }

  const cache = await listsUnderWrites();
  report(
    "full lists for 1,000 Reads interleaved with 1,000 Updates through one plugin",
    `${cache.lists} (in ${cache.seconds.toFixed(1)} s)`,
    "<= 10",
    cache.lists <= 10,
  );
}

module.exports = { pluginBench, listsUnderWrites, underLoad, timed, started, memory };
