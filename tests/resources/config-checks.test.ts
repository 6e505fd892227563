/**
 * The dynamic provider checks its settings where it is configured (issue 32): an unusable baseUrl or
 * apiKey, from stack config or the environment, fails the first check (so preview fails) once,
 * naming the setting and where it was set, and every call that needs the API with the same error;
 * nothing is sent.
 */
import { HvaAutomationRuleImpl } from "pulumi-secops/resources/hva-automation-rule";
import { dynamicImplementation } from "../../provider/resources/framework/shim-target";
import { createSimulator, type Simulator } from "secops-sim";
import { captureWarnings, configureRequest, asHost } from "../helpers/provider";

let sim: Simulator;
beforeAll(async () => {
  sim = await createSimulator({ seed: 12 });
});
afterAll(() => sim.close());
beforeEach(() => captureWarnings());
afterEach(() => {
  jest.restoreAllMocks();
  delete process.env.SECOPS_BASE_URL;
  delete process.env.SECOPS_API_KEY;
});

/** A fresh host's provider (the host serves one), configured with `config`. */
async function configured(config: Record<string, string>) {
  const provider = asHost(dynamicImplementation((ctx) => new HvaAutomationRuleImpl(ctx)));
  await provider.configure(configureRequest(config));
  return provider;
}

const inputs = { field: "name", search: "config-checks-*" };

/** Checks two rules and creates one: the failures of both checks, and the create's error. */
async function previewAndUp(config: Record<string, string>) {
  const rulesBefore = (await sim.control.state()).rules.length;
  await sim.control.resetStats();
  const provider = await configured(config);
  const first = await provider.check({}, inputs);
  const second = await provider.check({}, { ...inputs, search: "config-checks-2-*" });
  const created = await provider.create(first.inputs).then(
    () => "created",
    (err: Error) => err.message,
  );
  expect((await sim.control.stats()).requests).toEqual({});
  expect((await sim.control.state()).rules).toHaveLength(rulesBefore);
  return { first: first.failures, second: second.failures, created };
}

test("a stack config baseUrl over plain http fails the first check once, and the create with the same words", async () => {
  const reason =
    "secops: the stack config secops:baseUrl is not usable: baseUrl must be an https URL (plain http is allowed only for loopback hosts)";
  expect(
    await previewAndUp({ "secops:apiKey": sim.apiKeys.admin, "secops:baseUrl": "http://secops.example.com" }),
  ).toEqual({ first: [{ property: "", reason }], second: undefined, created: reason });
});

test("a baseUrl from SECOPS_BASE_URL with a path, and one that is not a URL, name the variable or the key", async () => {
  process.env.SECOPS_BASE_URL = `${sim.url}/api/v2`;
  const withPath = `secops: SECOPS_BASE_URL is not usable: baseUrl must not have a path (got "${sim.url}/api/v2"): every route would be wrong; use ${sim.url}`;
  expect(await previewAndUp({ "secops:apiKey": sim.apiKeys.admin })).toEqual({
    first: [{ property: "", reason: withPath }],
    second: undefined,
    created: withPath,
  });
  // Stack config wins over the environment, and is what is named.
  const notUrl =
    'secops: the stack config secops:baseUrl is not usable: baseUrl must be an absolute https URL such as https://api.example.com (got "http//127.0.0.1:8080")';
  expect(
    (await previewAndUp({ "secops:apiKey": sim.apiKeys.admin, "secops:baseUrl": "http//127.0.0.1:8080" }))
      .first,
  ).toEqual([{ property: "", reason: notUrl }]);
});

test("a too-short apiKey is named too, in the same one failure as a bad baseUrl", async () => {
  const reason =
    "secops: the stack config secops:apiKey is not usable: apiKey is too short to be an API key (at least 8 characters); the stack config secops:baseUrl is not usable: baseUrl must be an https URL (plain http is allowed only for loopback hosts)";
  expect(
    await previewAndUp({ "secops:apiKey": "short", "secops:baseUrl": "http://secops.example.com" }),
  ).toEqual({ first: [{ property: "", reason }], second: undefined, created: reason });
});

test("usable settings: no failure, and the create is sent", async () => {
  const provider = await configured({ "secops:apiKey": sim.apiKeys.admin, "secops:baseUrl": sim.url });
  const checked = await provider.check({}, { ...inputs, search: "config-checks-ok-*" });
  expect(checked.failures).toBeUndefined();
  const made = await provider.create(checked.inputs);
  expect((await sim.control.state()).rules.some((r) => r.id === made.id)).toBe(true);
  await provider.delete(made.id, made.outs);
});

test("a misspelt secops: key of the stack config is named with the closest key, once, and no missing-setting warning says preview works (issue 56)", async () => {
  const warnings = captureWarnings();
  const values: Record<string, string> = { "secops:apiKey": sim.apiKeys.admin, "secops:basUrl": sim.url };
  // Pulumi's dynamic-provider host hands the provider its config as `rawConfig` behind `get`.
  const req = { config: { rawConfig: values, get: (k: string) => values[k] } };
  const provider = asHost(dynamicImplementation((ctx) => new HvaAutomationRuleImpl(ctx)));
  await provider.configure(req as never);
  const reason = "secops: the stack config secops:basUrl is not a setting; did you mean secops:baseUrl?";
  expect((await provider.check({}, inputs)).failures).toEqual([{ property: "", reason }]);
  expect((await provider.check({}, inputs)).failures).toBeUndefined();
  await expect(provider.create(inputs)).rejects.toThrow(new Error(reason));
  expect(warnings).toEqual([]);
});
