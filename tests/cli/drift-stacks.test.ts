/**
 * Issue 53: `secops drift` where one team's rules are held across providers and stacks. Two resources
 * of one team (under two providers whose keys are of that team) holding identical rules, or one rule,
 * are a duplicate, never "clean"; a hand-made rule identical to a managed one is named as not managed,
 * never called the managed one's copy nor advised for deletion; the rules another stack holds (a
 * second `--state`) are "managed by <stack>", never unmanaged nor advised for adoption; a stack of
 * dynamic resources is advised `adoptExisting: true`, never a `pulumi import` line. The exports are
 * written as `pulumi stack export` writes them; the rules live in the simulator.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SecOpsClient } from "pulumi-secops/client";
import { driftReport, formatDrift, isClean, readManaged, type DriftReport } from "pulumi-secops/drift";
import { createSimulator, type Simulator } from "secops-sim";
import { built, run } from "../helpers/spawn";

const SECOPS = built("cli/secops.js");
const TEAM = "team-acme"; // the admin and analyst keys' team
const NATIVE = "secops:index:HvaAutomationRule";
const DYNAMIC = "pulumi-nodejs:dynamic/secops:HvaAutomationRule";
let sim: Simulator;
let api: SecOpsClient;
let dir: string;

beforeAll(async () => {
  sim = await createSimulator({ seed: 5353 });
  api = new SecOpsClient({ apiKey: sim.apiKeys.admin, baseUrl: sim.url });
  dir = mkdtempSync(join(tmpdir(), "secops-drift-stacks-"));
});
afterAll(async () => {
  await api.close();
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A resource of an export: a rule it holds, native under `provider` (a name) or dynamic. */
interface Held {
  name: string;
  id: string;
  search: string;
  provider?: string;
  dynamic?: boolean;
}

/** Writes a `pulumi stack export` document of stack `<project>/<stack>` holding `rules`; its path. */
function exportOf(project: string, stack: string, rules: Held[]): string {
  const urn = (type: string, name: string) => `urn:pulumi:${stack}::${project}::${type}::${name}`;
  const providers = [...new Set(rules.flatMap((r) => (r.provider ? [r.provider] : [])))].map((p) => ({
    urn: urn("pulumi:providers:secops", p),
    custom: true,
    id: `0000-${p}`,
    type: "pulumi:providers:secops",
    inputs: {
      apiKey: { "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", ciphertext: "x" },
    },
    outputs: {},
  }));
  const resources = rules.map((r) => ({
    urn: urn(r.dynamic ? DYNAMIC : NATIVE, r.name),
    custom: true,
    id: r.id,
    type: r.dynamic ? DYNAMIC : NATIVE,
    inputs: { field: "name", search: r.search, enabled: true },
    outputs: { field: "name", search: r.search, enabled: true, teamId: TEAM },
    provider: r.dynamic
      ? `${urn("pulumi:providers:pulumi-nodejs", "default")}::0000-dyn`
      : r.provider
        ? `${urn("pulumi:providers:secops", r.provider)}::0000-${r.provider}`
        : `${urn("pulumi:providers:secops", "default_0_1_0")}::0000-default`,
  }));
  const stackResource = {
    urn: urn("pulumi:pulumi:Stack", `${project}-${stack}`),
    custom: false,
    type: "pulumi:pulumi:Stack",
  };
  const path = join(dir, `${project}-${stack}-${Math.random().toString(36).slice(2)}.json`);
  const deployment = { manifest: {}, resources: [stackResource, ...providers, ...resources] };
  writeFileSync(path, JSON.stringify({ version: 3, deployment }));
  return path;
}

const rule = async (search: string) => (await api.createHvaRule({ field: "name", search })).id;
const keys = () => [{ name: "SECOPS_API_KEY", key: sim.apiKeys.admin }];
const team = (r: DriftReport) => r.teams.find((t) => t.teamId === TEAM)!;
const drift = (args: string[]) =>
  run(SECOPS, ["drift", ...args], { SECOPS_API_KEY: sim.apiKeys.admin, SECOPS_BASE_URL: sim.url });

test("case 1: identical rules held one each by resources under two providers of one team are a duplicate, never clean", async () => {
  const [a, b] = [await rule("c1-dc-*"), await rule("c1-dc-*")];
  const state = exportOf("guard", "dev", [
    { name: "dc", id: a, search: "c1-dc-*", provider: "p1" },
    { name: "dc-p2", id: b, search: "c1-dc-*", provider: "p2" },
  ]);
  const report = await driftReport(readManaged(state), { baseUrl: sim.url, keys: keys() });
  const urn = (n: string) => `urn:pulumi:dev::guard::${NATIVE}::${n}`;
  expect(team(report).duplicate).toEqual([{ id: a, urns: [urn("dc"), urn("dc-p2")], ids: [a, b] }]);
  expect(isClean(report)).toBe(false);
  const table = formatDrift(report, "table");
  expect(table).toContain(
    `2 identical rules (one field and search), one per resource, where the team should have one: keep dc (${a}) and remove dc-p2 from the program; the next up deletes only the rule each removed resource holds (${b})`,
  );
  expect(table).not.toContain("clean:");

  // One rule held by both (an adoption under the second provider): the same finding by id.
  const one = exportOf("guard", "dev", [
    { name: "dc", id: a, search: "c1-dc-*", provider: "p1" },
    { name: "dc-adopt", id: a, search: "c1-dc-*", provider: "p2" },
  ]);
  const held = await driftReport(readManaged(one), { baseUrl: sim.url, keys: keys() });
  expect(team(held).duplicate).toEqual([{ id: a, urns: [urn("dc"), urn("dc-adopt")] }]);
  const cli = await drift(["--state", one]);
  expect({ code: cli.code, stderr: cli.stderr }).toEqual({ code: 3, stderr: "" });
  expect(cli.stdout).toContain(
    `keep dc: pulumi state delete '${urn("dc-adopt")}', then remove dc-adopt from the program`,
  );
  for (const id of [a, b]) await api.deleteHvaRule(id);
});

test("case 3: an older hand-made rule identical to a managed one is not managed, never its copy, never to delete", async () => {
  const older = await rule("c3-sql-*"); // by hand, first
  const managed = await rule("c3-sql-*"); // the stack's create, later
  const state = exportOf("guard", "dev", [{ name: "sql", id: managed, search: "c3-sql-*" }]);
  const report = await driftReport(readManaged(state), { baseUrl: sim.url, keys: keys() });
  const t = team(report);
  expect(t.copy).toEqual([
    {
      id: older,
      field: "name",
      search: "c3-sql-*",
      enabled: true,
      of: `urn:pulumi:dev::guard::${NATIVE}::sql`,
    },
  ]);
  expect(t.unmanaged.map((u) => u.id)).not.toContain(older);
  expect(t.inSync.map((r) => r.id)).toEqual(expect.arrayContaining([managed]));
  const table = formatDrift(report, "table");
  const line = table.split("\n").find((l) => l.includes(older))!;
  expect(line).toMatch(/^ {2}identical +/);
  expect(line).toContain(
    `not managed, identical to the rule sql manages (in stack guard/dev): never import it (two resources would hold one rule); decide by hand which of the two the team keeps, or keep both on purpose with a line "${older} # why" in the ignore file`,
  );
  for (const text of [table, formatDrift(report, "markdown")]) {
    expect(text).not.toMatch(/copy of|delete it/);
  }
  expect(formatDrift(report, "markdown")).toContain("**Identical to another rule (not managed)**");
  for (const id of [older, managed]) await api.deleteHvaRule(id);
});

describe("several stacks of one team (--state again)", () => {
  let ids: Record<string, string>;
  let apps: string;
  let network: string;
  const urn = (stack: string, project: string, name: string) =>
    `urn:pulumi:${stack}::${project}::${NATIVE}::${name}`;

  beforeAll(async () => {
    ids = {};
    for (const [name, search] of [
      ["web", "st-web-*"],
      ["dc", "st-dc-*"],
      ["dc-hand", "st-dc-*"],
      ["both", "st-both-*"],
      ["mail-apps", "st-mail-*"],
      ["mail-net", "st-mail-*"],
      ["hand", "st-hand-*"],
    ])
      ids[name] = await rule(search);
    apps = exportOf("apps", "prod", [
      { name: "web", id: ids.web, search: "st-web-*", provider: "acme" },
      { name: "both", id: ids.both, search: "st-both-*", provider: "acme" },
      { name: "mail", id: ids["mail-apps"], search: "st-mail-*", provider: "acme" },
    ]);
    network = exportOf("network", "prod", [
      { name: "dc", id: ids.dc, search: "st-dc-*", provider: "team" },
      { name: "both", id: ids.both, search: "st-both-*", provider: "team" },
      { name: "mail", id: ids["mail-net"], search: "st-mail-*", provider: "team" },
    ]);
  });
  afterAll(async () => {
    for (const id of Object.values(ids)) await api.deleteHvaRule(id);
  });

  test("the other stack's rules are managed by it; a rule both hold, or identical ones, a duplicate; one identical to its rule is not managed; no export line", async () => {
    const res = await drift(["--state", apps, "--state", network, "--format", "json"]);
    expect({ code: res.code, stderr: res.stderr }).toEqual({ code: 3, stderr: "" });
    const t = team(JSON.parse(res.stdout) as DriftReport);
    expect(t.otherStacks).toEqual([
      {
        id: ids.dc,
        field: "name",
        search: "st-dc-*",
        enabled: true,
        stack: "network/prod",
        urn: urn("prod", "network", "dc"),
      },
      {
        id: ids["mail-net"],
        field: "name",
        search: "st-mail-*",
        enabled: true,
        stack: "network/prod",
        urn: urn("prod", "network", "mail"),
      },
    ]);
    const unmanaged = t.unmanaged.map((u) => u.id);
    for (const n of ["dc", "dc-hand", "both", "mail-net"]) expect(unmanaged).not.toContain(ids[n]);
    expect(unmanaged).toContain(ids.hand);
    expect(t.copy.filter((c) => c.search.startsWith("st-"))).toEqual([
      {
        id: ids["dc-hand"],
        field: "name",
        search: "st-dc-*",
        enabled: true,
        of: urn("prod", "network", "dc"),
      },
    ]);
    expect(t.duplicate).toEqual([
      { id: ids.both, urns: [urn("prod", "apps", "both"), urn("prod", "network", "both")] },
      {
        id: ids["mail-apps"],
        urns: [urn("prod", "apps", "mail"), urn("prod", "network", "mail")],
        ids: [ids["mail-apps"], ids["mail-net"]],
      },
    ]);
    // `secops hva export --state` reads one state: it would offer the other stack's rules.
    expect(t.adopt).toBeUndefined();

    const table = await drift(["--state", apps, "--state", network]);
    expect(table.stdout).toContain(
      `managed by network/prod (dc): nothing to do in this stack; never import or adopt it here (two stacks would hold one rule)`,
    );
    expect(table.stdout).toContain(
      `keep both: pulumi state delete '${urn("prod", "network", "both")}' (in stack network/prod), then remove both (in stack network/prod) from the program`,
    );
    expect(table.stdout).toContain(`not managed, identical to the rule dc manages (in stack network/prod)`);
    const markdown = await drift(["--state", apps, "--state", network, "--format", "markdown"]);
    expect(markdown.stdout).toContain("**Managed by other stacks**");
    expect(markdown.stdout).toContain(`| \`${ids.dc}\` | name | \`st-dc-*\` | \`network/prod\` | \`dc\` |`);

    // Without the second export, the other stack's rule is unmanaged again (today's one-stack report).
    const alone = JSON.parse((await drift(["--state", apps, "--format", "json"])).stdout) as DriftReport;
    expect(team(alone).unmanaged.map((u) => u.id)).toContain(ids.dc);
    expect(team(alone).otherStacks).toEqual([]);
  });

  test("one stack given twice is refused (exit 2)", async () => {
    const again = exportOf("apps", "prod", [{ name: "web", id: ids.web, search: "st-web-*" }]);
    const res = await drift(["--state", apps, "--state", network, "--state", again]);
    expect({ code: res.code, stdout: res.stdout }).toEqual({ code: 2, stdout: "" });
    expect(res.stderr).toBe(
      `secops: --state ${again} is an export of apps/prod, as --state ${apps} is: give each stack once\n`,
    );
  });
});

test("a stack of dynamic resources is advised adoptExisting: true, never a pulumi import line", async () => {
  const held = await rule("dyn-web-*");
  const hand = await rule("dyn-hand-*");
  const state = exportOf("site", "dev", [{ name: "web", id: held, search: "dyn-web-*", dynamic: true }]);
  const report = await driftReport(readManaged(state), {
    baseUrl: sim.url,
    keys: keys(),
    state: "stack.json",
  });
  const t = team(report);
  expect(t.unmanaged.find((u) => u.id === hand)).toEqual({
    id: hand,
    field: "name",
    search: "dyn-hand-*",
    enabled: true,
    import:
      'new secops.HvaAutomationRule("dyn-hand", { field: "name", search: "dyn-hand-*", enabled: true, adoptExisting: true })',
  });
  expect(t.unmanaged.filter((u) => u.import.startsWith("pulumi import"))).toEqual([]);
  expect(t.adopt).toBe("secops hva export --state stack.json --format typescript --out adopt-team-acme.ts");
  const table = formatDrift(report, "table");
  expect(table).toContain(
    "(each line is a declaration for the program: the next up takes over the identical rule (adoptExisting) instead of creating a second one)",
  );
  expect(table).not.toContain("pulumi import");
  for (const id of [held, hand]) await api.deleteHvaRule(id);
});
