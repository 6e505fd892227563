/**
 * examples/hva-rules (dynamic resources) run by the real Pulumi CLI, built from its Go modules
 * (tests/helpers/pulumi-cli.ts), through the Automation API against the simulator. After every step
 * the simulator's rules are counted in every team, not what the CLI printed.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createSimulator, type Simulator } from "secops-sim";
import { rules, writes } from "../helpers/sim-counts";
import { engineStack, type EngineStack } from "../helpers/pulumi-stack";
import { ROOT, built, run } from "../helpers/spawn";

jest.setTimeout(180_000);
built("index.js");
const SECOPS = built("cli/secops.js");
let sim: Simulator;
let s: EngineStack;

beforeAll(async () => {
  sim = await createSimulator({ seed: 401 });
  s = await engineStack("hva-rules", join(ROOT, "examples", "hva-rules", "index.ts"));
  await s.config("secops:apiKey", sim.apiKeys.admin, true);
  await s.config("secops:baseUrl", sim.url);
});
afterAll(async () => {
  s?.remove();
  await sim?.close();
});

test("preview writes nothing; up creates the declared rules; a change by hand fails preview --expect-no-changes and up --refresh repairs it; destroy leaves what was there", async () => {
  const team = "team-acme"; // the admin key's team
  const before = await rules(sim);
  await sim.control.resetStats();

  const preview = await s.op("preview");
  expect(preview.changeSummary).toEqual({ create: 4 }); // the stack and three rules
  expect(await rules(sim)).toEqual(before);
  expect(await writes(sim)).toBe(0);

  const up = await s.op("up");
  expect(up.summary).toEqual({ create: 4 });
  expect(await rules(sim)).toEqual(
    [...before, `${team} dc-* true`, `${team} sql-prod-* true`, `${team} build-* false`].sort(),
  );
  const ids = Object.fromEntries(Object.entries(up.outputs!.ruleIds as Record<string, string>));

  // A change made by hand: the domain-controllers rule is disabled in the product.
  await sim.control.patchRule(ids["domain-controllers"], { enabled: false });
  const drifted = await s.op("preview", { refresh: true, expectNoChanges: true });
  // The engine's own words (exit code 7), and the drifted rule's plan line.
  expect(drifted.ok).toBe(false);
  expect(drifted.message).toContain("no changes were expected for preview but changes were proposed");
  expect(drifted.message).toContain("Command failed with exit code 7");
  expect(drifted.stdout).toMatch(
    /~ +pulumi-nodejs:dynamic\/secops:HvaAutomationRule domain-controllers update/,
  );
  expect(await rules(sim)).toContain(`${team} dc-* false`);

  const repair = await s.op("up", { refresh: true });
  expect(repair.summary).toMatchObject({ update: 1 });
  expect(await rules(sim)).toEqual(
    [...before, `${team} dc-* true`, `${team} sql-prod-* true`, `${team} build-* false`].sort(),
  );
  expect(await s.op("preview", { expectNoChanges: true })).toMatchObject({ ok: true });

  // The stack's export feeds `secops drift --state`: a hand-made rule is reported, exit 3.
  const hand = await sim.control.addRule({ teamId: team, searchField: "name", search: "hand-made-*" });
  const stateFile = join(s.dir, "state.json");
  writeFileSync(stateFile, (await s.pulumi(["stack", "export"])).stdout);
  const drift = await run(SECOPS, ["drift", "--state", stateFile, "--format", "json"], {
    SECOPS_API_KEY: sim.apiKeys.admin,
    SECOPS_BASE_URL: sim.url,
  });
  expect({ code: drift.code, stderr: drift.stderr }).toEqual({ code: 3, stderr: "" });
  const report = JSON.parse(drift.stdout) as {
    teams: Array<{
      teamId: string;
      inSync: Array<{ id: string }>;
      unmanaged: Array<{ id: string }>;
      copy: Array<{ search: string }>;
      drifted: unknown[];
    }>;
  };
  const seeded = before.filter((r) => r.startsWith(`${team} `)).length; // the seed's rules: unmanaged too
  expect(report.teams.map((t) => t.teamId)).toEqual([team]);
  expect(report.teams[0].inSync.map((x) => x.id).sort()).toEqual(Object.values(ids).sort());
  expect(report.teams[0].drifted).toEqual([]);
  expect(report.teams[0].unmanaged.map((x) => x.id)).toContain(hand.id);
  // No rule identical to a managed one (a create never makes a second): the seed's rules and the
  // hand-made one are unmanaged.
  expect(report.teams[0].copy).toEqual([]);
  expect(report.teams[0].unmanaged).toHaveLength(seeded + 1);

  const destroy = await s.op("destroy");
  expect(destroy.summary).toEqual({ delete: 4 });
  expect(await rules(sim)).toEqual([...before, `${team} hand-made-* true`].sort());
});
