/**
 * A refresh reads HVA rules from one list (issue 13): through the runner and Pulumi's host, a refresh
 * of 60 rules sends one list request; a rule missing from the list is read on its own to tell
 * "deleted" from "not listed"; the provider's own writes never leave a stale list behind.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HvaAutomationRule } from "pulumi-secops";
import { createSimulator, type Simulator } from "secops-sim";
import { LifecycleRunner, linkPackage } from "../rig";
import { ROOT, built } from "../helpers/spawn";

built("resources/hva-automation-rule/index.js");
let sim: Simulator;
let dir: string;
beforeAll(async () => {
  sim = await createSimulator({ seed: 89 });
  dir = mkdtempSync(join(tmpdir(), "secops-refresh-list-"));
  linkPackage(dir, ROOT);
});
afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

const reads = async () => {
  const { requests } = await sim.control.stats();
  return {
    list: requests["GET /endpoint/hva/automation"] ?? 0,
    get: requests["GET /endpoint/hva/automation/{id}"] ?? 0,
  };
};

test("a refresh of 60 rules is one list request; a rule gone from the list is read on its own", async () => {
  const runner = new LifecycleRunner({
    program: () => {
      for (let i = 0; i < 60; i++)
        new HvaAutomationRule(`r${i}`, { field: "name", search: `refresh-list-${i}-*` });
    },
    programDir: dir,
    statePath: join(dir, "state.json"),
    config: { "secops:apiKey": sim.apiKeys.admin, "secops:baseUrl": sim.url },
  });
  try {
    await runner.up();
    await sim.control.resetStats();
    const first = await runner.refresh();
    expect(first.filter((s) => s.op === "same" && s.ok)).toHaveLength(60);
    expect(await reads()).toEqual({ list: 1, get: 0 });

    const [a, b] = runner.state().resources;
    await sim.control.deleteRule(a.id);
    await sim.control.patchRule(b.id, { enabled: false });
    await sim.control.resetStats();
    const second = await runner.refresh();
    expect(second.filter((s) => s.op !== "same").map((s) => [s.op, s.name, s.changes])).toEqual([
      ["gone", a.name, []],
      ["drift", b.name, ["enabled: true → false"]],
    ]);
    expect(await reads()).toEqual({ list: 1, get: 1 }); // the missing rule, read on its own

    // up writes (re-enable, recreate); the next refresh sees the written values, not a stale list.
    await runner.up();
    const third = await runner.refresh();
    expect(third.filter((s) => s.op !== "same")).toEqual([]);
    await runner.destroy();
  } finally {
    await runner.close();
  }
}, 120_000);
