/**
 * Data sources through the real engine: examples/data-sources (the package root's functions, with
 * the stack's config) and the native plugin's invokes through an explicit provider
 * (programs/invokes.js), in preview: their values are known then, and the stack outputs preview
 * prints are the simulator's. Nothing is written. (An up runs the same program; the outputs it
 * records, from getIdentity through explicit providers: cli-multi-team.test.ts.)
 */
import { join } from "node:path";
import { createSimulator, type Simulator } from "secops-sim";
import { writes } from "../helpers/sim-counts";
import { engineStack, type EngineStack } from "../helpers/pulumi-stack";
import { ROOT, built } from "../helpers/spawn";

jest.setTimeout(240_000);
built("plugin/pulumi-resource-secops.js");
let sim: Simulator;
const stacks: EngineStack[] = [];

/**
 * The stack outputs a preview printed (its "Outputs:" section): a scalar as its JSON value, a list
 * as its items' lines.
 */
function printedOutputs(stdout: string): Record<string, unknown> {
  const section = stdout.slice(stdout.indexOf("\nOutputs:\n"), stdout.indexOf("\nResources:\n"));
  const outputs: Record<string, unknown> = {};
  let list: string[] | undefined;
  for (const line of section.split("\n").slice(2)) {
    const item = /^ {8}\[\d+\]: (.*)$/.exec(line);
    if (list && item) list.push(item[1]);
    const named = /^ {4}(\w+)\s*: (.*)$/.exec(line);
    if (!named) continue;
    list = named[2] === "[" ? [] : undefined;
    outputs[named[1]] = list ?? JSON.parse(named[2]);
  }
  return outputs;
}

beforeAll(async () => {
  sim = await createSimulator({ seed: 404 });
});
afterAll(async () => {
  for (const s of stacks) s.remove();
  await sim?.close();
});

test("examples/data-sources: the package root's functions answer in preview; nothing is written", async () => {
  const s = await engineStack("data-sources", join(ROOT, "examples", "data-sources", "index.ts"));
  stacks.push(s);
  await s.config("secops:apiKey", sim.apiKeys.admin, true);
  await s.config("secops:baseUrl", sim.url);
  await sim.control.resetStats();
  const preview = await s.op("preview");
  expect(preview.ok).toBe(true);
  const outputs = printedOutputs(preview.stdout);
  expect(outputs).toMatchObject({ role: "ADMIN", indicatorCount: expect.any(Number) });
  expect(outputs.unhealthyIntegrations).toEqual(expect.any(Number));
  expect((outputs.latestIndicators as string[]).length).toBeGreaterThan(0);
  expect(await writes(sim)).toBe(0);
});

test("the plugin's invokes through explicit providers, one per team, in preview", async () => {
  const s = await engineStack("invokes", join(__dirname, "programs", "invokes.js"));
  stacks.push(s);
  await s.config("baseUrl", sim.url);
  await s.config("c1ApiKey", sim.apiKeys.client1Admin, true);
  await s.config("c2ApiKey", sim.apiKeys.client2Admin, true);
  await sim.control.resetStats();
  const preview = await s.op("preview");
  expect(preview.ok).toBe(true);
  const outputs = printedOutputs(preview.stdout);
  expect(outputs).toMatchObject({ c1: "team-client-1 ADMIN", c2: "team-client-2 ADMIN" });
  expect(outputs.c1Integrations).toEqual(expect.any(Number));
  expect(await writes(sim)).toBe(0);
});
