#!/usr/bin/env node
/**
 * `npm run demo:native`: walks examples/multi-team (two client teams of the simulator's service
 * provider, one explicit native provider each) through preview, up, import of an existing rule,
 * an out-of-band change, refresh, repair and destroy, with the offline runner spawning the native
 * plugin `pulumi-resource-secops` once per provider instance, in the engine's call order (no Pulumi
 * CLI needed). Exits 0 only when every step did what it printed.
 */
"use strict";
const { mkdtempSync, readFileSync, rmSync } = require("node:fs");
const { tmpdir } = require("node:os");
const { join } = require("node:path");

const { ROOT, buildIfNeeded, checker, rerunQuietly, run, stepsOf } = require("./demo-kit");

async function main() {
  buildIfNeeded("plugin/pulumi-resource-secops.js");
  const { createSimulator } = require("secops-sim");
  const { SecOpsClient } = require("pulumi-secops/client");
  const { LifecycleRunner, formatSteps, linkPackage } = require(require("./build-rig").RIG); // the offline runner (tests/rig)
  // As `npm install` in the example would: its `pulumi-secops/native` import resolves to this checkout.
  linkPackage(join(ROOT, "examples", "multi-team"), ROOT);

  const sim = await createSimulator({ seed: 7 });
  const work = mkdtempSync(join(tmpdir(), "secops-demo-native-"));
  const keys = { client1: sim.apiKeys.client1Admin, client2: sim.apiKeys.client2Admin };
  const config = {
    "multi-team:baseUrl": sim.url,
    "multi-team:client1ApiKey": keys.client1,
    "multi-team:client2ApiKey": keys.client2,
  };
  const secretKeys = ["multi-team:client1ApiKey", "multi-team:client2ApiKey"];
  const runnerWith = (extra = {}) =>
    new LifecycleRunner({
      program: join(ROOT, "examples", "multi-team", "index.ts"),
      programDir: work,
      statePath: join(work, "state.json"),
      config: { ...config, ...extra },
      secretKeys,
      stack: "demo",
    });
  let runner = runnerWith();
  const { problems, expect, show } = checker(formatSteps);
  const live = async () => (await sim.control.state()).rules;
  const byName = (name) => runner.state().resources.find((r) => r.name === name);
  const writes = async () =>
    Object.entries((await sim.control.stats()).requests).filter(([k]) => /^(PUT|PATCH|DELETE) /.test(k))
      .length;
  console.log(
    `pulumi-secops native demo: simulator at ${sim.url}; program examples/multi-team; plugin pulumi-resource-secops`,
  );

  try {
    await sim.control.resetStats();
    const preview = await stepsOf(runner.preview());
    show("preview", preview, runner.outputs());
    expect(
      preview.length === 4 && preview.every((s) => s.op === "create") && (await writes()) === 0,
      "preview plans 4 creates and sends no write",
    );
    expect(
      JSON.stringify(runner.outputs().teamsManaged) ===
        JSON.stringify({ client1: "team-client-1 (ADMIN)", client2: "team-client-2 (ADMIN)" }),
      "getIdentity runs in each team's plugin, even in preview",
    );

    show("up", await stepsOf(runner.up()), runner.outputs());
    let rules = await live();
    const teamOf = (name) => rules.find((r) => r.id === byName(name)?.id)?.teamId;
    expect(
      ["client1", "client2"].every(
        (t) =>
          teamOf(`${t}-domain-controllers`) === `team-${t.replace("client", "client-")}` &&
          teamOf(`${t}-jump-hosts`) === `team-${t.replace("client", "client-")}`,
      ),
      "each team's rules were made with that team's key (team-client-1, team-client-2)",
    );

    console.log("\n== a rule made by hand in team-client-2 is adopted with the import option");
    const client2 = new SecOpsClient({ apiKey: keys.client2, baseUrl: sim.url });
    const legacy = await client2.createHvaRule({ field: "name", search: "legacy-*" });
    await client2.close();
    console.log(
      `   rule ${legacy.id} (name=legacy-*) created outside Pulumi; config legacyRuleId=${legacy.id}`,
    );
    runner = runnerWith({ "multi-team:legacyRuleId": legacy.id });
    await sim.control.resetStats();
    show("up (import)", await stepsOf(runner.up()));
    expect(
      byName("client2-legacy")?.id === legacy.id && (await writes()) === 0,
      "client2-legacy is in the state with the existing id; nothing was written",
    );

    console.log("\n== out-of-band change (someone disables a rule in the console)");
    const dc = byName("client1-domain-controllers");
    await sim.control.patchRule(dc.id, { enabled: false });
    console.log(`   rule ${dc.id} (client1-domain-controllers) disabled`);
    const refresh = await stepsOf(runner.refresh());
    show("refresh", refresh);
    expect(
      refresh.some((s) => s.name === "client1-domain-controllers" && s.op === "drift"),
      "refresh shows client1-domain-controllers drifted",
    );

    show("up (repair)", await stepsOf(runner.up()));
    rules = await live();
    expect(
      rules.find((r) => r.id === dc.id)?.enabled === true,
      "client1-domain-controllers is enabled again",
    );

    const finalIds = runner.state().resources.map((r) => r.id);
    show("destroy", await stepsOf(runner.destroy()));
    rules = await live();
    expect(
      finalIds.length === 5 &&
        finalIds.every((id) => !rules.some((r) => r.id === id)) &&
        runner.state().resources.length === 0,
      "destroy removed all 5 rules and emptied the state",
    );
    const text = readFileSync(join(work, "state.json"), "utf8") + runner.hostStderr;
    expect(
      !text.includes(keys.client1) && !text.includes(keys.client2),
      "neither team's key is in the state file or the plugins' output",
    );
  } finally {
    await runner.close();
    await sim.close();
    rmSync(work, { recursive: true, force: true });
  }
  return problems;
}

if (!rerunQuietly()) run(main);
