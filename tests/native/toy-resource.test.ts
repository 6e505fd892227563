/**
 * A third resource added as docs/adding-a-resource.md says, over a route the client and the simulator
 * already serve: a definition and an implementation (tests/fixtures/toy-resource.ts) and one
 * registration. From them alone come its schema entry, its SDK classes, its Check, its plugin RPCs
 * (Check, Diff, Create, Read, import, List) and its drift report, through the client and the simulator.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import Ajv2020 from "ajv/dist/2020";
import * as pulumi from "@pulumi/pulumi";
import * as ts from "typescript";
import type * as providerPb from "@pulumi/pulumi/proto/provider_pb";
import { createSimulator, type Simulator } from "secops-sim";
import { driftReport, formatDrift } from "pulumi-secops/drift";
import { argsModule, dynamicClass, nativeClass, resourceSchema } from "../../scripts/codegen";
import { checkInputs, type ResourceDefinition } from "../../provider/resources/framework/definition";
import { RESOURCES, type RegisteredResource } from "../../provider/resources/framework/registry";
import { listPage } from "../../provider/resources/framework/listing";
import { ProviderInstance } from "../../provider/native/plugin/instance";
import * as rpc from "../../provider/native/plugin/resource-rpcs";
import { fromStruct, proto, toStruct } from "../../provider/native/plugin/proto";
import { ROOT } from "../helpers/spawn";
import { ToyWelcomeImpl, definition } from "../fixtures/toy-resource";

const toy = definition as unknown as ResourceDefinition<never>;
const URN = "urn:pulumi:dev::toy::secops:index:ToyWelcome::ada";
let sim: Simulator;
let instance: ProviderInstance;
/** A directory user of team-client-1 (the key's team), the toy's object. */
let user: string;

beforeAll(async () => {
  // The one registration line (resources/framework/registry.ts), made here so the toy is never shipped.
  const registered: RegisteredResource = { definition: toy, make: (ctx) => new ToyWelcomeImpl(ctx) as never };
  (RESOURCES as RegisteredResource[]).push(registered);
  sim = await createSimulator({ seed: 5 });
  instance = new ProviderInstance(() => undefined);
  instance.configure({ apiKey: sim.apiKeys.client1Admin, baseUrl: sim.url }, () => undefined);
  user = String((await sim.control.state()).users.find((u) => u.teamId === "team-client-1")!.id);
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
    requiredInputs: ["userId"],
    inputProperties: { userId: { type: "string", replaceOnChanges: true } },
    listInputs: { properties: { welcome: { type: "boolean" } } },
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
  const dirExists = host.directoryExists?.bind(host);
  host.directoryExists = (d) =>
    Object.keys(files).some((f) => f.startsWith(`${d}/`)) || (dirExists?.(d) ?? true);
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
      [join(ROOT, "provider/native/toy-welcome.ts")]: native,
      [join(ROOT, "provider/dynamic/toy-welcome.ts")]: dynamic,
      [join(ROOT, "provider/resources/toy-welcome/args.ts")]: argsModule(toy),
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
  expect(dynamic).toContain('shim("pulumi-secops/resources/toy-welcome")');
  const { ToyWelcome } = loadNative(native);
  expect(() => new ToyWelcome("x", { userid: "du-1" })).toThrow(
    'secops.ToyWelcome "x": userid is not an argument of secops.ToyWelcome; did you mean userId?',
  );
  expect(() => new ToyWelcome("x", {})).toThrow(
    `Missing required property 'userId' of secops.ToyWelcome "x"`,
  );
  new ToyWelcome("ada", { userId: "du-1" });
  await new Promise((r) => setImmediate(r));
  expect(registered).toEqual([{ type: "secops:index:ToyWelcome", inputs: { userId: "du-1" } }]);
});

test("Check: its own rules and messages, from the definition", () => {
  expect(checkInputs(toy, { userId: "du-1" })).toEqual({
    inputs: { userId: "du-1", welcome: true },
    failures: [],
  });
  expect(checkInputs(toy, { usrId: "x", welcome: "yes", userId: "a".repeat(65) }).failures).toEqual([
    { property: "usrId", reason: "usrId is not an input of ToyWelcome; did you mean userId?" },
    { property: "userId", reason: "userId is 65 characters long; the limit is 64" },
    { property: "welcome", reason: "welcome must be a boolean" },
  ]);
});

/** A request message with its fields set (Structs for bags). */
function req<T>(Type: new () => T, fields: Record<string, unknown>): T {
  const m = new Type() as Record<string, (v: unknown) => void>;
  for (const [k, v] of Object.entries(fields))
    m[`set${k[0].toUpperCase()}${k.slice(1)}`](typeof v === "object" ? toStruct(v) : v);
  return m as T;
}

test("plugin: Check, Create, Diff, Read (import) and List serve the toy, with what the definition derives", async () => {
  const { provider } = proto();
  const checked = await rpc.check(
    instance,
    req(provider.CheckRequest, { urn: URN, olds: {}, news: { userId: user } }),
  );
  expect(checked.getFailuresList()).toEqual([]);
  const inputs = fromStruct(checked.getInputs());
  expect(inputs).toEqual({ userId: user, welcome: true });
  const made = await rpc.create(instance, req(provider.CreateRequest, { urn: URN, properties: inputs }));
  expect(made.getId()).toBe(user);
  // The outputs come from the API's object by the definition's `api` names (id, needsChatOpsWelcome).
  const state = fromStruct(made.getProperties());
  expect(state).toEqual({ userId: user, welcome: true, teamId: "team-client-1" });
  const diff = (news: Record<string, unknown>): Promise<providerPb.DiffResponse> =>
    rpc.diff(instance, req(provider.DiffRequest, { id: user, urn: URN, olds: state, news }));
  expect((await diff({ ...inputs, userId: "du-other" })).getReplacesList()).toEqual(["userId"]);
  expect((await diff({ ...inputs, welcome: false })).getChanges()).toBe(
    provider.DiffResponse.DiffChanges.DIFF_SOME,
  );
  expect((await diff(inputs)).getChanges()).toBe(provider.DiffResponse.DiffChanges.DIFF_NONE);
  // Import: the inputs that are outputs read from the API, at their current values.
  const imported = await rpc.read(instance, req(provider.ReadRequest, { id: user, urn: URN }));
  expect(fromStruct(imported.getInputs())).toEqual({ userId: user, welcome: true });
  const client = await instance.client();
  const query = { token: toy.token, query: { welcome: true }, limit: 0, pageSize: 0, continuation: "" };
  const page = await listPage(client, query);
  expect(page.results.map((r) => r.id)).toContain(user);
});

test("drift: a toy changed out of band is reported with its definition's fields and advice", async () => {
  const id = user;
  await sim.control.patchUser(id, { needsChatOpsWelcome: false });
  const report = await driftReport(
    [{ kind: "ToyWelcome", urn: URN, id, teamId: "team-client-1", outputs: { userId: id, welcome: true } }],
    { baseUrl: sim.url, keys: [{ name: "C1_KEY", key: sim.apiKeys.client1Admin }] },
  );
  const team = report.teams.find((t) => t.teamId === "team-client-1")!;
  expect(team.drifted).toEqual([{ id, urn: URN, fields: { welcome: { state: true, live: false } } }]);
  expect(formatDrift(report, "table")).toContain("pulumi up --refresh sets it back");
});
