/**
 * `pulumi-secops/native` has the public shape `pulumi package gen-sdk` gives a Node.js SDK of
 * schema.json, member by member: a class per resource with `__pulumiType`, `isInstance`, `get` and
 * an Output per schema property; the required-input check; `getX` and `getXOutput` per function; the
 * package version (and pluginDownloadURL when declared) as default options that reach the engine; the
 * package.json `pulumi` field; and schema `version` and language sections.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as pulumi from "@pulumi/pulumi";
import * as native from "pulumi-secops/native";
import { VERSION } from "pulumi-secops";
import { requireInputs, resourceOptsDefaults } from "../../provider/native/utilities";
import { allRegistered } from "../helpers/mocks";
import { ROOT } from "../helpers/spawn";

interface Spec {
  properties?: Record<string, unknown>;
  inputProperties?: Record<string, unknown>;
  requiredInputs?: string[];
}
const schema = JSON.parse(readFileSync(join(ROOT, "schema.json"), "utf8")) as {
  name: string;
  version: string;
  provider: Spec;
  resources: Record<string, Spec>;
  functions: Record<string, unknown>;
  language: Record<string, Record<string, unknown>>;
};
const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
const exported = native as unknown as Record<string, unknown>;
const nameOf = (token: string) => token.split(":")[2];
const sorted = (a: Iterable<string>) => [...a].sort();

/** What reached the engine: each registration's and invoke's version and download URL. */
const seen: Array<{ what: string; version: string; url: string }> = [];
beforeAll(async () => {
  await pulumi.runtime.setMocks(
    {
      newResource: (args) => ({ id: `${args.name}-id`, state: args.inputs }),
      call: () => ({}),
    },
    "project",
    "stack",
    true,
  );
  type Req = { getVersion(): string; getPlugindownloadurl(): string };
  const monitor = pulumi.runtime.getMonitor() as unknown as Record<
    string,
    (req: Req, cb: unknown) => unknown
  >;
  for (const [method, label] of [
    ["registerResource", (r: Req) => (r as unknown as { getType(): string }).getType()],
    ["invoke", (r: Req) => (r as unknown as { getTok(): string }).getTok()],
  ] as const) {
    const original = monitor[method].bind(monitor);
    monitor[method] = (req, cb) => {
      seen.push({ what: label(req), version: req.getVersion(), url: req.getPlugindownloadurl() });
      return original(req, cb);
    };
  }
});

/**
 * The Output members of an instance. A generated class registers its inputs and its schema properties,
 * and the SDK makes an Output of each key it registers: their union, nothing else.
 */
function outputMembers(resource: object): string[] {
  return Object.entries(resource)
    .filter(([k, v]) => pulumi.Output.isInstance(v) && k !== "urn" && k !== "id")
    .map(([k]) => k);
}

test("the module exports a class per resource, the Provider, and getX and getXOutput per function", () => {
  const functions = Object.keys(schema.functions).flatMap((t) => [nameOf(t), `${nameOf(t)}Output`]);
  expect(sorted(Object.keys(exported))).toEqual(
    sorted(["Provider", ...Object.keys(schema.resources).map(nameOf), ...functions]),
  );
  for (const f of functions) expect(typeof exported[f]).toBe("function");
});

describe.each(Object.keys(schema.resources))("%s", (token) => {
  type Class = {
    new (name: string, args: unknown, opts?: pulumi.CustomResourceOptions): pulumi.CustomResource;
    __pulumiType: string;
    isInstance(o: unknown): boolean;
    get(name: string, id: string, opts?: pulumi.CustomResourceOptions): pulumi.CustomResource;
  };
  const cls = exported[nameOf(token)] as Class;
  const spec = schema.resources[token];
  const args = Object.fromEntries((spec.requiredInputs ?? []).map((k) => [k, "x"]));

  test("__pulumiType, get (name, id, opts) and isInstance as generated", () => {
    expect(cls.__pulumiType).toBe(token);
    expect(cls.get.length).toBe(3);
    const made = new cls(`shape-${nameOf(token)}`, args);
    expect(cls.isInstance(made)).toBe(true);
    const other = Object.keys(schema.resources).find((t) => t !== token)!;
    const otherArgs = Object.fromEntries((schema.resources[other].requiredInputs ?? []).map((k) => [k, "x"]));
    expect(cls.isInstance(new (exported[nameOf(other)] as Class)(`other-${nameOf(token)}`, otherArgs))).toBe(
      false,
    );
    expect([cls.isInstance(undefined), cls.isInstance(null), cls.isInstance({})]).toEqual([
      false,
      false,
      false,
    ]);
  });

  test("an Output per schema property and input (per property when read by id), and no other", () => {
    const members = sorted(
      new Set([...Object.keys(spec.properties ?? {}), ...Object.keys(spec.inputProperties ?? {})]),
    );
    expect(sorted(outputMembers(new cls(`outputs-${nameOf(token)}`, args)))).toEqual(members);
    // Read by id, a generated class registers its schema properties only.
    expect(sorted(outputMembers(cls.get(`got-${nameOf(token)}`, "some-id")))).toEqual(
      sorted(Object.keys(spec.properties ?? {})),
    );
  });

  test("each required input is checked as generated constructors do", () => {
    for (const missing of spec.requiredInputs ?? []) {
      const partial = { ...args, [missing]: undefined };
      expect(() => new cls(`missing-${missing}`, partial)).toThrow(
        `Missing required property '${missing}' of secops.${nameOf(token)} "missing-${missing}"`,
      );
    }
    // A resource read by id, or rehydrated by URN, needs no inputs.
    expect(() =>
      requireInputs(
        { type: `secops.${nameOf(token)}`, known: [], required: spec.requiredInputs ?? [] },
        "n",
        undefined,
        { urn: `urn:pulumi:s::p::${token}::n` },
      ),
    ).not.toThrow();
    expect(() => cls.get(`by-id-${nameOf(token)}`, "some-id")).not.toThrow();
  });
});

test("Provider: the package name as __pulumiType, isInstance, an Output per schema property and input", () => {
  expect(native.Provider.__pulumiType).toBe(schema.name);
  const p = new native.Provider("shape-provider", { baseUrl: "http://127.0.0.1:1" });
  expect(native.Provider.isInstance(p)).toBe(true);
  expect(
    native.Provider.isInstance(new native.HvaAutomationRule("not-provider", { field: "f", search: "s" })),
  ).toBe(false);
  const { properties = {}, inputProperties = {} } = schema.provider;
  expect(sorted(outputMembers(p))).toEqual(
    sorted(new Set([...Object.keys(properties), ...Object.keys(inputProperties)])),
  );
});

test("every registration and invoke carries the package version by default; an explicit one wins", async () => {
  seen.length = 0;
  const made = [
    new native.HvaAutomationRule("versioned", { field: "name", search: "v-*" }),
    new native.DirectoryUserSettings("versioned-user", { directoryUserId: "du-1" }),
    new native.Provider("versioned-provider", {}),
    new native.HvaAutomationRule("pinned", { field: "name", search: "p-*" }, { version: "9.9.9" }),
  ];
  await native.getIdentity();
  await native.getIntegrationCount({});
  await native.getCaseThreatIndicators({ caseId: "c" });
  await allRegistered(...made, native.getIdentityOutput());
  const v = (what: string) => seen.filter((s) => s.what === what).map((s) => s.version);
  expect(v("secops:index:HvaAutomationRule")).toEqual([VERSION, "9.9.9"]);
  expect(v("secops:index:DirectoryUserSettings")).toEqual([VERSION]);
  expect(v("pulumi:providers:secops")).toEqual([VERSION]);
  expect(v("secops:index:getIdentity")).toEqual([VERSION, VERSION]);
  expect(v("secops:index:getIntegrationCount")).toEqual([VERSION]);
  expect(v("secops:index:getCaseThreatIndicators")).toEqual([VERSION]);
  // No download URL is declared (package.json has no pulumi.server), so none is sent.
  expect(new Set(seen.map((s) => s.url))).toEqual(new Set([""]));
  expect(resourceOptsDefaults({ server: "https://plugins.example.com/secops" })).toEqual({
    version: VERSION,
    pluginDownloadURL: "https://plugins.example.com/secops",
  });
});

test("package.json declares the plugin for the language host; schema.json has its version and language sections", () => {
  expect(manifest.pulumi).toEqual({ resource: true, name: schema.name, version: manifest.version });
  expect(schema.version).toBe(manifest.version);
  expect(sorted(Object.keys(schema.language))).toEqual(["csharp", "go", "java", "nodejs", "python"]);
  expect(schema.language.nodejs.packageName).toBe(`${manifest.name}/native`);
  expect(schema.language.python.packageName).toBe("pulumi_secops");
  expect(schema.language.go.importBasePath).toMatch(/\/sdk\/go\/secops$/);
  expect(schema.language.csharp.namespaces).toEqual({ secops: "SecOps" });
  expect(schema.language.java.basePackage).toBe("com.secops");
});
