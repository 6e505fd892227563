#!/usr/bin/env node
/**
 * `npm run bench`: the performance claims as ratios measured in one run (these machines are noisy,
 * so nothing here is a timed assertion). Needs the build (dist/ and the plugin bundle).
 *
 *   create via Pulumi's host / direct client call   (target <= 2x)
 *   serialized provider size                          (target <= 2 KB)
 *   sockets for 1,000 concurrent creates via the host (target <= maxConcurrency = 8)
 *   SecOpsClient ÷ raw undici Pool, same 10,000 requests at concurrency 64, CPU (target <= 1.15x)
 *   CSV export: peak RSS growth / export size growth  (target: flat, far below 1)
 *   cold require of the package / of @pulumi/pulumi    (target <= 1.10x)
 *   the runner at 100 and 1,000 rules: per-resource cost ratio, state bytes written, refresh requests
 *   secops drift at 5,000 live and 1,000 managed rules per team, 2 teams: the package's own time (< 2 s),
 *   lists per team (1)
 *   the plugin per team against Pulumi's own Node.js provider host (scripts/bench-plugin.js, issue 33):
 *   start to port (<= 0.7x), idle RSS configured (<= 0.9x), RSS after 2,000 operations and 5 s idle /
 *   its own idle (<= 1.6x), 20 at once configured and invoked (<= 0.9x)
 */
"use strict";
const { spawn } = require("node:child_process");
const { mkdtempSync, readFileSync, rmSync, statSync } = require("node:fs");
const { tmpdir } = require("node:os");
const { join } = require("node:path");

const { pluginBench } = require("./bench-plugin");
const { engineBench } = require("./bench-engine");

const ROOT = join(__dirname, "..");
const dist = (p) => require(join(ROOT, "dist", p));
const { SecOpsClient, HvaAutomationRule, DirectoryUserSettings } = dist("index.js");
// The simulator package (simulator/, a workspace: node_modules/secops-sim links it), built.
const { createSimulator, SimulatorControl } = require("secops-sim");
// The offline runner (tests/rig, not part of the package), bundled by requiring build-rig.
const rig = () => require(require("./build-rig").RIG);
const { DynamicProviderHost, declaredResources, linkPackage, secret } = rig();

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const now = () => Number(process.hrtime.bigint()) / 1e6;
const results = [];
const report = (name, value, target, ok) => {
  results.push(ok);
  console.log(`${ok ? "ok  " : "FAIL"} ${name}: ${value} (target ${target})`);
};

/** The simulator in its own process, as a real API would be: both paths reach it across processes. */
async function startSimProcess(extra = []) {
  const child = spawn(
    process.execPath,
    [require.resolve("secops-sim/cli"), "--json", "--seed", "2", ...extra],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const info = JSON.parse(
    await new Promise((resolve) => child.stdout.once("data", (c) => resolve(String(c)))),
  );
  const control = new SimulatorControl(info.url, info.controlToken);
  return { ...info, control, close: () => new Promise((r) => (child.once("exit", r), child.kill())) };
}

/** Median ms of `calls` sequential calls of each path, interleaved so machine noise hits both alike. */
async function interleaved(paths, calls = 200) {
  const times = paths.map(() => []);
  for (let i = 0; i < 20; i++) for (const p of paths) await p.f();
  for (let i = 0; i < calls; i++) {
    for (const [k, p] of paths.entries()) {
      const t = now();
      await p.f();
      times[k].push(now() - t);
    }
  }
  return times.map(median);
}

async function hostBench(work) {
  const declared = await declaredResources(() => {
    new HvaAutomationRule("bench", { field: "name", search: "bench-0" });
    new DirectoryUserSettings("bench-user", {
      directoryUserId: "du-team-acme-001",
      needsChatOpsWelcome: true,
    });
  });
  const sizes = declared.map((d) => d.inputs.__provider.length);
  report(
    "serialized provider size (bytes, largest)",
    Math.max(...sizes),
    "<= 2048",
    Math.max(...sizes) <= 2048,
  );
  const rule = declared.find((d) => d.name === "bench");
  let n = 0;
  const inputs = () => ({ ...rule.inputs, search: `bench-${++n}`, enabled: true, adoptExisting: false });

  for (const latencyMs of [0, 5]) {
    const sim = await startSimProcess(
      latencyMs ? ["--faults", JSON.stringify([{ kind: "latency", latencyMs, method: "PUT" }])] : [],
    );
    const host = await DynamicProviderHost.start(work);
    await host.configure({ "secops:apiKey": secret(sim.apiKeys.admin), "secops:baseUrl": sim.url });
    const client = new SecOpsClient({ apiKey: sim.apiKeys.admin, baseUrl: sim.url });
    const [direct, viaHost, check] = await interleaved([
      { f: () => client.createHvaRule({ field: "name", search: `direct-${++n}` }) },
      { f: () => host.create(rule.urn, inputs()) },
      { f: () => host.check(rule.urn, {}, rule.inputs) },
    ]);
    const ratio = viaHost / direct;
    const what = latencyMs ? `with ${latencyMs} ms of API latency` : "loopback, zero API latency";
    report(
      `create via host / direct client call, ${what}`,
      `${ratio.toFixed(2)}x (${viaHost.toFixed(2)} ms / ${direct.toFixed(2)} ms; a bare Check round trip to the host costs ${check.toFixed(2)} ms)`,
      "<= 2x",
      ratio <= 2,
    );
    if (latencyMs === 0) {
      await sim.control.resetStats();
      await Promise.all(Array.from({ length: 1000 }, () => host.create(rule.urn, inputs())));
      const stats = await sim.control.stats();
      report(
        "sockets opened for 1,000 concurrent creates via the host",
        stats.socketsOpened,
        "<= 8",
        stats.socketsOpened <= 8,
      );
    }
    await client.close();
    await host.close();
    await sim.close();
  }
}

/** The provider's own cost: its deserialized shim called in this process, against a direct call. */
async function providerOverheadBench(work) {
  const sim = await startSimProcess();
  const [rule] = await declaredResources(
    () => new HvaAutomationRule("overhead", { field: "name", search: "o" }),
  );
  const cwd = process.cwd();
  process.chdir(work); // the serialized requires resolve from the program's directory
  const requireFromString = require(
    require.resolve("require-from-string", { paths: [join(ROOT, "node_modules/@pulumi/pulumi")] }),
  );
  const shim = requireFromString(rule.inputs.__provider).handler();
  process.chdir(cwd);
  await shim.configure({
    config: { get: (k) => ({ "secops:apiKey": sim.apiKeys.admin, "secops:baseUrl": sim.url })[k] },
  });
  const client = new SecOpsClient({ apiKey: sim.apiKeys.admin, baseUrl: sim.url });
  let n = 0;
  const [direct, viaShim] = await interleaved([
    { f: () => client.createHvaRule({ field: "name", search: `d-${++n}` }) },
    { f: () => shim.create({ ...rule.inputs, search: `s-${++n}`, enabled: true, adoptExisting: false }) },
  ]);
  const ratio = viaShim / direct;
  report(
    "create via the serialized provider (no host) / direct client call",
    `${ratio.toFixed(2)}x (${viaShim.toFixed(2)} ms / ${direct.toFixed(2)} ms)`,
    "<= 2x",
    ratio <= 2,
  );
  await client.close();
  await sim.close();
}

/** A bare HTTP server in its own process answering one identity: the client and raw undici hit it alike. */
async function startFixedServer() {
  const code = `const body = JSON.stringify({ email: "svc@example.test", displayName: "svc", id: "svc-1", role: "ADMIN", teamId: "t", parentTeamId: "t" });
require("http").createServer((req, res) => { req.resume(); req.on("end", () => { res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) }); res.end(body); }); })
  .listen(0, "127.0.0.1", function () { process.stdout.write(this.address().port + "\\n"); });`;
  const child = spawn(process.execPath, ["-e", code], { stdio: ["ignore", "pipe", "inherit"] });
  const port = Number(await new Promise((r) => child.stdout.once("data", (c) => r(String(c)))));
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((r) => (child.once("exit", r), child.kill())),
  };
}

/**
 * SecOpsClient against raw undici.Pool.request: 10,000 GETs at concurrency 64 over 64 connections each,
 * this process's CPU (the server runs in its own); wall time shown.
 */
async function transportBench() {
  const undici = require(join(ROOT, "node_modules", "undici"));
  const { randomUUID } = require("node:crypto");
  const server = await startFixedServer();
  const N = 10_000;
  const C = 64;
  const key = "bench-key-0123456789";
  const pools = [];
  const pool = () => (
    pools.push(new undici.Pool(server.url, { connections: C, pipelining: 1 })),
    pools.at(-1)
  );
  const rawOf = (p, headers) => async () => {
    const res = await p.request({ path: "/v1/auth/me", method: "GET", headers: headers() });
    if (!(await res.body.json()).id) throw new Error("bad answer");
  };
  // The same requests the client sends (its user agent and a request id), and a bare variant.
  const same = rawOf(pool(), () => ({
    authorization: `Bearer ${key}`,
    "user-agent": "pulumi-secops/bench",
    accept: "application/json",
    "x-request-id": randomUUID(),
  }));
  const bare = rawOf(pool(), () => ({ authorization: `Bearer ${key}`, accept: "application/json" }));
  const client = new SecOpsClient({
    apiKey: key,
    baseUrl: server.url,
    maxConcurrency: C,
    dispatcher: pool(),
  });
  const ours = () => client.getIdentity();
  const run = async (f) => {
    let next = 0;
    const cpu0 = process.cpuUsage();
    const t0 = now();
    await Promise.all(
      Array.from({ length: C }, async () => {
        while (next++ < N) await f();
      }),
    );
    const cpu = process.cpuUsage(cpu0);
    return { wall: now() - t0, cpu: (cpu.user + cpu.system) / 1000 };
  };
  for (const f of [same, bare, ours]) await run(f);
  const runs = { same: [], bare: [], ours: [] };
  // 15 rounds, the order rotating each round, so neither side always runs on a warmer machine.
  const order = [
    ["same", same],
    ["bare", bare],
    ["ours", ours],
  ];
  for (let i = 0; i < 15; i++)
    for (let j = 0; j < order.length; j++) {
      const [k, f] = order[(i + j) % order.length];
      runs[k].push(await run(f));
    }
  const m = (k, what) => median(runs[k].map((r) => r[what]));
  const ratio = (what, base = "same") => m("ours", what) / m(base, what);
  report(
    `SecOpsClient ÷ raw undici Pool, CPU, ${N} GETs at concurrency ${C}, the same requests to the same local server`,
    `${ratio("cpu").toFixed(2)}x (${m("ours", "cpu").toFixed(0)} / ${m("same", "cpu").toFixed(0)} ms, medians of 15 rotating rounds; ` +
      `wall ${ratio("wall").toFixed(2)}x; vs a bare request without user agent and request id: CPU ${ratio("cpu", "bare").toFixed(2)}x)`,
    "<= 1.15x",
    ratio("cpu") <= 1.15,
  );
  await client.close();
  await Promise.all(pools.map((p) => p.close()));
  await server.close();
}

function runCli(args, env) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(ROOT, "dist/cli/secops.js"), ...args], {
      env: { ...process.env, ...env },
      stdio: "ignore",
    });
    let peak = 0;
    const timer = setInterval(() => {
      try {
        peak = Math.max(
          peak,
          Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))[1]),
        );
      } catch {
        /* exited */
      }
    }, 10);
    child.on("close", () => {
      clearInterval(timer);
      resolve(peak * 1024);
    });
  });
}

async function csvBench(work) {
  const sizes = [];
  const peaks = [];
  // From 1M rows (79 MB) to 3M (244 MB): below 1M the heap's own growth to its working size (GC
  // collects the stream's chunks lazily) looks like a cost per byte; past it the RSS is flat.
  for (const rows of [1_000_000, 3_000_000]) {
    const sim = await createSimulator({ seed: 3, csvRows: rows });
    const out = join(work, `cases-${rows}.csv`);
    peaks.push(
      await runCli(["cases", "export", "--out", out], {
        SECOPS_BASE_URL: sim.url,
        SECOPS_API_KEY: sim.apiKeys.admin,
      }),
    );
    sizes.push(statSync(out).size);
    await sim.close();
  }
  const ratio = (peaks[1] - peaks[0]) / (sizes[1] - sizes[0]);
  report(
    "CSV export: peak RSS growth / export size growth",
    `${ratio.toFixed(3)} (RSS ${(peaks[0] / 1e6).toFixed(0)} -> ${(peaks[1] / 1e6).toFixed(0)} MB for ${(sizes[0] / 1e6).toFixed(1)} -> ${(sizes[1] / 1e6).toFixed(0)} MB)`,
    "flat: < 0.1",
    ratio < 0.1,
  );
}

/**
 * The runner at N = 100 and N = 1,000 rules (simulator in its own process): ms per resource for up,
 * refresh and destroy (ratio N=1,000 / N=100), state bytes written per step / final state size, HTTP
 * requests of a refresh of 1,000 rules. State writes are counted by wrapping fs in this process.
 */
async function runnerBench(work) {
  const fs = require("node:fs");
  const { LifecycleRunner } = rig();
  let written = 0;
  // appendFileSync goes through fs.writeFileSync (flag "a"): wrapping that one counts every byte once.
  const real = fs.writeFileSync;
  fs.writeFileSync = (path, data, ...rest) => {
    if (String(path).includes("runner-bench")) written += Buffer.byteLength(data);
    return real(path, data, ...rest);
  };
  const sim = await startSimProcess();
  const perResource = {};
  try {
    for (const n of [100, 1000]) {
      const statePath = join(work, `runner-bench-${n}.json`);
      const runner = new LifecycleRunner({
        program: () => {
          for (let i = 0; i < n; i++)
            new HvaAutomationRule(`r${i}`, { field: "name", search: `runner-bench-${n}-${i}` });
        },
        programDir: work,
        statePath,
        config: { "secops:apiKey": sim.apiKeys.admin, "secops:baseUrl": sim.url },
      });
      const timed = {};
      for (const step of ["up", "refresh", "destroy"]) {
        if (step === "refresh") await sim.control.resetStats();
        written = 0;
        const t = now();
        const steps = await runner[step]();
        timed[step] = (now() - t) / n;
        if (steps.some((s) => !s.ok)) throw new Error(`${step} of ${n} rules had failures`);
        if (n === 1000 && step === "refresh") {
          const { requests } = await sim.control.stats();
          const total = Object.values(requests).reduce((a, b) => a + b, 0);
          report("HTTP requests for a refresh of 1,000 rules", total, "<= 10", total <= 10);
        }
        if (n === 1000 && step !== "destroy") {
          const finalSize = fs.statSync(statePath).size;
          const r = written / finalSize;
          report(
            `state bytes written by ${step} of 1,000 rules / final state size`,
            `${r.toFixed(2)} (${written} / ${finalSize} bytes)`,
            "<= 2",
            r <= 2,
          );
        }
      }
      await runner.close();
      perResource[n] = timed;
    }
  } finally {
    await sim.close();
  }
  for (const step of ["up", "refresh", "destroy"]) {
    const r = perResource[1000][step] / perResource[100][step];
    report(
      `runner ${step}: ms per resource at N=1,000 / at N=100`,
      `${r.toFixed(2)} (${perResource[1000][step].toFixed(2)} / ${perResource[100][step].toFixed(2)} ms)`,
      "<= 1.2",
      r <= 1.2,
    );
  }
  report(
    "runner up of 1,000 rules, ms per resource",
    perResource[1000].up.toFixed(2),
    "<= 5",
    perResource[1000].up <= 5,
  );
}

/** Cold `require` of the package vs of @pulumi/pulumi alone: 10 fresh processes each, medians. */
/**
 * The drift report (issue 20) at scale: 2 client teams with 5,000 live rules each, 1,000 of them
 * managed by a stack (10 drifted, 10 deleted out of band). The simulator runs in its own process, so
 * this process's CPU time is the package's own time (parsing the lists, comparing, formatting).
 */
async function driftBench(work) {
  const drift = dist("drift/index.js");
  const simState = join(work, "drift-sim.json");
  // A first start writes the simulator's state file; the rules are then added to it directly.
  let sim = await startSimProcess(["--state", simState]);
  await sim.control.patchUser("du-team-client-1-001", { credentialsExposed: false });
  await sim.close();
  const stored = JSON.parse(readFileSync(simState, "utf8"));
  const teams = ["team-client-1", "team-client-2"];
  const resources = [];
  for (const teamId of teams)
    for (let i = 0; i < 5000; i++) {
      const rule = {
        id: `hva-b-${teamId}-${i}`,
        teamId,
        enabled: true,
        searchField: "name",
        search: `bench-${i}-*`,
      };
      stored.rules.push(rule);
      if (i >= 1000) continue;
      const outputs = { field: "name", search: rule.search, enabled: i % 100 === 0 ? false : true, teamId };
      const id = i % 100 === 1 ? `${rule.id}-gone` : rule.id;
      resources.push({
        urn: `urn:pulumi:dev::bench::secops:index:HvaAutomationRule::${teamId}-${i}`,
        custom: true,
        id,
        type: "secops:index:HvaAutomationRule",
        inputs: outputs,
        outputs,
      });
    }
  require("node:fs").writeFileSync(simState, JSON.stringify(stored));
  const statePath = join(work, "drift-stack.json");
  require("node:fs").writeFileSync(statePath, JSON.stringify({ version: 3, deployment: { resources } }));
  sim = await startSimProcess(["--state", simState]);
  try {
    const keys = [
      { name: "C1", key: sim.apiKeys.client1Admin },
      { name: "C2", key: sim.apiKeys.client2Admin },
    ];
    const once = async () => {
      const cpu = process.cpuUsage();
      const t0 = now();
      const report = await drift.driftReport(drift.readManaged(statePath), { baseUrl: sim.url, keys });
      drift.formatDrift(report, "markdown");
      const used = process.cpuUsage(cpu);
      return { report, wall: now() - t0, own: (used.user + used.system) / 1000 };
    };
    await once(); // warm: the first run loads the modules
    await sim.control.resetStats();
    const runs = [];
    for (let i = 0; i < 5; i++) runs.push(await once());
    const stats = await sim.control.stats();
    const lists = stats.requests["GET /endpoint/hva/automation"] / runs.length / teams.length;
    const t = runs[0].report.teams[0];
    const own = median(runs.map((r) => r.own));
    report(
      "secops drift, 2 teams x 5,000 live / 1,000 managed rules: the package's own CPU time (median of 5)",
      `${own.toFixed(0)} ms (wall ${median(runs.map((r) => r.wall)).toFixed(0)} ms); ${lists} list(s) per team; ` +
        `team 1: ${t.inSync.length} in sync, ${t.drifted.length} drifted, ${t.deleted.length} deleted, ` +
        `${t.unmanaged.length} unmanaged, ${t.copy.length} copies`,
      "< 2000 ms, 1 list per team",
      own < 2000 &&
        lists === 1 &&
        // The 10 live rules whose resources' ids are gone share those resources' searches: drift lists
        // them as copies of the deleted rules (delete or ignore, never adopt), not as unmanaged.
        t.unmanaged.length === 4000 &&
        t.copy.length === 10 &&
        t.drifted.length === 10 &&
        t.deleted.length === 10,
    );
  } finally {
    await sim.close();
  }
}

function coldRequireBench() {
  const { execFileSync } = require("node:child_process");
  const timeOf = (mod) =>
    Number(
      execFileSync(process.execPath, [
        "-e",
        `const t = process.hrtime.bigint(); require(${JSON.stringify(mod)}); console.log(Number(process.hrtime.bigint() - t) / 1e6)`,
      ]),
    );
  const pkg = [];
  const pulumi = [];
  for (let i = 0; i < 10; i++) {
    pulumi.push(timeOf(require.resolve("@pulumi/pulumi")));
    pkg.push(timeOf(join(ROOT, "dist", "index.js")));
  }
  const ratio = median(pkg) / median(pulumi);
  report(
    "cold require of the package / of @pulumi/pulumi (10 processes each, medians)",
    `${ratio.toFixed(2)}x (${median(pkg).toFixed(0)} / ${median(pulumi).toFixed(0)} ms)`,
    "<= 1.10x",
    ratio <= 1.1,
  );
}

/**
 * Runs one part in a fresh `node scripts/bench.js` (its lines printed as they come); counts its results,
 * and a child that crashed or reported nothing as a miss.
 */
function partInChild(name) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, "scripts", "bench.js")], {
      env: { ...process.env, BENCH_ONLY: name, BENCH_CHILD: "1" },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (c) => {
      out += c;
      process.stdout.write(c);
    });
    child.on("error", reject);
    child.on("close", (code) => {
      for (const line of out.split("\n"))
        if (/^(ok {2}|FAIL) /.test(line)) results.push(line.startsWith("ok"));
      // A child that crashed without a FAIL line, or reported nothing, is a miss too.
      const reported = /^(ok {2}|FAIL) /m.test(out);
      if (!/^FAIL /m.test(out) && (code !== 0 || !reported)) results.push(false);
      resolve();
    });
  });
}

async function main() {
  const work = mkdtempSync(join(tmpdir(), "secops-bench-"));
  linkPackage(work, ROOT);
  try {
    // BENCH_ONLY=runner (or host, provider, transport, csv, require, drift, plugin, engine) runs one part.
    const only = process.env.BENCH_ONLY;
    const part = async (name, f) => (!only || only === name ? f() : undefined);
    await part("host", () => hostBench(work));
    await part("provider", () => providerOverheadBench(work));
    // In a process of its own in a whole run: the parts before it leave this one's heap large, and GC
    // work on that heap weighs on the side that allocates more. Both sides run in one process, in rotation.
    await part("transport", () => (only ? transportBench() : partInChild("transport")));
    await part("csv", () => csvBench(work));
    await part("require", () => coldRequireBench());
    await part("runner", () => runnerBench(work));
    await part("drift", () => driftBench(work));
    await part("plugin", () => pluginBench(report));
    await part("engine", () => engineBench(report, startSimProcess));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const failed = results.filter((ok) => !ok).length;
  if (!process.env.BENCH_CHILD) console.log(failed ? `${failed} target(s) missed` : "all targets met");
  return failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
