/**
 * Issue 53, adoption advice that fits the stack, through the real engine: one team managed by two
 * stacks, `apps` (native resources) and `network` (dynamic ones), and a rule made by hand. Each
 * stack's `secops drift`, given the other's export too, reports the other's rule as "managed by" it
 * (never unmanaged, never to adopt), and advises the hand-made rule in the stack's own terms: a
 * `pulumi import` line for `apps`, the `adoptExisting: true` declaration for `network`. That
 * declaration, pasted into `network`'s program, adopts the rule on the next `up` without a second
 * rule; the team's rules are counted after every step.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SecOpsClient } from "pulumi-secops/client";
import type { DriftReport, TeamDrift } from "pulumi-secops/drift";
import { createSimulator, type Simulator } from "secops-sim";
import { rules, writes } from "../helpers/sim-counts";
import { engineStack, type EngineStack } from "../helpers/pulumi-stack";
import { built, run } from "../helpers/spawn";

jest.setTimeout(300_000);
built("plugin/pulumi-resource-secops.js");
const SECOPS = built("cli/secops.js");
const TEAM = "team-acme";
let sim: Simulator;
let apps: EngineStack;
let network: EngineStack;
let work: string;

const APPS = `import * as secops from "pulumi-secops/native";
new secops.HvaAutomationRule("app-web", { field: "name", search: "st-app-web-*" });
`;
const NETWORK = `import * as secops from "pulumi-secops";
new secops.HvaAutomationRule("net-dc", { field: "name", search: "st-net-dc-*" });
`;

beforeAll(async () => {
  sim = await createSimulator({ seed: 5354 });
  work = mkdtempSync(join(tmpdir(), "secops-drift-stacks-"));
  const empty = join(work, "index.ts");
  writeFileSync(empty, "export {};\n");
  apps = await engineStack("apps", empty);
  network = await engineStack("network", empty);
  for (const s of [apps, network]) {
    await s.config("secops:apiKey", sim.apiKeys.admin, true);
    await s.config("secops:baseUrl", sim.url);
  }
});
afterAll(async () => {
  apps?.remove();
  network?.remove();
  await sim?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** Writes a stack's program (the TypeScript file its operations evaluate). */
const program = (s: EngineStack, text: string) => writeFileSync(s.program, text);

/** `secops drift --state <mine> --state <other>` as JSON: this team's findings. */
async function drift(mine: string, other: string): Promise<TeamDrift> {
  const res = await run(SECOPS, ["drift", "--state", mine, "--state", other, "--format", "json"], {
    SECOPS_API_KEY: sim.apiKeys.admin,
    SECOPS_BASE_URL: sim.url,
  });
  expect(res.stderr).toBe("");
  return (JSON.parse(res.stdout) as DriftReport).teams.find((t) => t.teamId === TEAM)!;
}

test("each stack's drift: the other's rule is managed by it; the hand-made rule is advised as the stack adopts; the dynamic advice adopts it", async () => {
  const before = await rules(sim);
  program(apps, APPS);
  program(network, NETWORK);
  expect((await apps.op("up")).ok).toBe(true);
  expect((await network.op("up")).ok).toBe(true);
  const api = new SecOpsClient({ apiKey: sim.apiKeys.admin, baseUrl: sim.url });
  const hand = (await api.createHvaRule({ field: "name", search: "st-hand-*" })).id;
  await api.close();
  const deployed = [
    ...before,
    `${TEAM} st-app-web-* true`,
    `${TEAM} st-net-dc-* true`,
    `${TEAM} st-hand-* true`,
  ].sort();
  expect(await rules(sim)).toEqual(deployed);

  const appsFile = join(apps.dir, "stack.json");
  const networkFile = join(network.dir, "stack.json");
  expect((await apps.pulumi(["stack", "export", "--file", appsFile])).code).toBe(0);
  expect((await network.pulumi(["stack", "export", "--file", networkFile])).code).toBe(0);
  const ids = (file: string) =>
    (JSON.parse(readFileSync(file, "utf8")).deployment.resources as Array<{ urn: string; id?: string }>)
      .filter((r) => /HvaAutomationRule::/.test(r.urn))
      .map((r) => r.id);
  const [appWeb] = ids(appsFile);
  const [netDc] = ids(networkFile);

  await sim.control.resetStats();
  const fromApps = await drift(appsFile, networkFile);
  expect(fromApps.otherStacks.map((o) => [o.id, o.stack])).toEqual([[netDc, "network/dev"]]);
  expect(fromApps.unmanaged.map((u) => u.id)).not.toContain(netDc);
  expect(fromApps.unmanaged.find((u) => u.id === hand)?.import).toBe(
    `pulumi import secops:index:HvaAutomationRule st-hand ${hand}`,
  );
  expect(fromApps.inSync.map((r) => r.id)).toEqual([appWeb]);
  expect(fromApps.adopt).toBeUndefined(); // the export line would offer network's rule

  const fromNetwork = await drift(networkFile, appsFile);
  expect(fromNetwork.otherStacks.map((o) => [o.id, o.stack])).toEqual([[appWeb, "apps/dev"]]);
  expect(fromNetwork.unmanaged.map((u) => u.id)).not.toContain(appWeb);
  const advice = fromNetwork.unmanaged.find((u) => u.id === hand)!.import;
  expect(advice).toBe(
    'new secops.HvaAutomationRule("st-hand", { field: "name", search: "st-hand-*", enabled: true, adoptExisting: true })',
  );
  expect(fromNetwork.unmanaged.filter((u) => u.import.startsWith("pulumi import"))).toEqual([]);
  expect(await writes(sim)).toBe(0);

  // The advice as written, in network's program: the next up takes the rule over, no second one.
  program(network, `${NETWORK}${advice};\n`);
  const adopted = await network.op("up");
  expect({ ok: adopted.ok, summary: adopted.summary }).toEqual({ ok: true, summary: { create: 1, same: 2 } });
  expect(await rules(sim)).toEqual(deployed);
  expect((await network.pulumi(["stack", "export", "--file", networkFile])).code).toBe(0);
  expect(ids(networkFile)).toContain(hand);
  const after = await drift(networkFile, appsFile);
  expect(after.unmanaged.map((u) => u.id)).not.toContain(hand);
  expect(after.inSync.map((r) => r.id).sort()).toEqual([hand, netDc].sort());

  for (const s of [apps, network]) {
    program(s, "");
    expect((await s.op("destroy")).ok).toBe(true);
  }
  // The adopted rule is network's now: its destroy deleted it with the rest.
  expect(await rules(sim)).toEqual(before);
});
