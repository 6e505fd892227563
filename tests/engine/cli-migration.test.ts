/**
 * docs/native-provider.md's move from dynamic to native resources, through the real engine: a stack
 * made with the dynamic resources, then the doc's native program word for word (with its aliases):
 * the engine plans each resource as `same` under its new type and no request that writes reaches the
 * simulator; removing the aliases after that, none either.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createSimulator, type Simulator } from "secops-sim";
import { engineStack, type EngineStack } from "../helpers/pulumi-stack";
import { rules, writes } from "../helpers/sim-counts";
import { ROOT, built } from "../helpers/spawn";

jest.setTimeout(300_000);
built("plugin/pulumi-resource-secops.js");
let sim: Simulator;
let s: EngineStack;

/** The TypeScript block of the "Moving from dynamic to native" section. */
function docProgram(): string {
  const doc = readFileSync(join(ROOT, "docs", "native-provider.md"), "utf8");
  const block = /```ts\n([^]*?)```/.exec(doc.slice(doc.indexOf("## Moving from dynamic to native")));
  if (!block) throw new Error("docs/native-provider.md has no program in its migration section");
  return block[1];
}
const users = async () => JSON.stringify((await sim.control.state()).users);

beforeAll(async () => {
  sim = await createSimulator({ seed: 409 });
  s = await engineStack("migration", join(__dirname, "programs", "dynamic-both.ts"));
  await s.config("secops:apiKey", sim.apiKeys.admin, true);
  await s.config("secops:baseUrl", sim.url);
});
afterAll(async () => {
  s?.remove();
  await sim?.close();
});

test("the doc's aliases move a dynamic stack to native resources: every resource same, no write; without them afterwards, no write", async () => {
  expect(await s.op("up")).toMatchObject({ ok: true, summary: { create: 3 } });
  const before = await rules(sim);
  const beforeUsers = await users();
  const types = async () =>
    (
      JSON.parse((await s.pulumi(["stack", "export"])).stdout) as {
        deployment: { resources: Array<{ type: string }> };
      }
    ).deployment.resources
      .map((r) => r.type)
      .sort();
  expect(await types()).toEqual(
    [
      "pulumi-nodejs:dynamic/secops:DirectoryUserSettings",
      "pulumi-nodejs:dynamic/secops:HvaAutomationRule",
      "pulumi:providers:pulumi-nodejs",
      "pulumi:pulumi:Stack",
    ].sort(),
  );

  writeFileSync(s.program, docProgram());
  await sim.control.resetStats();
  const moved = await s.op("up");
  expect(moved.ok).toBe(true);
  // The two resources and the stack are `same`; only providers come and go (no API call).
  expect(moved.summary).toMatchObject({ same: 3 });
  expect(moved.summary).not.toHaveProperty("replace");
  expect(moved.summary).not.toHaveProperty("update");
  expect(await writes(sim)).toBe(0);
  expect(await rules(sim)).toEqual(before);
  expect(await users()).toEqual(beforeUsers);
  expect(await types()).toEqual(
    [
      "secops:index:DirectoryUserSettings",
      "secops:index:HvaAutomationRule",
      "pulumi:providers:secops",
      "pulumi:pulumi:Stack",
    ].sort(),
  );

  // The aliases removed, as the doc says to after that up: nothing changes.
  writeFileSync(s.program, docProgram().replace(/,\s*\{\s*aliases: \[[^\]]*\],?\s*\}/g, ""));
  const after = await s.op("up");
  expect(after.summary).toEqual({ same: 3 });
  expect(await writes(sim)).toBe(0);
  expect(await rules(sim)).toEqual(before);
});
