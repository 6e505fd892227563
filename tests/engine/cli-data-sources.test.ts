/**
 * Data sources through the real engine: examples/data-sources (the package root's functions, with the
 * stack's config) in preview and up, and the native plugin's invokes through an explicit provider
 * (programs/invokes.js). Nothing is written; the values are the simulator's.
 */
import { join } from "node:path";
import { createSimulator, type Simulator } from "pulumi-secops/simulator";
import { writes } from "../helpers/sim-counts";
import { engineStack, type EngineStack } from "../helpers/pulumi-stack";
import { ROOT, built } from "../helpers/spawn";

jest.setTimeout(240_000);
built("plugin/pulumi-resource-secops.js");
let sim: Simulator;
const stacks: EngineStack[] = [];

beforeAll(async () => {
  sim = await createSimulator({ seed: 404 });
});
afterAll(async () => {
  for (const s of stacks) s.remove();
  await sim?.close();
});

test("examples/data-sources: the package root's functions answer in preview and up; nothing is written", async () => {
  const s = await engineStack("data-sources", join(ROOT, "examples", "data-sources", "index.ts"));
  stacks.push(s);
  await s.config("secops:apiKey", sim.apiKeys.admin, true);
  await s.config("secops:baseUrl", sim.url);
  await sim.control.resetStats();
  const preview = await s.op("preview");
  expect(preview.ok).toBe(true);
  expect(preview.stdout).toMatch(/role\s*:\s*"ADMIN"/);
  const up = await s.op("up");
  expect(up.ok).toBe(true);
  expect(up.outputs).toMatchObject({ role: "ADMIN", indicatorCount: expect.any(Number) });
  expect(up.outputs!.unhealthyIntegrations).toEqual(expect.any(Number));
  expect((up.outputs!.latestIndicators as string[]).length).toBeGreaterThan(0);
  expect(await writes(sim)).toBe(0);
});

test("the plugin's invokes through explicit providers, one per team, in preview and up", async () => {
  const s = await engineStack("invokes", join(__dirname, "programs", "invokes.js"));
  stacks.push(s);
  await s.config("baseUrl", sim.url);
  await s.config("c1ApiKey", sim.apiKeys.client1Admin, true);
  await s.config("c2ApiKey", sim.apiKeys.client2Admin, true);
  await sim.control.resetStats();
  const preview = await s.op("preview");
  expect(preview.ok).toBe(true);
  expect(preview.stdout).toContain('"team-client-1 ADMIN"');
  const up = await s.op("up");
  expect(up.outputs).toMatchObject({ c1: "team-client-1 ADMIN", c2: "team-client-2 ADMIN" });
  expect(up.outputs!.c1Integrations).toEqual(expect.any(Number));
  expect(await writes(sim)).toBe(0);
});
