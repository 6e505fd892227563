/**
 * examples/python-multi-team, a Python program using the SDK that Pulumi's code generator wrote
 * (sdk/python/, installed into a virtualenv with `pulumi` from PyPI), run by the real CLI against the
 * simulator: two client teams with a Provider and key each, HVA rules, directory-user settings and
 * the three data sources. The program runs through the Python Automation API (automate.py: Pulumi's
 * Python language host cannot be built here, see tests/helpers/pulumi-langs.ts); the stack, its
 * config and the state export are the CLI's own commands. A hand-made rule is adopted with the
 * `import` resource option: `pulumi import` itself needs the language host in a Python project
 * ("failed to load language plugin python"). The simulator's rules and users are counted after
 * every step.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createSimulator, type Simulator } from "secops-sim";
import { pythonProject, type PythonProject } from "../helpers/pulumi-langs";
import { releaseArchive } from "../helpers/pulumi-cli";
import { rules, writes } from "../helpers/sim-counts";
import { ROOT, built } from "../helpers/spawn";

jest.setTimeout(300_000);
built("plugin/pulumi-resource-secops.js");
const C1 = "team-client-1";
const C2 = "team-client-2";
const USERS = [`du-${C1}-001`, `du-${C2}-001`];
let sim: Simulator;

/** The chat-operations onboarding flag of each team's first directory user. */
async function onboarding(): Promise<Array<string>> {
  const { users } = await sim.control.state();
  return USERS.map((id) => `${id} ${users.find((u) => u.id === id)?.chatOpsOnboardingUser}`);
}

/**
 * The stack's config, the values README.md sets with `pulumi config set`, in one `pulumi config
 * set-all` (one CLI start): the keys as secrets.
 */
async function configure(p: PythonProject): Promise<void> {
  const set = await p.pulumi(
    "config",
    "set-all",
    "--plaintext",
    `baseUrl=${sim.url}`,
    "--secret",
    `client1ApiKey=${sim.apiKeys.client1Admin}`,
    "--secret",
    `client2ApiKey=${sim.apiKeys.client2Admin}`,
    "--plaintext",
    `secops:baseUrl=${sim.url}`,
    "--secret",
    `secops:apiKey=${sim.apiKeys.admin}`,
    "--plaintext",
    "caseId=case-003",
  );
  expect(set).toMatchObject({ code: 0 });
  // The keys are stored encrypted in the stack's settings file, never in plain text.
  const settings = readFileSync(join(p.dir, "Pulumi.dev.yaml"), "utf8");
  expect(settings.match(/secure: /g)).toHaveLength(3);
  for (const key of [sim.apiKeys.client1Admin, sim.apiKeys.client2Admin, sim.apiKeys.admin])
    expect(settings).not.toContain(key);
}

beforeAll(async () => {
  sim = await createSimulator({ seed: 431 });
});
afterAll(async () => {
  await sim?.close();
});

describe("examples/python-multi-team through the real engine", () => {
  let p: PythonProject;
  beforeAll(async () => {
    p = await pythonProject("python");
    await configure(p);
  });
  afterAll(() => p?.remove());

  test("preview, up, drift by hand found and repaired, import, destroy: the simulator counted at each step", async () => {
    const before = await rules(sim);
    const usersBefore = await onboarding();
    expect(usersBefore).toEqual(USERS.map((id) => `${id} false`));

    await sim.control.resetStats();
    const preview = await p.automate("preview");
    // stack, two providers, four rules, two users' settings
    expect(preview).toEqual({ ok: true, changeSummary: { create: 9 } });
    expect(await writes(sim)).toBe(0);
    expect(await rules(sim)).toEqual(before);

    const up = await p.automate("up");
    expect(up.summary).toEqual({ create: 9 });
    const declared = [`${C1} dc-* true`, `${C1} jump-* false`, `${C2} dc-* true`, `${C2} jump-* false`];
    expect(await rules(sim)).toEqual([...before, ...declared].sort());
    expect(await onboarding()).toEqual(USERS.map((id) => `${id} true`));
    // The three data sources, each with the key it was given.
    expect(up.outputs).toMatchObject({
      teamsManaged: { client1: `${C1} (ADMIN)`, client2: `${C2} (ADMIN)` },
      unhealthyIntegrations: { client1: expect.any(Number), client2: expect.any(Number) },
      indicatorCount: expect.any(Number),
    });
    expect(up.outputs!.indicatorCount as number).toBeGreaterThan(0);
    // The keys are secrets in the state.
    const exported = (await p.pulumi("stack", "export")).stdout;
    expect(exported).toContain('"secrets_providers"');
    for (const key of [sim.apiKeys.client1Admin, sim.apiKeys.client2Admin, sim.apiKeys.admin])
      expect(exported).not.toContain(key);

    // A change by hand in client 1: preview --refresh --expect-no-changes fails and writes nothing.
    const dc1 = (up.outputs!.domainControllerRules as Record<string, string>).client1;
    await sim.control.patchRule(dc1, { enabled: false });
    await sim.control.resetStats();
    const drifted = await p.automate("preview", "--refresh", "--expect-no-changes");
    expect(drifted.ok).toBe(false);
    expect(drifted.message).toContain("no changes were expected for preview but changes were proposed");
    expect(drifted.message).toMatch(/~ +secops:index:HvaAutomationRule client1-domain-controllers update/);
    expect(await writes(sim)).toBe(0);
    const handChanged = declared.map((r) => (r === `${C1} dc-* true` ? `${C1} dc-* false` : r));
    expect(await rules(sim)).toEqual([...before, ...handChanged].sort());

    const repaired = await p.automate("up", "--refresh");
    expect(repaired.summary).toEqual({ update: 1, same: 8 });
    expect(await rules(sim)).toEqual([...before, ...declared].sort());

    // A rule made by hand in client 2, adopted with the `import` option (config legacyRuleId).
    const legacy = await sim.control.addRule({ teamId: C2, searchField: "name", search: "legacy-*" });
    expect(await p.pulumi("config", "set", "legacyRuleId", legacy.id)).toMatchObject({ code: 0 });
    // Every other resource same: the repair left nothing pending.
    const adopt = await p.automate("up");
    expect(adopt.summary).toEqual({ import: 1, same: 9 });
    const withLegacy = [...before, ...declared, `${C2} legacy-* true`].sort();
    expect(await rules(sim)).toEqual(withLegacy);

    const destroy = await p.automate("destroy");
    expect(destroy.summary).toEqual({ delete: 10 });
    expect(await rules(sim)).toEqual(before);
    // restoreOnDelete: the users' flags are back to what they were.
    expect(await onboarding()).toEqual(usersBefore);
  });
});

test.each([
  [
    "the first rule's search",
    'field="name", search="dc-*"',
    'field="name", serch="dc-*"',
    "HvaAutomationRule",
    "serch",
  ],
  [
    "a provider's key",
    "api_key=config.require_secret",
    "api_kye=config.require_secret",
    "Provider",
    "api_kye",
  ],
])(
  "a misspelt keyword argument (%s): Python's TypeError, and up writes nothing",
  async (_what, right, wrong, cls, name) => {
    const example = readFileSync(join(ROOT, "examples", "python-multi-team", "__main__.py"), "utf8");
    expect(example).toContain(right);
    const p = await pythonProject("python-typo", { program: example.replace(right, wrong) });
    try {
      await configure(p);
      const before = await rules(sim);
      await sim.control.resetStats();
      // The program's evaluation raises it, the same in preview as in up: up, which would write.
      const r = await p.automate("up");
      expect(r.ok).toBe(false);
      expect(r.message).toContain(
        `TypeError: ${cls}._internal_init() got an unexpected keyword argument '${name}'`,
      );
      expect(await writes(sim)).toBe(0);
      expect(await rules(sim)).toEqual(before);
      // Nothing but the stack (and, for the rule, client 1's provider) reached the state.
      const state = JSON.parse((await p.pulumi("stack", "export")).stdout) as {
        deployment: { resources?: Array<{ type: string }> };
      };
      const types = (state.deployment.resources ?? []).map((r) => r.type);
      expect(types.filter((t) => t.startsWith("secops:"))).toEqual([]);
    } finally {
      p.remove();
    }
  },
);

test("with the release archive's single executable installed and no Node.js on PATH: up and destroy", async () => {
  const { VERSION } = await import("pulumi-secops");
  const archive = await releaseArchive();
  const p = await pythonProject("python-archive", { plugin: "installed" });
  try {
    const install = await p.pulumi("plugin", "install", "resource", "secops", VERSION, "--file", archive);
    expect(install.code).toBe(0);
    await configure(p);
    const before = await rules(sim);
    const up = await p.automate("up");
    expect(up.summary).toEqual({ create: 9 });
    expect(await rules(sim)).toEqual(
      [...before, `${C1} dc-* true`, `${C1} jump-* false`, `${C2} dc-* true`, `${C2} jump-* false`].sort(),
    );
    const destroy = await p.automate("destroy");
    expect(destroy.summary).toEqual({ delete: 9 });
    expect(await rules(sim)).toEqual(before);
  } finally {
    p.remove();
  }
});
