/**
 * pulumi-secops/policy through its Analyzer gRPC service, as the engine drives it (./analyzer.ts):
 * each policy's exact message, for native and dynamic resources, with what the engine sends during
 * a preview (unknown outputs) and on a deployed stack (known teams). The engine's side of the same
 * policies is tests/engine/cli-policy.test.ts.
 */
import { VERSION } from "pulumi-secops";
import { PACK_NAME, policies } from "pulumi-secops/policy";
import { UNKNOWN, secretValue, startPack, type Pack, type Provider, type Res } from "./analyzer";

jest.setTimeout(60_000);

let pack: Pack;
beforeAll(async () => {
  pack = await startPack();
});
afterAll(async () => {
  await pack?.close();
});
// The pack keeps the last configuration sent: each test starts from the defaults.
beforeEach(() => pack.configure({}));

const KEY_ONE = "key-of-team-one-8c1f";
const KEY_TWO = "key-of-team-one-too-31aa";

let stackNo = 0;
/** A fresh stack per test: the pack remembers inputs by URN for the length of a process. */
function stack() {
  const s = `t${++stackNo}`;
  const urn = (type: string, name: string) => `urn:pulumi:${s}::guard::${type}::${name}`;
  const provider = (name: string, key: string): Provider => ({
    urn: urn("pulumi:providers:secops", name),
    type: "pulumi:providers:secops",
    name,
    props: { apiKey: secretValue(key), baseUrl: "https://secops.example.test" },
  });
  const dynamicProvider: Provider = {
    urn: urn("pulumi:providers:pulumi-nodejs", "default"),
    type: "pulumi:providers:pulumi-nodejs",
    name: "default",
    props: {},
  };
  /** A rule: native under `p`, dynamic under the pulumi-nodejs provider; `teamId` UNKNOWN for a create in preview. */
  const rule = (
    name: string,
    p: Provider,
    args: { field?: string; search: string; enabled?: boolean; adoptExisting?: boolean },
    teamId: string = UNKNOWN,
    extraOutputs: Record<string, unknown> = {},
  ): Res => {
    const dynamic = p.type === "pulumi:providers:pulumi-nodejs";
    const inputs = { field: "name", enabled: true, adoptExisting: false, ...args };
    return {
      urn: urn(
        dynamic ? "pulumi-nodejs:dynamic/secops:HvaAutomationRule" : "secops:index:HvaAutomationRule",
        name,
      ),
      type: dynamic ? "pulumi-nodejs:dynamic/secops:HvaAutomationRule" : "secops:index:HvaAutomationRule",
      provider: p,
      inputs: dynamic ? { ...inputs, __provider: "exports.handler = ..." } : inputs,
      outputs: {
        field: inputs.field,
        search: inputs.search,
        enabled: inputs.enabled,
        teamId,
        ...extraOutputs,
        ...(dynamic ? { __provider: "exports.handler = ..." } : {}),
      },
    };
  };
  const user = (
    name: string,
    p: Provider,
    args: { directoryUserId: string; credentialsExposed?: boolean },
    teamId: string = UNKNOWN,
  ): Res => {
    const dynamic = p.type === "pulumi:providers:pulumi-nodejs";
    const type = dynamic
      ? "pulumi-nodejs:dynamic/secops:DirectoryUserSettings"
      : "secops:index:DirectoryUserSettings";
    return {
      urn: urn(type, name),
      type,
      provider: p,
      inputs: { restoreOnDelete: false, ...args },
      outputs: { ...args, teamId, previousValues: {}, restoreOnDelete: false },
    };
  };
  return { urn, provider, dynamicProvider, rule, user };
}

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

test("GetAnalyzerInfo: the pack's name and version, and each policy's level, severity, remediation and framework", async () => {
  const info = await pack.info();
  expect({ name: info.name, version: info.version, supportsConfig: info.supportsconfig }).toEqual({
    name: PACK_NAME,
    version: VERSION,
    supportsConfig: true,
  });
  const levels = ["advisory", "mandatory"];
  const severities = ["unspecified", "low", "medium", "high", "critical"];
  expect(info.policiesList.map((p) => [p.name, levels[p.enforcementlevel], severities[p.severity]])).toEqual([
    ["secops-rule-declared-once", "mandatory", "high"],
    ["secops-user-declared-once", "mandatory", "high"],
    ["secops-adopt-undeclared-only", "mandatory", "high"],
    ["secops-search-not-everything", "mandatory", "critical"],
    ["secops-search-within-limit", "mandatory", "medium"],
    ["secops-field-known", "mandatory", "low"],
    ["secops-disabled-rule-age", "advisory", "low"],
    ["secops-credentials-exposed-kept", "advisory", "high"],
    ["secops-rules-per-team", "advisory", "low"],
  ]);
  for (const p of info.policiesList) {
    expect(p.remediationSteps.length).toBeGreaterThan(20);
    expect(p.framework).toEqual({
      name: "pulumi-secops guardrails",
      version: VERSION,
      reference: `docs/policy.md#${p.name}`,
      specification: expect.any(String),
    });
  }
  expect(policies).toHaveLength(info.policiesList.length);
  const configured = info.policiesList.filter((p) => p.configschema).map((p) => p.name);
  expect(configured).toEqual(["secops-field-known", "secops-disabled-rule-age", "secops-rules-per-team"]);
});

describe("secops-rule-declared-once", () => {
  test("two creates of one provider (teams unknown in preview): refused, naming the provider's team", async () => {
    const s = stack();
    const p1 = s.provider("p1", KEY_ONE);
    const d = await pack.run([
      s.rule("dc", p1, { search: "dc-*" }),
      s.rule("dc-again", p1, { search: "dc-*" }),
      s.rule("dc-other-field", p1, { search: "dc-*", field: "hostname" }),
    ]);
    expect(d).toEqual([
      {
        policyName: "secops-rule-declared-once",
        message: `${D.rule}\ndc and dc-again declare the same HVA rule (field "name", search "dc-*") of the team of provider p1: one API object held by 2 resources, which would change and delete it under each other`,
        urn: s.urn("secops:index:HvaAutomationRule", "dc"),
        enforcementLevel: "mandatory",
        severity: "high",
      },
    ]);
  });

  test("across two providers once each shows its team (a deployed rule's teamId): refused, naming the team", async () => {
    const s = stack();
    const p1 = s.provider("p1", KEY_ONE);
    const p2 = s.provider("p2", KEY_TWO);
    const d = await pack.run([
      s.rule("dc", p1, { search: "dc-*" }, "team-acme"),
      s.rule("sql", p2, { search: "sql-*" }, "team-acme"),
      s.rule("dc-p2", p2, { search: "dc-*" }), // a create in preview: its own teamId is unknown
    ]);
    expect(d.map((x) => x.message)).toEqual([
      `${D.rule}\ndc and dc-p2 declare the same HVA rule (field "name", search "dc-*") of team team-acme: one API object held by 2 resources, which would change and delete it under each other`,
    ]);
    expect(JSON.stringify(d)).not.toContain(KEY_ONE);
    expect(JSON.stringify(d)).not.toContain(KEY_TWO);
  });

  test("the same search in two teams, or under providers of different keys no resource of which shows a team: no violation", async () => {
    const s = stack();
    const p1 = s.provider("p1", KEY_ONE);
    const p2 = s.provider("p2", KEY_TWO);
    const p3 = s.provider("p3", "key-of-a-third-team-77d0");
    expect(
      await pack.run([
        s.rule("dc", p1, { search: "dc-*" }, "team-acme"),
        s.rule("dc-client", p2, { search: "dc-*" }, "team-client1"),
        s.rule("dc-new", p3, { search: "dc-*" }),
      ]),
    ).toEqual([]);
  });

  test("issue 53 case 1: two new providers given one API key (no team shown yet, first preview): refused, naming both providers, never the key", async () => {
    const s = stack();
    const p1 = s.provider("p1", KEY_ONE);
    const p2 = s.provider("p2", KEY_ONE);
    const d = await pack.run([s.rule("dc", p1, { search: "dc-*" }), s.rule("dc-p2", p2, { search: "dc-*" })]);
    expect(d).toEqual([
      {
        policyName: "secops-rule-declared-once",
        message: `${D.rule}\ndc and dc-p2 declare the same HVA rule (field "name", search "dc-*") of the team of providers p1 and p2 (one API key): one API object held by 2 resources, which would change and delete it under each other`,
        urn: s.urn("secops:index:HvaAutomationRule", "dc"),
        enforcementLevel: "mandatory",
        severity: "high",
      },
    ]);
    expect(JSON.stringify(d) + pack.stderr()).not.toContain(KEY_ONE);
  });

  test("issue 53 case 1: a new provider given the key of a deployed one takes its team (the default provider's key is its config)", async () => {
    const s = stack();
    const byDefault = s.provider("default_0_1_0", KEY_ONE);
    const extra = s.provider("extra-timeouts", KEY_ONE);
    const d = await pack.run([
      s.rule("dc", byDefault, { search: "dc-*" }, "team-acme"),
      s.rule("dc-extra", extra, { search: "dc-*" }),
      s.user("ada", byDefault, { directoryUserId: "du-7" }, "team-acme"),
      s.user("ada-extra", extra, { directoryUserId: "du-7" }),
    ]);
    expect(d.map((x) => [x.policyName, x.message, x.urn])).toEqual([
      [
        "secops-rule-declared-once",
        `${D.rule}\ndc and dc-extra declare the same HVA rule (field "name", search "dc-*") of team team-acme: one API object held by 2 resources, which would change and delete it under each other`,
        s.urn("secops:index:HvaAutomationRule", "dc"),
      ],
      [
        "secops-user-declared-once",
        `${D.user}\nada and ada-extra declare the settings of the same directory user "du-7" of team team-acme: each would write the flags the other sets`,
        s.urn("secops:index:DirectoryUserSettings", "ada"),
      ],
    ]);
  });

  test("a key not known in preview (computed) joins no group: the provider stays a team of its own", async () => {
    const s = stack();
    const p1 = s.provider("p1", KEY_ONE);
    const p2 = { ...s.provider("p2", KEY_ONE), props: { apiKey: UNKNOWN } };
    expect(
      await pack.run([s.rule("dc", p1, { search: "dc-*" }), s.rule("dc-p2", p2, { search: "dc-*" })]),
    ).toEqual([]);
  });

  test("dynamic resources (one team: the stack's key), a search not known yet is skipped", async () => {
    const s = stack();
    const dyn = s.dynamicProvider;
    const d = await pack.run([
      s.rule("a", dyn, { search: "web-*" }),
      s.rule("b", dyn, { search: "web-*" }),
      s.rule("c", dyn, { search: "web-*" }),
      s.rule("computed", dyn, { search: UNKNOWN }),
    ]);
    expect(d).toEqual([
      expect.objectContaining({
        message: `${D.rule}\na, b and c declare the same HVA rule (field "name", search "web-*") of the team of the dynamic resources' key (stack config secops:apiKey): one API object held by 3 resources, which would change and delete it under each other`,
        urn: s.urn("pulumi-nodejs:dynamic/secops:HvaAutomationRule", "a"),
      }),
    ]);
  });
});

describe("secops-user-declared-once", () => {
  test("native and dynamic: two resources of one directory user are refused", async () => {
    const s = stack();
    const p1 = s.provider("default", KEY_ONE);
    const d = await pack.run([
      s.user("ada", p1, { directoryUserId: "du-7" }),
      s.user("ada-again", p1, { directoryUserId: "du-7" }),
      s.user("bob", p1, { directoryUserId: "du-8" }),
      s.user("dyn-1", s.dynamicProvider, { directoryUserId: "du-9" }, "team-acme"),
      s.user("dyn-2", s.dynamicProvider, { directoryUserId: "du-9" }, "team-acme"),
    ]);
    expect(d.map((x) => [x.policyName, x.message, x.urn, x.enforcementLevel])).toEqual([
      [
        "secops-user-declared-once",
        `${D.user}\nada and ada-again declare the settings of the same directory user "du-7" of the team of the default secops provider: each would write the flags the other sets`,
        s.urn("secops:index:DirectoryUserSettings", "ada"),
        "mandatory",
      ],
      [
        "secops-user-declared-once",
        `${D.user}\ndyn-1 and dyn-2 declare the settings of the same directory user "du-9" of team team-acme: each would write the flags the other sets`,
        s.urn("pulumi-nodejs:dynamic/secops:DirectoryUserSettings", "dyn-1"),
        "mandatory",
      ],
    ]);
  });
});

describe("secops-adopt-undeclared-only", () => {
  test("adoptExisting (an input: read from Analyze) on a rule another resource declares", async () => {
    const s = stack();
    const p1 = s.provider("p1", KEY_ONE);
    const p2 = s.provider("p2", KEY_TWO);
    const d = await pack.run([
      s.rule("dc", p1, { search: "dc-*" }, "team-acme"),
      s.rule("dc-adopt", p2, { search: "dc-*", adoptExisting: true }, "team-acme"),
      s.rule("legacy-adopt", p2, { search: "legacy-*", adoptExisting: true }, "team-acme"),
    ]);
    expect(d.filter((x) => x.policyName === "secops-adopt-undeclared-only")).toEqual([
      {
        policyName: "secops-adopt-undeclared-only",
        message: `${D.adopt}\ndc-adopt adopts (adoptExisting) the HVA rule (field "name", search "dc-*") of team team-acme, which dc declares too: the adoption would hold a rule another resource holds`,
        urn: s.urn("secops:index:HvaAutomationRule", "dc-adopt"),
        enforcementLevel: "mandatory",
        severity: "high",
      },
    ]);
  });

  test("issue 53 case 2: adoptExisting under a second provider of the same key, in the preview that adds it: refused by both policies", async () => {
    const s = stack();
    const p1 = s.provider("p1", KEY_ONE);
    const p2 = s.provider("p2", KEY_ONE);
    const d = await pack.run([
      s.rule("dc", p1, { search: "dc-*" }, "team-acme"),
      s.rule("dc-adopt", p2, { search: "dc-*", adoptExisting: true }),
    ]);
    expect(d.map((x) => [x.policyName, x.message, x.urn])).toEqual([
      [
        "secops-rule-declared-once",
        `${D.rule}\ndc and dc-adopt declare the same HVA rule (field "name", search "dc-*") of team team-acme: one API object held by 2 resources, which would change and delete it under each other`,
        s.urn("secops:index:HvaAutomationRule", "dc"),
      ],
      [
        "secops-adopt-undeclared-only",
        `${D.adopt}\ndc-adopt adopts (adoptExisting) the HVA rule (field "name", search "dc-*") of team team-acme, which dc declares too: the adoption would hold a rule another resource holds`,
        s.urn("secops:index:HvaAutomationRule", "dc-adopt"),
      ],
    ]);
  });
});

describe("secops-search-not-everything", () => {
  test.each([["*"], ["**"], ["  "], [""], [" * "]])(
    "search %j is refused (native and dynamic)",
    async (search) => {
      const s = stack();
      const d = await pack.run([
        s.rule("all", s.provider("p1", KEY_ONE), { search }),
        s.rule("dyn-all", s.dynamicProvider, { search }),
        s.rule("dc", s.provider("p1", KEY_ONE), { search: "dc-*" }),
      ]);
      const message = `${D.everything}\nsearch ${JSON.stringify(search)} matches every endpoint, so every endpoint would become a high-value asset; give a pattern that names the assets (e.g. "dc-*")`;
      expect(d).toEqual([
        {
          policyName: "secops-search-not-everything",
          message,
          urn: s.urn("secops:index:HvaAutomationRule", "all"),
          enforcementLevel: "mandatory",
          severity: "critical",
        },
        {
          policyName: "secops-search-not-everything",
          message,
          urn: s.urn("pulumi-nodejs:dynamic/secops:HvaAutomationRule", "dyn-all"),
          enforcementLevel: "mandatory",
          severity: "critical",
        },
      ]);
    },
  );
});

describe("secops-search-within-limit", () => {
  test("4097 characters are refused, 4096 pass", async () => {
    const s = stack();
    const p1 = s.provider("p1", KEY_ONE);
    const d = await pack.run([
      s.rule("long", p1, { search: `${"x".repeat(4096)}*` }),
      s.rule("longest", p1, { search: "y".repeat(4096) }),
    ]);
    expect(d).toEqual([
      {
        policyName: "secops-search-within-limit",
        message: `${D.limit}\nsearch is 4097 characters long; the API takes at most 4096`,
        urn: s.urn("secops:index:HvaAutomationRule", "long"),
        enforcementLevel: "mandatory",
        severity: "medium",
      },
    ]);
  });
});

describe("secops-field-known", () => {
  test("off by default; with strict on a field the spec does not list is refused; allowedFields widens it", async () => {
    const s = stack();
    const p1 = s.provider("p1", KEY_ONE);
    const r = s.rule("by-host", p1, { field: "hostname", search: "db-*" });
    expect(await pack.run([r])).toEqual([]);

    await pack.configure({ "secops-field-known": { strict: true } });
    expect(await pack.analyze(r)).toEqual([
      {
        policyName: "secops-field-known",
        message: `${D.field}\nfield "hostname" is not one of the allowed fields (name)`,
        urn: r.urn,
        enforcementLevel: "mandatory",
        severity: "low",
      },
    ]);
    await pack.configure({ "secops-field-known": { strict: true, allowedFields: ["name", "hostname"] } });
    expect(await pack.analyze(r)).toEqual([]);
  });
});

describe("secops-disabled-rule-age", () => {
  test("a rule whose disabledAt is older than maxDisabledDays (default 30); none without disabledAt", async () => {
    const s = stack();
    const p1 = s.provider("p1", KEY_ONE);
    const since = new Date(Date.now() - 40 * 86_400_000 - 3_600_000).toISOString();
    const old = s.rule("old", p1, { search: "old-*", enabled: false }, "team-acme", { disabledAt: since });
    const resources = [
      old,
      s.rule("recent", p1, { search: "new-*", enabled: false }, "team-acme", {
        disabledAt: new Date(Date.now() - 86_400_000).toISOString(),
      }),
      s.rule("on-again", p1, { search: "on-*" }, "team-acme", { disabledAt: since }),
      s.rule("no-time", p1, { search: "nt-*", enabled: false }, "team-acme"),
    ];
    expect(await pack.analyzeStack(resources)).toEqual([
      {
        policyName: "secops-disabled-rule-age",
        message: `${D.age}\nold has been disabled since ${since} (40 days, more than 30): its assets are not marked high-value while it stays so`,
        urn: old.urn,
        enforcementLevel: "advisory",
        severity: "low",
      },
    ]);
    await pack.configure({ "secops-disabled-rule-age": { maxDisabledDays: 40 } });
    expect(await pack.analyzeStack(resources)).toEqual([]);
  });
});

describe("secops-credentials-exposed-kept", () => {
  test("credentialsExposed false is an advisory; true or unset is not", async () => {
    const s = stack();
    const p = s.provider("default", KEY_ONE);
    const cleared = s.user("ada", p, { directoryUserId: "du-7", credentialsExposed: false });
    const d = await pack.run([
      cleared,
      s.user("bob", p, { directoryUserId: "du-8", credentialsExposed: true }),
      s.user("cy", s.dynamicProvider, { directoryUserId: "du-9" }),
    ]);
    expect(d).toEqual([
      {
        policyName: "secops-credentials-exposed-kept",
        message: `${D.exposed}\ncredentialsExposed is set to false for directory user "du-7", which clears the product's mark that the user's credentials are exposed, and keeps it cleared`,
        urn: cleared.urn,
        enforcementLevel: "advisory",
        severity: "high",
      },
    ]);
  });
});

describe("secops-rules-per-team", () => {
  test("more rules of one team than maxRulesPerTeam (default 100): an advisory for the stack", async () => {
    const s = stack();
    const p1 = s.provider("p1", KEY_ONE);
    const p2 = s.provider("p2", KEY_TWO);
    const resources = [
      s.rule("a", p1, { search: "a-*" }, "team-acme"),
      s.rule("b", p1, { search: "b-*" }),
      s.rule("c", p2, { search: "c-*" }),
      s.rule("d", p2, { search: "d-*" }),
    ];
    expect(await pack.run(resources)).toEqual([]);
    await pack.configure({ "secops-rules-per-team": { maxRulesPerTeam: 1 } });
    expect(await pack.analyzeStack(resources)).toEqual([
      {
        policyName: "secops-rules-per-team",
        message: `${D.count}\n2 HVA rules of the team of provider p2 are declared in this stack, more than 1`,
        urn: "",
        enforcementLevel: "advisory",
        severity: "low",
      },
      {
        policyName: "secops-rules-per-team",
        message: `${D.count}\n2 HVA rules of team team-acme are declared in this stack, more than 1`,
        urn: "",
        enforcementLevel: "advisory",
        severity: "low",
      },
    ]);
  });
});

test("a level set in the pack's config applies (mandatory to advisory); no key in anything the pack said", async () => {
  const s = stack();
  await pack.configure({ "secops-search-not-everything": { enforcementLevel: "advisory" } });
  const d = await pack.run([s.rule("all", s.provider("p1", KEY_ONE), { search: "*" })]);
  expect(d.map((x) => [x.policyName, x.enforcementLevel])).toEqual([
    ["secops-search-not-everything", "advisory"],
  ]);
  expect(pack.stderr()).not.toContain(KEY_ONE);
  expect(pack.stderr()).not.toContain(KEY_TWO);
});
