/**
 * schema.json validates against Pulumi's package metaschema, and the schema, the plugin's tables and
 * the native SDK agree on every token and property name.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import Ajv2020 from "ajv/dist/2020";
import * as pulumi from "@pulumi/pulumi";
import * as native from "pulumi-secops/native";
import { nativeResource } from "../../provider/native/plugin/resource-rpcs";
import { RESOURCES } from "../../provider/resources/framework/registry";
import { NATIVE_FUNCTIONS } from "../../provider/native/plugin/invoke";
import { CONFIG_PROPERTIES } from "../../provider/native/plugin/config-rpcs";
import { allRegistered } from "../helpers/mocks";
import { ROOT } from "../helpers/spawn";

interface Spec {
  inputProperties?: Record<string, { description?: string }>;
  properties?: Record<string, { description?: string }>;
  inputs?: { properties: Record<string, { description?: string }> };
  outputs?: { properties: Record<string, { description?: string }> };
  description?: string;
}
const schema = JSON.parse(readFileSync(join(ROOT, "schema.json"), "utf8")) as {
  name: string;
  config: { variables: Record<string, { description?: string; secret?: boolean }> };
  provider: Spec;
  resources: Record<string, Spec>;
  functions: Record<string, Spec>;
};
const sorted = (o: object | undefined) => Object.keys(o ?? {}).sort();

test("schema.json is valid against Pulumi's package metaschema", () => {
  const metaschema = JSON.parse(
    // Pulumi's pkg/codegen/schema/pulumi.json, vendored so the check runs anywhere.
    readFileSync(join(__dirname, "fixtures", "pulumi-package-metaschema.json"), "utf8"),
  );
  const validate = new Ajv2020({ strict: false, allErrors: true, logger: false }).compile(metaschema);
  const valid = validate(schema);
  expect(validate.errors ?? []).toEqual([]);
  expect(valid).toBe(true);
  // The validator is not vacuous: a broken copy fails it.
  expect(validate({ ...schema, name: "not a name!" })).toBe(false);
});

test("every resource, function and config property has a description", () => {
  const missing: string[] = [];
  const each = (where: string, props: Record<string, { description?: string }> | undefined) => {
    for (const [k, v] of Object.entries(props ?? {})) if (!v.description) missing.push(`${where}.${k}`);
  };
  each("config", schema.config.variables);
  each("provider", schema.provider.inputProperties);
  for (const [t, r] of Object.entries(schema.resources)) {
    if (!r.description) missing.push(t);
    each(`${t}.inputs`, r.inputProperties);
    each(`${t}.outputs`, r.properties);
  }
  for (const [t, f] of Object.entries(schema.functions)) {
    if (!f.description) missing.push(t);
    each(`${t}.inputs`, f.inputs?.properties);
    each(`${t}.outputs`, f.outputs?.properties);
  }
  expect(missing).toEqual([]);
});

test("the schema and the plugin agree on tokens and property names", () => {
  expect(schema.name).toBe("secops");
  const served = Object.fromEntries(
    RESOURCES.map(({ definition: d }) => [d.token, nativeResource(d.token)!]),
  );
  expect(sorted(schema.resources)).toEqual(sorted(served));
  for (const [token, r] of Object.entries(served)) {
    expect([token, sorted(schema.resources[token].inputProperties)]).toEqual([token, [...r.inputs].sort()]);
    expect([token, sorted(schema.resources[token].properties)]).toEqual([token, [...r.outputs].sort()]);
  }
  expect(sorted(schema.functions)).toEqual(sorted(NATIVE_FUNCTIONS));
  for (const [token, f] of Object.entries(NATIVE_FUNCTIONS))
    expect([token, sorted(schema.functions[token].inputs?.properties)]).toEqual([token, [...f.args].sort()]);
  expect(sorted(schema.config.variables)).toEqual([...CONFIG_PROPERTIES].sort());
  expect(sorted(schema.provider.inputProperties)).toEqual([...CONFIG_PROPERTIES].sort());
  expect(schema.config.variables.apiKey.secret).toBe(true);
});

describe("the SDK agrees with the schema (under setMocks)", () => {
  const registered: Array<{ type: string; inputs: Record<string, unknown>; provider?: string }> = [];
  const invoked: Array<{ token: string; inputs: Record<string, unknown>; provider?: string }> = [];
  beforeAll(async () => {
    await pulumi.runtime.setMocks(
      {
        newResource: (a) => {
          registered.push({ type: a.type, inputs: a.inputs, provider: a.provider });
          const props = schema.resources[a.type]?.properties ?? {};
          return {
            id: `${a.name}-id`,
            state: { ...Object.fromEntries(Object.keys(props).map((k) => [k, null])), ...a.inputs },
          };
        },
        call: (a) => {
          invoked.push({ token: a.token, inputs: a.inputs, provider: a.provider });
          return {};
        },
      },
      "sdk",
      "dev",
      false,
    );
  });

  test("resources register their tokens with the schema's inputs and expose every output", async () => {
    const provider = new native.Provider("team", {
      apiKey: "key-123456789",
      baseUrl: "https://api.example.com",
    });
    const rule = new native.HvaAutomationRule(
      "r",
      { field: "name", search: "dc-*", enabled: true, adoptExisting: false },
      { provider },
    );
    const user = new native.DirectoryUserSettings(
      "u",
      {
        directoryUserId: "du-1",
        needsChatOpsWelcome: true,
        chatOpsOnboardingUser: false,
        credentialsExposed: false,
        restoreOnDelete: true,
      },
      { provider },
    );
    await allRegistered(provider, rule, user);
    const byType = (t: string) => registered.find((x) => x.type === t)!;
    expect(sorted(byType("pulumi:providers:secops").inputs)).toEqual([...CONFIG_PROPERTIES].sort());
    for (const [token, resource] of [
      ["secops:index:HvaAutomationRule", rule],
      ["secops:index:DirectoryUserSettings", user],
    ] as const) {
      expect(sorted(byType(token).inputs)).toEqual(sorted(schema.resources[token].inputProperties));
      expect(byType(token).provider).toMatch(/^urn:pulumi:dev::sdk::pulumi:providers:secops::team::/);
      for (const k of sorted(schema.resources[token].properties))
        expect([k, pulumi.Output.isInstance((resource as unknown as Record<string, unknown>)[k])]).toEqual([
          k,
          true,
        ]);
    }
  });

  test("functions invoke the schema's tokens with its argument names, through the given provider", async () => {
    const provider = new native.Provider("fn", {});
    await native.getIdentity({ provider });
    await native.getIntegrationCount({ includeDisabled: true, healthStatus: ["healthy"] }, { provider });
    await native.getCaseThreatIndicators({ caseId: "case-001", sortDirection: "asc" });
    const out = native.getCaseThreatIndicatorsOutput({ caseId: pulumi.output("case-002") });
    await new Promise((resolve) => out.apply(resolve));
    expect(invoked.map((i) => i.token)).toEqual([
      "secops:index:getIdentity",
      "secops:index:getIntegrationCount",
      "secops:index:getCaseThreatIndicators",
      "secops:index:getCaseThreatIndicators",
    ]);
    for (const i of invoked)
      for (const k of Object.keys(i.inputs)) expect(NATIVE_FUNCTIONS[i.token].args).toContain(k);
    expect(invoked[0].provider).toMatch(/pulumi:providers:secops::fn::/);
    expect(invoked[3].inputs).toEqual({ caseId: "case-002" });
  });
});
