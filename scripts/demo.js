#!/usr/bin/env node
/**
 * `npm run demo`: walks examples/hva-rules through preview -> up -> an out-of-band change -> refresh
 * -> up (repair) -> destroy against a local simulator, through Pulumi's real dynamic-provider host
 * (no Pulumi CLI needed). Prints a plan-like report; exits 0 only when every step did what it printed.
 */
"use strict";
const { mkdtempSync, readFileSync, rmSync } = require("node:fs");
const { tmpdir } = require("node:os");
const { join } = require("node:path");

const { ROOT, buildIfNeeded, checker, rerunQuietly, run, stepsOf } = require("./demo-kit");

async function main() {
  buildIfNeeded("index.js");
  // The package by its own name (self-reference through "exports"), as the example imports it.
  const { createSimulator } = require("secops-sim");
  const { LifecycleRunner, formatSteps, linkPackage } = require(require("./build-rig").RIG); // the offline runner (tests/rig)

  const sim = await createSimulator({ seed: 7 });
  const work = mkdtempSync(join(tmpdir(), "secops-demo-"));
  linkPackage(work, ROOT); // the host resolves the serialized provider from the program's directory
  const runner = new LifecycleRunner({
    program: join(ROOT, "examples", "hva-rules", "index.ts"),
    programDir: work,
    statePath: join(work, "state.json"),
    config: { "secops:apiKey": sim.apiKeys.admin, "secops:baseUrl": sim.url },
    project: "hva-rules",
    stack: "demo",
  });
  const { problems, expect, show } = checker(formatSteps);
  const live = async () => (await sim.control.state()).rules;
  const byName = (name) => runner.state().resources.find((r) => r.name === name);
  console.log(
    `pulumi-secops demo: simulator at ${sim.url}; program examples/hva-rules; Pulumi's dynamic-provider host`,
  );

  try {
    await sim.control.resetStats();
    const preview = await stepsOf(runner.preview());
    show("preview", preview);
    const stats = await sim.control.stats();
    const writes = Object.entries(stats.requests).filter(([k]) => /^(PUT|PATCH|DELETE) /.test(k)).length;
    expect(
      preview.every((s) => s.op === "create") && writes === 0,
      "preview plans 3 creates and sends no write",
    );

    show("up", await stepsOf(runner.up()));
    let rules = await live();
    const ids = runner.state().resources.map((r) => r.id);
    expect(
      ids.length === 3 && ids.every((id) => rules.some((r) => r.id === id)),
      "3 rules exist in the API with the ids in state",
    );
    expect(
      rules.find((r) => r.id === byName("build-agents").id)?.enabled === false,
      "build-agents is disabled as declared",
    );

    console.log("\n== out-of-band change (someone edits the console)");
    const dc = byName("domain-controllers");
    const db = byName("production-databases");
    await sim.control.patchRule(dc.id, { enabled: false });
    await sim.control.deleteRule(db.id);
    console.log(
      `   rule ${dc.id} (domain-controllers) disabled; rule ${db.id} (production-databases) deleted`,
    );

    const refresh = await stepsOf(runner.refresh());
    show("refresh", refresh);
    expect(
      refresh.some((s) => s.name === "domain-controllers" && s.op === "drift"),
      "refresh shows domain-controllers drifted",
    );
    expect(
      refresh.some((s) => s.name === "production-databases" && s.op === "gone"),
      "refresh drops production-databases",
    );

    const repair = await stepsOf(runner.up());
    show("up (repair)", repair);
    rules = await live();
    expect(rules.find((r) => r.id === dc.id)?.enabled === true, "domain-controllers is enabled again");
    const recreated = byName("production-databases");
    expect(
      recreated && recreated.id !== db.id && rules.some((r) => r.id === recreated.id),
      "production-databases was recreated",
    );

    const finalIds = runner.state().resources.map((r) => r.id);
    show("destroy", await stepsOf(runner.destroy()));
    rules = await live();
    expect(
      finalIds.every((id) => !rules.some((r) => r.id === id)) && runner.state().resources.length === 0,
      "destroy removed every rule and emptied the state",
    );
    const key = sim.apiKeys.admin;
    expect(
      !readFileSync(join(work, "state.json"), "utf8").includes(key) && !runner.hostStderr.includes(key),
      "the API key is in neither the state file nor the host's output",
    );
  } finally {
    await runner.close();
    await sim.close();
    rmSync(work, { recursive: true, force: true });
  }
  return problems;
}

if (!rerunQuietly()) run(main);
