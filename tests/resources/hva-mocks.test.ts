/** The HvaAutomationRule program wiring under setMocks: type token, inputs, outputs, the serialized shim. */
import { HvaAutomationRule } from "pulumi-secops";
import { installMocks, loadSerializedProvider, valueOf } from "../helpers/mocks";

const KEY = "simkey_mocks_should_never_be_serialized";
const MODULE = "pulumi-secops/resources/hva-automation-rule";

afterEach(() => {
  delete process.env.SECOPS_API_KEY;
});

test("type token, names, exact inputs, the API's output, and a thin serialized shim", async () => {
  process.env.SECOPS_API_KEY = KEY;
  // The engine answers the inputs plus what only the API sets (the owning team).
  const seen = await installMocks({ "secops:apiKey": KEY }, (inputs) => ({ ...inputs, teamId: "team-acme" }));
  const args = { field: "name", search: "dc-*", enabled: false };
  const a = new HvaAutomationRule("dcs", args);
  new HvaAutomationRule("dcs-2", args); // the same args object twice must work...
  expect(args).toEqual({ field: "name", search: "dc-*", enabled: false }); // ...and is left as it was
  // teamId is an output only: declared by the class (seeded so the engine's value reaches it), never sent.
  expect(await valueOf(a.teamId)).toBe("team-acme");
  expect(seen.map((s) => [s.type, s.name])).toEqual([
    ["pulumi-nodejs:dynamic/secops:HvaAutomationRule", "dcs"],
    ["pulumi-nodejs:dynamic/secops:HvaAutomationRule", "dcs-2"],
  ]);
  const { __provider: serialized, __secopsUrn: urn, ...inputs } = seen[0].inputs;
  expect(Object.keys(inputs).sort()).toEqual(["enabled", "field", "search"]);
  expect(inputs).toEqual(args);
  // The URN, which the dynamic host's Check is not told, for the one-object-one-resource check.
  expect(urn).toMatch(/^urn:pulumi:[^:]+::[^:]+::pulumi-nodejs:dynamic\/secops:HvaAutomationRule::dcs$/);
  const { __secopsUrn: urn2, ...inputs2 } = seen[1].inputs;
  expect(urn2).toBe(String(urn).replace(/dcs$/, "dcs-2"));
  expect(inputs2).toEqual({ __provider: serialized, ...inputs });

  // The serialized text: small, no key, none of the client's machinery, the implementation by name.
  expect(typeof serialized).toBe("string");
  const text = serialized as string;
  expect(text.length).toBeLessThanOrEqual(2048);
  expect(text).toContain(MODULE);
  expect(text).not.toContain(KEY);
  expect(text).not.toMatch(/undici|zod|ZodObject|Agent|SecOpsClient/);
});

test("the serialized shim loads the implementation by the package's name at call time, each method to its own", async () => {
  const seen = await installMocks();
  await valueOf(new HvaAutomationRule("shim", { field: "name", search: "shim-*" }).urn);
  const calls: unknown[][] = [];
  const record =
    (method: string) =>
    (...a: unknown[]) => {
      calls.push([method, ...a]);
      return `${method} answered`;
    };
  const implementation = {
    provider: {
      route: record("route"),
      diff: record("diff"),
      update: record("update"),
      delete: record("delete"),
    },
  };
  const { provider, required } = loadSerializedProvider(seen[0].inputs.__provider as string, implementation);
  expect(required).toEqual([]); // loading the provider loads nothing yet
  const news = { field: "name", search: "shim-*" };
  const olds = { field: "name", search: "old-*", enabled: true, teamId: "team-acme" };
  expect(await provider.configure!({ config: {} } as never)).toBe("route answered");
  expect(await provider.check!({}, news)).toBe("route answered");
  expect(await provider.create(news)).toBe("route answered");
  expect(await provider.read!("hva-1", olds)).toBe("route answered");
  expect(await provider.diff!("hva-1", olds, news)).toBe("diff answered");
  expect(await provider.update!("hva-1", olds, news)).toBe("update answered");
  expect(await provider.delete!("hva-1", olds)).toBe("delete answered");
  expect(calls).toEqual([
    ["route", { config: {} }],
    ["route", {}, news],
    ["route", news],
    ["route", "hva-1", olds],
    ["diff", "hva-1", olds, news],
    ["update", "hva-1", olds, news],
    ["delete", "hva-1", olds],
  ]);
  expect(new Set(required)).toEqual(new Set([MODULE]));
});
