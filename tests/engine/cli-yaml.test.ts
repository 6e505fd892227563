/**
 * examples/yaml-hva-rules run by the real CLI alone: Pulumi YAML's language host (built beside the CLI
 * from its Go module) runs the program, so every step is the `pulumi` command a user types: stack
 * init, config set (the key as a secret), preview, up, a change by hand, preview --refresh
 * --expect-no-changes, up --refresh, pulumi import of a hand-made rule, stack export into secops
 * drift, destroy. The simulator's rules in every team are counted after each step.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createSimulator, type Simulator } from "secops-sim";
import { exec, pulumiCli, yamlProject } from "../helpers/pulumi-cli";
import { rules, writes } from "../helpers/sim-counts";
import { built, run } from "../helpers/spawn";

jest.setTimeout(300_000);
built("plugin/pulumi-resource-secops.js");
const SECOPS = built("cli/secops.js");
let sim: Simulator;
let dir: string;

let project: ReturnType<typeof yamlProject>;

/** `pulumi <args>` in the project's folder, as a user runs it. */
const pulumi = (...args: string[]) =>
  exec(join(pulumiCli().bin, "pulumi"), [...args, "--non-interactive"], dir, {
    ...process.env,
    ...project.env(),
  });

beforeAll(async () => {
  sim = await createSimulator({ seed: 407 });
  project = yamlProject("yaml");
  dir = project.dir;
});
afterAll(async () => {
  project?.remove();
  await sim?.close();
});

test("the README's commands, as typed: preview, up, drift by hand, refresh, import, export into drift, destroy", async () => {
  const team = "team-acme";
  const before = await rules(sim);
  expect(await pulumi("stack", "init", "dev")).toMatchObject({ code: 0 });
  expect(await pulumi("config", "set", "secops:baseUrl", sim.url)).toMatchObject({ code: 0 });
  expect(await pulumi("config", "set", "--secret", "secops:apiKey", sim.apiKeys.admin)).toMatchObject({
    code: 0,
  });
  expect(readFileSync(join(dir, "Pulumi.dev.yaml"), "utf8")).not.toContain(sim.apiKeys.admin);

  await sim.control.resetStats();
  const preview = await pulumi("preview");
  expect(preview.stderr).toBe("");
  expect(preview.code).toBe(0);
  expect(preview.stdout).toMatch(/\+ 3 to create/);
  expect(await writes(sim)).toBe(0);
  expect(await rules(sim)).toEqual(before);

  const up = await pulumi("up", "--yes");
  expect({ code: up.code, stderr: up.stderr }).toEqual({ code: 0, stderr: "" });
  expect(up.stdout).toMatch(/role\s*: "ADMIN"/);
  const declared = [`${team} dc-* true`, `${team} build-* false`];
  expect(await rules(sim)).toEqual([...before, ...declared].sort());
  const dc = JSON.parse((await pulumi("stack", "output", "domainControllers", "--json")).stdout) as string;

  await sim.control.patchRule(dc, { enabled: false });
  const drifted = await pulumi("preview", "--refresh", "--expect-no-changes");
  expect(drifted.code).not.toBe(0);
  expect(drifted.stdout).toMatch(/~ +secops:index:HvaAutomationRule +domain-controllers +update/);
  expect(drifted.stderr).toContain("no changes were expected for preview but changes were proposed");
  const repair = await pulumi("up", "--refresh", "--yes");
  expect(repair.code).toBe(0);
  expect(await rules(sim)).toEqual([...before, ...declared].sort());

  // pulumi import of a rule made by hand: the state holds it; the program must declare it too.
  const hand = await sim.control.addRule({ teamId: team, searchField: "name", search: "legacy-*" });
  const imported = await pulumi(
    "import",
    "secops:index:HvaAutomationRule",
    "legacy",
    hand.id,
    "--yes",
    "--out",
    "legacy.yaml",
  );
  expect({ code: imported.code, stderr: imported.stderr }).toEqual({ code: 0, stderr: "" });
  expect(readFileSync(join(dir, "legacy.yaml"), "utf8")).toContain("search: legacy-*");
  expect(await rules(sim)).toEqual([...before, ...declared, `${team} legacy-* true`].sort());

  // The export feeds secops drift: every managed rule in sync.
  expect(await pulumi("stack", "export", "--file", "stack.json")).toMatchObject({ code: 0 });
  const drift = await run(SECOPS, ["drift", "--state", join(dir, "stack.json"), "--format", "json"], {
    SECOPS_API_KEY: sim.apiKeys.admin,
    SECOPS_BASE_URL: sim.url,
  });
  const report = JSON.parse(drift.stdout) as {
    teams: Array<{ teamId: string; managed: number; inSync: unknown[] }>;
  };
  expect(report.teams.map((t) => [t.teamId, t.managed, t.inSync.length])).toEqual([[team, 3, 3]]);

  // pulumi import protects what it imports: destroy refuses it, and so deletes nothing at all.
  await sim.control.resetStats();
  const refused = await pulumi("destroy", "--yes");
  expect(refused.code).not.toBe(0);
  expect(refused.stdout).toContain(
    'resource "urn:pulumi:dev::yaml-hva-rules::secops:index:HvaAutomationRule::legacy" cannot be deleted\n    because it is protected',
  );
  expect(await writes(sim)).toBe(0);
  expect(await rules(sim)).toEqual([...before, ...declared, `${team} legacy-* true`].sort());
  const urn = "urn:pulumi:dev::yaml-hva-rules::secops:index:HvaAutomationRule::legacy";
  expect(await pulumi("state", "unprotect", urn, "--yes")).toMatchObject({ code: 0 });
  const destroy = await pulumi("destroy", "--yes");
  expect({ code: destroy.code, stderr: destroy.stderr }).toEqual({ code: 0, stderr: "" });
  // The imported rule was the stack's too: destroy deletes it with the others.
  expect(await rules(sim)).toEqual(before);
});
