/**
 * examples/hva-rules (dynamic resources) run by the real Pulumi CLI, built from its Go modules
 * (tests/helpers/pulumi-cli.ts), through the Automation API against the simulator. After every step
 * the simulator's rules are counted in every team, not what the CLI printed.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createSimulator, type Simulator } from "pulumi-secops/simulator";
import { engineStack, programFile, type EngineStack } from "../helpers/pulumi-stack";
import { ROOT, built, run } from "../helpers/spawn";

jest.setTimeout(180_000);
built("index.js");
const SECOPS = built("cli/secops.js");
let sim: Simulator;
let s: EngineStack;

/** Rules by team: "team search enabled" lines, sorted. */
async function rules(): Promise<string[]> {
  const { rules } = await sim.control.state();
  return rules.map((r) => `${r.teamId} ${r.search} ${r.enabled}`).sort();
}
/** Requests that write (PUT, PATCH, POST, DELETE) the simulator has answered, by route. */
async function writes(): Promise<number> {
  const { requests } = await sim.control.stats();
  return Object.entries(requests)
    .filter(([k]) => /^(PUT|PATCH|POST|DELETE) /.test(k))
    .reduce((a, [, n]) => a + n, 0);
}

beforeAll(async () => {
  sim = await createSimulator({ seed: 401 });
  const program = programFile(join(ROOT, "examples", "hva-rules", "index.ts"), require);
  s = await engineStack("hva-rules", program, {
    "secops:apiKey": { value: sim.apiKeys.admin, secret: true },
    "secops:baseUrl": { value: sim.url },
  });
});
afterAll(async () => {
  s?.remove();
  await sim?.close();
});

test("preview writes nothing; up creates the declared rules; a change by hand fails preview --expect-no-changes and up --refresh repairs it; destroy leaves what was there", async () => {
  const team = "team-acme"; // the admin key's team
  const before = await rules();
  await sim.control.resetStats();

  const preview = await s.stack.preview();
  expect(preview.changeSummary).toEqual({ create: 4 }); // the stack and three rules
  expect(await rules()).toEqual(before);
  expect(await writes()).toBe(0);

  const up = await s.stack.up();
  expect(up.summary.resourceChanges).toEqual({ create: 4 });
  expect(await rules()).toEqual(
    [...before, `${team} dc-* true`, `${team} sql-prod-* true`, `${team} build-* false`].sort(),
  );
  const ids = Object.fromEntries(Object.entries(up.outputs.ruleIds.value as Record<string, string>));

  // A change made by hand: the domain-controllers rule is disabled in the product.
  await sim.control.patchRule(ids["domain-controllers"], { enabled: false });
  const drifted = s.stack.preview({ refresh: true, expectNoChanges: true });
  // The engine's own words (exit code 7), and the drifted rule's plan line.
  await expect(drifted).rejects.toThrow(/no changes were expected for preview but changes were proposed/);
  await expect(drifted).rejects.toThrow(
    /~ +pulumi-nodejs:dynamic\/secops:HvaAutomationRule domain-controllers update/,
  );
  await expect(drifted).rejects.toThrow(/Command failed with exit code 7/);
  expect(await rules()).toContain(`${team} dc-* false`);

  const repair = await s.stack.up({ refresh: true });
  expect(repair.summary.resourceChanges).toMatchObject({ update: 1 });
  expect(await rules()).toEqual(
    [...before, `${team} dc-* true`, `${team} sql-prod-* true`, `${team} build-* false`].sort(),
  );
  await expect(s.stack.preview({ expectNoChanges: true })).resolves.toBeDefined();

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
      drifted: unknown[];
    }>;
  };
  const seeded = before.filter((r) => r.startsWith(`${team} `)).length; // the seed's rules: unmanaged too
  expect(report.teams.map((t) => t.teamId)).toEqual([team]);
  expect(report.teams[0].inSync.map((x) => x.id).sort()).toEqual(Object.values(ids).sort());
  expect(report.teams[0].drifted).toEqual([]);
  expect(report.teams[0].unmanaged.map((x) => x.id)).toContain(hand.id);
  expect(report.teams[0].unmanaged).toHaveLength(seeded + 1);

  const destroy = await s.stack.destroy();
  expect(destroy.summary.resourceChanges).toEqual({ delete: 4 });
  expect(await rules()).toEqual([...before, `${team} hand-made-* true`].sort());
});
