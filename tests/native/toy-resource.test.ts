/**
 * A third resource added as docs/adding-a-resource.md says: a definition and an implementation
 * (tests/fixtures/toy-resource.ts) and one registration. From them alone come its schema entry, its
 * SDK classes, its Check, its plugin RPCs (Check, Diff, Create, Read, List) and its drift report.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import Ajv2020 from "ajv/dist/2020";
import * as pulumi from "@pulumi/pulumi";
import * as ts from "typescript";
import type * as providerPb from "@pulumi/pulumi/proto/provider_pb";
import { createSimulator, type Simulator } from "pulumi-secops/simulator";
import { driftReport, formatDrift } from "pulumi-secops/drift";
import { dynamicClass, nativeClass, resourceSchema } from "../../provider/resources/framework/codegen";
import { checkInputs, type ResourceDefinition } from "../../provider/resources/framework/definition";
import { RESOURCES, type RegisteredResource } from "../../provider/resources/framework/registry";
import { listPage } from "../../provider/resources/framework/listing";
import { ProviderInstance } from "../../provider/native/plugin/instance";
import * as rpc from "../../provider/native/plugin/resource-rpcs";
import { fromStruct, proto, toStruct } from "../../provider/native/plugin/proto";
import { ROOT } from "../helpers/spawn";
import { TOY_OBJECTS, ToyLabelImpl, definition } from "../fixtures/toy-resource";

const toy = definition as unknown as ResourceDefinition<never>;
const URN = "urn:pulumi:dev::toy::secops:index:ToyLabel::blue";
let sim: Simulator;
let instance: ProviderInstance;

beforeAll(async () => {
  // The one registration line (resources/framework/registry.ts), made here so the toy is never shipped.
  const registered: RegisteredResource = { definition: toy, make: (ctx) => new ToyLabelImpl(ctx) };
  (RESOURCES as RegisteredResource[]).push(registered);
  sim = await createSimulator({ seed: 5 });
  instance = new ProviderInstance(() => undefined);
  instance.configure({ apiKey: sim.apiKeys.client1Admin, baseUrl: sim.url }, () => undefined);
});
afterAll(async () => {
  (RESOURCES as RegisteredResource[]).splice(
    RESOURCES.indexOf(RESOURCES.find((r) => r.definition === toy)!),
    1,
  );
  await instance.close();
  await sim.close();
});

test("schema: its entry makes a package Pulumi's metaschema accepts", () => {
  const schema = JSON.parse(readFileSync(join(ROOT, "schema.json"), "utf8"));
  schema.resources[toy.token] = resourceSchema(toy);
  const metaschema = JSON.parse(
    readFileSync(join(__dirname, "fixtures", "pulumi-package-metaschema.json"), "utf8"),
  );
  const validate = new Ajv2020({ strict: false, allErrors: true, logger: false }).compile(metaschema);
  expect(validate(schema)).toBe(true);
  expect(schema.resources[toy.token]).toMatchObject({
    requiredInputs: ["label"],
    inputProperties: { label: { type: "string", replaceOnChanges: true } },
    listInputs: { properties: { active: { type: "boolean" } } },
  });
});

/** Type-checks generated sources as files of `provider/` (so their imports resolve there). */
function typeErrors(files: Record<string, string>): string[] {
  const options: ts.CompilerOptions = {
    strict: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.CommonJS,
    moduleResolution: ts.ModuleResolutionKind.Node10,
    esModuleInterop: true,
    skipLibCheck: true,
    noEmit: true,
    types: ["node"],
  };
  const host = ts.createCompilerHost(options);
  const read = host.readFile.bind(host);
  host.readFile = (f) => files[f] ?? read(f);
  const exists = host.fileExists.bind(host);
  host.fileExists = (f) => f in files || exists(f);
  const program = ts.createProgram(Object.keys(files), options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
}

/** Runs a generated native class (transpiled) with its imports from provider/native. */
function loadNative(source: string): Record<string, new (...a: unknown[]) => pulumi.CustomResource> {
  const compilerOptions = { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 };
  const js = ts.transpileModule(source, { compilerOptions }).outputText;
  const mod = { exports: {} as Record<string, never> };
  const req = (name: string) =>
    name === "./utilities" ? require("../../provider/native/utilities") : require(name);
  new Function("require", "exports", "module", js)(req, mod.exports, mod);
  return mod.exports;
}

test("SDK: a one-line description is kept as the classes' TSDoc", () => {
  const short = { ...toy, description: "A label.", id: "The label's id." } as ResourceDefinition<never>;
  for (const generated of [nativeClass(short), dynamicClass(short)])
    expect(generated).toMatch(/\/\*\*?\n? ?\*? ?A label\. The resource id is the label's id\./);
  expect(dynamicClass(short)).toContain("/**\n * A label. The resource id is the label's id.\n *\n");
});

test("SDK: the generated native and dynamic classes type-check; the native one refuses a misspelt name", async () => {
  const native = nativeClass(toy);
  const dynamic = dynamicClass(toy);
  expect(native.split("\n")[0]).toMatch(/generated .* do not edit/);
  expect(
    typeErrors({
      [join(ROOT, "provider/native/toy-label.ts")]: native,
      [join(ROOT, "provider/dynamic/toy-label.ts")]: dynamic,
    }),
  ).toEqual([]);
  const registered: Array<{ type: string; inputs: Record<string, unknown> }> = [];
  await pulumi.runtime.setMocks({
    newResource: (args) => {
      registered.push({ type: args.type, inputs: args.inputs });
      return { id: `${args.name}-id`, state: args.inputs };
    },
    call: () => ({}),
  });
  const { ToyLabel } = loadNative(native);
  expect(() => new ToyLabel("x", { labl: "blue" })).toThrow(
    "labl is not an argument of secops.ToyLabel; did you mean label?",
  );
  expect(() => new ToyLabel("x", {})).toThrow(`Missing required property 'label' of secops.ToyLabel "x"`);
  new ToyLabel("blue", { label: "blue" });
  await new Promise((r) => setImmediate(r));
  expect(registered).toEqual([{ type: "secops:index:ToyLabel", inputs: { label: "blue" } }]);
});

test("Check: its own rules and messages, from the definition", () => {
  expect(checkInputs(toy, { label: "blue" })).toEqual({
    inputs: { label: "blue", active: true },
    failures: [],
  });
  expect(checkInputs(toy, { labl: "x", active: "yes", label: "a".repeat(17) }).failures).toEqual([
    { property: "labl", reason: "labl is not an input of ToyLabel; did you mean label?" },
    { property: "label", reason: "label is 17 characters long; the limit is 16" },
    { property: "active", reason: "active must be a boolean" },
  ]);
});

/** A request message with its fields set (Structs for bags). */
function req<T>(Type: new () => T, fields: Record<string, unknown>): T {
  const m = new Type() as Record<string, (v: unknown) => void>;
  for (const [k, v] of Object.entries(fields))
    m[`set${k[0].toUpperCase()}${k.slice(1)}`](typeof v === "object" ? toStruct(v) : v);
  return m as T;
}

test("plugin: the plugin's Check, Diff, Create and Read handlers, and its listing, serve the toy", async () => {
  const { provider } = proto();
  const checked = await rpc.check(
    instance,
    req(provider.CheckRequest, { urn: URN, olds: {}, news: { label: "blue" } }),
  );
  expect(checked.getFailuresList()).toEqual([]);
  const inputs = fromStruct(checked.getInputs());
  const made = await rpc.create(instance, req(provider.CreateRequest, { urn: URN, properties: inputs }));
  const id = made.getId();
  expect(TOY_OBJECTS.get(id)).toMatchObject({ label: "blue", active: true, teamId: "team-client-1" });
  const diff: providerPb.DiffResponse = await rpc.diff(
    instance,
    req(provider.DiffRequest, {
      id,
      urn: URN,
      olds: fromStruct(made.getProperties()),
      news: { ...inputs, label: "red" },
    }),
  );
  expect(diff.getReplacesList()).toEqual(["label"]);
  const imported = await rpc.read(instance, req(provider.ReadRequest, { id, urn: URN }));
  expect(fromStruct(imported.getInputs())).toEqual({ label: "blue", active: true });
  const client = await instance.client();
  const page = await listPage(client, {
    token: toy.token,
    query: { active: true },
    limit: 0,
    pageSize: 0,
    continuation: "",
  });
  expect(page.results).toEqual([{ id, name: "blue" }]);
});

test("drift: a toy changed out of band is reported with its definition's fields and advice", async () => {
  const id = [...TOY_OBJECTS.keys()][0];
  TOY_OBJECTS.get(id)!.active = false;
  const report = await driftReport(
    [{ kind: "ToyLabel", urn: URN, id, teamId: "team-client-1", outputs: { label: "blue", active: true } }],
    { baseUrl: sim.url, keys: [{ name: "C1_KEY", key: sim.apiKeys.client1Admin }] },
  );
  const team = report.teams.find((t) => t.teamId === "team-client-1")!;
  expect(team.drifted).toEqual([{ id, urn: URN, fields: { active: { state: true, live: false } } }]);
  expect(formatDrift(report, "table")).toContain("pulumi up --refresh sets it back");
});
