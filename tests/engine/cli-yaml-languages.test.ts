/**
 * Pulumi YAML against the native plugin, beyond tests/engine/cli-yaml.test.ts: an invoke with
 * arguments (getIntegrationCount) and a misspelt property name, refused by name before anything is
 * written. The project is examples/yaml-hva-rules with its Pulumi.yaml edited as a user would.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SecOpsClient } from "pulumi-secops/client";
import { createSimulator, type Simulator } from "secops-sim";
import { exec, pulumiCli, yamlProject } from "../helpers/pulumi-cli";
import { rules, writes } from "../helpers/sim-counts";
import { built } from "../helpers/spawn";

jest.setTimeout(300_000);
built("plugin/pulumi-resource-secops.js");
let sim: Simulator;
let project: ReturnType<typeof yamlProject>;

/** `pulumi <args>` in the project's folder, as a user runs it. */
const pulumi = (...args: string[]) =>
  exec(join(pulumiCli().bin, "pulumi"), [...args, "--non-interactive"], project.dir, {
    ...process.env,
    ...project.env(),
  });

/** Writes the example's Pulumi.yaml with `edit` applied (what it edits must be there). */
function program(edit: (yaml: string) => string): void {
  const edited = edit(original);
  expect(edited).not.toBe(original);
  writeFileSync(join(project.dir, "Pulumi.yaml"), edited);
}

let original: string;
beforeAll(async () => {
  sim = await createSimulator({ seed: 433 });
  project = yamlProject("yaml-languages");
  original = readFileSync(join(project.dir, "Pulumi.yaml"), "utf8");
  expect(await pulumi("stack", "init", "dev")).toMatchObject({ code: 0 });
  expect(await pulumi("config", "set", "secops:baseUrl", sim.url)).toMatchObject({ code: 0 });
  expect(await pulumi("config", "set", "--secret", "secops:apiKey", sim.apiKeys.admin)).toMatchObject({
    code: 0,
  });
});
afterAll(async () => {
  project?.remove();
  await sim?.close();
});

const COUNT = `  unhealthy:
    fn::invoke:
      function: secops:index:getIntegrationCount
      arguments:
        healthStatus: [unhealthy, unstable]
      return: totalCount
`;

// Pulumi YAML checks resource properties against the schema itself, before the plugin sees them
// (no request reaches the API): `up` previews first and stops there with the same output, so the
// preview is the check. An invoke's unknown argument is only a warning there, and the plugin's
// invoke refuses it while the program runs, as preview and up each run it.
const PREVIEW = [["preview"]];
const PREVIEW_AND_UP = [["preview"], ["up", "--yes"]];
test.each([
  [
    "a required property",
    ["      search: build-*", "      serch: build-*"],
    [
      "Cannot assign '{field: string, serch: string, enabled: boolean}' to 'secops:index:HvaAutomationRule':",
      "search: Missing required property 'search'",
    ],
    PREVIEW,
  ],
  [
    "an optional property",
    ["      enabled: false", "      enabld: false"],
    ["Property enabld does not exist on 'secops:index:HvaAutomationRule'"],
    PREVIEW,
  ],
  [
    "an invoke's argument",
    ["healthStatus: [", "healthStatuss: ["],
    [
      "secops:index:getIntegrationCount invoke failed: healthStatuss: is not an argument; did you mean healthStatus?",
    ],
    PREVIEW_AND_UP,
  ],
])("a misspelt name (%s): refused by name; nothing is written", async (_what, [right, wrong], said, ops) => {
  program((y) => y.replace("variables:\n", `variables:\n${COUNT}`).replace(right, wrong));
  const before = await rules(sim);
  await sim.control.resetStats();
  for (const op of ops) {
    const r = await pulumi(...op);
    expect(r.code).not.toBe(0);
    for (const line of said) expect(r.stdout).toContain(line);
  }
  // The schema's refusals: the plugin never even looked the key up.
  if (ops === PREVIEW) expect((await sim.control.stats()).requests).toEqual({});
  expect(await writes(sim)).toBe(0);
  expect(await rules(sim)).toEqual(before);
});

// Last: the stack it deploys stays (the cases above run on an empty stack, where an up that went
// ahead would create the example's rules).
test("an invoke with arguments: its result is a stack output, what the API counts", async () => {
  program((y) =>
    y
      .replace("variables:\n", `variables:\n${COUNT}`)
      .replace("outputs:\n", "outputs:\n  unhealthy: ${unhealthy}\n"),
  );
  const up = await pulumi("up", "--yes");
  expect({ code: up.code, stderr: up.stderr }).toEqual({ code: 0, stderr: "" });
  const client = new SecOpsClient({ apiKey: sim.apiKeys.admin, baseUrl: sim.url });
  const expected = await client.countIntegrations({ healthStatus: ["unhealthy", "unstable"] });
  expect(expected).toBeGreaterThan(0);
  expect(JSON.parse((await pulumi("stack", "output", "unhealthy", "--json")).stdout)).toBe(expected);
});
