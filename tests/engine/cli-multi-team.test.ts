/**
 * examples/multi-team (native provider, one explicit Provider per client team, keys set as secrets)
 * run by the real Pulumi CLI through the Automation API against the simulator; the engine finds the
 * plugin pulumi-resource-secops on PATH (this checkout's bin/). Every team's rules are counted after
 * every step.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createSimulator, type Simulator } from "secops-sim";
import { rules, writes } from "../helpers/sim-counts";
import { engineStack, type EngineStack } from "../helpers/pulumi-stack";
import { ROOT, built, run } from "../helpers/spawn";

jest.setTimeout(240_000);
built("plugin/pulumi-resource-secops.js");
const SECOPS = built("cli/secops.js");
const C1 = "team-client-1";
const C2 = "team-client-2";
let sim: Simulator;
let s: EngineStack;

beforeAll(async () => {
  sim = await createSimulator({ seed: 402 });
  s = await engineStack("multi-team", join(ROOT, "examples", "multi-team", "index.ts"));
  // As the example's README says: the keys as secrets (`pulumi config set-all --secret`).
  await s.config("baseUrl", sim.url);
  await s.config("client1ApiKey", sim.apiKeys.client1Admin, true);
  await s.config("client2ApiKey", sim.apiKeys.client2Admin, true);
});
afterAll(async () => {
  s?.remove();
  await sim?.close();
});

test("two teams: preview writes nothing, up, an adopted rule, drift by hand repaired, the export feeds secops drift, destroy", async () => {
  const before = await rules(sim);
  await sim.control.resetStats();
  const preview = await s.op("preview");
  expect(preview.changeSummary).toEqual({ create: 7 }); // stack, 2 providers, 4 rules
  expect(await writes(sim)).toBe(0);
  expect(await rules(sim)).toEqual(before);

  const up = await s.op("up");
  expect(up.summary).toEqual({ create: 7 });
  const declared = [`${C1} dc-* true`, `${C1} jump-* false`, `${C2} dc-* true`, `${C2} jump-* false`];
  expect(await rules(sim)).toEqual([...before, ...declared].sort());
  expect(up.outputs!.teamsManaged).toEqual({ client1: `${C1} (ADMIN)`, client2: `${C2} (ADMIN)` });
  // The keys are secrets in the state: never in plain text.
  // (`pulumi stack export` as users run it; the Automation API's exportStack adds --show-secrets.)
  const exported = (await s.pulumi(["stack", "export"])).stdout;
  expect(exported).toContain('"secrets_providers"');
  expect(exported).not.toContain(sim.apiKeys.client1Admin);
  expect(exported).not.toContain(sim.apiKeys.client2Admin);

  // Adopt a rule made by hand in client 2 with the `import` option.
  const legacy = await sim.control.addRule({ teamId: C2, searchField: "name", search: "legacy-*" });
  await s.config("legacyRuleId", legacy.id);
  const adopt = await s.op("up");
  expect(adopt.summary).toEqual({ import: 1, same: 7 });
  expect(await rules(sim)).toEqual([...before, ...declared, `${C2} legacy-* true`].sort());

  // Drift by hand in client 1, found by preview --refresh, repaired by up --refresh.
  const c1dc = (up.outputs!.domainControllerRules as Record<string, string>).client1;
  await sim.control.patchRule(c1dc, { enabled: false });
  const drifted = await s.op("preview", { refresh: true, expectNoChanges: true });
  expect(drifted.message).toContain("no changes were expected for preview but changes were proposed");
  expect(drifted.stdout).toMatch(/~ +secops:index:HvaAutomationRule client1-domain-controllers update/);
  await sim.control.resetStats();
  const repaired = await s.op("up", { refresh: true });
  // The drifted rule alone: everything else, the imported rule included, is the same (the import
  // converged).
  expect(repaired.summary).toEqual({ update: 1, same: 7 });
  expect(await writes(sim)).toBe(1);
  expect(await rules(sim)).toEqual([...before, ...declared, `${C2} legacy-* true`].sort());

  // The export feeds `secops drift` with one key per team: every managed rule in sync.
  const stateFile = join(s.dir, "state.json");
  writeFileSync(stateFile, (await s.pulumi(["stack", "export"])).stdout);
  const drift = await run(
    SECOPS,
    ["drift", "--state", stateFile, "--key-env", "C1_KEY", "--key-env", "C2_KEY", "--format", "json"],
    { C1_KEY: sim.apiKeys.client1Admin, C2_KEY: sim.apiKeys.client2Admin, SECOPS_BASE_URL: sim.url },
  );
  const report = JSON.parse(drift.stdout) as {
    teams: Array<{
      teamId: string;
      managed: number;
      inSync: unknown[];
      drifted: unknown[];
      deleted: unknown[];
    }>;
  };
  expect(
    report.teams.map((t) => [t.teamId, t.managed, t.inSync.length, t.drifted.length, t.deleted.length]),
  ).toEqual([
    [C1, 2, 2, 0, 0],
    [C2, 3, 3, 0, 0],
  ]);

  const destroy = await s.op("destroy");
  expect(destroy.summary).toEqual({ delete: 8 });
  // The adopted rule was imported into the stack, so destroy deletes it too; everything else is as before.
  expect(await rules(sim)).toEqual(before);
});
