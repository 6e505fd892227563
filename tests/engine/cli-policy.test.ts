/**
 * pulumi-secops/policy run by the real CLI (3.274.1, tests/helpers/pulumi-cli.ts), as a user turns
 * it on: `--policy-pack <package>/policy-pack/pulumi-analyzer-secops`, the executable the engine
 * starts directly (a pack folder would need Pulumi's Node.js language host, which cannot be built
 * here: .ci/pulumi-cli/build.sh). Native resources through Pulumi YAML, dynamic ones through the
 * Automation API. After every step the simulator's rules are counted and its writes read: a preview
 * or an up that a mandatory policy stops writes nothing. `pulumi policy analyze --file` judges a
 * deployed stack's export, with its exit code. One rule or user under two providers of one team is
 * refused at preview before anything is written: the provider's Check refuses it before the engine
 * asks the pack (issue 53), so the declared-once policies' own messages for it are asserted over gRPC
 * (tests/policy/), as the engine sends a preview, and here on an export. The searches are not the
 * simulator's seeded ones: a rule that exists already is refused at Check too.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createSimulator, type Simulator } from "secops-sim";
import { exec, pulumiCli, yamlProject } from "../helpers/pulumi-cli";
import { engineStack, type EngineStack } from "../helpers/pulumi-stack";
import { rules, writes } from "../helpers/sim-counts";
import { ROOT, built } from "../helpers/spawn";

jest.setTimeout(300_000);
built("policy/index.js");
built("plugin/pulumi-resource-secops.js");
const PACK = join(ROOT, "policy-pack", "pulumi-analyzer-secops");
const TEAM = "team-acme"; // the admin and analyst keys' team
const USER = "du-team-acme-005";

let sim: Simulator;
beforeAll(async () => {
  sim = await createSimulator({ seed: 444 });
});
afterAll(async () => {
  await sim?.close();
});

const D = {
  rule: "No two resources of the stack declare the same HVA rule (the same team's field and search).",
  user: "No two resources of the stack declare the settings of the same directory user.",
  adopt: "No rule with adoptExisting adopts a rule that another resource of the stack declares.",
  everything: "An HVA rule's search never matches every endpoint (`*`, `**`, or empty once trimmed).",
  limit: "An HVA rule's search is at most 4096 characters long, the longest the API takes.",
  field: "With strict on, an HVA rule searches only a field the spec lists (or allowedFields names).",
  age: "No HVA rule stays disabled for longer than maxDisabledDays (default 30).",
  exposed: "A DirectoryUserSettings does not turn credentialsExposed to false.",
  count: "A team has at most maxRulesPerTeam (default 100) HVA rules in the stack.",
};

/** A policy's lines as the CLI prints them: the violation's header, description and message. */
const shown = (
  level: string,
  severity: string,
  policy: string,
  where: string,
  description: string,
  message: string,
) =>
  `- [${level}] [severity: ${severity}]  ${policy}  (${where})\n          ${description}\n          ${message}`;

/** A Pulumi YAML program of native resources (the plugin from this checkout). */
function yaml(resources: string): string {
  return `name: guarded
runtime: yaml
plugins:
  providers:
    - name: secops
      path: ./node_modules/pulumi-secops/bin
config:
  teamKeyTwo:
    type: string
    secret: true
resources:
  p2:
    type: pulumi:providers:secops
    properties:
      apiKey: \${teamKeyTwo}
      baseUrl: \${secops:baseUrl}
${resources}`;
}

const rule = (name: string, search: string, extra = "") =>
  `  ${name}:\n    type: secops:index:HvaAutomationRule\n    properties:\n      field: name\n      search: ${JSON.stringify(search)}\n${extra}`;

describe("native resources (Pulumi YAML)", () => {
  let project: ReturnType<typeof yamlProject>;
  const pulumi = (...args: string[]) =>
    exec(join(pulumiCli().bin, "pulumi"), [...args, "--non-interactive"], project.dir, {
      ...process.env,
      ...project.env(),
    });
  const withPack = ["--policy-pack", PACK, "--policy-pack-config", "policy.json"];
  const program = (resources: string) => writeFileSync(join(project.dir, "Pulumi.yaml"), yaml(resources));
  const onP2 = "    options:\n      provider: ${p2}\n";
  // Deployed first: the default provider's and p2's teams show in their rules' teamId from then on.
  const deployed =
    rule("dc", "pol-dc-*") +
    rule("build", "pol-build-*", "      enabled: false\n") +
    rule("web", "pol-web-*", onP2);
  const R = "secops:index:HvaAutomationRule";
  const U = "secops:index:DirectoryUserSettings";

  beforeAll(async () => {
    project = yamlProject("policy");
    program("");
    expect(await pulumi("stack", "init", "dev")).toMatchObject({ code: 0 });
    expect(await pulumi("config", "set", "secops:baseUrl", sim.url)).toMatchObject({ code: 0 });
    expect(await pulumi("config", "set", "--secret", "secops:apiKey", sim.apiKeys.admin)).toMatchObject({
      code: 0,
    });
    expect(await pulumi("config", "set", "--secret", "teamKeyTwo", sim.apiKeys.analyst)).toMatchObject({
      code: 0,
    });
    // The pack's standard config file (`--policy-pack-config`): strict fields, three rules a team.
    writeFileSync(
      join(project.dir, "policy.json"),
      JSON.stringify({
        "secops-field-known": { strict: true },
        "secops-rules-per-team": { maxRulesPerTeam: 3 },
      }),
    );
  });
  afterAll(() => project?.remove());

  test("the clean program passes up with the pack (its preview's Policies section), and analyze passes its export (exit 0)", async () => {
    const before = await rules(sim);
    program(deployed);
    const up = await pulumi("up", "--yes", ...withPack);
    expect({ code: up.code, stderr: up.stderr }).toEqual({ code: 0, stderr: "" });
    expect(up.stdout).toContain(`✅ pulumi-secops@v`);
    expect(await rules(sim)).toEqual(
      [...before, `${TEAM} pol-build-* false`, `${TEAM} pol-dc-* true`, `${TEAM} pol-web-* true`].sort(),
    );
    expect(await pulumi("stack", "export", "--file", "clean.json")).toMatchObject({ code: 0 });
    const clean = await pulumi("policy", "analyze", "--policy-pack", PACK, "--file", "clean.json");
    expect({ code: clean.code, stderr: clean.stderr }).toEqual({ code: 0, stderr: "" });
  });

  test("a `*` search, a field not allowed, a cleared credentials mark and too many rules: preview and up fail with the policies' messages and write nothing", async () => {
    program(
      [
        deployed,
        rule("everything", "*"),
        `  by-host:\n    type: ${R}\n    properties:\n      field: hostname\n      search: pol-db-*\n`,
        `  ada:\n    type: ${U}\n    properties:\n      directoryUserId: ${USER}\n      credentialsExposed: false\n`,
      ].join(""),
    );
    const before = await rules(sim);
    await sim.control.resetStats();
    const preview = await pulumi("preview", ...withPack);
    expect(preview.code).not.toBe(0);
    const expected = [
      shown(
        "mandatory",
        "critical",
        "secops-search-not-everything",
        `${R}: everything`,
        D.everything,
        'search "*" matches every endpoint, so every endpoint would become a high-value asset; give a pattern that names the assets (e.g. "dc-*")',
      ),
      shown(
        "mandatory",
        "low",
        "secops-field-known",
        `${R}: by-host`,
        D.field,
        'field "hostname" is not one of the allowed fields (name)',
      ),
      shown(
        "advisory",
        "high",
        "secops-credentials-exposed-kept",
        `${U}: ada`,
        D.exposed,
        `credentialsExposed is set to false for directory user "${USER}", which clears the product's mark that the user's credentials are exposed, and keeps it cleared`,
      ),
    ];
    for (const e of expected) expect(preview.stdout).toContain(e);
    // The stack-wide advisory names no resource: the CLI shows it under the stack.
    expect(preview.stdout).toContain(
      `${D.count}\n          5 HVA rules of team ${TEAM} are declared in this stack, more than 3`,
    );
    expect(preview.stdout).not.toContain(sim.apiKeys.admin);
    expect(preview.stdout).not.toContain(sim.apiKeys.analyst);
    expect(await writes(sim)).toBe(0);
    expect(await rules(sim)).toEqual(before);

    // `up` previews first: the same violations stop it before any step runs.
    const up = await pulumi("up", "--yes", ...withPack);
    expect(up.code).not.toBe(0);
    for (const e of expected) expect(up.stdout).toContain(e);
    expect(await writes(sim)).toBe(0);
    expect(await rules(sim)).toEqual(before);

    // A search past the API's limit: the provider's Check refuses it too, and the engine stops at
    // that error, so it gets a preview of its own.
    program(deployed + rule("too-long", "x".repeat(4097)));
    const long = await pulumi("preview", ...withPack);
    expect(long.code).not.toBe(0);
    expect(long.stdout).toContain(
      shown(
        "mandatory",
        "medium",
        "secops-search-within-limit",
        `${R}: too-long`,
        D.limit,
        "search is 4097 characters long; the API takes at most 4096",
      ),
    );
    expect(await writes(sim)).toBe(0);
    expect(await rules(sim)).toEqual(before);
  });

  test("issue 53: one rule and one user under two providers of one team, and an adoption of the rule under the second: preview and up fail and write nothing", async () => {
    program(
      [
        deployed,
        rule("dc-adopt", "pol-dc-*", "      adoptExisting: true\n" + onP2),
        `  ada:\n    type: ${U}\n    properties:\n      directoryUserId: ${USER}\n      needsChatOpsWelcome: true\n`,
        `  ada-p2:\n    type: ${U}\n    properties:\n      directoryUserId: ${USER}\n      needsChatOpsWelcome: false\n${onP2}`,
      ].join(""),
    );
    const before = await rules(sim);
    await sim.control.resetStats();
    // The provider's Check refuses first (the engine then asks the pack nothing more); the pack's
    // own messages for the same program are tests/policy's.
    for (const command of [["preview"], ["up", "--yes"]]) {
      const res = await pulumi(...command, ...withPack);
      expect(res.code).not.toBe(0);
      expect(res.stdout).toMatch(/dc-adopt|ada-p2/);
      expect(await writes(sim)).toBe(0);
      expect(await rules(sim)).toEqual(before);
    }
  });

  test("pulumi policy analyze --file: a stack deployed without the pack is judged from its export, exit 1", async () => {
    // Deployed before the pack was turned on: a `*` search.
    program(deployed + rule("everything", "*"));
    const up = await pulumi("up", "--yes");
    expect({ code: up.code, stderr: up.stderr }).toEqual({ code: 0, stderr: "" });
    expect(await pulumi("stack", "export", "--file", "deployed.json")).toMatchObject({ code: 0 });
    // And p2's rule held a second time under the default provider, as a provider before issue 53
    // let a stack record it (its Check refuses that now): the export, edited to hold it twice.
    const exported = JSON.parse(readFileSync(join(project.dir, "deployed.json"), "utf8"));
    const resources = exported.deployment.resources as Array<{ urn: string; provider?: string }>;
    const web = resources.find((r) => r.urn.endsWith("::web"))!;
    const dc = resources.find((r) => r.urn.endsWith("::dc"))!;
    resources.push({ ...web, urn: web.urn.replace(/::web$/, "::web-again"), provider: dc.provider });
    writeFileSync(join(project.dir, "stack.json"), JSON.stringify(exported));
    const before = await rules(sim);
    await sim.control.resetStats();

    const analyze = await pulumi("policy", "analyze", "--policy-pack", PACK, "--file", "stack.json");
    expect(analyze.code).toBe(1);
    expect(analyze.stderr).toContain("error: one or more mandatory policy violations were found");
    expect(analyze.stdout).toContain(
      shown(
        "mandatory",
        "high",
        "secops-rule-declared-once",
        `${R}: web`,
        D.rule,
        `web and web-again declare the same HVA rule (field "name", search "pol-web-*") of team ${TEAM}: one API object held by 2 resources, which would change and delete it under each other`,
      ),
    );
    expect(analyze.stdout).toContain(
      shown(
        "mandatory",
        "critical",
        "secops-search-not-everything",
        `${R}: everything`,
        D.everything,
        'search "*" matches every endpoint, so every endpoint would become a high-value asset; give a pattern that names the assets (e.g. "dc-*")',
      ),
    );
    expect(await writes(sim)).toBe(0);
    expect(await rules(sim)).toEqual(before);

    // The provider records when it first saw a rule disabled (disabledAt, an output); the export is
    // aged by 45 days (the test cannot wait that long) and judged from its outputs.
    const doc = JSON.parse(readFileSync(join(project.dir, "deployed.json"), "utf8"));
    const build = doc.deployment.resources.find((r: { urn: string }) => r.urn.endsWith("::build"));
    expect(Date.now() - Date.parse(build.outputs.disabledAt)).toBeLessThan(3_600_000);
    const since = new Date(Date.now() - 45 * 86_400_000 - 3_600_000).toISOString();
    build.outputs.disabledAt = since;
    writeFileSync(join(project.dir, "aged.json"), JSON.stringify(doc));
    const aged = await pulumi("policy", "analyze", "--policy-pack", PACK, "--file", "aged.json");
    expect(aged.stdout).toContain(
      shown(
        "advisory",
        "low",
        "secops-disabled-rule-age",
        `${R}: build`,
        D.age,
        `build has been disabled since ${since} (45 days, more than 30): its assets are not marked high-value while it stays so`,
      ),
    );
    // The clean program's export passes: the first test. The stack stays deployed (nothing follows
    // on it; the dynamic tests count rules from what they find).
  });
});

describe("dynamic resources (Automation API), beside a native provider of the same team", () => {
  let s: EngineStack;
  beforeAll(async () => {
    s = await engineStack("policy-dynamic", join(ROOT, "tests", "engine", "programs", "dynamic-both.ts"));
    await s.config("secops:apiKey", sim.apiKeys.admin, true);
    await s.config("secops:baseUrl", sim.url);
    await s.config("nativeKey", sim.apiKeys.analyst, true);
  });
  afterAll(() => s?.remove());

  /** A program of dynamic resources and one explicit native provider (a migration half done). */
  const program = (body: string) =>
    writeFileSync(
      s.program,
      `import * as pulumi from "@pulumi/pulumi";
import { HvaAutomationRule } from "pulumi-secops";
import * as native from "pulumi-secops/native";
const config = new pulumi.Config();
const provider = new native.Provider("native", { apiKey: config.requireSecret("nativeKey"), baseUrl: new pulumi.Config("secops").require("baseUrl") });
new HvaAutomationRule("dc", { field: "name", search: "pol-dyn-dc-*" });
new native.HvaAutomationRule("sql", { field: "name", search: "pol-dyn-sql-*" }, { provider });
${body}
`,
    );
  const T = "pulumi-nodejs:dynamic/secops:HvaAutomationRule";

  test("up and preview with policyPacks: the clean program passes; a `**` search fails it, and so does the same rule as a dynamic and a native resource, and nothing is written; the workflow's analyze step passes the deployed export", async () => {
    const before = await rules(sim);
    program("");
    // up previews with the pack first, then deploys.
    const first = await s.op("up", { policyPacks: [PACK] });
    expect({ ok: first.ok, message: first.message }).toEqual({ ok: true, message: undefined });
    expect(first.stdout).toContain("✅ pulumi-secops@v");
    const deployed = [...before, `${TEAM} pol-dyn-dc-* true`, `${TEAM} pol-dyn-sql-* true`].sort();
    expect(await rules(sim)).toEqual(deployed);

    program(`new HvaAutomationRule("everything", { field: "name", search: "**" });`);
    await sim.control.resetStats();
    const preview = await s.op("preview", { policyPacks: [PACK] });
    expect(preview.ok).toBe(false);
    expect(preview.stdout).toContain(
      shown(
        "mandatory",
        "critical",
        "secops-search-not-everything",
        `${T}: everything`,
        D.everything,
        'search "**" matches every endpoint, so every endpoint would become a high-value asset; give a pattern that names the assets (e.g. "dc-*")',
      ),
    );
    expect(await writes(sim)).toBe(0);
    expect(await rules(sim)).toEqual(deployed);

    // The dynamic rule declared again as a native one under a provider of the same team: refused at
    // preview (by the provider's Check, or else by secops-rule-declared-once), nothing written.
    program(
      `new native.HvaAutomationRule("dc-native", { field: "name", search: "pol-dyn-dc-*" }, { provider });`,
    );
    const twice = await s.op("preview", { policyPacks: [PACK] });
    expect(twice.ok).toBe(false);
    expect(`${twice.stdout}${twice.message}`).toContain("dc-native");
    expect(await writes(sim)).toBe(0);
    expect(await rules(sim)).toEqual(deployed);

    // examples/ci-drift/drift.yml's policy step, its shell lines as written, on this stack's export.
    program("");
    const yml = readFileSync(join(ROOT, "examples", "ci-drift", "drift.yml"), "utf8");
    const step = yml.slice(yml.indexOf("- name: secops policy"));
    const lines = step
      .slice(step.indexOf("run: |") + "run: |".length)
      .split("\n")
      .slice(1);
    const run = lines
      .slice(
        0,
        lines.findIndex((l) => !/^ {10}\S/.test(l)),
      )
      .map((l) => l.trim());
    expect(run).toEqual([
      "pulumi policy analyze --policy-pack node_modules/pulumi-secops/policy-pack/pulumi-analyzer-secops --file stack.json",
    ]);
    expect(await s.pulumi(["stack", "export", "--file", "stack.json"])).toMatchObject({ code: 0 });
    const analyze = await s.cli(["policy", "analyze", ...run[0].split(" ").slice(3)]);
    expect({ code: analyze.code, stderr: analyze.stderr }).toEqual({ code: 0, stderr: "" });
    expect(analyze.stdout).toContain("✅ pulumi-secops@v");

    expect((await s.op("destroy")).ok).toBe(true);
    expect(await rules(sim)).toEqual(before);
  });
});
