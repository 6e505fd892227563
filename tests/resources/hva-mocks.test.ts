/** The HvaAutomationRule program wiring under setMocks: type token, inputs, the serialized shim. */
import { HvaAutomationRule } from "pulumi-secops";
import { installMocks, valueOf } from "../helpers/mocks";

const KEY = "simkey_mocks_should_never_be_serialized";

test("type token, inputs, outputs and a thin serialized shim", async () => {
  process.env.SECOPS_API_KEY = KEY;
  const seen = await installMocks({ "secops:apiKey": KEY });
  const args = { field: "name", search: "dc-*", enabled: false };
  const a = new HvaAutomationRule("dcs", args);
  const b = new HvaAutomationRule("dcs-2", args); // the same args object twice must work
  expect(await valueOf(a.search)).toBe("dc-*");
  expect(await valueOf(b.enabled)).toBe(false);
  expect(await valueOf(a.id)).toBe("dcs-id");
  expect(seen.map((s) => s.type)).toEqual([
    "pulumi-nodejs:dynamic/secops:HvaAutomationRule",
    "pulumi-nodejs:dynamic/secops:HvaAutomationRule",
  ]);
  const inputs = seen[0].inputs;
  expect(inputs).toMatchObject({ field: "name", search: "dc-*", enabled: false });
  const serialized = inputs.__provider as string;
  expect(typeof serialized).toBe("string");
  expect(serialized.length).toBeLessThanOrEqual(2048);
  expect(serialized).toContain("pulumi-secops/resources/hva-automation-rule");
  expect(serialized).not.toContain(KEY);
  expect(serialized).not.toMatch(/undici|zod|ZodObject|Agent|SecOpsClient/);
  delete process.env.SECOPS_API_KEY;
});
